// 2025 sessions over a real port: logging/setLevel, resources/subscribe, the GET stream (409, list
// changes, subscribed updates), and 2025-11-25 resumability (priming, ids, closeStream, Last-Event-ID).
import t, { type Test } from 'tap'
import { MemoryBus, MemoryEventStore, Type } from '../../../lib/index.js'
import { build, deferred, listen, sleep, until } from '../../helpers/app.js'
import { openSession, sessionPost, rpc } from '../../helpers/requests.js'
import { getStream, legacyPost, open, sessionOn } from '../../helpers/network.js'

async function server (t: Test, options = {}) {
  const app = await build({ keepAlive: 0, ...options })
  const gate = deferred()
  app.registerTool({
    name: 'work',
    stream: true,
    args: { close: Type.Optional(Type.Boolean()) },
    async execute ({ close }, ctx) {
      ctx.progress(1, 3, 'one')
      ctx.progress(1, 3, 'not above the last: dropped')
      ctx.notify('info', 'working')
      if (close === true) {
        ctx.log.debug('polling')
        t.ok(ctx.request!.headers['mcp-session-id'], 'ctx.request is the POST that started the call')
        ctx.closeStream(5)
        ctx.closeStream(5) // the connection is already going: nothing more
        await gate.promise
        t.equal(ctx.signal.aborted, false, 'a resumable call is not cancelled by its connection closing')
      }
      ctx.progress(2, 3, 'two')
      return 'done'
    }
  })
  const url = await listen(t, app)
  return { app, url, gate }
}

const call = (id: number, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'work', arguments: args, _meta: { progressToken: 'p' } } })

t.test('logging/setLevel answers exactly {} and persists the level in the session', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const id = await openSession(app)
  const res = await app.inject(sessionPost(id, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'warning' } }))
  t.equal(res.body, '{"jsonrpc":"2.0","id":1,"result":{}}')
  const bad = rpc(await app.inject(sessionPost(id, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'loud' } })))
  t.equal(bad.error!.code, -32602)
  t.match(bad.error!.message, /^Invalid params: "level" must be one of debug, info, notice, warning, error, critical, alert, emergency, got "loud"/)
  const none = rpc(await app.inject(sessionPost(id, '2025-11-25', { jsonrpc: '2.0', id: 3, method: 'logging/setLevel' })))
  t.match(none.error!.message, /got nothing$/)
})

t.test('logging/setLevel level reaches a streamed call; below the level nothing is sent', async (t) => {
  const app = await build({ keepAlive: 0 })
  app.registerTool({
    name: 'talk',
    execute (_args, ctx) {
      ctx.notify('debug', 'quiet')
      ctx.notify('error', { loud: true }, 'db')
      ctx.notify('nonsense' as any, 'dropped')
      return 'ok'
    }
  })
  t.teardown(() => app.close())
  const id = await openSession(app, '2025-06-18')
  const plain = await app.inject(sessionPost(id, '2025-06-18', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'talk' } }))
  t.match(plain.headers['content-type'], /application\/json/, 'no level yet: a plain JSON answer')
  await app.inject(sessionPost(id, '2025-06-18', { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'warning' } }))
  const streamed = await app.inject(sessionPost(id, '2025-06-18', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'talk' } }))
  t.equal(streamed.headers['content-type'], 'text/event-stream')
  t.equal(streamed.body,
    'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":{"loud":true},"logger":"db"}}\n\n' +
    `data: ${JSON.stringify({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'ok' }] } })}\n\n`,
    'no priming event and no ids below 2025-11-25; the debug message is filtered out')
})

t.test('resources/subscribe and unsubscribe answer {} and persist in the session; a bad uri is -32602', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const id = await openSession(app)
  const ask = async (n: number, method: string, params: unknown) => await app.inject(sessionPost(id, '2025-11-25', { jsonrpc: '2.0', id: n, method, params }))
  t.equal((await ask(0, 'resources/unsubscribe', { uri: 'test://a' })).body, '{"jsonrpc":"2.0","id":0,"result":{}}', 'nothing subscribed yet')
  t.equal((await ask(1, 'resources/subscribe', { uri: 'test://a' })).body, '{"jsonrpc":"2.0","id":1,"result":{}}')
  await ask(2, 'resources/subscribe', { uri: 'test://a' })
  await ask(3, 'resources/subscribe', { uri: 'test://b' })
  await ask(4, 'resources/unsubscribe', { uri: 'test://b' })
  t.equal((await ask(5, 'resources/unsubscribe', { uri: 'test://never' })).body, '{"jsonrpc":"2.0","id":5,"result":{}}')
  const bad = rpc(await ask(6, 'resources/subscribe', { uri: '' }))
  t.equal(bad.error!.code, -32602)
  t.match(bad.error!.message, /^Invalid params: resources\/subscribe needs "uri"/)
  const badUn = rpc(await ask(7, 'resources/unsubscribe', {}))
  t.match(badUn.error!.message, /^Invalid params: resources\/unsubscribe needs "uri"/)
  // the modern era has no such methods
  const modern = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'logging/setLevel' }, payload: { jsonrpc: '2.0', id: 9, method: 'logging/setLevel', params: { level: 'info', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } } })
  t.equal(modern.statusCode, 404)
  t.equal(rpc(modern).error!.code, -32601)
})

