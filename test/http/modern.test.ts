// 2026-07-28 requests the endpoint refuses, in the order the spec fixes: per-request _meta (400 +
// -32602), MCP-Protocol-Version (400 + -32020), the version itself (400 + -32022), Mcp-Method and
// Mcp-Name (400 + -32020), and the method (404 + -32601). Plus what a modern client may not POST.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '../../lib/index.js'
import { build } from '../helpers/app.js'
import { openSession, MODERN, modernCall, modernMeta, modernPost, post, send } from '../helpers/requests.js'
import { captureLog } from '../helpers/logs.js'

const log = captureLog()
let app: FastifyInstance

t.before(async () => {
  app = await build({}, { logger: log.logger })
  app.registerTool({ name: 'echo', args: { text: Type.String() }, execute: ({ text }) => text })
  await app.ready()
})
t.teardown(() => app.close())

const V = 'io.modelcontextprotocol/protocolVersion'
const CAPS = 'io.modelcontextprotocol/clientCapabilities'
const INFO = 'io.modelcontextprotocol/clientInfo'
const LEVEL = 'io.modelcontextprotocol/logLevel'

function withMeta (meta: Record<string, unknown> | undefined, method = 'tools/list', id: number | string = 7): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params: meta === undefined ? {} : { _meta: meta } }
}

function without (key: string): Record<string, unknown> {
  const meta = modernMeta()
  delete meta[key]
  return meta
}

t.test('a well-formed modern request passes every check', async (t) => {
  const res = await send(app, modernPost(withMeta(modernMeta())))
  t.equal(res.status, 200)
  t.equal(res.body.id, 7)
  t.equal(res.body.result.resultType, 'complete')
  t.notOk('mcp-session-id' in res.headers, 'no session is minted for a modern request')
})

