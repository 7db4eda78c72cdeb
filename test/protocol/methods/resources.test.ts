// resources/list, resources/templates/list and resources/read in both eras: list shapes, pages and
// cache hints, fixed resources before templates, text and blob contents, and every error (a missing
// resource is -32602 in 2026-07-28 and -32002 in 2025, with data.uri; a failing read is -32603 with
// nothing of the error's text, which goes to the log).
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ProtocolError } from '../../../lib/index.js'
import { build } from '../../helpers/app.js'
import { openSession, modernMeta, modernPost, send, sessionPost } from '../../helpers/requests.js'
import { captureLog } from '../../helpers/logs.js'

const SECRET = 'password=hunter2 at db.internal:5432'
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'test-server', version: '1.0.0' } }

const log = captureLog()
let app: FastifyInstance
let session: string

t.before(async () => {
  app = await build({ ttl: 60_000, pageSize: 2 }, { logger: log.logger })
  app.registerResource([
    { uri: 'config://c', name: 'c', ttl: 5_000, read: () => 'c-text' },
    { uri: 'config://a', name: 'a', title: 'A', description: 'The first', mimeType: 'text/plain', size: 6, annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-01-12T15:00:58Z' }, icons: [{ src: 'https://example.com/a.png' }], meta: { 'example.com/x': 1 }, read: () => 'a-text' },
    { uri: 'config://b', name: 'b', ttl: 120_000, read: () => ({ text: '{"b":1}', mimeType: 'application/json', _meta: { 'example.com/v': 2 } }) },
    { uri: 'bin://logo', name: 'logo', mimeType: 'image/png', read: () => Buffer.from([0, 1, 2, 255]) },
    { uri: 'bin://base64', name: 'b64', read: () => ({ blob: 'AAEC' }) },
    { uri: 'multi://dir', name: 'dir', read: () => [{ uri: 'multi://dir/1', text: 'one' }, new Uint8Array([7]), 'two'] },
    { uri: 'empty://dir', name: 'empty dir', read: () => [] },
    { uri: 'users://special', name: 'special', read: () => 'fixed wins' },
    { uri: 'fail://throw', name: 'throws', read: () => { throw new Error(SECRET) } },
    { uri: 'fail://reject', name: 'rejects', read: async () => { throw new TypeError(SECRET) } },
    { uri: 'fail://shape', name: 'bad shape', read: () => 42 as any },
    { uri: 'fail://json', name: 'bad json', read: () => ({ text: 'x', _meta: { n: 1n } }) as any },
    { uri: 'fail://protocol', name: 'protocol', read: () => { throw new ProtocolError(-32602, 'Invalid params: no access', 200, { why: 'scope' }) } },
    { uri: 'gone://fixed', name: 'gone', read: () => undefined },
    { uri: 'ctx://request', name: 'context', read: (uri, vars, ctx) => JSON.stringify({ uri, vars, url: ctx.request!.url, aborted: ctx.signal.aborted, era: ctx.era, version: ctx.protocolVersion, client: ctx.client.info?.name, session: ctx.sessionId ?? null, id: ctx.requestId }) }
  ])
  app.registerResource({ uriTemplate: 'users://{id}/profile', name: 'profile', ttl: 1_000, mimeType: 'application/json', read: (uri, { id }) => id === 'nobody' ? null : JSON.stringify({ uri, id }) })
  app.registerResource({ uriTemplate: 'users://{id}', name: 'user', read: (_uri, { id }) => `user ${id}` })
  app.registerResource({ uriTemplate: 'file:///{+path}', name: 'files', description: 'Project files', read: async (_uri, vars) => `file ${vars.path}` })
  await app.ready()
  session = await openSession(app, '2025-11-25')
})
t.teardown(() => app.close())

const modern = (method: string, params: Record<string, unknown> = {}, id: number | string = 1, headers: Record<string, string> = {}) =>
  modernPost({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } }, headers)
const read = (uri: unknown, id: number | string = 'r') =>
  modern('resources/read', { uri }, id, typeof uri === 'string' ? { 'mcp-name': uri } : {})
const legacy = (method: string, params: Record<string, unknown> = {}, id: number | string = 'L') =>
  sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id, method, params })

