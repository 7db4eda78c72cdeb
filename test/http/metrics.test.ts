// The MCP metrics (lib/http/metrics.ts) with the real SDK: @opentelemetry/sdk-metrics' MeterProvider
// registered as the global one for a test and read on demand (test/helpers/otel.ts), the spans of
// the same requests beside them. Also: without a meter provider nothing is recorded and no meter
// work is done, and a provider registered after the plugin is seen.
import t from 'tap'
import * as api from '@opentelemetry/api'
import type { FastifyRequest } from 'fastify'
import { DataPointType, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics'
import { meterProvider, provider, spanNamed, takeSpans } from '../helpers/otel.js'
import { build } from '../helpers/app.js'
import { modernCall, modernRequest, openSession, send, sessionPost } from '../helpers/requests.js'
import { Type, toolError, type Session, type SessionStore } from '../../lib/index.js'
import { Registry } from '../../lib/define/registry.js'
import { DURATION_BUCKETS, Metrics, OPERATION_DURATION, SESSION_DURATION } from '../../lib/http/metrics.js'
import { Tracing } from '../../lib/http/tracing.js'
import type { McpRequestTrace } from '../../lib/http/request-trace.js'
import type { OtelApi } from '../../lib/protocol/otel/api.js'
import { classify } from '../../lib/protocol/inbound.js'

interface Point { readonly attributes: Record<string, unknown>, readonly count: number, readonly sum: number, readonly boundaries: number[] }

/** The histogram points of metric `name` in what was collected (none when it has no data yet). */
function pointsOf (collected: readonly MetricData[], name: string): Point[] {
  const metric = collected.find((m) => m.descriptor.name === name)
  if (metric === undefined) return []
  return metric.dataPoints.map((point) => {
    const value = point.value as Histogram
    return { attributes: point.attributes, count: value.count, sum: value.sum ?? 0, boundaries: value.buckets.boundaries }
  })
}

/** The one point whose attributes match `attributes` (all of them, and no other point does). */
function pointWith (points: readonly Point[], attributes: Record<string, unknown>): Point {
  const found = points.filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))
  if (found.length !== 1) throw new Error(`${found.length} points match ${JSON.stringify(attributes)} in ${JSON.stringify(points.map((p) => p.attributes))}`)
  return found[0]
}

const NETWORK = { 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': '1.1' }

t.beforeEach(() => { takeSpans() })

t.test('mcp.server.operation.duration: a histogram in seconds with the conventions\' buckets; a 2026-07-28 tools/call\'s attributes', async (t) => {
  const meters = meterProvider(t)
  const app = await build()
  app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => a + b })
  t.teardown(() => app.close())
  t.equal((await send(app, modernCall('add', { a: 1, b: 2 }, {}, 'call-1'))).status, 200)
  const collected = await meters.collect()
  const metric = collected.find((m) => m.descriptor.name === OPERATION_DURATION)!
  t.equal(metric.scope, 'fastify-sake')
  t.equal(metric.descriptor.unit, 's')
  t.equal(metric.descriptor.description, 'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.')
  t.equal(metric.dataPointType, DataPointType.HISTOGRAM)
  const [point, ...others] = pointsOf(collected, OPERATION_DURATION)
  t.same(others, [], 'one message, one point')
  t.same(point.boundaries, [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300])
  t.same(DURATION_BUCKETS, point.boundaries)
  t.same(point.attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'add',
    'gen_ai.operation.name': 'execute_tool',
    'mcp.protocol.version': '2026-07-28',
    ...NETWORK
  }, 'the conventions\' attributes, and no request id or session id')
  t.equal(point.count, 1)
  const span = spanNamed(takeSpans(), 'tools/call add')
  const spanSeconds = span.duration[0] + span.duration[1] / 1e9
  t.ok(point.sum > 0 && point.sum < 5, `seconds, not milliseconds (${point.sum})`)
  t.ok(Math.abs(point.sum - spanSeconds) < 0.05, `the interval the span covers (${point.sum} s, the span ${spanSeconds} s)`)
  t.same(pointsOf(collected, SESSION_DURATION), [], 'no session ended')
})

