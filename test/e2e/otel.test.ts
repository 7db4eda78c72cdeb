// The MCP spans with the real @fastify/otel (its request span, and its spans of each hook and the
// handler) and the SDK's in-memory exporter, as a host would set them up: the MCP span is a child of
// the HTTP request's span, or of the client's span when params._meta carries its traceparent, and
// a tool's own spans are children of the MCP span.
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { FastifyOtelInstrumentation } from '@fastify/otel'
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { provider, spanNamed, takeSpans } from '../helpers/otel.js'
import sake, { Type, toolError } from '../../lib/index.js'
import { modernCall, modernRequest, send } from '../helpers/requests.js'
import { createClient } from '../../lib/client/index.js'
import { listen } from '../helpers/app.js'
import { legacyClient, modernClient } from '../helpers/clients.js'

const instrumentation = new FastifyOtelInstrumentation({ registerOnInitialization: false })
instrumentation.setTracerProvider(provider)

async function serve (): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(instrumentation.plugin())
  await app.register(sake, { name: 'traced', version: '1.0.0', keepAlive: 0 })
  app.registerTool({
    name: 'add',
    args: { a: Type.Number(), b: Type.Number() },
    // a tool's own span, as a host's instrumented code (a database client) would make one
    execute: ({ a, b }) => trace.getTracer('host').startActiveSpan('sum', (span) => {
      span.end()
      return a + b
    })
  })
  app.registerTool({ name: 'lookup', args: { region: Type.String({ header: 'Region' }) }, execute: ({ region }) => region })
  app.registerTool({ name: 'refuse', execute: () => toolError('not today') })
  app.registerTool({
    name: 'slow',
    stream: true,
    execute: async (_args, ctx) => {
      ctx.progress(1, 2)
      await new Promise((resolve) => setTimeout(resolve, 60)) // the point: work that takes a while after its progress
      return 'done'
    }
  })
  return app
}

/** The MCP span of one request and @fastify/otel's spans of the same HTTP request. */
function tree (spans: readonly ReadableSpan[], name: string): { mcp: ReadableSpan, handler: ReadableSpan, request: ReadableSpan } {
  const mcp = spanNamed(spans, name)
  const handler = spans.find((s) => s.name.startsWith('handler - ') && s.spanContext().traceId === mcp.spanContext().traceId)!
  const request = spans.find((s) => s.name === 'request' && s.spanContext().traceId === mcp.spanContext().traceId)!
  return { mcp, handler, request }
}

t.beforeEach(() => { takeSpans() })

t.test('a 2026-07-28 tools/call: "tools/call add", SERVER, inside @fastify/otel\'s request', async (t) => {
  const app = await serve()
  t.teardown(() => app.close())
  const res = await send(app, modernCall('add', { a: 1, b: 2 }, {}, 'call-1'))
  t.equal(res.status, 200)
  const spans = takeSpans()
  const { mcp, handler, request } = tree(spans, 'tools/call add')
  t.equal(mcp.kind, SpanKind.SERVER)
  t.same(mcp.status, { code: SpanStatusCode.UNSET })
  t.match(mcp.attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'add',
    'gen_ai.operation.name': 'execute_tool',
    'jsonrpc.request.id': 'call-1',
    'mcp.protocol.version': '2026-07-28',
    'network.transport': 'tcp',
    'network.protocol.name': 'http'
  })
  t.equal(mcp.attributes['mcp.session.id'], undefined, 'stateless: no session')
  t.equal(mcp.parentSpanContext?.spanId, request.spanContext().spanId, 'the parent: @fastify/otel\'s request span')
  t.equal(handler.parentSpanContext?.spanId, request.spanContext().spanId, 'beside its handler span, under the same request span')
  t.same(mcp.links, [])
  const sum = spanNamed(spans, 'sum')
  t.equal(sum.parentSpanContext?.spanId, mcp.spanContext().spanId, 'the tool\'s own span is a child of the MCP span')
  t.ok(mcp.startTime[0] * 1e9 + mcp.startTime[1] <= handler.startTime[0] * 1e9 + handler.startTime[1], 'the MCP span starts before the handler: the checks are inside it')
})

t.test('a call refused by the header checks (preValidation) has its span, with the error', async (t) => {
  const app = await serve()
  t.teardown(() => app.close())
  const res = await send(app, modernCall('lookup', { region: 'eu' }, { 'mcp-param-region': 'us' }))
  t.equal(res.status, 400)
  const spans = takeSpans()
  const mcp = spanNamed(spans, 'tools/call lookup')
  t.equal(mcp.attributes['error.type'], String(res.body.error.code))
  t.same(mcp.status, { code: SpanStatusCode.ERROR, message: res.body.error.message })
  t.notOk(spans.some((s) => s.name.startsWith('handler - ')), 'the handler never ran')
})

