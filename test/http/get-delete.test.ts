// GET, DELETE and the other HTTP methods on the endpoint. GET without a session is 405 (404 for a
// session that is gone; the standalone stream itself is tested in test/streams/); DELETE ends a 2025 session.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, openSession } from '../helpers/app.js'
import { captureLog, send, sessionPost } from '../helpers/http.js'

const log = captureLog()
let app: FastifyInstance

t.before(async () => {
  app = await build({}, { logger: log.logger })
  await app.ready()
})
t.teardown(() => app.close())

const get = (headers: Record<string, string> = {}) => send(app, { method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', ...headers } })
const del = (headers: Record<string, string> = {}) => send(app, { method: 'DELETE', url: '/mcp', headers })

t.test('GET without a session is 405 with Allow', async (t) => {
  const res = await get()
  t.equal(res.status, 405)
  t.equal(res.headers.allow, 'POST, DELETE')
  t.equal(res.body.error.code, -32600)
  t.equal(res.body.id, null)
  t.match(res.body.error.message, /^Method Not Allowed: GET opens the standalone SSE stream of a 2025 session and needs its Mcp-Session-Id; 2026-07-28 clients use subscriptions\/listen/)
})

t.test('GET with a live session but no text/event-stream in Accept is 406', async (t) => {
  const session = await openSession(app)
  for (const accept of ['application/json', undefined]) {
    const res = await send(app, { method: 'GET', url: '/mcp', headers: accept === undefined ? { 'mcp-session-id': session } : { accept, 'mcp-session-id': session } })
    t.equal(res.status, 406, `Accept: ${accept}`)
    t.equal(res.body.error.code, -32600)
    t.match(res.body.error.message, /^Not Acceptable: this request answers with an event stream; the Accept header must allow text\/event-stream/)
  }
})

t.test('GET with an unknown session is 404 + -32001', async (t) => {
  const res = await get({ 'mcp-session-id': 'no-such-session' })
  t.equal(res.status, 404)
  t.equal(res.body.error.code, -32001)
  t.match(res.body.error.message, /^Session not found: it ended or expired; send initialize to start a new session/)
})

t.test('HEAD follows GET', async (t) => {
  const res = await app.inject({ method: 'HEAD', url: '/mcp' })
  t.equal(res.statusCode, 405)
  t.equal(res.headers.allow, 'POST, DELETE')
})

t.test('DELETE without a session is 405 with Allow', async (t) => {
  const res = await del()
  t.equal(res.status, 405)
  t.equal(res.headers.allow, 'POST, DELETE')
  t.equal(res.body.error.code, -32600)
  t.match(res.body.error.message, /^Method Not Allowed: DELETE ends a 2025 session and needs its Mcp-Session-Id/)
})

t.test('DELETE ends a session: 204, then the session is gone for every method', async (t) => {
  const session = await openSession(app)
  const other = await openSession(app)
  const res = await del({ 'mcp-session-id': session })
  t.equal(res.status, 204)
  t.equal(res.raw, '')

  const post = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'ping' }))
  t.equal(post.status, 404, 'a later POST is 404')
  t.equal(post.body.error.code, -32001)
  t.equal(post.body.id, 1)
  t.equal((await get({ 'mcp-session-id': session })).status, 404, 'a later GET is 404')
  const again = await del({ 'mcp-session-id': session })
  t.equal(again.status, 404, 'a second DELETE is 404')
  t.equal(again.body.error.code, -32001)

  const alive = await send(app, sessionPost(other, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'ping' }))
  t.equal(alive.status, 200, 'other sessions live on')
})

t.test('DELETE of an unknown session is 404 + -32001', async (t) => {
  const res = await del({ 'mcp-session-id': 'no-such-session' })
  t.equal(res.status, 404)
  t.equal(res.body.error.code, -32001)
  t.equal(res.body.id, null)
  t.match(res.body.error.message, /^Session not found/)
})

t.test('PUT and PATCH are 405 naming POST, not the host\'s 404', async (t) => {
  for (const method of ['PUT', 'PATCH'] as const) {
    const res = await send(app, { method, url: '/mcp', headers: { 'content-type': 'application/json' }, payload: '{"jsonrpc":"2.0","id":1,"method":"ping"}' })
    t.equal(res.status, 405, `${method}: 405`)
    t.equal(res.headers.allow, 'POST, DELETE')
    t.equal(res.body.error.code, -32600)
    t.match(res.body.error.message, new RegExp(`^Method Not Allowed: ${method} is not used by MCP; send JSON-RPC messages with POST`))
  }
})

t.test('nothing here was logged as an error', async (t) => {
  t.same(log.errors(), [])
})