t.test('each outcome: a prompts/get, a client\'s mistake (status UNSET), a tool error, a made-up method, a server failure (status ERROR)', async (t) => {
  const meters = meterProvider(t)
  const app = await build()
  app.registerTool({ name: 'refuse', execute: () => toolError('not today') })
  app.registerPrompt({ name: 'greet', get: () => 'hi' })
  t.teardown(() => app.close())
  await send(app, modernRequest('prompts/get', { name: 'greet' }, { 'mcp-name': 'greet' }))
  await send(app, modernCall('nope', {}))
  await send(app, modernCall('refuse', {}))
  await send(app, modernRequest('made/up', {}))
  const points = pointsOf(await meters.collect(), OPERATION_DURATION)
  t.same(pointWith(points, { 'mcp.method.name': 'prompts/get' }).attributes, {
    'mcp.method.name': 'prompts/get',
    'gen_ai.prompt.name': 'greet',
    'mcp.protocol.version': '2026-07-28',
    ...NETWORK
  }, 'no gen_ai.operation.name: execute_tool is for tool calls')
  t.same(pointWith(points, { 'rpc.response.status_code': '-32602' }).attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'rpc.response.status_code': '-32602',
    'mcp.protocol.version': '2026-07-28',
    ...NETWORK
  }, 'the client\'s mistake: its code, no error.type; and a name no tool has is no attribute')
  t.match(pointWith(points, { 'gen_ai.tool.name': 'refuse' }).attributes, { 'error.type': 'tool_error', 'rpc.response.status_code': undefined })
  t.match(pointWith(points, { 'mcp.method.name': '_OTHER' }).attributes, { 'rpc.response.status_code': '-32601', 'error.type': undefined })
  t.equal(points.length, 4)
  const spans = takeSpans()
  t.same(spanNamed(spans, 'tools/call').status, { code: api.SpanStatusCode.UNSET }, 'the span agrees: not an error')
  t.same(spanNamed(spans, 'tools/call refuse').status.code, api.SpanStatusCode.ERROR)
  t.same(spanNamed(spans, 'made/up').status, { code: api.SpanStatusCode.UNSET })

  // the server's own failure: a session store that fails answers -32603 (500)
  const broken: SessionStore = { get: async () => { throw new Error('store down') }, set: async () => {}, delete: async () => {} }
  const failing = await build({ sessions: { store: broken } })
  t.teardown(() => failing.close())
  t.equal((await send(failing, sessionPost('s1', '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'ping' }))).status, 500)
  t.match(pointWith(pointsOf(await meters.collect(), OPERATION_DURATION), { 'mcp.method.name': 'ping' }).attributes, {
    'error.type': '-32603',
    'rpc.response.status_code': '-32603',
    'mcp.protocol.version': '2025-11-25'
  })
  t.same(spanNamed(takeSpans(), 'ping').status, { code: api.SpanStatusCode.ERROR, message: 'Internal error' })
})

t.test('a batch records one measurement per item', async (t) => {
  const app = await build()
  app.registerTool({ name: 'add', execute: () => 1 })
  t.teardown(() => app.close())
  const sessionId = await openSession(app, '2025-03-26')
  const meters = meterProvider(t) // after the handshake: only the batch is measured
  const res = await send(app, sessionPost(sessionId, '2025-03-26', [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add' } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add' } },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope' } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 9, result: {} }
  ], { 'mcp-protocol-version': undefined }))
  t.equal(res.status, 200)
  const points = pointsOf(await meters.collect(), OPERATION_DURATION)
  t.equal(points.reduce((n, p) => n + p.count, 0), 4, 'four messages (a client\'s response is none)')
  t.equal(pointWith(points, { 'gen_ai.tool.name': 'add' }).count, 2)
  t.match(pointWith(points, { 'rpc.response.status_code': '-32602' }), { count: 1, attributes: { 'mcp.protocol.version': '2025-03-26' } })
  t.equal(pointWith(points, { 'mcp.method.name': 'notifications/initialized' }).count, 1)
})

t.test('a batch item that fails unexpectedly is measured with its error', async (t) => {
  const sessions = new Map<string, Session>()
  let failWrites = false
  const store: SessionStore = {
    get: async (id) => sessions.get(id),
    set: async (session) => {
      if (failWrites) throw new Error('store down')
      sessions.set(session.id, session)
    },
    delete: async (id) => { sessions.delete(id) }
  }
  const app = await build({ sessions: { store } })
  t.teardown(() => app.close())
  const sessionId = await openSession(app, '2025-03-26', { initialized: false })
  const meters = meterProvider(t)
  failWrites = true
  // the item is a POST of its own (its 500 is its own); the batch of one notification is 202
  t.equal((await send(app, sessionPost(sessionId, '2025-03-26', [{ jsonrpc: '2.0', method: 'notifications/initialized' }], { 'mcp-protocol-version': undefined }))).status, 202)
  t.match(pointWith(pointsOf(await meters.collect(), OPERATION_DURATION), { 'mcp.method.name': 'notifications/initialized' }), { count: 1, attributes: { 'error.type': '-32603' } })
})

t.test('mcp.server.session.duration: one measurement per session its DELETE ends, from the createdAt stored with it', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const sessionId = await openSession(app)
  const meters = meterProvider(t)
  const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } })
  t.equal(del.statusCode, 204)
  const again = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } })
  t.equal(again.statusCode, 404, 'gone: a second DELETE ends nothing')
  const collected = await meters.collect()
  const metric = collected.find((m) => m.descriptor.name === SESSION_DURATION)!
  t.equal(metric.scope, 'fastify-sake')
  t.equal(metric.descriptor.unit, 's')
  t.equal(metric.descriptor.description, 'The duration of the MCP session as observed on the MCP server.')
  const [point, ...others] = pointsOf(collected, SESSION_DURATION)
  t.same(others, [])
  t.equal(point.count, 1)
  t.same(point.boundaries, [...DURATION_BUCKETS])
  t.same(point.attributes, { 'mcp.protocol.version': '2025-11-25', ...NETWORK }, 'no session id, no error.type: a DELETE is the normal end')
  t.ok(point.sum >= 0 && point.sum < 5, `seconds (${point.sum})`)
})