t.test('a 2025-11-25 POST stream: priming event first, an id on every event, ids unique per stream', async (t) => {
  const { url } = await server(t)
  const sid = await sessionOn(url)
  const [a, b] = await Promise.all([legacyPost(url, sid, '2025-11-25', call(1)), legacyPost(url, sid, '2025-11-25', call(2))])
  const eventsA = await a.rest()
  const eventsB = await b.rest()
  for (const events of [eventsA, eventsB]) {
    t.equal(events[0].data, '', 'priming: empty data')
    t.ok(events[0].id, 'priming: an id')
    t.ok(events.every((e) => typeof e.id === 'string' && e.id.length > 0), 'every event has an id')
    t.equal(JSON.parse(events.at(-1)!.data!).result.content[0].text, 'done')
  }
  t.equal(eventsA.length, 4, 'priming, progress, progress, result (no log level set)')
  const ids = [...eventsA, ...eventsB].map((e) => e.id)
  t.equal(new Set(ids).size, ids.length, 'no id repeats across the two concurrent streams')
  t.not(eventsA[0].id!.split(':')[0], eventsB[0].id!.split(':')[0], 'each POST its own stream')
})

t.test('ctx.closeStream: retry, connection closed, the rest (and the result) on GET + Last-Event-ID', async (t) => {
  const { url, gate } = await server(t)
  const sid = await sessionOn(url)
  const post = await legacyPost(url, sid, '2025-11-25', call(7, { close: true }))
  const before = await post.rest()
  t.equal(before[0].data, '', 'primed')
  t.equal(JSON.parse(before[1].data!).method, 'notifications/progress')
  t.same(before.at(-1), { retry: 5 }, 'retry: then the connection closed, without the result')
  t.notOk(before.some((e) => e.data?.includes('"result"')))
  const lastId = before[1].id!
  const replaced = await getStream(url, sid, lastId)
  await sleep(20) // lets the first resumption attach: nothing outside the server shows that
  const resumed = await getStream(url, sid, lastId)
  t.equal(resumed.status, 200)
  t.same(await replaced.rest(), [], 'a second resumption of the same stream replaces the first')
  gate.resolve()
  const after = await resumed.rest()
  t.same(after.map((e) => JSON.parse(e.data!).method ?? 'result'), ['notifications/progress', 'result'])
  t.equal(JSON.parse(after[1].data!).id, 7)
  t.ok(after.every((e) => e.id !== undefined))
  // a stream that has finished still replays from the store
  const again = await getStream(url, sid, before[0].id)
  const replayed = await again.rest()
  t.equal(replayed.length, 3, 'progress 1, progress 2, result')
  t.equal(JSON.parse(replayed[2].data!).id, 7)
})

