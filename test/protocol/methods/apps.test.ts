// MCP Apps through the plugin (app.inject), in both eras: the extension advertised only by a
// server that has an app, UI metadata and app-only tools only for a client that declared it (per
// request in 2026-07-28, from initialize in 2025), the refusal of an app-only tool, the text
// fallback of a UI tool, _meta.ui and the cache hints of a UI resource's read, and a `ui` that
// names no resource stopping the server from starting.
import t from 'tap'
import { Type, withText } from '../../../lib/index.js'
import { build } from '../../helpers/app.js'
import { modernRequest, openSession, send, sessionPost } from '../../helpers/requests.js'
import { authApp, bearer, startIssuer } from '../../helpers/tokens.js'

const APPS = 'io.modelcontextprotocol/ui'
const MIME = 'text/html;profile=mcp-app'
const HTML = '<!doctype html><html><head></head><body>app</body></html>'
const DECLARED = { extensions: { [APPS]: { mimeTypes: [MIME] } } }
/** The `_meta` of a 2026-07-28 request from a client with (or without) MCP Apps. */
const meta = (apps: boolean | Record<string, unknown>): Record<string, unknown> => ({
  'io.modelcontextprotocol/clientCapabilities': apps === true ? DECLARED : apps === false ? {} : apps
})

const tools = [
  {
    name: 'board',
    args: { n: Type.Integer() },
    ui: { uri: 'ui://t/board', html: HTML, csp: { connectDomains: ['https://api.example.com'] } },
    execute: ({ n }: { n: number }) => withText({ n }, `n is ${n}`)
  },
  { name: 'refresh', ui: 'ui://t/board', visibility: ['app'], execute: () => ({ fresh: true }) },
  { name: 'quiet', ui: 'ui://t/board', execute: () => undefined },
  { name: 'plain', execute: () => 'plain' }
] as any

const resources = [
  { uri: 'ui://t/own', name: 'own', read: () => ({ text: HTML, _meta: { ui: { prefersBorder: false } } }), prefersBorder: true, ttl: 60_000 },
  { uri: 'file:///notes', name: 'notes', read: () => 'notes' }
] as any

