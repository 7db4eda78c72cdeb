// The sessions behind 2025 clients, one group per concern:
// - the session store: a user's store is really used (initialize, get, delete) and stays theirs to
//   close; the default in-memory one is closed with the app;
// - a session belongs to the subject whose token opened it: another subject's token on it finds no
//   session (POST, GET and DELETE alike), and the owner's session lives on untouched;
// - an answer to a question another instance of the fleet asked: carried by the bus, or refused once that instance died;
// - and left in the asker's inbox too, so that an asker whose bus missed it (the connection blinked) still gets it.
import t from 'tap'
import { MemoryBus, MemorySessionStore, type Session, type SessionStore } from '../../../lib/index.js'
import { ProtocolError } from '../../../lib/errors.js'
import { Sessions } from '../../../lib/protocol/session/sessions.js'
import { Quota } from '../../../lib/state/quota.js'
import { build } from '../../helpers/app.js'
import { sessionPost, openSession, rpc } from '../../helpers/requests.js'
import { RESOURCE, authApp, bearer, startIssuer } from '../../helpers/tokens.js'
import { captureLog, quiet } from '../../helpers/logs.js'
import { startRedis } from '../../helpers/redis.js'
import { until } from '../../helpers/until.js'
import { connect } from '../../../lib/state/redis/connection.js'
import { RedisInbox } from '../../../lib/state/redis/inbox.js'
import type { Inbox } from '../../../lib/state/inbox.js'

t.test('the session store (was plugin/session-store)', async (t) => {
  function recordingStore (async = false): { store: SessionStore, calls: string[], sessions: Map<string, Session> } {
    const sessions = new Map<string, Session>()
    const calls: string[] = []
    const answer = <T>(value: T): T | Promise<T> => async ? Promise.resolve(value) : value
    const store: SessionStore = {
      get (id) { calls.push(`get ${id}`); return answer(sessions.get(id)) },
      set (session) { calls.push(`set ${session.id}`); sessions.set(session.id, { ...session }); return answer(undefined) },
      delete (id) { calls.push(`delete ${id}`); sessions.delete(id); return answer(undefined) },
      close () { calls.push('close') }
    }
    return { store, calls, sessions }
  }

  for (const async of [false, true]) {
    t.test(`a user's store is used for every session step (${async ? 'promises' : 'plain values'})`, async (t) => {
      const { store, calls, sessions } = recordingStore(async)
      const app = await build({ sessions: { store } })
      t.teardown(() => app.close())

      const id = await openSession(app)
      t.equal(sessions.size, 1, 'initialize stored the session there')
      t.equal(sessions.get(id)?.protocolVersion, '2025-11-25')
      t.equal(sessions.get(id)?.initialized, true, 'notifications/initialized updated it there')
      t.same(calls, [`set ${id}`, `get ${id}`, `set ${id}`])

      calls.length = 0
      const list = await app.inject(sessionPost(id, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }))
      t.equal(list.statusCode, 200)
      t.same(calls, [`get ${id}`], 'each request looks its session up there')

      calls.length = 0
      const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': id } })
      t.equal(del.statusCode, 204)
      t.same(calls, [`get ${id}`, `delete ${id}`], 'DELETE ends it there')
      t.equal(sessions.size, 0)

      const after = await app.inject(sessionPost(id, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tools/list' }))
      t.equal(after.statusCode, 404)
      t.equal(rpc(after).error?.code, -32001)
    })
  }

  t.test('a session the store does not know is not found', async (t) => {
    const { store, sessions } = recordingStore()
    const app = await build({ sessions: { store } })
    t.teardown(() => app.close())
    const id = await openSession(app)
    sessions.clear() // e.g. expired in a shared store
    const res = await app.inject(sessionPost(id, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }))
    t.equal(res.statusCode, 404)
  })

  t.test('closing the app does not close a user\'s store', async (t) => {
    const { store, calls } = recordingStore()
    const app = await build({ sessions: { store } })
    await app.ready()
    await app.close()
    t.notOk(calls.includes('close'), 'theirs to close')
  })

  t.test('closing the app closes the default in-memory store', async (t) => {
    const closed = t.capture(MemorySessionStore.prototype, 'close', MemorySessionStore.prototype.close)
    const app = await build()
    await app.ready()
    t.equal(closed().length, 0)
    await app.close()
    const calls = closed()
    t.equal(calls.length, 1, 'closed once')
    t.type(calls[0].receiver, MemorySessionStore)
    t.equal((calls[0].receiver as MemorySessionStore).size, 0, 'and emptied')
  })

  t.test('the default store keeps sessions between requests', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    const id = await openSession(app)
    const res = await app.inject(sessionPost(id, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'ping' }))
    t.same(rpc(res), { jsonrpc: '2.0', id: 1, result: {} })
  })
})

