// The session store behind 2025 sessions: a user's store is really used (initialize, get, delete)
// and stays theirs to close; the default in-memory one is closed with the app.
import t from 'tap'
import { MemorySessionStore, type Session, type SessionStore } from '../../lib/index.js'
import { build, legacyRequest, openSession, rpc } from '../helpers/app.js'

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
    const list = await app.inject(legacyRequest(id, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }))
    t.equal(list.statusCode, 200)
    t.same(calls, [`get ${id}`], 'each request looks its session up there')

    calls.length = 0
    const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': id } })
    t.equal(del.statusCode, 204)
    t.same(calls, [`get ${id}`, `delete ${id}`], 'DELETE ends it there')
    t.equal(sessions.size, 0)

    const after = await app.inject(legacyRequest(id, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tools/list' }))
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
  const res = await app.inject(legacyRequest(id, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }))
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
  const res = await app.inject(legacyRequest(id, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'ping' }))
  t.same(rpc(res), { jsonrpc: '2.0', id: 1, result: {} })
})
