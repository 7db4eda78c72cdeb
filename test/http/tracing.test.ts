// Traces of MCP requests (lib/http/tracing.ts): the `fastify-sake:request` TracingChannel and its
// context, the OpenTelemetry spans (in memory, through the api's globals: test/helpers/otel.ts),
// and the path without OpenTelemetry. The ecosystem test with @fastify/otel is test/e2e/otel.test.ts.
import diagnostics from 'node:diagnostics_channel'
import { EventEmitter } from 'node:events'
import t, { type Test } from 'tap'
import * as api from '@opentelemetry/api'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { provider, spanNamed, takeSpans } from '../helpers/otel.js'
import { until } from '../helpers/until.js'
import { build } from '../helpers/app.js'
import { modernCall, modernMeta, modernPost, modernRequest, openSession, send, sessionPost } from '../helpers/requests.js'
import { Type, REQUEST_CHANNEL, type McpRequestTrace } from '../../lib/index.js'
import { Registry } from '../../lib/define/registry.js'
import { Tracing, type OtelLoader } from '../../lib/http/tracing.js'
import { Spans } from '../../lib/http/spans.js'
import { TRACER_NAME, openTelemetry, otelRegistered, type OtelApi } from '../../lib/protocol/otel/api.js'
import { classify, type Inbound } from '../../lib/protocol/inbound.js'

type Event = [name: string, context: McpRequestTrace, snapshot: Record<string, unknown>]

/** Subscribes to the channel for one test: every event, with a copy of the context as it was then. */
function listen (t: Test): Event[] {
  const events: Event[] = []
  const record = (name: string) => (message: unknown) => {
    const context = message as McpRequestTrace
    const { request, ...rest } = context
    events.push([name, context, { ...rest }])
  }
  const handlers = { start: record('start'), end: record('end'), asyncStart: record('asyncStart'), asyncEnd: record('asyncEnd'), error: record('error') }
  const channel = diagnostics.tracingChannel(REQUEST_CHANNEL)
  channel.subscribe(handlers)
  t.teardown(() => { channel.unsubscribe(handlers) })
  return events
}

t.beforeEach(() => { takeSpans() })

t.test('the channel: start, end, asyncStart, asyncEnd of one context, for a 2026-07-28 tools/call', async (t) => {
  const app = await build()
  app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => a + b })
  t.teardown(() => app.close())
  const events = listen(t)
  const res = await send(app, modernCall('add', { a: 1, b: 2 }, {}, 7))
  t.equal(res.status, 200)
  t.same(events.map(([name]) => name), ['start', 'end', 'asyncStart', 'asyncEnd'])
  const context = events[0][1]
  t.ok(events.every(([, c]) => c === context), 'one context object for every event')
  t.same(events[0][2], { method: 'tools/call', name: 'add', era: 'modern', protocolVersion: '2026-07-28', id: 7, sessionId: undefined })
  t.equal(typeof context.request.headers, 'object', 'the Fastify request')
  t.equal(context.request.url, '/mcp')
  t.equal(context.rpcError, undefined)
  t.equal(context.isError, undefined)
  t.equal(context.error, undefined)
})