t.test('_meta: required fields missing or malformed is 400 + -32602', async (t) => {
  const cases: Array<[string, Record<string, unknown>, Record<string, string>, RegExp]> = [
    ['no _meta, with the modern header', withMeta(undefined), { 'mcp-protocol-version': MODERN },
      /a 2026-07-28 request needs params\._meta with "io\.modelcontextprotocol\/protocolVersion" and "io\.modelcontextprotocol\/clientCapabilities"/],
    ['no params at all, with the modern header', { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { 'mcp-protocol-version': MODERN },
      /needs params\._meta/],
    ['_meta without protocolVersion', withMeta(without(V)), { 'mcp-protocol-version': MODERN },
      /params\._meta\["io\.modelcontextprotocol\/protocolVersion"\] must be a string/],
    ['protocolVersion a number', withMeta(modernMeta({ [V]: 20260728 })), { 'mcp-protocol-version': MODERN },
      /params\._meta\["io\.modelcontextprotocol\/protocolVersion"\] must be a string/],
    ['_meta without clientCapabilities', withMeta(without(CAPS)), {},
      /params\._meta\["io\.modelcontextprotocol\/clientCapabilities"\] is required and must be an object \(\{\} for none\)/],
    ['clientCapabilities an array', withMeta(modernMeta({ [CAPS]: [] })), {},
      /clientCapabilities"\] is required and must be an object/],
    ['clientInfo without version', withMeta(modernMeta({ [INFO]: { name: 'x' } })), {},
      /params\._meta\["io\.modelcontextprotocol\/clientInfo"\] must be an object with "name" and "version" strings/],
    ['clientInfo a string', withMeta(modernMeta({ [INFO]: 'client 1.0' })), {},
      /clientInfo"\] must be an object with "name" and "version" strings/],
    ['clientInfo name a number', withMeta(modernMeta({ [INFO]: { name: 1, version: '1' } })), {},
      /clientInfo"\] must be an object/],
    ['logLevel unknown', withMeta(modernMeta({ [LEVEL]: 'verbose' })), {},
      /params\._meta\["io\.modelcontextprotocol\/logLevel"\] must be one of debug, info, notice, warning, error, critical, alert, emergency/],
    ['logLevel upper case', withMeta(modernMeta({ [LEVEL]: 'INFO' })), {}, /logLevel"\] must be one of/]
  ]
  for (const [label, body, headers, message] of cases) {
    const res = await send(app, modernPost(body, headers))
    t.equal(res.status, 400, `${label}: HTTP 400`)
    t.equal(res.body.error.code, -32602, `${label}: -32602`)
    t.equal(res.body.id, 7, `${label}: id echoed`)
    t.match(res.body.error.message, /^Invalid params: /, `${label}: says Invalid params`)
    t.match(res.body.error.message, message, `${label}: names the field`)
  }
})

t.test('_meta: optional fields may be left out, and a valid logLevel passes', async (t) => {
  const noInfo = await send(app, modernPost(withMeta(without(INFO))))
  t.equal(noInfo.status, 200, 'clientInfo is optional')
  const level = await send(app, modernPost(withMeta(modernMeta({ [LEVEL]: 'warning' }))))
  t.equal(level.status, 200, 'a known logLevel passes')
})

t.test('MCP-Protocol-Version missing or different from _meta is 400 + -32020', async (t) => {
  const missing = await send(app, modernPost(withMeta(modernMeta()), { 'mcp-protocol-version': undefined }))
  t.equal(missing.status, 400)
  t.equal(missing.body.error.code, -32020)
  t.equal(missing.body.id, 7)
  t.match(missing.body.error.message, /^Header mismatch: MCP-Protocol-Version header is required and must equal params\._meta version '2026-07-28'/)

  const other = await send(app, modernPost(withMeta(modernMeta()), { 'mcp-protocol-version': '2025-11-25' }))
  t.equal(other.status, 400)
  t.equal(other.body.error.code, -32020)
  t.match(other.body.error.message, /MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'/)

  // the header is checked before the version: an unknown version without its header is -32020
  const both = await send(app, modernPost(withMeta(modernMeta({ [V]: '1900-01-01' })), { 'mcp-protocol-version': undefined }))
  t.equal(both.body.error.code, -32020)
})

t.test('an unsupported version in _meta is 400 + -32022 with supported and requested', async (t) => {
  for (const requested of ['1900-01-01', '2025-11-25']) {
    const res = await send(app, modernPost(withMeta(modernMeta({ [V]: requested }))))
    t.equal(res.status, 400, `${requested}: HTTP 400`)
    t.equal(res.body.error.code, -32022, `${requested}: -32022`)
    t.equal(res.body.id, 7)
    t.match(res.body.error.message, new RegExp(`^Unsupported protocol version: ${requested}`))
    t.equal(res.body.error.data.requested, requested)
    t.ok(Array.isArray(res.body.error.data.supported), 'supported is an array')
    t.ok(res.body.error.data.supported.includes('2026-07-28'), 'it offers 2026-07-28')
    t.ok(res.body.error.data.supported.includes('2025-11-25'), 'and the legacy versions')
  }
  // the version comes before the other headers: their rules belong to a version
  const noMethod = await send(app, modernPost(withMeta(modernMeta({ [V]: '1900-01-01' })), { 'mcp-method': undefined }))
  t.equal(noMethod.body.error.code, -32022)
})

t.test('Mcp-Method missing or different is 400 + -32020', async (t) => {
  const missing = await send(app, modernPost(withMeta(modernMeta()), { 'mcp-method': undefined }))
  t.equal(missing.status, 400)
  t.equal(missing.body.error.code, -32020)
  t.equal(missing.body.id, 7)
  t.match(missing.body.error.message, /Mcp-Method header is required and must equal the body's method 'tools\/list'/)

  const other = await send(app, modernPost(withMeta(modernMeta()), { 'mcp-method': 'tools/call' }))
  t.equal(other.status, 400)
  t.equal(other.body.error.code, -32020)
  t.match(other.body.error.message, /Mcp-Method header value 'tools\/call' does not match body value 'tools\/list'/)

  const caseOfValue = await send(app, modernPost(withMeta(modernMeta()), { 'mcp-method': 'Tools/List' }))
  t.equal(caseOfValue.body.error.code, -32020, 'header values are case-sensitive')

  const upperName = await send(app, modernPost(withMeta(modernMeta()), { 'mcp-method': undefined, 'MCP-METHOD': 'tools/list' }))
  t.equal(upperName.status, 200, 'header names are not')
})

t.test('Mcp-Name on tools/call: missing or different is 400 + -32020', async (t) => {
  const missing = await send(app, modernCall('echo', { text: 'hi' }, { 'mcp-name': undefined }))
  t.equal(missing.status, 400)
  t.equal(missing.body.error.code, -32020)
  t.equal(missing.body.id, 1)
  t.match(missing.body.error.message, /Mcp-Name header is required for tools\/call and must equal params\.name 'echo'/)

  const other = await send(app, modernCall('echo', { text: 'hi' }, { 'mcp-name': 'add' }))
  t.equal(other.status, 400)
  t.equal(other.body.error.code, -32020)
  t.match(other.body.error.message, /Mcp-Name header value 'add' does not match body value 'echo'/)

  const long = 'x'.repeat(100)
  const trimmed = await send(app, modernCall('echo', { text: 'hi' }, { 'mcp-name': long }))
  t.match(trimmed.body.error.message, new RegExp(`'${'x'.repeat(61)}\\.\\.\\.' does not match`), 'a long value is shortened in the message')
})

t.test('Mcp-Name: the base64 sentinel is decoded; bad base64 or raw non-ASCII is -32020', async (t) => {
  const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`
  const ok = await send(app, modernCall('echo', { text: 'hi' }, { 'mcp-name': encoded }))
  t.equal(ok.status, 200, 'a sentinel-wrapped name that decodes to the body name is accepted')
  t.same(ok.body.result.content, [{ type: 'text', text: 'hi' }])

  const bad = await send(app, modernCall('echo', { text: 'hi' }, { 'mcp-name': '=?base64?ZWNob*==?=' }))
  t.equal(bad.status, 400)
  t.equal(bad.body.error.code, -32020)
  t.match(bad.body.error.message, /Mcp-Name header holds invalid base64 inside =\?base64\?…\?=/)

  const padding = await send(app, modernCall('echo', { text: 'hi' }, { 'mcp-name': '=?base64?ZWNobw?=' }))
  t.equal(padding.body.error.code, -32020, 'missing padding is invalid base64')

  const notUtf8 = await send(app, modernCall('echo', { text: 'hi' }, { 'mcp-name': '=?base64?/w==?=' }))
  t.equal(notUtf8.status, 400)
  t.equal(notUtf8.body.error.code, -32020)
  t.match(notUtf8.body.error.message, /Mcp-Name header's base64 value is not valid UTF-8/)

  const raw = await send(app, modernCall('echo', { text: 'hi' }, { 'mcp-name': 'écho' }))
  t.equal(raw.status, 400)
  t.equal(raw.body.error.code, -32020)
  t.match(raw.body.error.message, /Mcp-Name header contains characters outside visible ASCII; non-ASCII values must be sent as =\?base64\?…\?=/)
})

t.test('an unknown method is HTTP 404 + -32601, after the header checks', async (t) => {
  const res = await send(app, modernPost(withMeta(modernMeta(), 'resources/unknown', 'u1')))
  t.equal(res.status, 404)
  t.equal(res.body.error.code, -32601)
  t.equal(res.body.id, 'u1')
  t.match(res.body.error.message, /^Method not found: resources\/unknown/)

  const ping = await send(app, modernPost(withMeta(modernMeta(), 'ping')))
  t.equal(ping.status, 404, 'ping is gone in 2026-07-28')
  t.equal(ping.body.error.code, -32601)

  const unchecked = await send(app, modernPost(withMeta(modernMeta(), 'nope/nope'), { 'mcp-method': undefined }))
  t.equal(unchecked.status, 400, 'a missing Mcp-Method is reported before the unknown method')
  t.equal(unchecked.body.error.code, -32020)

  const named = await send(app, modernPost({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'file:///a', _meta: modernMeta() } }))
  t.equal(named.status, 400, 'Mcp-Name is required for resources/read too, before the method runs')
  t.match(named.body.error.message, /Mcp-Name header is required for resources\/read and must equal params\.uri 'file:\/\/\/a'/)
})

t.test('notifications are accepted with 202 and no body', async (t) => {
  const res = await send(app, modernPost({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: modernMeta() } }))
  t.equal(res.status, 202)
  t.equal(res.raw, '')

  const bare = await send(app, post({ jsonrpc: '2.0', method: 'notifications/whatever' }, { 'mcp-protocol-version': MODERN }))
  t.equal(bare.status, 202, 'a notification with only the modern header is accepted too')
  t.equal(bare.raw, '')
})

t.test('a JSON-RPC response from a modern client is 400 + -32600', async (t) => {
  const res = await send(app, post({ jsonrpc: '2.0', id: 5, result: {} }, { 'mcp-protocol-version': MODERN }))
  t.equal(res.status, 400)
  t.equal(res.body.error.code, -32600)
  t.equal(res.body.id, null, 'a response\'s id is not echoed: it names no request of the client\'s')
  t.match(res.body.error.message, /2026-07-28 clients must not send JSON-RPC responses/)

  const error = await send(app, post({ jsonrpc: '2.0', id: null, error: { code: -1, message: 'x' } }, { 'mcp-protocol-version': MODERN }))
  t.equal(error.status, 400)
  t.equal(error.body.error.code, -32600)
})

t.test('_meta wins over Mcp-Session-Id: a modern request ignores the session header', async (t) => {
  const unknown = await send(app, modernPost(withMeta(modernMeta()), { 'mcp-session-id': 'no-such-session' }))
  t.equal(unknown.status, 200, 'an unknown session id does not make it a 404')
  t.equal(unknown.body.result.resultType, 'complete')

  const session = await openSession(app)
  const live = await send(app, modernPost(withMeta(modernMeta()), { 'mcp-session-id': session }))
  t.equal(live.status, 200)
  t.ok('ttlMs' in live.body.result, 'answered as modern, not as the 2025 session')
})

t.test('a repeated header never passes for a single value', async (t) => {
  // on the wire, Node joins a repeated field with ', ': refused as sent twice (a gateway may read the first line)
  const wire = await send(app, modernPost(withMeta(modernMeta()), { 'mcp-method': undefined, 'Mcp-Method': ['tools/list', 'tools/list'] as any }))
  t.equal(wire.status, 400)
  t.equal(wire.body.error.code, -32020)
  t.match(wire.body.error.message, /^Header mismatch: Mcp-Method header is sent on 2 field lines, which are read as one value 'tools\/list, tools\/list'/)

  // a host hook may set an array outright: it is joined the same way
  const hooked = await build()
  hooked.addHook('onRequest', async (request) => {
    request.headers['mcp-method'] = ['tools/list', 'tools/list']
    request.headers['mcp-session-id'] = ['s1', 's2']
  })
  t.teardown(() => hooked.close())
  const res = await send(hooked, modernPost(withMeta(modernMeta())))
  t.equal(res.status, 400)
  t.equal(res.body.error.code, -32020)
  t.match(res.body.error.message, /Mcp-Method header value 'tools\/list, tools\/list' does not match/)
  const get = await send(hooked, { method: 'GET', url: '/mcp' })
  t.equal(get.status, 404, 'two session ids name no session')
})

t.test('none of these refusals was logged as an error', async (t) => {
  t.same(log.errors(), [])
})
