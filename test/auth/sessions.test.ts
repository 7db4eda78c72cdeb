// A 2025 session belongs to the subject whose token opened it: another subject's token on it finds
// no session (POST, GET and DELETE alike), and the owner's session lives on untouched.
import t from 'tap'
import { Writable } from 'node:stream'
import { build, legacyRequest, rpc } from '../helpers/app.js'
import { RESOURCE, authApp, bearer, startIssuer } from './helpers.js'

const VERSION = '2025-11-25'

t.test('another subject\'s token on a session is refused as not found; the owner carries on', async (t) => {
  const issuer = await startIssuer(t)
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(JSON.parse(chunk.toString())); done() } })
  const app = await build({ auth: { resource: RESOURCE, authorizationServers: [issuer.issuer], jwks: issuer.jwks } }, { logger: { level: 'warn', stream } })
  app.registerTool({ name: 'whoami', execute: (_args, ctx) => ctx.auth!.subject })
  const alice = bearer(await issuer.sign({ sub: 'alice' }))
  const mallory = bearer(await issuer.sign({ sub: 'mallory' }))
  const init = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...alice },
    payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }
  })
  const session = init.headers['mcp-session-id'] as string
  t.ok(session)
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }

  const hijack = await app.inject(legacyRequest(session, VERSION, call, mallory))
  t.equal(hijack.statusCode, 404)
  t.equal(rpc(hijack).error!.code, -32001)
  t.match(lines.find((l) => l.level === 40 && l.sessionId !== undefined), { sessionId: session, subject: 'mallory' }, 'logged at warn with the subject refused')
  const notify = await app.inject(legacyRequest(session, VERSION, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, mallory))
  t.equal(notify.statusCode, 404, 'notifications too')
  const get = await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': VERSION, ...mallory } })
  t.equal(get.statusCode, 404, 'the GET stream')
  const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session, 'mcp-protocol-version': VERSION, ...mallory } })
  t.equal(del.statusCode, 404, 'DELETE does not end it')
  const batch = await app.inject(legacyRequest(session, VERSION, [call], mallory))
  t.equal(batch.statusCode, 404, 'a batch')

  const owner = await app.inject(legacyRequest(session, VERSION, call, alice))
  t.equal(rpc(owner).result.content[0].text, 'alice', 'the owner\'s session is untouched')
  const fresh = bearer(await issuer.sign({ sub: 'alice', scope: 'other' }))
  t.equal((await app.inject(legacyRequest(session, VERSION, call, fresh))).statusCode, 200, 'a new token of the same subject is fine')
  const end = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session, 'mcp-protocol-version': VERSION, ...alice } })
  t.equal(end.statusCode, 204)
})

t.test('every request of a session needs a valid token, not just the first', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const alice = bearer(await issuer.sign())
  const init = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...alice },
    payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }
  })
  const session = init.headers['mcp-session-id'] as string
  const bare = await app.inject(legacyRequest(session, VERSION, { jsonrpc: '2.0', id: 1, method: 'ping' }))
  t.equal(bare.statusCode, 401)
  const expired = await app.inject(legacyRequest(session, VERSION, { jsonrpc: '2.0', id: 1, method: 'ping' }, bearer(await issuer.sign({ exp: Math.floor(Date.now() / 1000) - 3600 }))))
  t.equal(expired.statusCode, 401)
  const get = await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': VERSION } })
  t.equal(get.statusCode, 401, 'GET too')
  t.match(get.headers['www-authenticate'], /^Bearer resource_metadata=/)
})