t.test('a resumed stream replays what was stored while nobody listened, then goes live', async (t) => {
  const store = new MemoryEventStore({ maxPerStream: 100, maxEvents: 1000, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  const { url, gate } = await server(t, { events: { store } })
  const sid = await sessionOn(url)
  const post = await legacyPost(url, sid, '2025-11-25', call(8, { close: true }))
  const before = await post.rest()
  gate.resolve()
  // the call finishes while disconnected: everything is in the store
  await until(() => store.replay(before[0].id!)?.events.some((e) => e.message.includes('"result"')), { what: 'the call\'s result in the event store' })
  const resumed = await getStream(url, sid, before[0].id)
  const after = await resumed.rest()
  t.same(after.map((e) => JSON.parse(e.data!).method ?? 'result'), ['notifications/progress', 'notifications/progress', 'result'])
})

t.test('the GET stream: one per session (409), list changes, and only subscribed resource updates', async (t) => {
  const bus = new MemoryBus()
  const { app, url } = await server(t, { bus })
  const sid = await sessionOn(url)
  const other = await sessionOn(url)
  await (await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'test://watched' } })).json()
  const stream = await getStream(url, sid)
  t.equal(stream.status, 200)
  t.equal(stream.headers.get('content-type'), 'text/event-stream')
  const priming = await stream.next()
  t.equal(priming!.data, '')
  t.ok(priming!.id!.startsWith(`${sid}/get:`))
  const second = await getStream(url, sid)
  t.equal(second.status, 409)
  const conflict = await second.json()
  t.equal(conflict.error.code, -32600)
  t.match(conflict.error.message, /^Conflict: this session already has an open GET stream/)
  const elsewhere = await getStream(url, other)
  await elsewhere.next()

  await app.mcp.resourceUpdated('test://not-watched')
  await app.mcp.resourceUpdated('test://watched')
  await app.mcp.listChanged('prompts')
  const updated = await stream.next()
  t.same(JSON.parse(updated!.data!), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched' } })
  t.ok(updated!.id)
  t.same(JSON.parse((await stream.next())!.data!), { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' })
  t.same(JSON.parse((await elsewhere.next())!.data!), { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' }, 'the other session gets only the list change')

  // resume the GET stream: what was missed is replayed, and it is the session's stream again
  const streams = bus.size
  stream.close()
  await until(() => bus.size === streams - 1, { what: 'the server to end the closed GET stream' })
  const resumed = await getStream(url, sid, priming!.id)
  const replay = [await resumed.next(), await resumed.next()]
  t.same(replay.map((e) => JSON.parse(e!.data!).method), ['notifications/resources/updated', 'notifications/prompts/list_changed'])
  t.equal((await resumed.next())!.data, '', 'then a fresh priming event')
  t.equal((await getStream(url, sid)).status, 409, 'the resumed stream is the open one')

  // DELETE ends the session's GET stream
  await (await open(url, { method: 'DELETE', headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } })).rest()
  t.same(await resumed.rest(), [])
  elsewhere.close()
})

t.test('Last-Event-ID of another session, or unknown, opens a plain GET stream', async (t) => {
  const bus = new MemoryBus()
  const { url } = await server(t, { bus })
  const mine = await sessionOn(url)
  const theirs = await sessionOn(url)
  const post = await legacyPost(url, theirs, '2025-11-25', call(1))
  const theirEvents = await post.rest()
  const stolen = await getStream(url, mine, theirEvents[0].id)
  const first = await stolen.next()
  t.equal(first!.data, '', 'a fresh stream: its own priming event, nothing of the other session')
  t.ok(first!.id!.startsWith(`${mine}/get:`))
  const streams = bus.size
  stolen.close()
  await until(() => bus.size === streams - 1, { what: 'the server to end the closed GET stream' })
  const unknown = await getStream(url, mine, 'nope')
  t.ok((await unknown.next())!.id!.startsWith(`${mine}/get:`))
  unknown.close()
})

t.test('older sessions: GET streams carry no ids and no priming; Last-Event-ID is ignored', async (t) => {
  const bus = new MemoryBus()
  const { app, url } = await server(t, { bus })
  const sid = await sessionOn(url, { protocolVersion: '2025-06-18' })
  const streams = bus.size
  const stream = await getStream(url, sid, 'whatever', '2025-06-18')
  t.equal(stream.status, 200)
  await until(() => bus.size === streams + 1, { what: 'the GET stream to subscribe to the bus' })
  await app.mcp.listChanged('tools')
  t.same(await stream.next(), { data: '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}' })
  const post = await legacyPost(url, sid, '2025-06-18', call(1))
  const events = await post.rest()
  t.ok(events.every((e) => e.id === undefined && e.data !== ''), 'no priming, no ids')
  stream.close()
})

t.test('a GET stream that cannot open (a host hook set a header Node refuses) gives its place back', async (t) => {
  const app = await build({ keepAlive: 0, streams: { maxStreams: 10, maxPerCaller: 1 } })
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'GET' && request.headers['x-break'] !== undefined) reply.header('x-broken', 'a\nb')
  })
  const url = await listen(t, app)
  const sid = await sessionOn(url)
  const broken = await open(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', 'x-break': '1' } }).then(() => 'answered', (err: Error) => err.message)
  t.not(broken, 'answered', 'the connection is closed, not left open')
  const get = await getStream(url, sid)
  t.teardown(() => get.close())
  t.equal(get.status, 200, 'the caller still has its one place')
})

t.test('a GET stream counts against the caller\'s stream quota: one past the bound is 429', async (t) => {
  const app = await build({ keepAlive: 0, streams: { maxStreams: 10, maxPerCaller: 1 } })
  const url = await listen(t, app)
  const a = await sessionOn(url)
  const b = await sessionOn(url)
  const first = await getStream(url, a)
  t.teardown(() => first.close())
  t.equal(first.status, 200)
  const second = await open(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': b, 'mcp-protocol-version': '2025-11-25' } })
  t.equal(second.status, 429)
  t.match(await second.json(), { error: { code: -32600, data: { limit: 'streams', bound: 'caller', option: 'streams.maxPerCaller' } } })
})