t.test('a session opened elsewhere is measured from its createdAt; one stored without it records nothing', async (t) => {
  const client = { info: { name: 'c', version: '1' }, capabilities: {} }
  const sessions = new Map<string, Session>([
    ['opened-elsewhere', { id: 'opened-elsewhere', protocolVersion: '2025-06-18', client, initialized: true, createdAt: Date.now() - 42_000 }],
    ['stored-before', { id: 'stored-before', protocolVersion: '2025-06-18', client, initialized: true }],
    ['clocks-apart', { id: 'clocks-apart', protocolVersion: '2025-03-26', client, initialized: true, createdAt: Date.now() + 60_000 }]
  ])
  const store: SessionStore = { get: (id) => sessions.get(id), set: (s) => { sessions.set(s.id, s) }, delete: (id) => { sessions.delete(id) } }
  const app = await build({ sessions: { store } })
  t.teardown(() => app.close())
  const meters = meterProvider(t)
  for (const id of ['opened-elsewhere', 'stored-before', 'clocks-apart']) {
    t.equal((await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' } })).statusCode, 204)
  }
  const points = pointsOf(await meters.collect(), SESSION_DURATION)
  t.equal(points.reduce((n, p) => n + p.count, 0), 2, 'the session without a start is not measured')
  const elsewhere = pointWith(points, { 'mcp.protocol.version': '2025-06-18' })
  t.ok(elsewhere.sum >= 42 && elsewhere.sum < 47, `42 s and a little (${elsewhere.sum})`)
  t.equal(pointWith(points, { 'mcp.protocol.version': '2025-03-26' }).sum, 0, 'a start in the future (another instance\'s clock) counts as 0')
})

t.test('only a meter provider (no tracer provider, no channel subscriber): messages are still measured', async (t) => {
  const app = await build()
  app.registerTool({ name: 'add', execute: () => 1 })
  t.teardown(() => app.close())
  api.trace.disable()
  t.teardown(() => { api.trace.setGlobalTracerProvider(provider) })
  const meters = meterProvider(t)
  t.equal((await send(app, modernCall('add', {}))).status, 200)
  t.equal(pointWith(pointsOf(await meters.collect(), OPERATION_DURATION), { 'gen_ai.tool.name': 'add' }).count, 1)
  t.same(takeSpans(), [], 'no span without a tracer provider')
})

t.test('no meter provider: nothing measured; one registered after the plugin is seen', async (t) => {
  const app = await build()
  app.registerTool({ name: 'add', execute: () => 1 })
  t.teardown(() => app.close())
  api.trace.disable()
  t.teardown(() => { api.trace.setGlobalTracerProvider(provider) })
  const metrics = new Metrics(api as unknown as OtelApi)
  t.equal(metrics.on(), false, 'the api\'s no-op meter provider')
  t.equal(new Tracing(true, undefined, metrics).on(), false, 'so nothing traces or measures a message')
  const sessionId = await openSession(app)
  t.equal((await send(app, modernCall('add', {}))).status, 200)
  t.equal((await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } })).statusCode, 204)
  const meters = meterProvider(t)
  t.equal(metrics.on(), true, 'a provider registered later')
  const before = await meters.collect()
  t.same(pointsOf(before, OPERATION_DURATION), [], 'nothing was recorded before it')
  t.same(pointsOf(before, SESSION_DURATION), [])
  t.equal((await send(app, modernCall('add', {}))).status, 200)
  t.equal(pointWith(pointsOf(await meters.collect(), OPERATION_DURATION), { 'gen_ai.tool.name': 'add' }).count, 1, 'the plugin sees it too')
})