async function allPages (list: (cursor?: string) => Promise<any>, key: string): Promise<{ names: string[], pages: any[] }> {
  const pages: any[] = []
  let cursor: string | undefined
  do {
    const page = await list(cursor)
    pages.push(page)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return { names: pages.flatMap((page) => page[key].map((item: any) => item.uri ?? item.uriTemplate)), pages }
}

t.test('modern resources/list: fixed resources only, sorted by URI, paged, ttlMs per page', async (t) => {
  const first = await send(app, modern('resources/list', {}, 7))
  t.equal(first.status, 200)
  t.equal(first.body.id, 7)
  const { names, pages } = await allPages(async (cursor) => (await send(app, modern('resources/list', cursor === undefined ? {} : { cursor }))).body.result, 'resources')
  t.same(names, ['bin://base64', 'bin://logo', 'config://a', 'config://b', 'config://c', 'ctx://request', 'empty://dir', 'fail://json', 'fail://protocol', 'fail://reject', 'fail://shape', 'fail://throw', 'gone://fixed', 'multi://dir', 'users://special'])
  t.equal(pages.length, 8, 'two a page')
  for (const page of pages) {
    t.equal(page.resultType, 'complete')
    t.equal(page.cacheScope, 'public')
    t.same(page._meta, SERVER_META)
  }
  t.same(pages.map((page) => page.ttlMs), [60_000, 60_000, 5_000, 60_000, 60_000, 60_000, 60_000, 60_000], 'the shortest of the server\'s and the items\' ttls')
  const configs = pages[1]
  t.same(configs.resources.map((r: any) => r.uri), ['config://a', 'config://b'])
  t.equal(configs.ttlMs, 60_000, 'config://b\'s 120 s is above the server\'s ceiling')
  t.equal(pages[2].ttlMs, 5_000, 'config://c\'s ttl shortens its page')
  t.same(configs.resources[0], {
    uri: 'config://a',
    name: 'a',
    title: 'A',
    description: 'The first',
    mimeType: 'text/plain',
    icons: [{ src: 'https://example.com/a.png' }],
    size: 6,
    annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-01-12T15:00:58Z' },
    _meta: { 'example.com/x': 1 }
  })
  t.same(configs.resources[1], { uri: 'config://b', name: 'b' }, 'only what was given')
  t.notOk('ttl' in configs.resources[1], 'ttl is ours, not a wire field')
  t.notOk('nextCursor' in pages.at(-1))
})

t.test('modern resources/templates/list: in registration order, with their own ttl', async (t) => {
  const res = await send(app, modern('resources/templates/list', {}, 't'))
  t.equal(res.status, 200)
  const page = res.body.result
  t.same(page.resourceTemplates, [
    { uriTemplate: 'users://{id}/profile', name: 'profile', mimeType: 'application/json' },
    { uriTemplate: 'users://{id}', name: 'user' }
  ])
  t.equal(page.ttlMs, 1_000, 'the profile template\'s ttl')
  t.equal(page.cacheScope, 'public')
  t.equal(page.resultType, 'complete')
  const next = (await send(app, modern('resources/templates/list', { cursor: page.nextCursor }))).body.result
  t.same(next.resourceTemplates, [{ uriTemplate: 'file:///{+path}', name: 'files', description: 'Project files' }])
  t.equal(next.ttlMs, 60_000)
  t.notOk('nextCursor' in next)
})

t.test('cursors: not a string, unknown, or from another list are -32602', async (t) => {
  const numeric = await send(app, modern('resources/list', { cursor: 1 }, 'c1'))
  t.equal(numeric.status, 200)
  t.equal(numeric.body.error.code, -32602)
  t.equal(numeric.body.error.message, 'Invalid params: "cursor" must be a string')
  const unknown = await send(app, modern('resources/templates/list', { cursor: 'nope' }, 'c2'))
  t.equal(unknown.body.error.code, -32602)
  t.equal(unknown.body.error.message, 'Invalid params: unknown cursor "nope"; start again without a cursor')
  const resourcesCursor = (await send(app, modern('resources/list'))).body.result.nextCursor
  const crossed = await send(app, modern('resources/templates/list', { cursor: resourcesCursor }, 'c3'))
  t.equal(crossed.body.error.code, -32602, 'a resources/list cursor does not open a templates page')
  const legacyBad = await send(app, legacy('resources/list', { cursor: 'nope' }))
  t.equal(legacyBad.status, 200)
  t.equal(legacyBad.body.error.code, -32602)
})

t.test('legacy lists: the same items, no resultType, ttlMs, cacheScope or _meta', async (t) => {
  const res = await send(app, legacy('resources/list'))
  t.equal(res.status, 200)
  t.same(Object.keys(res.body.result).sort(), ['nextCursor', 'resources'])
  t.same(res.body.result.resources.map((r: any) => r.uri), ['bin://base64', 'bin://logo'])
  const templates = (await send(app, legacy('resources/templates/list'))).body.result
  t.same(Object.keys(templates).sort(), ['nextCursor', 'resourceTemplates'])
  t.same(templates.resourceTemplates[0], { uriTemplate: 'users://{id}/profile', name: 'profile', mimeType: 'application/json' })
})

t.test('modern resources/read: text, with the resource\'s mimeType, ttlMs and cacheScope', async (t) => {
  const res = await send(app, read('config://a', 'r1'))
  t.equal(res.status, 200)
  t.equal(res.body.id, 'r1')
  t.same(res.body.result, {
    resultType: 'complete',
    contents: [{ uri: 'config://a', mimeType: 'text/plain', text: 'a-text' }],
    ttlMs: 60_000,
    cacheScope: 'public',
    _meta: SERVER_META
  })
  t.equal((await send(app, read('config://c'))).body.result.ttlMs, 5_000, 'the resource\'s ttl')
  t.equal((await send(app, read('config://b'))).body.result.ttlMs, 60_000, 'never above the server\'s')
  t.equal((await send(app, read('users://7/profile'))).body.result.ttlMs, 1_000, 'a template\'s ttl')
})

t.test('contents objects, blobs and several contents', async (t) => {
  t.same((await send(app, read('config://b'))).body.result.contents, [{ uri: 'config://b', mimeType: 'application/json', text: '{"b":1}', _meta: { 'example.com/v': 2 } }])
  t.same((await send(app, read('bin://logo'))).body.result.contents, [{ uri: 'bin://logo', mimeType: 'image/png', blob: Buffer.from([0, 1, 2, 255]).toString('base64') }], 'bytes become base64')
  t.same((await send(app, read('bin://base64'))).body.result.contents, [{ uri: 'bin://base64', blob: 'AAEC' }], 'a string blob is base64 already')
  t.same((await send(app, read('multi://dir'))).body.result.contents, [
    { uri: 'multi://dir/1', text: 'one' },
    { uri: 'multi://dir', blob: 'Bw==' },
    { uri: 'multi://dir', text: 'two' }
  ])
  t.same((await send(app, read('empty://dir'))).body.result.contents, [], 'a resource that exists and has nothing in it')
})

t.test('templates: variables decoded, fixed resources first, then templates in order', async (t) => {
  const profile = (await send(app, read('users://42/profile'))).body.result
  t.same(profile.contents, [{ uri: 'users://42/profile', mimeType: 'application/json', text: '{"uri":"users://42/profile","id":"42"}' }])
  t.equal((await send(app, read('users://John%20Doe'))).body.result.contents[0].text, 'user John Doe', 'percent-decoded')
  t.equal((await send(app, read('users://special'))).body.result.contents[0].text, 'fixed wins')
  t.equal((await send(app, read('file:///src/lib/index.ts'))).body.result.contents[0].text, 'file src/lib/index.ts', '{+path} spans slashes')
  const deeper = await send(app, read('users://a/b/c'))
  t.equal(deeper.body.error.code, -32602, '{id} never spans a slash')
})

t.test('a missing resource: modern -32602, legacy -32002, both with data.uri, never empty contents', async (t) => {
  for (const uri of ['config://none', 'users:///profile', 'gone://fixed', 'users://nobody/profile', 'users://%E0%A4%A/profile']) {
    const m = await send(app, read(uri, 'm'))
    t.equal(m.status, 200)
    t.equal(m.body.id, 'm')
    t.same(m.body.error, { code: -32602, message: `Resource not found: ${uri}`, data: { uri } }, uri)
    t.notOk('result' in m.body)
    const l = await send(app, legacy('resources/read', { uri }, 'l'))
    t.equal(l.status, 200)
    t.same(l.body.error, { code: -32002, message: `Resource not found: ${uri}`, data: { uri } }, uri)
  }
})

t.test('resources/read without a string uri is -32602', async (t) => {
  for (const params of [{}, { uri: 5 }]) {
    const m = await send(app, modern('resources/read', params, 'u'))
    t.equal(m.status, 200)
    t.equal(m.body.error.code, -32602)
    t.equal(m.body.error.message, 'Invalid params: resources/read needs "uri", the resource to read, as a string')
    const l = await send(app, legacy('resources/read', params))
    t.equal(l.body.error.code, -32602)
  }
})

t.test('the Mcp-Name header must mirror the uri', async (t) => {
  const missing = await send(app, modern('resources/read', { uri: 'config://a' }, 'h1'))
  t.equal(missing.status, 400)
  t.equal(missing.body.error.code, -32020)
  t.match(missing.body.error.message, /Mcp-Name header is required for resources\/read/)
  const wrong = await send(app, modern('resources/read', { uri: 'config://a' }, 'h2', { 'mcp-name': 'config://b' }))
  t.equal(wrong.status, 400)
  t.equal(wrong.body.error.code, -32020)
})

t.test('a read that fails is -32603 with a generic message; the error is logged, never sent', async (t) => {
  for (const uri of ['fail://throw', 'fail://reject', 'fail://shape', 'fail://json']) {
    const before = log.errors().length
    for (const res of [await send(app, read(uri, 'f')), await send(app, legacy('resources/read', { uri }, 'f'))]) {
      t.equal(res.status, 200)
      t.same(res.body.error, { code: -32603, message: `Internal error: resource '${uri}' could not be read` }, uri)
      t.notMatch(res.raw, /hunter2|db\.internal|TypeError|42|BigInt/)
    }
    const logged = log.errors().slice(before)
    t.equal(logged.length, 2, `${uri}: logged once per request`)
    t.equal(logged[0].resource, uri, 'the log line names the resource')
    t.equal(logged[0].msg, `resource '${uri}' could not be read`)
  }
  t.match(log.errors().find((line) => line.resource === 'fail://throw')!.err, { message: SECRET })
  t.match(log.errors().find((line) => line.resource === 'fail://shape')!.err, { message: /the value is number; read\(\) returns a string, bytes/ })
})

t.test('read() gets the request, a signal and who asks', async (t) => {
  const m = JSON.parse((await send(app, read('ctx://request', 'x1'))).body.result.contents[0].text)
  t.same(m, { uri: 'ctx://request', vars: {}, url: '/mcp', aborted: false, era: 'modern', version: '2026-07-28', client: 'test-client', session: null, id: 'x1' })
  const l = JSON.parse((await send(app, legacy('resources/read', { uri: 'ctx://request' }, 'x2'))).body.result.contents[0].text)
  t.same(l, { uri: 'ctx://request', vars: {}, url: '/mcp', aborted: false, era: 'legacy', version: '2025-11-25', client: 'legacy', session, id: 'x2' })
})

t.test('a ProtocolError thrown by read is sent as it is', async (t) => {
  const res = await send(app, read('fail://protocol'))
  t.same(res.body.error, { code: -32602, message: 'Invalid params: no access', data: { why: 'scope' } })
})

t.test('capabilities declare resources, prompts and completions in both eras', async (t) => {
  const discover = await send(app, modern('server/discover'))
  t.match(discover.body.result.capabilities, { tools: {}, resources: {}, prompts: {}, completions: {} })
  const init = await send(app, { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json' }, payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) })
  t.match(init.body.result.capabilities, { tools: {}, resources: {}, prompts: {}, completions: {} })
})

t.test('an empty server answers every list with no items', async (t) => {
  const empty = await build()
  t.teardown(() => empty.close())
  for (const [method, key] of [['resources/list', 'resources'], ['resources/templates/list', 'resourceTemplates'], ['prompts/list', 'prompts']]) {
    const res = await send(empty, modern(method))
    t.same(res.body.result[key], [], method)
    t.equal(res.body.result.ttlMs, 300_000)
    t.notOk('nextCursor' in res.body.result)
  }
  const missing = await send(empty, read('config://x'))
  t.equal(missing.body.error.code, -32602)
})