t.test('the channel: a 2025 session fills in its version and session id; initialize the session it opened', async (t) => {
  const app = await build()
  app.registerTool({ name: 'echo', execute: () => 'x' })
  t.teardown(() => app.close())
  const events = listen(t)
  // a 2025-03-26 session: its clients send no MCP-Protocol-Version header, so only the session says
  const sessionId = await openSession(app, '2025-03-26')
  const init = events.filter(([name, c]) => name === 'asyncEnd' && c.method === 'initialize')[0][2]
  t.match(init, { method: 'initialize', era: 'legacy', protocolVersion: '2025-03-26', sessionId, id: 0 })
  const initialized = events.filter(([name, c]) => name === 'asyncEnd' && c.method === 'notifications/initialized')[0][2]
  t.match(initialized, { era: 'legacy', sessionId, id: undefined })
  events.length = 0
  await send(app, sessionPost(sessionId, '2025-03-26', { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo' } }, { 'mcp-protocol-version': undefined }))
  t.match(events[0][2], { method: 'tools/call', name: 'echo', era: 'legacy', protocolVersion: undefined, sessionId }, 'at start: what the message says')
  t.match(events[3][2], { protocolVersion: '2025-03-26', sessionId }, 'by asyncEnd: the session\'s')
})

t.test('the channel: JSON-RPC errors and tool errors are noted on the context; a response is not traced', async (t) => {
  const app = await build()
  app.registerTool({ name: 'fail', execute: () => { throw new Error('no') } })
  t.teardown(() => app.close())
  const events = listen(t)
  await send(app, modernCall('nope', {}))
  t.same(events.at(-1)![2].rpcError, { code: -32602, message: 'Unknown tool: nope' })
  await send(app, modernCall('fail', {}))
  t.equal(events.at(-1)![2].isError, true)
  t.equal(events.at(-1)![2].rpcError, undefined)
  const sessionId = await openSession(app)
  events.length = 0
  await send(app, sessionPost(sessionId, '2025-11-25', { jsonrpc: '2.0', id: 5, result: {} }))
  t.same(events, [], 'a client\'s response answers a question of ours')
  await send(app, sessionPost(sessionId, '2025-11-25', { jsonrpc: '2.0', id: 6, method: 'nope/nope', params: {} }))
  t.same(events.at(-1)![2].rpcError, { code: -32601, message: 'Method not found: nope/nope' }, 'a legacy error, answered as text')
})

t.test('the channel: an unexpected failure publishes error, with the 500 the endpoint answers', async (t) => {
  const broken = { get: async () => { throw new Error('store down') }, set: async () => {}, delete: async () => {} }
  const app = await build({ sessions: { store: broken } })
  t.teardown(() => app.close())
  const events = listen(t)
  const res = await send(app, sessionPost('s1', '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'ping' }))
  t.equal(res.status, 500)
  t.same(events.map(([name]) => name), ['start', 'end', 'error', 'asyncStart', 'asyncEnd'])
  t.match(events[2][1].error, { message: 'store down' })
  t.same(events[4][2].rpcError, { code: -32603, message: 'Internal error' })
  const span = spanNamed(takeSpans(), 'ping')
  t.equal(span.attributes['error.type'], '-32603')
  t.equal(span.events[0].name, 'exception')
})

t.test('tracing: false publishes nothing and makes no span', async (t) => {
  const app = await build({ tracing: false })
  app.registerTool({ name: 'add', execute: () => 1 })
  t.teardown(() => app.close())
  const events = listen(t)
  t.equal((await send(app, modernCall('add', {}))).status, 200)
  t.same(events, [])
  t.same(takeSpans(), [])
})

t.test('without OpenTelemetry: no span code runs, the channel still publishes', async (t) => {
  t.equal(await openTelemetry(async () => { throw Object.assign(new Error("Cannot find package '@opentelemetry/api'"), { code: 'ERR_MODULE_NOT_FOUND' }) }), undefined)
  t.equal(await openTelemetry(async () => ({})), undefined, 'not the api')
  t.equal(await openTelemetry(), api, 'installed here: the api itself')
  const none = new Tracing(true, undefined)
  t.equal(none.on(), false, 'nobody listens: the one check says no')
  const events = listen(t)
  t.equal(none.on(), true)
  const reply = { raw: new EventEmitter() }
  let checked = false
  none.begin(fakeRequest(), reply as unknown as FastifyReply, message('ping', {}), () => { checked = true })
  t.ok(checked, 'the checks ran inside the trace')
  reply.raw.emit('close')
  t.same(events.map(([name]) => name), ['start', 'end', 'asyncStart', 'asyncEnd'])
  t.same(takeSpans(), [], 'no span, though a tracer provider is registered')
  t.equal(new Tracing(false, undefined).on(), false, 'tracing: false ignores subscribers')
})

/** A span around `fn`, as the POST route makes one: started, the handler within it, ended (with what it threw). */
async function spanAround<T> (spans: Spans, trace: McpRequestTrace, inbound: Inbound, fn: () => Promise<T>): Promise<T> {
  const started = spans.start(trace, inbound)
  try {
    return await spans.within(started, fn)
  } catch (err) {
    trace.error = err
    throw err
  } finally {
    spans.end(started, trace)
  }
}

/** A request as Spans reads it. */
function fakeRequest (over: { httpVersion?: string, ip?: string, remoteAddress?: string, remotePort?: number } = {}): FastifyRequest {
  return {
    raw: { httpVersion: over.httpVersion ?? '1.1' },
    ip: over.ip ?? '10.0.0.1',
    socket: { remoteAddress: over.remoteAddress ?? '10.0.0.1', remotePort: over.remotePort }
  } as unknown as FastifyRequest
}

/** A message as the edge classifies it, for the spans to describe (`registry`: what its names may find). */
function message (method: string, params: Record<string, unknown> | undefined, registry = new Registry()): Inbound {
  return classify(registry, { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }, undefined, undefined)
}

function traceFor (method: string, over: Partial<McpRequestTrace> = {}): McpRequestTrace {
  return { method, name: undefined, era: 'modern', protocolVersion: '2026-07-28', id: 1, sessionId: undefined, request: fakeRequest(), ...over }
}

t.test('spans: name and attributes for each kind of target', async (t) => {
  const registry = new Registry()
  registry.addTool({ name: 'add', execute: () => 1 })
  registry.addPrompt({ name: 'greet', get: () => 'hi' })
  const spans = new Spans(api as unknown as OtelApi)
  const run = async (method: string, params: Record<string, unknown> | undefined, over: Partial<McpRequestTrace> = {}): Promise<ReturnType<typeof takeSpans>[number]> => {
    await spanAround(spans, traceFor(method, over), message(method, params, registry), async () => undefined)
    const [span] = takeSpans()
    return span
  }
  const add = await run('tools/call', { name: 'add' })
  t.equal(add.name, 'tools/call add')
  t.equal(add.kind, api.SpanKind.SERVER)
  t.equal(add.instrumentationScope.name, TRACER_NAME)
  t.same(add.attributes, {
    'mcp.method.name': 'tools/call',
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'network.protocol.version': '1.1',
    'jsonrpc.request.id': '1',
    'client.address': '10.0.0.1',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'add',
    'mcp.protocol.version': '2026-07-28'
  })
  const unknown = await run('tools/call', { name: 'made-up' })
  t.equal(unknown.name, 'tools/call', 'a name no tool has stays out of the span name')
  t.equal(unknown.attributes['gen_ai.tool.name'], 'made-up')
  const nameless = await run('tools/call', {})
  t.equal(nameless.attributes['gen_ai.operation.name'], 'execute_tool')
  t.equal(nameless.attributes['gen_ai.tool.name'], undefined)
  t.equal((await run('prompts/get', { name: 'greet' })).name, 'prompts/get greet')
  const otherPrompt = await run('prompts/get', { name: 'other' })
  t.equal(otherPrompt.name, 'prompts/get')
  t.equal(otherPrompt.attributes['gen_ai.prompt.name'], 'other')
  t.equal(otherPrompt.attributes['gen_ai.operation.name'], undefined, 'execute_tool is for tool calls only')
  const completion = await run('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' } })
  t.equal(completion.name, 'completion/complete greet')
  t.equal(completion.attributes['gen_ai.prompt.name'], 'greet')
  const template = await run('completion/complete', { ref: { type: 'ref/resource', uri: 'users://{id}', name: 'x' } })
  t.equal(template.name, 'completion/complete')
  t.equal(template.attributes['gen_ai.prompt.name'], undefined)
  t.equal((await run('completion/complete', {})).name, 'completion/complete')
  const read = await run('resources/read', { uri: 'file:///a' })
  t.equal(read.name, 'resources/read', 'a URI is never in the name')
  t.equal(read.attributes['mcp.resource.uri'], 'file:///a')
  t.equal((await run('resources/subscribe', { uri: 'file:///b' })).attributes['mcp.resource.uri'], 'file:///b')
  t.equal((await run('resources/unsubscribe', { uri: 'file:///c' })).attributes['mcp.resource.uri'], 'file:///c')
  t.equal((await run('resources/read', {})).attributes['mcp.resource.uri'], undefined)
  const note = await run('notifications/initialized', undefined, { id: undefined, era: 'legacy', protocolVersion: '2025-11-25', sessionId: 's-1' })
  t.equal(note.attributes['jsonrpc.request.id'], undefined, 'a notification has no id')
  t.equal(note.attributes['mcp.session.id'], 's-1')
  t.equal((await run('ping', {}, { protocolVersion: undefined })).attributes['mcp.protocol.version'], undefined)
  t.equal(note.attributes['gen_ai.operation.name'], undefined)
})

t.test('spans: the HTTP version, and the client port only when the address is the socket\'s', async (t) => {
  const spans = new Spans(api as unknown as OtelApi)
  const attributesOf = async (request: FastifyRequest): Promise<Record<string, unknown>> => {
    await spanAround(spans, traceFor('ping', { request }), message('ping', {}), async () => undefined)
    return takeSpans()[0].attributes
  }
  t.match(await attributesOf(fakeRequest({ httpVersion: '2.0', remotePort: 4000 })), { 'network.protocol.version': '2', 'client.address': '10.0.0.1', 'client.port': 4000 })
  const proxied = await attributesOf(fakeRequest({ ip: '203.0.113.9', remoteAddress: '10.0.0.2', remotePort: 4000 }))
  t.equal(proxied['client.address'], '203.0.113.9', 'behind a trusted proxy: the client, not the proxy')
  t.equal(proxied['client.port'], undefined, 'the port is the proxy\'s')
})

t.test('spans: the outcome sets error.type and the status; a client\'s mistake only its status code', async (t) => {
  const spans = new Spans(api as unknown as OtelApi)
  // the client's mistakes: the code is recorded, the server did not fail
  for (const code of [-32700, -32600, -32601, -32602, -32002]) {
    await spanAround(spans, traceFor('tools/call', { rpcError: { code, message: 'Unknown tool: x' } }), message('tools/call', {}), async () => undefined)
    const [mistake] = takeSpans()
    t.equal(mistake.attributes['rpc.response.status_code'], String(code))
    t.equal(mistake.attributes['error.type'], undefined, `${code}: no error.type`)
    t.same(mistake.status, { code: api.SpanStatusCode.UNSET }, `${code}: status UNSET`)
  }
  // any other code is the server's failure
  for (const code of [-32603, -32001, -32020, -32022, -32000]) {
    await spanAround(spans, traceFor('tools/call', { rpcError: { code, message: 'It failed' } }), message('tools/call', {}), async () => undefined)
    const [rpc] = takeSpans()
    t.equal(rpc.attributes['error.type'], String(code))
    t.equal(rpc.attributes['rpc.response.status_code'], String(code))
    t.same(rpc.status, { code: api.SpanStatusCode.ERROR, message: 'It failed' }, `${code}: status ERROR with the JSON-RPC message`)
  }
  await spanAround(spans, traceFor('tools/call', { isError: true }), message('tools/call', {}), async () => undefined)
  const [tool] = takeSpans()
  t.equal(tool.attributes['error.type'], 'tool_error')
  t.equal(tool.attributes['rpc.response.status_code'], undefined)
  t.equal(tool.status.code, api.SpanStatusCode.ERROR)
  await spanAround(spans, traceFor('tools/call'), message('tools/call', {}), async () => undefined)
  t.equal(takeSpans()[0].status.code, api.SpanStatusCode.UNSET)
  await t.rejects(spanAround(spans, traceFor('ping'), message('ping', {}), async () => { throw new Error('boom') }), /boom/)
  const [thrown] = takeSpans()
  t.equal(thrown.events[0].name, 'exception')
  t.equal(thrown.events[0].attributes?.['exception.message'], 'boom')
})

t.test('spans: the parent from _meta (traceparent, tracestate), the ambient span linked', async (t) => {
  const spans = new Spans(api as unknown as OtelApi)
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  const meta = { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: 'rojo=00f067aa0ba902b7', other: 1 }
  // no ambient span: the client's is the parent, nothing to link
  await spanAround(spans, traceFor('ping'), message('ping', { _meta: meta }), async () => undefined)
  const [alone] = takeSpans()
  t.equal(alone.spanContext().traceId, traceId)
  t.equal(alone.parentSpanContext?.spanId, '00f067aa0ba902b7')
  t.equal(alone.parentSpanContext?.isRemote, true)
  t.equal(alone.spanContext().traceState?.get('rojo'), '00f067aa0ba902b7')
  t.same(alone.links, [])
  // an ambient span (the HTTP request's): still the client's parent, the ambient one linked
  const tracer = api.trace.getTracer('test')
  const outer = tracer.startSpan('outer')
  await api.context.with(api.trace.setSpan(api.context.active(), outer), async () => {
    await spanAround(spans, traceFor('ping'), message('ping', { _meta: meta }), async () => {
      t.equal(api.trace.getActiveSpan()?.spanContext().traceId, traceId, 'the handler runs in the MCP span')
    })
    // _meta without trace context: the ambient span is the parent, not a link
    await spanAround(spans, traceFor('ping'), message('ping', { _meta: modernMeta() }), async () => undefined)
  })
  outer.end()
  const [linked, nested] = takeSpans()
  t.equal(linked.parentSpanContext?.spanId, '00f067aa0ba902b7')
  t.same(linked.links.map((link) => link.context.spanId), [outer.spanContext().spanId])
  t.equal(nested.parentSpanContext?.spanId, outer.spanContext().spanId)
  t.same(nested.links, [])
})

t.test('spans: a span that does not record gets no attributes written at its end', async (t) => {
  const written: string[] = []
  const span = {
    isRecording: () => false,
    setAttribute: (key: string) => { written.push(key) },
    setStatus: () => { written.push('status') },
    recordException: () => {},
    end: () => { written.push('end') }
  }
  const stub = {
    ...(api as unknown as OtelApi),
    trace: { ...api.trace, getTracer: () => ({ startSpan: () => span }) }
  } as unknown as OtelApi
  const spans = new Spans(stub)
  await spanAround(spans, traceFor('tools/call', { rpcError: { code: -1, message: 'x' }, sessionId: 's' }), message('tools/call', {}), async () => undefined)
  t.same(written, ['end'])
})

t.test('spans: the propagators see _meta\'s keys and its string values only', async (t) => {
  const seen: Array<[string, unknown]> = []
  const stub = {
    ...(api as unknown as OtelApi),
    propagation: {
      extract: (ctx: object, carrier: Record<string, unknown>, getter: { keys: (c: unknown) => string[], get: (c: unknown, k: string) => unknown }) => {
        for (const key of getter.keys(carrier)) seen.push([key, getter.get(carrier, key)])
        return ctx
      }
    }
  } as unknown as OtelApi
  await spanAround(new Spans(stub), traceFor('ping'), message('ping', { _meta: { traceparent: 'x', n: 1, o: {} } }), async () => undefined)
  takeSpans()
  t.same(seen, [['traceparent', 'x'], ['n', undefined], ['o', undefined]])
})

t.test('a batch: one trace per item, each with the session', async (t) => {
  const app = await build()
  app.registerTool({ name: 'add', execute: () => 1 })
  t.teardown(() => app.close())
  const sessionId = await openSession(app, '2025-03-26')
  const events = listen(t)
  takeSpans()
  const res = await send(app, sessionPost(sessionId, '2025-03-26', [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add' } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope' } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 9, result: {} }
  ], { 'mcp-protocol-version': undefined }))
  t.equal(res.status, 200)
  const ends = events.filter(([name]) => name === 'asyncEnd').map(([, , c]) => c)
  t.same(ends.map((c) => c.method).sort(), ['notifications/initialized', 'tools/call', 'tools/call'])
  t.ok(ends.every((c) => c.sessionId === sessionId && c.protocolVersion === '2025-03-26' && c.era === 'legacy'))
  const spans = takeSpans()
  t.same(spans.map((s) => s.name).sort(), ['notifications/initialized', 'tools/call', 'tools/call add'])
  t.match(spanNamed(spans, 'tools/call').attributes, { 'rpc.response.status_code': '-32602', 'error.type': undefined })
})

t.test("a batch item that fails unexpectedly: its trace (its own POST's) has the error; the batch, all notifications, is 202", async (t) => {
  // a store that keeps sessions but fails the write notifications/initialized makes
  const sessions = new Map<string, unknown>()
  let failWrites = false
  const store = {
    get: async (id: string) => sessions.get(id) as any,
    set: async (session: { id: string }) => {
      if (failWrites) throw new Error('store down')
      sessions.set(session.id, session)
    },
    delete: async (id: string) => { sessions.delete(id) }
  }
  const app = await build({ sessions: { store } })
  t.teardown(() => app.close())
  const sessionId = await openSession(app, '2025-03-26', { initialized: false })
  failWrites = true
  const events = listen(t)
  takeSpans()
  const res = await send(app, sessionPost(sessionId, '2025-03-26', [{ jsonrpc: '2.0', method: 'notifications/initialized' }], { 'mcp-protocol-version': undefined }))
  t.equal(res.status, 202, 'a notification has no response, in a batch as alone')
  t.same(events.map(([name]) => name), ['start', 'end', 'error', 'asyncStart', 'asyncEnd'])
  t.match(events[2][1].error, { message: 'store down' })
  t.same(events[4][2].rpcError, { code: -32603, message: 'Internal error' })
  const span = spanNamed(takeSpans(), 'notifications/initialized')
  t.equal(span.attributes['error.type'], '-32603')
  t.equal(span.events[0].name, 'exception')
})

t.test('a tool whose result JSON cannot carry is a tool error on the trace', async (t) => {
  const app = await build()
  app.registerTool({ name: 'big', execute: () => ({ n: 10n }) as any })
  t.teardown(() => app.close())
  const events = listen(t)
  t.equal((await send(app, modernCall('big', {}))).body.result.isError, true)
  t.equal(events.at(-1)![2].isError, true)
  t.equal(spanNamed(takeSpans(), 'tools/call big').attributes['error.type'], 'tool_error')
})

t.test('a 2026-07-28 message whose protocol version is not a string: traced without one', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const events = listen(t)
  const res = await send(app, modernPost({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': 5 }) } }, { 'mcp-protocol-version': '2026-07-28' }))
  t.equal(res.status, 400)
  t.match(events.at(-1)![2], { method: 'tools/list', era: 'modern', protocolVersion: undefined, rpcError: { code: -32602 } })
})

t.test('a message of neither era is traced with its error', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const events = listen(t)
  const res = await send(app, modernPost({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, { 'mcp-protocol-version': undefined }))
  t.equal(res.status, 400)
  t.match(events.at(-1)![2], { method: 'tools/list', era: undefined, rpcError: { code: -32600 } })
})

t.test('no tracer provider registered: no span path at all, though the api is installed', async (t) => {
  const app = await build()
  app.registerTool({ name: 'add', execute: () => 1 })
  t.teardown(() => app.close())
  const spans = new Spans(api as unknown as OtelApi)
  t.equal(spans.on(), true, 'the test provider is registered')
  api.trace.disable()
  t.teardown(() => { api.trace.setGlobalTracerProvider(provider) })
  t.equal(spans.on(), false)
  t.equal(new Tracing(true, spans).on(), false, 'and nobody listens to the channel')
  t.equal((await send(app, modernCall('add', {}))).status, 200)
  const events = listen(t)
  t.equal(new Tracing(true, spans).on(), true, 'a channel subscriber alone turns tracing on')
  await send(app, modernCall('add', {}))
  t.same(events.map(([name]) => name), ['start', 'end', 'asyncStart', 'asyncEnd'])
  api.trace.setGlobalTracerProvider(provider)
  t.equal(spans.on(), true, 'a provider registered later is seen')
  t.same(takeSpans(), [])
})

t.test('no tracer provider registered: a batch item is published on the channel, with no span', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const sessionId = await openSession(app, '2025-03-26')
  takeSpans()
  api.trace.disable()
  t.teardown(() => { api.trace.setGlobalTracerProvider(provider) })
  const events = listen(t)
  const res = await send(app, sessionPost(sessionId, '2025-03-26', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'mcp-protocol-version': undefined }))
  t.equal(res.status, 200)
  t.same(events.map(([name, c]) => `${name} ${c.method}`), ['start ping', 'end ping', 'asyncStart ping', 'asyncEnd ping'])
  api.trace.setGlobalTracerProvider(provider)
  t.same(takeSpans(), [])
})

t.test('spans alone (no channel subscriber): a batch item gets its span', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const sessionId = await openSession(app, '2025-03-26')
  takeSpans()
  const res = await send(app, sessionPost(sessionId, '2025-03-26', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'mcp-protocol-version': undefined }))
  t.equal(res.status, 200)
  t.match(spanNamed(takeSpans(), 'ping').attributes, { 'mcp.session.id': sessionId, 'jsonrpc.request.id': '1' })
})

