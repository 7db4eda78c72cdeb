// 2025 clients: initialize and version negotiation, the session it mints, and every refusal of a
// request on a session: none, unknown, or with a version header that does not fit it.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '../../lib/index.js'
import { build } from '../helpers/app.js'
import { openSession, post, send, sessionPost } from '../helpers/requests.js'
import { captureLog } from '../helpers/logs.js'

const log = captureLog()
let app: FastifyInstance

t.before(async () => {
  app = await build({ instructions: 'Be nice.' }, { logger: log.logger })
  app.registerTool({ name: 'echo', args: { text: Type.String() }, execute: ({ text }) => text })
  await app.ready()
})
t.teardown(() => app.close())

const clientInfo = { name: 'legacy-client', version: '2.0.0' }
const init = (params: Record<string, unknown> | undefined, id: number | string = 'i') =>
  post(params === undefined ? { jsonrpc: '2.0', id, method: 'initialize' } : { jsonrpc: '2.0', id, method: 'initialize', params })

t.test('initialize answers the requested version when supported, else 2025-11-25', async (t) => {
  const ids = new Set<string>()
  for (const [requested, answered] of [
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2024-11-05', '2025-11-25'],
    ['2024-01-01', '2025-11-25'],
    ['2026-07-28', '2025-11-25']
  ]) {
    const res = await send(app, init({ protocolVersion: requested, capabilities: {}, clientInfo }, requested))
    t.equal(res.status, 200, `${requested}: HTTP 200, not an error`)
    t.equal(res.body.id, requested)
    t.notOk('error' in res.body, `${requested}: negotiation is never an error`)
    t.same(res.body.result, {
      protocolVersion: answered,
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
        // tasks exist in 2025-11-25 only (protocol/methods/tasks.ts)
        ...(answered === '2025-11-25' ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {})
      },
      serverInfo: { name: 'test-server', version: '1.0.0' },
      instructions: 'Be nice.'
    }, `${requested}: answered with ${answered}`)
    const session = res.headers['mcp-session-id']
    t.type(session, 'string', `${requested}: a session id`)
    t.match(session, /^[\x21-\x7E]+$/, 'visible ASCII only')
    ids.add(session as string)
  }
  t.equal(ids.size, 6, 'every session has its own id')
})

t.test('initialize with missing or malformed params is -32602', async (t) => {
  const cases: Array<[string, Record<string, unknown> | undefined, RegExp]> = [
    ['no params', undefined, /initialize needs params with protocolVersion, capabilities and clientInfo/],
    ['no protocolVersion', { capabilities: {}, clientInfo }, /initialize needs "protocolVersion" as a string/],
    ['protocolVersion a number', { protocolVersion: 20251125, capabilities: {}, clientInfo }, /"protocolVersion" as a string/],
    ['no capabilities', { protocolVersion: '2025-11-25', clientInfo }, /initialize needs "capabilities" as an object/],
    ['capabilities an array', { protocolVersion: '2025-11-25', capabilities: [], clientInfo }, /"capabilities" as an object/],
    ['no clientInfo', { protocolVersion: '2025-11-25', capabilities: {} }, /initialize needs "clientInfo" as an object with "name" and "version" strings/],
    ['clientInfo without version', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x' } }, /"clientInfo" as an object with "name" and "version"/],
    ['clientInfo name a number', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 1, version: '1' } }, /"clientInfo" as an object/]
  ]
  for (const [label, params, message] of cases) {
    const res = await send(app, init(params, label))
    t.equal(res.status, 200, `${label}: HTTP 200 (the spec names no status)`)
    t.equal(res.body.error.code, -32602, `${label}: -32602`)
    t.equal(res.body.id, label, `${label}: id echoed`)
    t.match(res.body.error.message, /^Invalid params: /)
    t.match(res.body.error.message, message, `${label}: names the field`)
    t.notOk('mcp-session-id' in res.headers, `${label}: no session minted`)
  }
})

t.test('a session: initialized, ping, tools/list, tools/call', async (t) => {
  const res = await send(app, init({ protocolVersion: '2025-11-25', capabilities: {}, clientInfo }))
  const session = res.headers['mcp-session-id'] as string

  const initialized = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/initialized' }))
  t.equal(initialized.status, 202)
  t.equal(initialized.raw, '', 'no body')
  const twice = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/initialized' }))
  t.equal(twice.status, 202, 'a repeated initialized is harmless')
  const other = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }))
  t.equal(other.status, 202, 'any notification is accepted')

  const ping = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 'p', method: 'ping' }))
  t.equal(ping.status, 200)
  t.same(ping.body, { jsonrpc: '2.0', id: 'p', result: {} })

  const list = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tools/list' }))
  t.equal(list.status, 200)
  t.same(list.body.result.tools.map((tool: { name: string }) => tool.name), ['echo'])
  for (const key of ['resultType', 'ttlMs', 'cacheScope', '_meta']) t.notOk(key in list.body.result, `no ${key} in a legacy list`)

  const call = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }))
  t.equal(call.status, 200)
  t.same(call.body, { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'hi' }] } })
  t.notOk('mcp-session-id' in call.headers, 'the session id is only minted by initialize')
})

t.test('a JSON-RPC response no question of ours waits for is refused with 400, and kept nowhere', async (t) => {
  const session = await openSession(app)
  const result = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 'srv-1', result: {} }))
  t.equal(result.status, 400)
  t.same(result.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad Request: no question of this server waits for an answer with id "srv-1" on this session (it was never asked, was answered already, or timed out)' } })
  const error = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 7, error: { code: -1, message: 'declined' } }))
  t.equal(error.status, 400)
  t.match(error.body.error.message, /with id 7 on this session/)
})

