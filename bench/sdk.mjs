// The official SDK v2 (@modelcontextprotocol/server 2.4.0) serving the same tools, mounted on
// Fastify the way its documentation shows: `createMcpHandler` (stateless, one server instance per
// request from a factory) through `toNodeHandler`, and a session transport
// (`NodeStreamableHTTPServerTransport`, one server and transport per 2025 session).
import { randomUUID } from 'node:crypto'
import { McpServer, createMcpHandler, isInitializeRequest } from '@modelcontextprotocol/server'
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node'
import * as z from 'zod'
import { SERVER_INFO, PATH, STREAM_TOOL, fillerName } from './workloads.mjs'

const ADD_ANNOTATIONS = Object.freeze({ readOnlyHint: true, idempotentHint: true, openWorldHint: false })
const FILLER_ANNOTATIONS = Object.freeze({ readOnlyHint: true })

function add ({ a, b, precision }) {
  const sum = a + b
  const out = { sum: precision === undefined ? sum : Number(sum.toFixed(precision)) }
  return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out }
}

function filler ({ a, b }) {
  const out = { sum: a + b }
  return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out }
}

/** The same tools as workloads.mjs, in zod, built once per process; the factory only registers them. */
function toolSpecs (count) {
  const specs = [{
    name: 'add',
    config: {
      title: 'Add two numbers',
      description: 'Adds two numbers, optionally rounding the sum to a number of decimal places',
      inputSchema: z.object({
        a: z.number().describe('The first addend'),
        b: z.number().describe('The second addend'),
        precision: z.number().int().min(0).max(10).optional().describe('Decimal places to round to')
      }),
      outputSchema: z.object({ sum: z.number() }),
      annotations: ADD_ANNOTATIONS
    },
    handler: add
  }]
  for (let i = 1; i < count; i++) {
    specs.push({
      name: fillerName(i),
      config: {
        description: `Tool ${i}: adds two numbers`,
        inputSchema: z.object({ a: z.number().describe(`First addend (tool ${i})`), b: z.number().describe(`Second addend (tool ${i})`) }),
        outputSchema: z.object({ sum: z.number() }),
        annotations: FILLER_ANNOTATIONS
      },
      handler: filler
    })
  }
  return specs
}

const stepsInput = z.object({ steps: z.number().int().min(1).max(100) })

async function steps ({ steps }, ctx) {
  const token = ctx.mcpReq._meta?.progressToken
  for (let i = 1; i <= steps; i++) {
    if (token !== undefined) {
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } })
    }
  }
  return { content: [{ type: 'text', text: `done: ${steps} steps` }] }
}

/** A factory for `count` add-like tools (plus the stream tool when `stream`). */
export function sdkFactory (count, stream = false) {
  const specs = toolSpecs(count)
  return () => {
    const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} } })
    for (const spec of specs) server.registerTool(spec.name, spec.config, spec.handler)
    if (stream) server.registerTool(STREAM_TOOL, { description: 'Reports progress for each step, then returns', inputSchema: stepsInput }, steps)
    return server
  }
}

/** The stateless SDK entry (2026-07-28 and the stateless 2025 fallback) on a Fastify route. */
export function mountSdkStateless (app, factory) {
  const handler = createMcpHandler(factory)
  const node = toNodeHandler(handler)
  app.post(PATH, async (request, reply) => {
    reply.hijack()
    await node(request.raw, reply.raw, request.body)
  })
  app.addHook('onClose', async () => { await handler.close() })
}

/** 2025 sessions with the SDK's session transport: one McpServer and transport per session. */
export function mountSdkSessions (app, factory, { json }) {
  const transports = new Map()
  const rpcError = (reply, status, code, message) => reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null })

  app.post(PATH, async (request, reply) => {
    const sessionId = request.headers['mcp-session-id']
    let transport = sessionId === undefined ? undefined : transports.get(sessionId)
    if (transport === undefined) {
      if (sessionId !== undefined) return rpcError(reply, 404, -32001, 'Session not found')
      if (!isInitializeRequest(request.body)) return rpcError(reply, 400, -32000, 'Bad Request: No valid session ID provided')
      const created = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) => { transports.set(id, created) },
        onsessionclosed: (id) => { transports.delete(id) }
      })
      created.onclose = () => { if (created.sessionId !== undefined) transports.delete(created.sessionId) }
      await factory().connect(created)
      transport = created
    }
    reply.hijack()
    await transport.handleRequest(request.raw, reply.raw, request.body)
  })

  const existing = async (request, reply) => {
    const transport = transports.get(request.headers['mcp-session-id'])
    if (transport === undefined) return rpcError(reply, 404, -32001, 'Session not found')
    reply.hijack()
    await transport.handleRequest(request.raw, reply.raw)
  }
  app.get(PATH, existing)
  app.delete(PATH, existing)
  app.addHook('onClose', async () => {
    for (const transport of transports.values()) await transport.close()
  })
  return transports
}