t.test('a task method is traced without its task id (a handle, not a target)', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const events = listen(t)
  const taskId = 'a1b2c3d4-secret-handle'
  await send(app, modernRequest('tasks/get', { taskId }, { 'mcp-name': taskId }))
  t.match(events.at(-1)![2], { method: 'tasks/get', name: undefined })
  const span = spanNamed(takeSpans(), 'tasks/get')
  t.notOk(JSON.stringify(span.attributes).includes(taskId))
})

/** OpenTelemetry's api as if nothing had been registered with it in this process, until `t` ends. */
function withoutOtel (t: Test): () => void {
  const key = Symbol.for('opentelemetry.js.api.1')
  const registered = (globalThis as Record<symbol, unknown>)[key]
  const restore = (): void => { (globalThis as Record<symbol, unknown>)[key] = registered }
  delete (globalThis as Record<symbol, unknown>)[key]
  t.teardown(restore)
  return restore
}

/** A loader of `api` that counts its imports; `api` undefined: not installed. */
function loader (api: OtelApi | undefined): OtelLoader & { loads: number, measured: number } {
  const counted = {
    loads: 0,
    measured: 0,
    api: async () => { counted.loads++; return api },
    metrics: async () => { counted.measured++; return { on: () => false, operation: () => {}, sessionEnded: () => {} } }
  }
  return counted
}