t.test('a session is bound to its subject (was auth/sessions)', async (t) => {
  const VERSION = '2025-11-25'

  t.test('another subject\'s token on a session is refused as not found; the owner carries on', async (t) => {
    const issuer = await startIssuer(t)
    const { logger, lines } = captureLog({ level: 'warn' })
    const app = await build({ auth: { resource: RESOURCE, authorizationServers: [issuer.issuer], jwks: issuer.jwks } }, { logger })
    app.registerTool({ name: 'whoami', execute: (_args, ctx) => ctx.auth!.subject })
    const alice = bearer(await issuer.sign({ sub: 'alice' }))
    const mallory = bearer(await issuer.sign({ sub: 'mallory' }))
    const session = await openSession(app, VERSION, { headers: alice, clientInfo: { name: 'c', version: '1' }, initialized: false })
    t.ok(session)
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }

    const hijack = await app.inject(sessionPost(session, VERSION, call, mallory))
    t.equal(hijack.statusCode, 404)
    t.equal(rpc(hijack).error!.code, -32001)
    t.match(lines.find((l) => l.level === 40 && l.sessionId !== undefined), { sessionId: session, subject: 'mallory' }, 'logged at warn with the subject refused')
    const notify = await app.inject(sessionPost(session, VERSION, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, mallory))
    t.equal(notify.statusCode, 404, 'notifications too')
    const get = await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': VERSION, ...mallory } })
    t.equal(get.statusCode, 404, 'the GET stream')
    const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session, 'mcp-protocol-version': VERSION, ...mallory } })
    t.equal(del.statusCode, 404, 'DELETE does not end it')
    const batch = await app.inject(sessionPost(session, VERSION, [call], mallory))
    t.equal(batch.statusCode, 404, 'a batch')

    const owner = await app.inject(sessionPost(session, VERSION, call, alice))
    t.equal(rpc(owner).result.content[0].text, 'alice', 'the owner\'s session is untouched')
    const fresh = bearer(await issuer.sign({ sub: 'alice', scope: 'other' }))
    t.equal((await app.inject(sessionPost(session, VERSION, call, fresh))).statusCode, 200, 'a new token of the same subject is fine')
    const end = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session, 'mcp-protocol-version': VERSION, ...alice } })
    t.equal(end.statusCode, 204)
  })

  t.test('every request of a session needs a valid token, not just the first', async (t) => {
    const issuer = await startIssuer(t)
    const app = await authApp(issuer)
    const alice = bearer(await issuer.sign())
    const session = await openSession(app, VERSION, { headers: { accept: 'application/json', ...alice }, clientInfo: { name: 'c', version: '1' }, initialized: false })
    const bare = await app.inject(sessionPost(session, VERSION, { jsonrpc: '2.0', id: 1, method: 'ping' }))
    t.equal(bare.statusCode, 401)
    const expired = await app.inject(sessionPost(session, VERSION, { jsonrpc: '2.0', id: 1, method: 'ping' }, bearer(await issuer.sign({ exp: Math.floor(Date.now() / 1000) - 3600 }))))
    t.equal(expired.statusCode, 401)
    const get = await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': VERSION } })
    t.equal(get.statusCode, 401, 'GET too')
    t.match(get.headers['www-authenticate'], /^Bearer resource_metadata=/)
  })
})

