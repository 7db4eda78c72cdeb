// fastify-sake/client against a foreign server: the official SDK v2 (@modelcontextprotocol/server
// 2.4.0), mounted on Fastify as its documentation shows (createMcpHandler through the node
// package's toNodeHandler), for the basic methods in both eras. The SDK checks Mcp-Param-* headers
// itself, so its answer to the header tool proves the client mirrors them.
import t from 'tap'
import Fastify from 'fastify'
import * as z from 'zod'
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { createClient, RpcError } from '../../lib/client/index.js'
import { listen } from '../helpers/app.js'
import { open } from '../helpers/network.js'

function sdkServer (): McpServer {
  const server = new McpServer({ name: 'sdk-v2', version: '2.4.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} } })
  server.registerTool('add', {
    description: 'Adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number(), region: z.string().meta({ 'x-mcp-header': 'Region' }).optional() })
  }, async ({ a, b, region }) => ({ content: [{ type: 'text', text: `${a + b}${region === undefined ? '' : ` in ${region}`}` }] }))
  server.registerResource('readme', 'docs://readme', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'Read me.' }] }))
  server.registerPrompt('review', { description: 'Asks for a review', argsSchema: z.object({ code: z.string() }) }, ({ code }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Review: ${code}` } }]
  }))
  return server
}

t.test('the official SDK v2 server, in both eras', async (t) => {
  const app = Fastify()
  const handler = createMcpHandler(sdkServer)
  const node = toNodeHandler(handler)
  app.post('/mcp', async (request, reply) => {
    reply.hijack()
    await node(request.raw, reply.raw, request.body)
  })
  app.addHook('onClose', async () => { await handler.close() })
  const url = await listen(t, app)

  // the SDK refuses a call whose mirrored header is missing: the control for what follows
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
  const raw = await open(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2, region: 'eu' }, _meta: meta } })
  })
  t.equal(raw.status, 400, 'without Mcp-Param-Region the SDK answers 400')
  t.equal((await raw.json()).error.code, -32020)

  for (const era of ['modern', 'legacy', 'auto'] as const) {
    const client = createClient({ url, era })
    const tools = await client.listTools()
    t.same(tools.map((tool) => tool.name), ['add'], `${era}: tools/list`)
    t.equal(client.era, era === 'auto' ? 'modern' : era)
    const sum = await client.callTool('add', { a: 1, b: 2, region: 'eu-west 1 ' })
    t.same(sum.content, [{ type: 'text', text: '3 in eu-west 1 ' }], `${era}: tools/call with the header mirrored (base64 for the trailing space)`)
    t.same((await client.listResources()).map((r) => r.uri), ['docs://readme'], `${era}: resources/list`)
    t.same((await client.readResource('docs://readme')).contents, [{ uri: 'docs://readme', text: 'Read me.' }], `${era}: resources/read`)
    t.same((await client.listPrompts()).map((p) => p.name), ['review'], `${era}: prompts/list`)
    const prompt = await client.getPrompt('review', { code: 'x = 1' })
    t.same(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Review: x = 1' } }], `${era}: prompts/get`)
    await t.rejects(client.callTool('nope', {}), RpcError, `${era}: an unknown tool is a JSON-RPC error`)
    await client.close()
  }
})