t.test('a traceparent in _meta is the parent; @fastify/otel\'s request span is linked', async (t) => {
  const app = await serve()
  t.teardown(() => app.close())
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  const client = createClient({ app, era: 'modern' })
  const meta = { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: 'congo=t61rcWkgMzE' }
  await client.listTools()
  takeSpans()
  t.same((await client.callTool('add', { a: 2, b: 2 }, { meta })).content, [{ type: 'text', text: '4' }])
  const spans = takeSpans()
  const mcp = spanNamed(spans, 'tools/call add')
  t.equal(mcp.spanContext().traceId, traceId, 'the client\'s trace')
  t.equal(mcp.parentSpanContext?.spanId, '00f067aa0ba902b7')
  t.equal(mcp.spanContext().traceState?.get('congo'), 't61rcWkgMzE')
  const request = spans.find((s) => s.name === 'request')!
  t.not(request.spanContext().traceId, traceId, 'the HTTP request has its own trace')
  t.same(mcp.links.map((link) => link.context.spanId), [request.spanContext().spanId])
  t.equal(spanNamed(spans, 'sum').spanContext().traceId, traceId, 'the tool\'s span joins the client\'s trace')
})

t.test('a 2025 session: initialize and the call carry mcp.session.id and the session\'s version', async (t) => {
  const app = await serve()
  t.teardown(() => app.close())
  const client = createClient({ app, era: 'legacy' })
  t.same((await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } })).content, [{ type: 'text', text: '2' }])
  const sessionId = client.sessionId
  t.type(sessionId, 'string')
  const spans = takeSpans()
  t.match(spanNamed(spans, 'initialize').attributes, { 'mcp.session.id': sessionId, 'mcp.protocol.version': '2025-11-25', 'jsonrpc.request.id': /^\d+$/ })
  t.match(spanNamed(spans, 'notifications/initialized').attributes, { 'mcp.session.id': sessionId })
  t.match(spanNamed(spans, 'tools/call add').attributes, { 'mcp.session.id': sessionId, 'mcp.protocol.version': '2025-11-25', 'jsonrpc.request.id': /^\d+$/ })
  await client.close()
})

t.test('an unknown tool, the client\'s mistake: its JSON-RPC code, no error.type, the status UNSET, in both eras', async (t) => {
  const app = await serve()
  t.teardown(() => app.close())
  for (const era of ['modern', 'legacy'] as const) {
    const client = createClient({ app, era })
    await t.rejects(client.request('tools/call', { name: 'nope' }), { name: 'RpcError', code: -32602 })
    await client.close()
  }
  const unknown = takeSpans().filter((s) => s.name === 'tools/call')
  t.equal(unknown.length, 2, 'named by the method alone: a made-up name is not a target')
  for (const span of unknown) {
    t.match(span.attributes, { 'rpc.response.status_code': '-32602', 'gen_ai.tool.name': 'nope' })
    t.equal(span.attributes['error.type'], undefined)
    t.same(span.status, { code: SpanStatusCode.UNSET })
  }
})

t.test('an isError result: error.type tool_error, status ERROR', async (t) => {
  const app = await serve()
  t.teardown(() => app.close())
  const result = await createClient({ app, era: 'modern' }).request('tools/call', { name: 'refuse', arguments: {} })
  t.equal(result.isError, true)
  const span = spanNamed(takeSpans(), 'tools/call refuse')
  t.equal(span.attributes['error.type'], 'tool_error')
  t.equal(span.attributes['rpc.response.status_code'], undefined, 'the JSON-RPC call itself succeeded')
  t.equal(span.status.code, SpanStatusCode.ERROR)
})

t.test('a streamed call: the span ends when the stream does', async (t) => {
  const app = await serve()
  t.teardown(() => app.close())
  const res = await app.inject(modernRequest('tools/call', { name: 'slow', arguments: {}, _meta: { progressToken: 1 } }))
  t.equal(res.headers['content-type'], 'text/event-stream')
  t.match(res.body, /notifications\/progress|"result"/)
  const span = spanNamed(takeSpans(), 'tools/call slow')
  const ms = span.duration[0] * 1000 + span.duration[1] / 1e6
  t.ok(ms >= 50, `it covers the tool's 60 ms after its first event (${ms.toFixed(1)} ms)`)
})

t.test('both real clients over a real port: one MCP span per call, in each era', async (t) => {
  const app = await serve()
  const url = new URL(await listen(t, app))
  const { client: modern } = await modernClient(t, url, { name: 'modern', version: '1' })
  const { client: legacy, transport: legacyTransport } = await legacyClient(t, url, { name: 'legacy', version: '1' }, { terminate: true })
  takeSpans()
  t.match(await modern.callTool({ name: 'add', arguments: { a: 1, b: 2 } }), { content: [{ text: '3' }] })
  t.match(await legacy.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), { content: [{ text: '5' }] })
  const calls = takeSpans().filter((s) => s.name === 'tools/call add')
  t.equal(calls.length, 2)
  t.same(calls.map((s) => s.attributes['mcp.protocol.version']).sort(), ['2025-11-25', '2026-07-28'])
  const session = calls.find((s) => s.attributes['mcp.protocol.version'] === '2025-11-25')!
  t.ok(legacyTransport.sessionId !== undefined)
  t.equal(session.attributes['mcp.session.id'], legacyTransport.sessionId)
  for (const span of calls) {
    t.equal(typeof span.attributes['client.port'], 'number', 'a real socket: the client port')
    t.equal(span.attributes['client.address'], '127.0.0.1')
  }
})
