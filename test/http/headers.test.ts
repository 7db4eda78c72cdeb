// Mcp-Param-{Name} headers (SEP-2243 x-mcp-header): each must mirror its argument exactly, after
// base64-sentinel decoding and, for integers, numeric comparison. Required in the modern era; in a
// 2025 session they are checked only when the client sends them. A header a gateway routes on, sent
// on two field lines (which Node joins), is refused naming it.
import t, { type Test } from 'tap'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { Type } from '../../lib/index.js'
import { checkOnce } from '../../lib/http/headers.js'
import { build } from '../helpers/app.js'
import { openSession, modernCall, send, sessionPost, type Answer } from '../helpers/requests.js'
import { captureLog } from '../helpers/logs.js'

const log = captureLog()
let app: FastifyInstance

t.before(async () => {
  app = await build({}, { logger: log.logger })
  app.registerTool({
    name: 'forecast',
    args: {
      region: Type.Optional(Type.String({ header: 'Region' })),
      precision: Type.Optional(Type.Integer({ header: 'Precision' })),
      metric: Type.Optional(Type.Boolean({ header: 'Metric' })),
      note: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], header: 'Note' })),
      filter: Type.Optional(Type.Object({ zone: Type.String({ header: 'Zone' }), label: Type.Optional(Type.String()) })),
      plain: Type.Optional(Type.String())
    },
    execute: (args) => ({ got: args })
  })
  await app.ready()
})
t.teardown(() => app.close())

async function call (args: Record<string, unknown>, headers: Record<string, string | undefined> = {}) {
  return send(app, modernCall('forecast', args, headers, 'p1'))
}

async function accepted (t: Test, args: Record<string, unknown>, headers: Record<string, string>, label: string): Promise<void> {
  const res = await call(args, headers)
  t.equal(res.status, 200, `${label}: HTTP 200`)
  t.equal(res.body.result?.isError, undefined, `${label}: the tool ran`)
  t.same(res.body.result?.structuredContent, { got: args }, `${label}: with the body's arguments`)
}

async function refused (t: Test, args: Record<string, unknown>, headers: Record<string, string | undefined>, message: RegExp, label: string): Promise<void> {
  const res = await call(args, headers)
  t.equal(res.status, 400, `${label}: HTTP 400`)
  t.equal(res.body.error?.code, -32020, `${label}: -32020`)
  t.equal(res.body.id, 'p1', `${label}: id echoed`)
  t.match(res.body.error?.message, /^Header mismatch: /, `${label}: a header mismatch`)
  t.match(res.body.error?.message, message, `${label}: names the header and the problem`)
}

t.test('modern: a string argument and its header', async (t) => {
  await accepted(t, {}, {}, 'neither argument nor header')
  await accepted(t, { plain: 'x' }, {}, 'an argument without a header annotation needs no header')
  await accepted(t, { region: 'us-west1' }, { 'mcp-param-region': 'us-west1' }, 'equal values')
  await refused(t, { region: 'us-west1' }, {}, /Mcp-Param-Region header is required when argument 'region' is sent \(body value '"us-west1"'\)/, 'argument without header')
  await refused(t, {}, { 'mcp-param-region': 'us-west1' }, /Mcp-Param-Region header is present but argument 'region' is not in the body/, 'header without argument')
  await refused(t, { region: 'us-west1' }, { 'mcp-param-region': 'eu-west1' }, /Mcp-Param-Region header value 'eu-west1' does not match body value 'us-west1' of argument 'region'/, 'different values')
  await refused(t, { region: 'us-west1' }, { 'mcp-param-region': 'US-WEST1' }, /does not match/, 'values are case-sensitive')
  await refused(t, { region: { name: 'us' } }, { 'mcp-param-region': 'us' }, /header value 'us' does not match body value '\{"name":"us"\}'/, 'an object where the header mirrors a string')
  await refused(t, { region: 'zürich' }, { 'mcp-param-region': 'zürich' }, /Mcp-Param-Region header contains characters outside visible ASCII/, 'raw non-ASCII in the header')
})

