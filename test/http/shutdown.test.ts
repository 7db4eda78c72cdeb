// Draining and closing one endpoint for a rolling deploy (issue 29, item 3), over a real port:
// - `app.mcp.drain()` turns the readiness signal on and keeps serving; a bad delay is a TypeError;
// - once `app.close()` began, the listener closes, and a request on a kept connection (POST, GET,
//   DELETE) is refused with 503, `Retry-After` and a JSON-RPC error (with Fastify's
//   `return503OnClosing: false`; otherwise Fastify answers its own 503 first), while a call in
//   flight finishes and is answered;
// - a call still running at the end of `closeTimeout` has its `ctx.signal` aborted and answers;
// - a 2025 GET stream is told to reconnect (`retry:`) and ends;
// - the bookkeeping of `Shutdown` itself: answers tracked until they settle, signals watched until released.
import t from 'tap'
import { Shutdown, CLOSED_UNDER_CALL } from '../../lib/http/shutdown.js'
import { ShuttingDownError } from '../../lib/errors.js'
import { build, deferred, listen, until } from '../helpers/app.js'
import { Agent, request, type IncomingHttpHeaders } from 'node:http'
import { getStream, sessionOn, streamPost } from '../helpers/network.js'
import { modernMeta } from '../helpers/requests.js'

const silent: any = { warn: () => {} }

async function slowApp (t: any, options: Record<string, unknown> = {}): Promise<{ app: any, url: string, started: () => Promise<void>, release: () => void }> {
  const app = await build({ closeTimeout: 5000, ...options }, { return503OnClosing: false })
  const gate = deferred<void>()
  const running = deferred<void>()
  app.registerTool({
    name: 'slow',
    description: 'answers once released',
    args: {},
    execute: async () => {
      running.resolve()
      await gate.promise
      return 'done'
    }
  })
  const url = await listen(t, app, { teardown: false })
  return { app, url, started: async () => await running.promise, release: () => gate.resolve() }
}

t.test('drain: draining from now on, every request still served; a bad delay is refused', async (t) => {
  const app = await build()
  const url = await listen(t, app)
  t.equal(app.mcp.draining, false)
  const started = Date.now()
  await app.mcp.drain(150)
  t.ok(Date.now() - started >= 140, 'resolves after the delay')
  t.equal(app.mcp.draining, true)
  const answer = await (await streamPost(url, 'tools/list')).json()
  t.ok(Array.isArray(answer.result.tools), 'still served while draining')
  for (const bad of [-1, 1.5, '10', 600_001]) {
    await t.rejects(app.mcp.drain(bad as number), { name: 'TypeError', message: `fastify-sake: app.mcp.drain takes a delay in milliseconds, an integer from 0 to 600000, got ${JSON.stringify(bad)}` })
  }
})

/** Requests on one kept-alive connection: what a gateway's pooled connection sends while an instance closes. */
function keptAlive (url: string): (method: string, headers: Record<string, string>, body?: unknown) => Promise<{ status: number, headers: IncomingHttpHeaders, body: any }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  return async (method, headers, body) => await new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

t.test('closing: a call in flight finishes and is answered; the listener closes; a request on a kept connection gets 503 with Retry-After and a JSON-RPC error', async (t) => {
  const { app, url, started, release } = await slowApp(t)
  const send = keptAlive(url)
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' }
  // the kept connection carries the call in flight, and whatever is sent after it
  const inFlight = send('POST', { ...json, 'mcp-method': 'tools/call', 'mcp-name': 'slow' }, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: modernMeta() } })
  await started()
  const closed = app.close()
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(app.mcp.draining, true, 'closing drains')
  await t.rejects(streamPost(url, 'tools/list'), { code: 'ECONNREFUSED' }, 'a new connection is refused: the listener closed (a gateway sends it elsewhere)')

  const refused = send('POST', { ...json, 'mcp-method': 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernMeta() } })
  release()
  t.match(await inFlight, { status: 200, body: { result: { content: [{ type: 'text', text: 'done' }] } } }, 'the call in flight was answered')
  const answer = await refused
  t.equal(answer.status, 503)
  t.equal(answer.headers['retry-after'], '1')
  t.equal(answer.headers.connection, 'close', 'the client opens a new connection, which a gateway sends elsewhere')
  t.same(answer.body, { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Service Unavailable: this server instance is shutting down and takes no new requests; send the request again (another instance answers it)' } })
  await closed
})