t.test('2026-07-28, per request', async (t) => {
  const app = await build({ tools, resources })
  t.teardown(() => app.close())

  const discover = await send(app, modernRequest('server/discover'))
  t.same(discover.body.result.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {}, [APPS]: {} }, 'advertised')

  const withApps = await send(app, modernRequest('tools/list', { _meta: meta(true) }))
  t.same(withApps.body.result.tools.map((tool: any) => tool.name), ['board', 'plain', 'quiet', 'refresh'])
  t.same(withApps.body.result.tools[0]._meta, { ui: { resourceUri: 'ui://t/board', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://t/board' })
  t.equal(withApps.body.result.cacheScope, 'private', 'a list that differs by audience: a cache keyed on method and cursor must not share it')
  t.equal((await send(app, modernRequest('tools/list', { _meta: meta(false) }))).body.result.cacheScope, 'private', 'both audiences\' pages')
  t.equal((await send(app, modernRequest('prompts/list', { _meta: meta(false) }))).body.result.cacheScope, 'public', 'a list the same for everyone stays public')
  const without = await send(app, modernRequest('tools/list', { _meta: meta(false) }))
  t.same(without.body.result.tools.map((tool: any) => tool.name), ['board', 'plain', 'quiet'], 'no app-only tool')
  t.notOk(without.body.result.tools.some((tool: any) => tool._meta !== undefined), 'no UI metadata')
  // the extension without the HTML type is not MCP Apps for this server's apps
  const otherTypes = await send(app, modernRequest('tools/list', { _meta: meta({ extensions: { [APPS]: { mimeTypes: ['text/uri-list'] } } }) }))
  t.same(otherTypes.body.result, without.body.result, 'mimeTypes without text/html;profile=mcp-app: treated as without')
  const noSettings = await send(app, modernRequest('tools/list', { _meta: meta({ extensions: { [APPS]: {} } }) }))
  t.same(noSettings.body.result, without.body.result, 'no mimeTypes (REQUIRED by the extension): treated as without')

  const listed = await send(app, modernRequest('resources/list', { _meta: meta(true) }))
  t.same(listed.body.result.resources.map((r: any) => [r.uri, r._meta]), [
    ['file:///notes', undefined],
    ['ui://t/board', { ui: { csp: { connectDomains: ['https://api.example.com'] } } }],
    ['ui://t/own', { ui: { prefersBorder: true } }]
  ])
  t.equal(listed.body.result.ttlMs, 60_000, "a UI resource's ttl shortens its page, under the server's ceiling")
  const plainList = await send(app, modernRequest('resources/list', { _meta: meta(false) }))
  t.same(plainList.body.result.resources.map((r: any) => r.uri), ['file:///notes'], 'UI resources are not listed without the extension')

  const read = await send(app, modernRequest('resources/read', { uri: 'ui://t/board', _meta: meta(true) }, { 'mcp-name': 'ui://t/board' }))
  t.same(read.body.result.contents, [{ uri: 'ui://t/board', mimeType: MIME, text: HTML, _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] } } } }])
  t.equal(read.body.result.ttlMs, 86_400_000, 'a day: above the server ttl, for an HTML that changes with a deploy')
  t.equal(read.body.result.cacheScope, 'public')
  const own = await send(app, modernRequest('resources/read', { uri: 'ui://t/own', _meta: meta(true) }, { 'mcp-name': 'ui://t/own' }))
  t.same(own.body.result.contents[0]._meta, { ui: { prefersBorder: false } }, "the content item's own _meta.ui wins")
  t.equal(own.body.result.ttlMs, 60_000, 'its own ttl')
  const plainRead = await send(app, modernRequest('resources/read', { uri: 'ui://t/board', _meta: meta(false) }, { 'mcp-name': 'ui://t/board' }))
  t.same(plainRead.body.result.contents, [{ uri: 'ui://t/board', mimeType: MIME, text: HTML }], 'readable by anyone, without _meta.ui')
  const notes = await send(app, modernRequest('resources/read', { uri: 'file:///notes', _meta: meta(true) }, { 'mcp-name': 'file:///notes' }))
  t.same(notes.body.result.contents, [{ uri: 'file:///notes', text: 'notes' }], 'other resources are untouched')
  t.equal(notes.body.result.ttlMs, 300_000)

  const board = await send(app, modernRequest('tools/call', { name: 'board', arguments: { n: 3 }, _meta: meta(true) }))
  t.same(board.body.result.content, [{ type: 'text', text: 'n is 3' }], 'withText: the text the model reads')
  t.same(board.body.result.structuredContent, { n: 3 }, 'and the data the app renders')
  const quiet = await send(app, modernRequest('tools/call', { name: 'quiet', _meta: meta(false) }))
  t.same(quiet.body.result.content, [{ type: 'text', text: "Tool 'quiet' completed." }], 'a UI tool never answers without content')

  const refresh = await send(app, modernRequest('tools/call', { name: 'refresh', _meta: meta(true) }))
  t.same(refresh.body.result.structuredContent, { fresh: true }, 'the app-only tool answers a client with the extension')
  const refused = await send(app, modernRequest('tools/call', { name: 'refresh', _meta: meta(false) }))
  t.equal(refused.status, 400)
  t.equal(refused.body.error.code, -32021)
  t.match(refused.body.error.message, /^Tool 'refresh' is called only by an MCP App \(visibility \['app'\]\): the client must declare the io\.modelcontextprotocol\/ui extension with mimeTypes \["text\/html;profile=mcp-app"\] in the request's clientCapabilities.extensions$/)
  t.same(refused.body.error.data, { requiredCapabilities: { extensions: { [APPS]: { mimeTypes: [MIME] } } } })
})

t.test('2025 sessions: what initialize declared', async (t) => {
  const app = await build({ tools, resources })
  t.teardown(() => app.close())
  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
    const init = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } } } })
    t.same(JSON.parse(init.body).result.capabilities.extensions, { [APPS]: {} }, `${version}: advertised at initialize`)
  }
  const apps = await openSession(app, '2025-11-25', { capabilities: DECLARED })
  const plain = await openSession(app, '2025-06-18')
  const list = async (session: string, version: string, method: string): Promise<any> =>
    (await send(app, sessionPost(session, version, { jsonrpc: '2.0', id: 1, method, params: {} }))).body.result
  t.same((await list(apps, '2025-11-25', 'tools/list')).tools.map((tool: any) => tool.name), ['board', 'plain', 'quiet', 'refresh'])
  t.same((await list(plain, '2025-06-18', 'tools/list')).tools.map((tool: any) => tool.name), ['board', 'plain', 'quiet'])
  t.same((await list(apps, '2025-11-25', 'resources/list')).resources.length, 3)
  t.same((await list(plain, '2025-06-18', 'resources/list')).resources.length, 1)

  const call = async (session: string, version: string): Promise<any> =>
    (await send(app, sessionPost(session, version, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'refresh' } }))).body
  t.same((await call(apps, '2025-11-25')).result.structuredContent, { fresh: true })
  const refused = await call(plain, '2025-06-18')
  t.equal(refused.error.code, -32602)
  t.match(refused.error.message, /^Invalid params: Tool 'refresh' is called only by an MCP App .* at initialize$/)

  const read = await send(app, sessionPost(apps, '2025-11-25', { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'ui://t/board' } }))
  t.same(read.body.result, { contents: [{ uri: 'ui://t/board', mimeType: MIME, text: HTML, _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] } } } }] }, 'no cache hints in 2025')
})