t.test('modern: header names are case-insensitive', async (t) => {
  await accepted(t, { region: 'us' }, { 'MCP-PARAM-REGION': 'us' }, 'upper-case header name')
  await accepted(t, { region: 'us' }, { 'Mcp-Param-region': 'us' }, 'mixed-case header name')
})

t.test('modern: the base64 sentinel', async (t) => {
  await accepted(t, { region: 'Hello, 世界' }, { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' }, 'decoded to UTF-8 and compared')
  await accepted(t, { region: ' padded ' }, { 'mcp-param-region': '=?base64?IHBhZGRlZCA=?=' }, 'leading and trailing spaces')
  await accepted(t, { region: '=?base64?literal?=' }, { 'mcp-param-region': '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=' }, 'a value that looks like the sentinel')
  await accepted(t, { region: '' }, { 'mcp-param-region': '' }, 'an empty string is an empty header')
  // the prefix is case-sensitive: upper case is not the sentinel, so the header is a literal value
  await accepted(t, { region: '=?BASE64?SGVsbG8=?=' }, { 'mcp-param-region': '=?BASE64?SGVsbG8=?=' }, 'upper-case sentinel taken literally')
  await refused(t, { region: 'Hello' }, { 'mcp-param-region': '=?BASE64?SGVsbG8=?=' }, /header value '=\?BASE64\?SGVsbG8=\?=' does not match body value 'Hello'/, 'upper-case sentinel is not decoded')
  await accepted(t, { region: '=?base64?SGVsbG8=' }, { 'mcp-param-region': '=?base64?SGVsbG8=' }, 'no suffix: a literal')
  await refused(t, { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8*?=' }, /Mcp-Param-Region header holds invalid base64 inside =\?base64\?…\?=/, 'bad base64 characters')
  await refused(t, { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }, /invalid base64/, 'bad base64 padding')
  await refused(t, { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbA==?=' }, /header value 'Hell' does not match body value 'Hello'/, 'decodes to another value')
})

t.test('modern: integers compare numerically', async (t) => {
  await accepted(t, { precision: 3 }, { 'mcp-param-precision': '3' }, 'the same digits')
  await accepted(t, { precision: 3 }, { 'mcp-param-precision': '3.0' }, '"3.0" is 3')
  await accepted(t, { precision: -2 }, { 'mcp-param-precision': '-2' }, 'a negative integer')
  await accepted(t, { precision: 0 }, { 'mcp-param-precision': '0' }, 'zero is a value, not an absence')
  await refused(t, { precision: 3 }, { 'mcp-param-precision': '0x3' }, /Mcp-Param-Precision header value '0x3' does not match body value '3' of argument 'precision'/, 'hex is not a decimal')
  await refused(t, { precision: 3 }, { 'mcp-param-precision': '4' }, /value '4' does not match body value '3'/, 'another number')
  await refused(t, { precision: 3 }, { 'mcp-param-precision': 'three' }, /does not match/, 'not a number')
  await refused(t, { precision: 3 }, {}, /Mcp-Param-Precision header is required when argument 'precision' is sent \(body value '3'\)/, 'missing')
  await refused(t, {}, { 'mcp-param-precision': '3' }, /Mcp-Param-Precision header is present but argument 'precision' is not in the body/, 'present without the argument')
})

t.test('modern: booleans are "true" and "false"', async (t) => {
  await accepted(t, { metric: true }, { 'mcp-param-metric': 'true' }, 'true')
  await accepted(t, { metric: false }, { 'mcp-param-metric': 'false' }, 'false is a value, not an absence')
  await refused(t, { metric: true }, { 'mcp-param-metric': 'TRUE' }, /Mcp-Param-Metric header value 'TRUE' does not match body value 'true'/, 'upper case')
  await refused(t, { metric: true }, { 'mcp-param-metric': '1' }, /does not match/, '1 is not true')
  await refused(t, { metric: false }, {}, /Mcp-Param-Metric header is required/, 'missing')
})

t.test('modern: a null argument expects no header', async (t) => {
  await accepted(t, { note: null }, {}, 'null without header')
  await refused(t, { note: null }, { 'mcp-param-note': 'null' }, /Mcp-Param-Note header is present but argument 'note' is not in the body/, 'null with a header')
  await accepted(t, { note: 'hi' }, { 'mcp-param-note': 'hi' }, 'a string in a nullable argument')
})

t.test('modern: a nested property carries its header', async (t) => {
  await accepted(t, { filter: { zone: 'z1' } }, { 'mcp-param-zone': 'z1' }, 'nested value and header')
  await refused(t, { filter: { zone: 'z1' } }, {}, /Mcp-Param-Zone header is required when argument 'filter\.zone' is sent/, 'nested value without header')
  await refused(t, { filter: { zone: 'z1' } }, { 'mcp-param-zone': 'z2' }, /value 'z2' does not match body value 'z1' of argument 'filter\.zone'/, 'nested value differs')
  await refused(t, { filter: { label: 'x' } }, { 'mcp-param-zone': 'z1' }, /argument 'filter\.zone' is not in the body/, 'header without the nested value')
  await refused(t, { filter: 'z1' }, { 'mcp-param-zone': 'z1' }, /argument 'filter\.zone' is not in the body/, 'header while the parent is not an object')

  // no header and a parent that is not an object: nothing to mirror, so the schema reports it
  const res = await call({ filter: 'z1' })
  t.equal(res.status, 200)
  t.equal(res.body.result.isError, true)
  t.match(res.body.result.content[0].text, /argument 'filter' must be an object, got "z1"/)
})

t.test('modern: headers nobody declared are ignored', async (t) => {
  await accepted(t, { region: 'us' }, { 'mcp-param-region': 'us', 'mcp-param-other': 'anything' }, 'an unknown Mcp-Param header')
  const unknownTool = await send(app, modernCall('nope', { region: 'us' }, { 'mcp-param-region': 'eu' }))
  t.equal(unknownTool.status, 200, 'no tool, no header rules: the unknown tool is the answer')
  t.equal(unknownTool.body.error.code, -32602)
  t.match(unknownTool.body.error.message, /^Unknown tool: nope/)
})

t.test('legacy: Mcp-Param headers are checked only when sent', async (t) => {
  const session = await openSession(app, '2025-11-25')
  const legacyCall = (args: Record<string, unknown>, headers: Record<string, string> = {}) =>
    send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 'l1', method: 'tools/call', params: { name: 'forecast', arguments: args } }, headers))

  const none = await legacyCall({ region: 'us', precision: 2 })
  t.equal(none.status, 200, 'a 2025 client does not know these headers: none is fine')
  t.same(none.body.result.structuredContent, { got: { region: 'us', precision: 2 } })

  const same = await legacyCall({ region: 'us' }, { 'mcp-param-region': 'us' })
  t.equal(same.status, 200, 'a matching header is fine')

  const differs = await legacyCall({ region: 'us' }, { 'mcp-param-region': 'eu' })
  t.equal(differs.status, 400, 'a header that is sent must still match')
  t.equal(differs.body.error.code, -32020)
  t.equal(differs.body.id, 'l1')
  t.match(differs.body.error.message, /Mcp-Param-Region header value 'eu' does not match body value 'us'/)

  const stray = await legacyCall({}, { 'mcp-param-precision': '2' })
  t.equal(stray.status, 400, 'a header without its argument is refused')
  t.equal(stray.body.error.code, -32020)
  t.match(stray.body.error.message, /Mcp-Param-Precision header is present but argument 'precision' is not in the body/)
})

/** `options` with header `name` sent on several lines (light-my-request, as Node, joins them with ', ' and keeps each in rawHeaders). */
function repeated (options: InjectOptions, name: string, values: string[]): InjectOptions {
  return { ...options, headers: { ...options.headers as Record<string, string>, [name]: values as unknown as string } }
}

function refusedAsRepeated (t: Test, res: Answer, display: string, label: string): void {
  t.equal(res.status, 400, `${label}: HTTP 400`)
  t.equal(res.body.error.code, -32020, `${label}: -32020`)
  t.match(res.body.error.message, new RegExp(`^Header mismatch: ${display} header is sent on 2 field lines, which are read as one value `), `${label}: names ${display}`)
}

t.test('checkOnce: only a value with a comma is looked up in rawHeaders, names compared case-insensitively', async (t) => {
  const raw = ['Mcp-Param-Region', 'us', 'host', 'x', 'mcp-param-REGION', 'eu', 'mcp-param-regio', 'n']
  t.doesNotThrow(() => { checkOnce(raw, 'mcp-param-region', undefined, 'Mcp-Param-Region') }, 'absent')
  t.doesNotThrow(() => { checkOnce(raw, 'mcp-param-region', 'us', 'Mcp-Param-Region') }, 'no comma: rawHeaders is not read')
  t.doesNotThrow(() => { checkOnce(['Mcp-Param-Region', 'us, eu'], 'mcp-param-region', 'us, eu', 'Mcp-Param-Region') }, 'one line holding a comma')
  t.throws(() => { checkOnce(raw, 'mcp-param-region', 'us, eu', 'Mcp-Param-Region') }, {
    code: -32020,
    status: 400,
    message: "Header mismatch: Mcp-Param-Region header is sent on 2 field lines, which are read as one value 'us, eu'; a gateway may read the first alone: send it once"
  })
  t.throws(() => { checkOnce(['mcp-method', 'a', 'Mcp-Method', 'b', 'MCP-METHOD', 'c'], 'mcp-method', 'a, b, c') }, { message: /^Header mismatch: Mcp-Method header is sent on 3 field lines/ })
})

t.test('modern: a header sent on two lines is refused naming it, even when the joined value matches the body', async (t) => {
  refusedAsRepeated(t, await send(app, repeated(modernCall('forecast', { region: 'us, eu' }, {}, 'r1'), 'mcp-param-region', ['us', 'eu'])), 'Mcp-Param-Region', 'Mcp-Param-Region')
  await accepted(t, { region: 'us, eu' }, { 'mcp-param-region': 'us, eu' }, 'one line holding a comma')
  refusedAsRepeated(t, await send(app, repeated(modernCall('forecast', {}, {}, 'r2'), 'mcp-method', ['tools/call', 'tools/call'])), 'Mcp-Method', 'Mcp-Method')
  refusedAsRepeated(t, await send(app, repeated(modernCall('forecast', {}, {}, 'r3'), 'mcp-name', ['forecast', 'forecast'])), 'Mcp-Name', 'Mcp-Name')
  refusedAsRepeated(t, await send(app, repeated(modernCall('forecast', {}, {}, 'r4'), 'mcp-protocol-version', ['2026-07-28', '2026-07-28'])), 'MCP-Protocol-Version', 'MCP-Protocol-Version')
})

t.test('legacy: a repeated Mcp-Session-Id or MCP-Protocol-Version is refused before the session is looked up, on POST, GET and DELETE', async (t) => {
  const session = await openSession(app, '2025-11-25')
  const list = sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' })
  refusedAsRepeated(t, await send(app, repeated(list, 'mcp-session-id', [session, session])), 'Mcp-Session-Id', 'POST Mcp-Session-Id')
  refusedAsRepeated(t, await send(app, repeated(list, 'mcp-protocol-version', ['2025-11-25', '2025-11-25'])), 'MCP-Protocol-Version', 'POST MCP-Protocol-Version')
  const batch = sessionPost(session, '2025-11-25', [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }])
  refusedAsRepeated(t, await send(app, repeated(batch, 'mcp-session-id', [session, 'other'])), 'Mcp-Session-Id', 'a batch')
  const call = sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'forecast', arguments: { region: 'us, eu' } } })
  refusedAsRepeated(t, await send(app, repeated(call, 'mcp-param-region', ['us', 'eu'])), 'Mcp-Param-Region', 'a 2025 call that sends Mcp-Param-Region')
  for (const method of ['GET', 'DELETE'] as const) {
    const res = await send(app, { method, url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': [session, 'other'] as unknown as string } })
    refusedAsRepeated(t, res, 'Mcp-Session-Id', method)
  }
  t.equal((await send(app, list)).status, 200, 'the session is still there')
})

t.test('no header refusal was logged as an error', async (t) => {
  t.same(log.errors(), [])
})