t.test('closing: a GET, a DELETE and a 2025 POST on kept connections are refused the same way', async (t) => {
  const app = await build({ closeTimeout: 5000 }, { return503OnClosing: false })
  const gate = deferred<void>()
  let running = 0
  app.registerTool({ name: 'slow', description: 'answers once released', args: {}, execute: async () => { running++; await gate.promise; return 'done' } })
  const url = await listen(t, app, { teardown: false })
  const session = await sessionOn(url)
  const legacy = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
  const asks: Array<{ method: string, headers: Record<string, string>, body: unknown, id: number | null }> = [
    { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: undefined, id: null },
    { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: undefined, id: null },
    { method: 'POST', headers: legacy, body: { jsonrpc: '2.0', id: 5, method: 'ping' }, id: 5 }
  ]
  const connections = asks.map(() => keptAlive(url))
  const calls = connections.map(async (send, n) => await send('POST', legacy, { jsonrpc: '2.0', id: 10 + n, method: 'tools/call', params: { name: 'slow', arguments: {} } }))
  await until(() => running === asks.length, { what: 'a call in flight on each connection' })
  const closed = app.close()
  await new Promise((resolve) => setImmediate(resolve))
  const refused = asks.map(async ({ method, headers, body }, n) => await connections[n]!(method, headers, body))
  gate.resolve()
  for (const [n, call] of calls.entries()) t.match(await call, { status: 200, body: { id: 10 + n, result: { content: [{ text: 'done' }] } } }, 'each call in flight answered')
  for (const [n, answer] of refused.entries()) {
    t.match(await answer, { status: 503, headers: { 'retry-after': '1', connection: 'close' }, body: { id: asks[n]!.id, error: { code: -32603, message: /^Service Unavailable: this server instance is shutting down/ } } }, `${asks[n]!.method} refused`)
  }
  await closed
})

t.test('a call still running at the end of closeTimeout: its signal aborts, it answers, and the close ends', async (t) => {
  const app = await build({ closeTimeout: 200 }, { return503OnClosing: false })
  const logs: string[] = []
  const running = deferred<void>()
  app.registerTool({
    name: 'stubborn',
    description: 'waits for its signal',
    args: {},
    execute: async (_args, ctx) => {
      running.resolve()
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
      return `stopped: ${String((ctx.signal.reason as Error).message)}`
    }
  })
  app.log.warn = ((_o: unknown, message: string) => { logs.push(message) }) as any
  const url = await listen(t, app, { teardown: false })
  const call = streamPost(url, 'tools/call', { name: 'stubborn', arguments: {} })
  await running.promise
  const started = Date.now()
  await app.close()
  const took = Date.now() - started
  t.ok(took >= 190 && took < 3000, `bounded by closeTimeout (${took} ms)`)
  t.match(await (await call).json(), { result: { content: [{ text: `stopped: ${CLOSED_UNDER_CALL}` }] } }, 'the call saw why, and answered')
  t.match(logs, [/^fastify-sake: 1 call\(s\) still running after closeTimeout \(200 ms\); their ctx.signal is aborted/])
})

t.test('a 2025 GET stream is told to reconnect, then ends, when the server closes', async (t) => {
  const app = await build({}, { return503OnClosing: false })
  const url = await listen(t, app, { teardown: false })
  const session = await sessionOn(url)
  const get = await getStream(url, session)
  t.equal(get.status, 200)
  const primed = await get.next()
  t.equal(primed?.data, '', 'the priming event')
  await app.close()
  const rest = await get.rest()
  t.same(rest.map((event) => event.retry), [1000], 'retry: 1000, and the end')
})

t.test('Shutdown: answers tracked until they settle, rejected or not; signals watched until released, aborted at the bound', async (t) => {
  const shutdown = new Shutdown(2500)
  t.ok(shutdown.refusal instanceof ShuttingDownError)
  t.equal(shutdown.refusal.retryAfter, 3, 'Retry-After in whole seconds, rounded up')
  const ok = deferred<string>()
  const bad = deferred<string>()
  t.equal(shutdown.track(ok.promise), ok.promise, 'the answer itself, unchanged')
  shutdown.track(bad.promise).catch(() => {})
  t.equal(shutdown.inFlight, 2)
  const watched = new AbortController()
  const released = new AbortController()
  shutdown.watch(watched)
  shutdown.watch(released)()
  ok.resolve('x')
  bad.reject(new Error('no'))
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(shutdown.inFlight, 0, 'settled either way: no longer in flight')
  await shutdown.settled
  t.equal(watched.signal.aborted, false, 'not begun: nothing aborted, no wait')

  const stuck = new Promise(() => {})
  shutdown.track(stuck)
  const started = Date.now()
  shutdown.begin(50, silent)
  shutdown.begin(10_000, silent)
  await shutdown.settled
  t.ok(Date.now() - started < 1000)
  t.equal(watched.signal.aborted, true, 'a watched signal is aborted at the bound')
  t.equal((watched.signal.reason as Error).message, CLOSED_UNDER_CALL)
  t.equal(released.signal.aborted, false, 'a released one is not')
  t.ok(Date.now() - started < 1000, 'begun once: the second begin changes nothing')

  const idle = new Shutdown(1000)
  const signal = new AbortController()
  idle.watch(signal)
  idle.begin(10_000, silent)
  await idle.settled
  t.equal(signal.signal.aborted, false, 'nothing in flight: settled at once, nothing aborted')
})