t.test('a server without an app advertises nothing of MCP Apps', async (t) => {
  const app = await build({ tools: [{ name: 'plain', execute: () => 'plain' }] as any })
  t.teardown(() => app.close())
  const discover = await send(app, modernRequest('server/discover'))
  t.same(discover.body.result.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} })
  const init = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } })
  t.equal(JSON.parse(init.body).result.capabilities.extensions, undefined)
  const withApps = await send(app, modernRequest('tools/list', { _meta: meta(true) }))
  const without = await send(app, modernRequest('tools/list', { _meta: meta(false) }))
  t.same(withApps.body.result, without.body.result, 'the same page for both audiences')
})

t.test("a tool's ui that names no resource keeps the server from starting, naming the tool", async (t) => {
  const app = await build({ tools: [{ name: 'lost', ui: 'ui://t/missing', execute: () => 'x' }] as any })
  await t.rejects(async () => await app.ready(), { code: 'SAKE_ERR_INVALID_TOOL', message: /^tool 'lost': its 'ui' names the resource 'ui:\/\/t\/missing', which is not registered/ })
  // registered before ready: it is found
  const later = await build({ tools: [{ name: 'found', ui: 'ui://t/late', execute: () => 'x' }] as any })
  t.teardown(() => later.close())
  later.registerResource({ uri: 'ui://t/late', name: 'late', read: () => HTML })
  await later.ready()
  t.equal(later.mcp.resources.get('ui://t/late')?.mimeType, MIME, 'app.mcp shows it as clients with the extension list it')
  t.same(later.mcp.tools.get('found')?._meta, { ui: { resourceUri: 'ui://t/late', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://t/late' })
})

t.test('behind hideForbidden, the filtered pages are per audience too', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer, { hideForbidden: true }, {
    tools: [
      { name: 'app_open', ui: { uri: 'ui://t/a', html: HTML }, execute: () => 'x' },
      { name: 'app_admin', scope: 'issues:admin', visibility: ['app'], execute: () => 'x' }
    ] as any,
    resources: [{ uri: 'ui://t/secret', name: 'secret', scope: 'issues:admin', read: () => HTML }] as any
  })
  t.teardown(() => app.close())
  await app.ready()
  const token = await issuer.sign({ scope: 'issues:read' })
  const names = async (apps: boolean, who = token): Promise<string[]> =>
    (await send(app, modernRequest('tools/list', { _meta: meta(apps) }, bearer(who)))).body.result.tools
      .filter((tool: any) => tool.name.startsWith('app_')).map((tool: any) => `${tool.name}${tool._meta === undefined ? '' : '+ui'}`)
  t.same(await names(true), ['app_open+ui'], 'the scope filter and the audience together')
  t.same(await names(false), ['app_open'])
  const admin = await issuer.sign({ scope: 'issues:admin' })
  t.same(await names(true, admin), ['app_admin+ui', 'app_open+ui'])
  t.same(await names(false, admin), ['app_open'])
  const adminList = await send(app, modernRequest('tools/list', { _meta: meta(true) }, bearer(admin)))
  t.equal(adminList.body.result.cacheScope, 'private')
  const read = await send(app, modernRequest('resources/read', { uri: 'ui://t/a', _meta: meta(true) }, { ...bearer(token), 'mcp-name': 'ui://t/a' }))
  t.equal(read.body.result.cacheScope, 'public', "a UI resource's HTML is the same for everyone, even behind auth")
  const secret = await send(app, modernRequest('resources/read', { uri: 'ui://t/secret', _meta: meta(true) }, { ...bearer(admin), 'mcp-name': 'ui://t/secret' }))
  t.equal(secret.body.result.cacheScope, 'private', 'unless it needs a scope: a shared cache cannot check one')
})