t.test('the api is imported once something is registered with it: at registration when it already is', async (t) => {
  t.equal(otelRegistered(), true, 'the test SDK is registered')
  const otel = loader(api as unknown as OtelApi)
  const tracing = new Tracing(true, undefined, undefined, otel)
  await tracing.attach()
  t.equal(otel.loads, 1)
  t.equal(otel.measured, 1, 'the metrics with it')
  t.equal(tracing.on(), true, 'the first message is traced')
  await tracing.attach()
  tracing.on()
  t.equal(otel.loads, 1, 'once')
})

t.test('the api is imported once something is registered with it: else by the first message that finds it', async (t) => {
  const restore = withoutOtel(t)
  t.equal(otelRegistered(), false)
  const otel = loader(api as unknown as OtelApi)
  const tracing = new Tracing(true, undefined, undefined, otel)
  await tracing.attach()
  t.equal(tracing.on(), false)
  t.equal(otel.loads, 0, 'no SDK: the api is not imported')
  restore()
  t.equal(tracing.on(), false, 'the message that finds the SDK is not traced by it: the api is being imported')
  t.equal(otel.loads, 1)
  t.equal(await until(() => tracing.on(), { what: 'the api loaded' }), true, 'the messages after are traced')
  t.equal(otel.loads, 1, 'once')
  t.equal(otel.measured, 1, 'the metrics with it')
})

t.test('the api is not installed: looked for once, then no spans and no metrics for good', async (t) => {
  const otel = loader(undefined)
  const tracing = new Tracing(true, undefined, undefined, otel)
  await tracing.attach()
  t.equal(tracing.on(), false)
  t.equal(otel.loads, 1)
  t.equal(otel.measured, 0)
  t.equal(otel.loads, 1, 'not looked for again')
})

t.test('through the plugin: an SDK set up after registration traces the calls after its first', async (t) => {
  const restore = withoutOtel(t)
  const app = await build()
  app.registerTool({ name: 'add', execute: () => 1 })
  t.teardown(() => app.close())
  t.equal((await send(app, modernCall('add', {}))).status, 200)
  t.same(takeSpans(), [], 'no SDK, no span')
  restore()
  t.equal((await send(app, modernCall('add', {}))).status, 200)
  t.same(takeSpans(), [], 'the first message after it imports the api')
  // the next ones are traced once the import is done
  const spans = await until(async () => {
    t.equal((await send(app, modernCall('add', {}))).status, 200)
    const taken = takeSpans()
    return taken.length > 0 ? taken : undefined
  }, { what: 'a traced call' })
  t.same(spans.map((span) => span.name), ['tools/call add'])
})