/** A request as the metrics read it. */
function fakeRequest (httpVersion = '1.1'): FastifyRequest {
  return { raw: { httpVersion } } as unknown as FastifyRequest
}

t.test('no meter provider: no meter work, one check per message', async (t) => {
  // an api whose global provider is a no-op one that counts what is asked of it
  const noopMeter = api.createNoopMeter()
  let looked = 0
  let meters = 0
  const noop = { getMeter: () => { meters++; return noopMeter } }
  const stub = { ...api, metrics: { getMeterProvider: () => { looked++; return noop } }, createNoopMeter: () => noopMeter } as unknown as OtelApi
  const metrics = new Metrics(stub)
  t.notOk(Array.from({ length: 1000 }).some(() => metrics.on()), 'off, 1000 times')
  t.equal(looked, 1000, 'one look at the global provider per check')
  t.equal(meters, 1, 'the no-op provider asked for a meter once, when first seen, and never again')
  const trace: McpRequestTrace = { method: 'ping', name: undefined, era: 'modern', protocolVersion: '2026-07-28', id: 1, sessionId: undefined, request: fakeRequest() }
  metrics.operation(trace, classify(new Registry(), { jsonrpc: '2.0', id: 1, method: 'ping' }, undefined, undefined), 0.5)
  metrics.sessionEnded(fakeRequest(), { id: 's', protocolVersion: '2025-11-25', client: { info: { name: 'c', version: '1' }, capabilities: {} }, initialized: true, createdAt: 0 })
  t.equal(meters, 1, 'a late measurement records nothing and makes nothing')
})

t.test('the operation\'s attributes for each kind of message, with values a client cannot multiply', async (t) => {
  const metrics = new Metrics(api as unknown as OtelApi)
  const registry = new Registry()
  registry.addTool({ name: 'add', execute: () => 1 })
  registry.addPrompt({ name: 'greet', get: () => 'hi' })
  registry.addResource({ uri: 'file:///a', name: 'a', read: () => 'x' })
  registry.addResource({ uriTemplate: 'users://{id}', name: 'user', read: () => 'x' })
  /** The attributes one message is measured with (a fresh provider each: one point). */
  const measure = async (body: Record<string, unknown>, over: Partial<McpRequestTrace> = {}): Promise<Record<string, unknown>> => {
    const meters = meterProvider(t)
    const inbound = classify(registry, { jsonrpc: '2.0', ...body }, undefined, undefined)
    const trace: McpRequestTrace = { method: inbound.method!, name: undefined, era: 'modern', protocolVersion: '2026-07-28', id: inbound.id, sessionId: undefined, request: fakeRequest('2.0'), ...over }
    metrics.operation(trace, inbound, 0.001)
    const [point] = pointsOf(await meters.collect(), OPERATION_DURATION)
    return point.attributes
  }
  const http2 = { 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': '2' }
  t.same(await measure({ id: 1, method: 'resources/read', params: { uri: 'file:///a' } }), {
    'mcp.method.name': 'resources/read',
    'mcp.protocol.version': '2026-07-28',
    ...http2
  }, 'mcp.resource.uri is opt-in: not recorded')
  t.same(await measure({ id: 2, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'greet' } } }), {
    'mcp.method.name': 'completion/complete',
    'gen_ai.prompt.name': 'greet',
    'mcp.protocol.version': '2026-07-28',
    ...http2
  })
  t.equal((await measure({ id: 3, method: 'completion/complete', params: { ref: { type: 'ref/resource', uri: 'users://{id}' } } }))['gen_ai.prompt.name'], undefined, 'a template is not a prompt')
  t.equal((await measure({ id: 4, method: 'tools/list' }, { protocolVersion: '1999-01-01' }))['mcp.protocol.version'], undefined, 'a version this server does not serve is not recorded')
  t.equal((await measure({ id: 5, method: 'tools/list' }, { protocolVersion: undefined }))['mcp.protocol.version'], undefined)
  t.equal((await measure({ id: 6, method: 'tools/list' }, { protocolVersion: '2025-06-18' }))['mcp.protocol.version'], '2025-06-18')
  t.equal((await measure({ method: 'notifications/cancelled', params: { requestId: 1 } }))['mcp.method.name'], 'notifications/cancelled')
  t.equal((await measure({ method: 'notifications/made-up' }))['mcp.method.name'], '_OTHER')
})