t.test('no session: a request that is neither initialize nor modern is 400 + -32600', async (t) => {
  const res = await send(app, post({ jsonrpc: '2.0', id: 4, method: 'tools/list' }))
  t.equal(res.status, 400)
  t.equal(res.body.error.code, -32600)
  t.equal(res.body.id, 4)
  t.match(res.body.error.message, /^Bad Request: no session\. 2025 clients send initialize first and then the Mcp-Session-Id header; 2026-07-28 clients send params\._meta/)

  const withVersion = await send(app, post({ jsonrpc: '2.0', id: 5, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' }))
  t.equal(withVersion.status, 400, 'a legacy version header does not make a session')
  t.equal(withVersion.body.error.code, -32600)

  const notification = await send(app, post({ jsonrpc: '2.0', method: 'notifications/initialized' }))
  t.equal(notification.status, 400, 'a notification without a session is refused too')
  t.equal(notification.body.id, null)

  const response = await send(app, post({ jsonrpc: '2.0', id: 9, result: {} }))
  t.equal(response.status, 400, 'and a response')
  t.equal(response.body.id, null, 'whose id is not echoed')
})

t.test('an unknown or ended session is 404 + -32001', async (t) => {
  for (const body of [
    { jsonrpc: '2.0', id: 6, method: 'tools/list' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 'srv', result: {} }
  ]) {
    const res = await send(app, sessionPost('no-such-session', '2025-11-25', body))
    t.equal(res.status, 404)
    t.equal(res.body.error.code, -32001)
    t.equal(res.body.id, 'method' in body && 'id' in body ? 6 : null, 'the id of a request only')
    t.match(res.body.error.message, /^Session not found: it ended or expired; send initialize to start a new session/)
  }
})

t.test('MCP-Protocol-Version on a session', async (t) => {
  for (const version of ['2025-11-25', '2025-06-18']) {
    const session = await openSession(app, version)
    const missing = await send(app, sessionPost(session, version, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': undefined }))
    t.equal(missing.status, 400, `${version}: required`)
    t.equal(missing.body.error.code, -32600)
    t.equal(missing.body.id, 1)
    t.match(missing.body.error.message, new RegExp(`the MCP-Protocol-Version header is required on every request of a ${version} session`))
  }

  const old = await openSession(app, '2025-03-26')
  const absent = await send(app, sessionPost(old, '2025-03-26', { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': undefined }))
  t.equal(absent.status, 200, '2025-03-26 clients predate the header')
  t.same(absent.body.result, {})

  const session = await openSession(app, '2025-06-18')
  const other = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'ping' }))
  t.equal(other.status, 200, 'another supported 2025 version is served at the negotiated one')
  t.same(other.body.result, {})

  for (const bad of ['2026-07-28', '2024-01-01', 'latest']) {
    const res = await send(app, sessionPost(session, bad, { jsonrpc: '2.0', id: 3, method: 'ping' }))
    t.equal(res.status, 400, `${bad}: not a 2025 version`)
    t.equal(res.body.error.code, -32600)
    t.equal(res.body.id, 3)
    t.match(res.body.error.message, new RegExp(`MCP-Protocol-Version header '${bad}' is not a version of this session's protocol era; this session negotiated '2025-06-18'`))
    t.same(res.body.error.data, { supported: ['2025-11-25', '2025-06-18', '2025-03-26'], requested: bad })
  }

  const oldOther = await send(app, sessionPost(old, '2025-11-25', { jsonrpc: '2.0', id: 4, method: 'ping' }))
  t.equal(oldOther.status, 200, 'a 2025-03-26 session sending a 2025 version is served')
})

t.test('an unknown method on a session is HTTP 200 + -32601, never 404', async (t) => {
  const session = await openSession(app)
  const res = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 'u', method: 'resources/unknown' }))
  t.equal(res.status, 200, '404 would tell the client its session is gone')
  t.equal(res.body.error.code, -32601)
  t.equal(res.body.id, 'u')
  t.match(res.body.error.message, /^Method not found: resources\/unknown/)

  const discover = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 'd', method: 'server/discover' }))
  t.equal(discover.status, 200)
  t.equal(discover.body.error.code, -32601, 'server/discover is modern only')
})

t.test('Mcp-Method and Mcp-Name on a session: checked when sent', async (t) => {
  const session = await openSession(app)
  const call = (headers: Record<string, string>) =>
    send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 'h', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, headers))

  t.equal((await call({})).status, 200, 'absent: fine')
  t.equal((await call({ 'mcp-method': 'tools/call', 'mcp-name': 'echo' })).status, 200, 'matching: fine')

  const method = await call({ 'mcp-method': 'tools/list' })
  t.equal(method.status, 400)
  t.equal(method.body.error.code, -32020)
  t.equal(method.body.id, 'h')
  t.match(method.body.error.message, /Mcp-Method header value 'tools\/list' does not match body value 'tools\/call'/)

  const name = await call({ 'mcp-name': 'other' })
  t.equal(name.status, 400)
  t.equal(name.body.error.code, -32020)
  t.match(name.body.error.message, /Mcp-Name header value 'other' does not match body value 'echo'/)
})

t.test('initialize inside a live session starts a new one', async (t) => {
  const session = await openSession(app)
  const res = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo } }))
  t.equal(res.status, 200)
  t.equal(res.body.result.protocolVersion, '2025-06-18')
  t.not(res.headers['mcp-session-id'], session, 'a new session id')
})

t.test('nothing here was logged as an error', async (t) => {
  t.same(log.errors(), [])
})