t.test('an answer to a question another instance asked: onto the bus while it lives, refused (410) once it died', async (t) => {
  const bus = new MemoryBus()
  const carried: unknown[] = []
  bus.subscribe((event) => { if (event.type === 'clientResponse') carried.push(event.id) })
  const store = new MemorySessionStore({ maxSessions: 10, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  const asked: string[] = []
  const liveness = { instance: 'here', alive: async (instance: string) => { asked.push(instance); return instance !== 'gone-1' }, own () {}, release () {}, takeOver: () => [], takenOver () {} }
  const sessions = new Sessions(store, bus, liveness)
  t.teardown(() => sessions.close())
  const log: any = { error: () => {} }
  await sessions.answered('s', 'sake-alive-7', { result: {} }, log)
  t.same(carried, ['sake-alive-7'], 'a live asker: the bus carries the answer to it')
  const refused = await sessions.answered('s', 'sake-gone-1-3', { result: {} }, log).catch((err: unknown) => err)
  t.ok(refused instanceof ProtocolError)
  t.match(refused, { status: 410, code: -32600, message: 'Gone: the server instance that asked "sake-gone-1-3" stopped, and the call that asked it ended with an error; call again' })
  t.same(asked, ['alive', 'gone-1'], 'the asker is read from the id, dashes in the instance id included')
  t.same(carried, ['sake-alive-7'], 'nothing carried for a dead asker')
})

t.test("an answer the asker's bus missed: taken from its inbox while its question waits; an inbox that cannot keep it refuses the POST (503)", async (t) => {
  const redis = await startRedis(t)
  const warnings: string[] = []
  const log: any = { warn: (_o: unknown, m: string) => warnings.push(m), error: () => {}, info: () => {}, debug: () => {}, child: () => log }
  const conn = await connect({ url: redis.url, prefix: 'p:', timeout: 500 }, log)
  t.teardown(() => conn.close())
  const store = new MemorySessionStore({ maxSessions: 10, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  const member = (instance: string) => ({ instance, alive: () => true, own () {}, release () {}, takeOver: () => [], takenOver () {} })
  // the asker's bus hears nothing from the other instance (a connection that blinked, for as long as it matters)
  const asker = new Sessions(store, new MemoryBus(), member('a'), new RedisInbox(conn))
  t.teardown(() => asker.close())
  const failing = new MemoryBus()
  failing.publish = () => { throw new Error('bus down') }
  const receiver = new Sessions(store, failing, member('b'), new RedisInbox(conn))
  t.teardown(() => receiver.close())

  let id = ''
  const answered = asker.questions.send('s', (message) => { id = JSON.parse(message).id; return true }, 'elicitation/create', {}, { timeout: 10_000, signal: new AbortController().signal, key: 'who' }, { caller: 'test', log: quiet })
  await until(() => id !== '', { what: 'the question sent, once the inbox knows it waits' })
  t.equal(asker.questions.waiting, 1)
  t.equal(redis.cli('GET', `p:question:${id}`), 's', 'the inbox knows the question waits, and on which session')
  // what nobody asked is refused and kept nowhere: a made-up id of a live instance, another session's answer
  const forged = await receiver.answered('s', 'sake-a-999', { result: { big: 'x'.repeat(10_000) } }, log).catch((err: unknown) => err)
  t.match(forged, { status: 400, code: -32600, message: /no question of this server waits for an answer with id "sake-a-999"/ })
  t.match(await receiver.answered('other-session', id, { result: {} }, log).catch((err: unknown) => err), { status: 400 }, "another session's answer to it")
  t.equal(redis.cli('EXISTS', 'p:inbox:a'), '0', 'nothing kept')
  await receiver.answered('s', id, { result: { action: 'accept', content: { name: 'Ada' } } }, log)
  t.same(warnings, ['fastify-sake: the bus failed to carry a client response; the instance that asked takes it from its inbox'], 'the bus failing is a warning, not a lost answer')
  t.equal(redis.cli('LLEN', 'p:inbox:a'), '1', "left in the asker's inbox")
  asker.collect(50, log)
  t.same(await answered, { result: { action: 'accept', content: { name: 'Ada' } } }, 'the question got its answer from the inbox')
  t.equal(asker.questions.waiting, 0)
  t.equal(redis.cli('EXISTS', 'p:inbox:a'), '0', 'and the inbox is empty')

  t.equal(redis.cli('EXISTS', `p:question:${id}`), '0', 'answered: the question no longer waits')
  // a second answer to it is refused: one answer per question is ever kept
  t.match(await receiver.answered('s', id, { result: { action: 'decline' } }, log).catch((err: unknown) => err), { status: 400 })
  t.equal(redis.cli('EXISTS', 'p:inbox:a'), '0')
  const before = id
  const again = asker.questions.send('s', (message) => { id = JSON.parse(message).id; return true }, 'roots/list', {}, { timeout: 10_000, signal: new AbortController().signal, key: 'roots' }, { caller: 'test', log: quiet })
  await until(() => id !== before, { what: 'the second question sent' })
  await receiver.answered('s', id, { result: { roots: [] } }, log)
  t.same(await again, { result: { roots: [] } }, 'the next question gets its own answer')

  await redis.kill()
  const refused = await receiver.answered('s', 'sake-a-9', { result: {} }, log).catch((err: unknown) => err)
  t.match(refused, { status: 503, code: -32603, message: /^Service Unavailable: the inbox store cannot be reached/ }, 'not kept: refused, so that the client knows')
  const waiting = asker.questions.send('s', () => true, 'roots/list', {}, { timeout: 10_000, signal: new AbortController().signal, key: 'roots' }, { caller: 'test', log: quiet })
  await until(() => warnings.includes('fastify-sake: the inbox could not be read; trying again at the next heartbeat'), { what: 'the failed read logged' })
  asker.close()
  t.match(await waiting.catch((err: unknown) => err), { reason: 'cancelled' }, 'closing ends the wait')
})

t.test("an asker's inbox full of answers refuses one more with 503, until the asker takes them", async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: 'p:', timeout: 500 }, quiet)
  t.teardown(() => conn.close())
  const store = new MemorySessionStore({ maxSessions: 10, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  const member = (instance: string) => ({ instance, alive: () => true, own () {}, release () {}, takeOver: () => [], takenOver () {} })
  const asker = new Sessions(store, new MemoryBus(), member('a'), new RedisInbox(conn, { answers: 1, bytes: 100_000 }))
  const receiver = new Sessions(store, new MemoryBus(), member('b'), new RedisInbox(conn, { answers: 1, bytes: 100_000 }))
  t.teardown(() => { asker.close(); receiver.close() })
  const ids: string[] = []
  const asked = [0, 1].map(async (n) => await asker.questions.send('s', (message) => { ids.push(JSON.parse(message).id); return true }, 'roots/list', {}, { timeout: 10_000, signal: new AbortController().signal, key: `k${n}` }, { caller: 'test', log: quiet }))
  for (const one of asked) one.catch(() => {})
  await until(() => ids.length === 2, { what: 'both questions sent' })
  await receiver.answered('s', ids[0], { result: { roots: [] } }, quiet)
  const full = await receiver.answered('s', ids[1], { result: { roots: [] } }, quiet).catch((err: unknown) => err)
  t.match(full, { status: 503, code: -32603, message: /^Service Unavailable: the server instance that asked this question has too many answers waiting for it/ })
  asker.collect(20, quiet)
  t.same(await asked[0], { result: { roots: [] } }, 'taken from the inbox')
  await receiver.answered('s', ids[1], { result: { roots: [{ uri: 'file:///x' }] } }, quiet)
  t.same(await asked[1], { result: { roots: [{ uri: 'file:///x' }] } }, 'the refused answer, sent again, arrives')
})

t.test('without an inbox (one instance, or a bus of the user\'s own), collect does nothing and a bus failure is an error in the log', async (t) => {
  const store = new MemorySessionStore({ maxSessions: 10, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  const bus = new MemoryBus()
  bus.publish = () => { throw new Error('bus down') }
  const errors: string[] = []
  const log: any = { error: (_o: unknown, m: string) => errors.push(m), warn: () => {} }
  const sessions = new Sessions(store, bus, { instance: 'here', alive: () => true, own () {}, release () {}, takeOver: () => [], takenOver () {} }, undefined as Inbox | undefined)
  sessions.collect(10, log)
  t.teardown(() => sessions.close())
  await sessions.answered('s', 'sake-there-1', { result: {} }, log)
  t.same(errors, ['fastify-sake: the bus failed to carry a client response to the instance that asked'])
})

t.test('a question the inbox was still being told of when the server began to close is not sent, and its place is given back', async (t) => {
  const store = new MemorySessionStore({ maxSessions: 10, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  let told!: () => void
  const forgotten: string[] = []
  const inbox: Inbox = {
    expect: async () => { await new Promise<void>((resolve) => { told = resolve }) },
    forget: (id) => { forgotten.push(id) },
    leave: () => 'kept',
    take: () => []
  }
  const quota = new Quota('questions', { perCaller: 1, total: 10 })
  const sessions = new Sessions(store, new MemoryBus(), { instance: 'a', alive: () => true, own () {}, release () {}, takeOver: () => [], takenOver () {} }, inbox, { questions: quota })
  let written = 0
  const asking = sessions.questions.send('s', () => { written++; return true }, 'roots/list', {}, { timeout: 10_000, signal: new AbortController().signal, key: 'roots' }, { caller: 'ip:1', log: quiet })
  await until(() => told !== undefined, { what: 'the inbox told' })
  t.equal(quota.of('ip:1'), 1, 'held while it is being asked')
  sessions.close()
  told()
  t.match(await asking.catch((err: unknown) => err), { reason: 'cancelled', message: /the server is closing/ })
  t.equal(written, 0, 'never sent')
  t.equal(quota.of('ip:1'), 0, 'its place given back')
  t.equal(forgotten.length, 1, 'and the inbox told to forget it')
})

t.test('collect takes the inbox one read at a time: a slow read is not overlapped by the next tick', async (t) => {
  const store = new MemorySessionStore({ maxSessions: 10, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  let takes = 0
  const inbox: Inbox = {
    expect () {},
    forget () {},
    leave: () => 'kept',
    async take () {
      takes++
      await new Promise((resolve) => setTimeout(resolve, 150)) // the point: a read slower than fifteen ticks
      return []
    }
  }
  const sessions = new Sessions(store, new MemoryBus(), { instance: 'a', alive: () => true, own () {}, release () {}, takeOver: () => [], takenOver () {} }, inbox)
  t.teardown(() => sessions.close())
  const waiting = sessions.questions.send('s', () => true, 'roots/list', {}, { timeout: 10_000, signal: new AbortController().signal, key: 'roots' }, { caller: 'test', log: quiet })
  waiting.catch(() => {})
  sessions.collect(10, { warn () {} } as any)
  await new Promise((resolve) => setTimeout(resolve, 100)) // the point: ten ticks pass while the first read runs
  t.equal(takes, 1, 'ten ticks, one read still running')
  await until(() => takes >= 2, { what: 'the next tick after the read to read again' })
})
