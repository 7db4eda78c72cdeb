// The list pages on their own: tools/list pages serialised per era with opaque cursors and a
// ttlMs that is the shortest among the server and the tools on the page; the other lists and the
// filtered pages of hideForbidden.
// Then two groups through the plugin:
// - server/discover and tools/list on the wire (was http/discover-and-list): the result shapes of
//   each era, pagination with opaque cursors, and the cache hints of 2026-07-28 (ttlMs is the
//   shortest of the server's and the page's tools').
// - lists behind auth (was auth/scopes): with hideForbidden each caller lists only what its scopes
//   allow, as private results; without it lists are public; the cache of filtered pages stays
//   bounded.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Registry } from '../../lib/define/registry.js'
import type { ToolDefinition } from '../../lib/define/tool-definition.js'
import { ListPages } from '../../lib/protocol/lists.js'
import { Type, definePrompt } from '../../lib/index.js'
import { build } from '../helpers/app.js'
import { sessionPost, modernRequest, openSession, rpc, modernMeta, modernPost, send } from '../helpers/requests.js'
import { authApp, bearer, startIssuer } from '../helpers/tokens.js'
import { captureLog } from '../helpers/logs.js'

const info = { name: 'reg', version: '1.0.0' }
const serverInfoMeta = Object.freeze({ 'io.modelcontextprotocol/serverInfo': info })

/** A registry with its pages: `seal()` closes it and builds them, as the plugin's onReady does. */
class Server {
  readonly registry: Registry
  readonly lists: ListPages
  constructor (pageSize: number, ttl: number, scopes?: ReadonlyMap<string, string>, hideForbidden = false) {
    this.registry = new Registry(scopes)
    this.lists = new ListPages(this.registry, { ttl, pageSize, serverInfoMeta, hideForbidden })
  }

  addTool (definition: ToolDefinition): void { this.registry.addTool(definition) }
  seal (): void { this.registry.seal(); this.lists.build() }
  toolsPage (era: 'modern' | 'legacy', cursor?: string, auth?: { subject: string, scopes: string[], claims: Record<string, unknown> }): string | undefined {
    return this.lists.page('tools', era, cursor, auth)
  }
}

function registry (pageSize = 2, ttl = 300_000): Server {
  return new Server(pageSize, ttl)
}

function tool (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, execute: () => name, ...extra }
}

function page (reg: Server, era: 'modern' | 'legacy', cursor?: string): any {
  const text = reg.toolsPage(era, cursor)
  return text === undefined ? undefined : JSON.parse(text)
}

t.test('pages, cursors and the last page', async (t) => {
  const reg = registry(2)
  for (const name of ['e', 'c', 'a', 'd', 'b']) reg.addTool(tool(name))
  reg.seal()
  const first = page(reg, 'modern')
  t.same(first.tools.map((x: { name: string }) => x.name), ['a', 'b'])
  t.type(first.nextCursor, 'string')
  const second = page(reg, 'modern', first.nextCursor)
  t.same(second.tools.map((x: { name: string }) => x.name), ['c', 'd'])
  const third = page(reg, 'modern', second.nextCursor)
  t.same(third.tools.map((x: { name: string }) => x.name), ['e'])
  t.notOk('nextCursor' in third, 'the last page has no cursor')
  t.equal(page(reg, 'modern', 'bm9wZQ'), undefined, 'a cursor that is not ours')
  t.same(page(reg, 'legacy', first.nextCursor).tools.map((x: { name: string }) => x.name), ['c', 'd'], 'legacy pages use the same cursors')
  t.equal(page(reg, 'legacy', first.nextCursor).nextCursor, second.nextCursor)
})

t.test('a page is serialised for an era when first asked for, once (issue 41)', async (t) => {
  const reg = registry(2)
  for (const name of ['a', 'b', 'c']) reg.addTool(tool(name))
  reg.seal()
  const stringify = JSON.stringify
  let calls = 0
  JSON.stringify = ((...args: Parameters<typeof stringify>) => { calls++; return stringify(...args) }) as typeof stringify
  t.teardown(() => { JSON.stringify = stringify })
  const first = reg.toolsPage('modern')
  t.equal(calls, 1, 'the page asked for, in its era, and nothing else')
  t.equal(reg.toolsPage('modern'), first, 'then kept: the same text')
  t.equal(calls, 1)
  reg.toolsPage('legacy')
  t.equal(calls, 2, 'the other era, when asked for')
  reg.toolsPage('modern', JSON.parse(first!).nextCursor)
  reg.toolsPage('modern', JSON.parse(first!).nextCursor)
  t.equal(calls, 3, 'the next page once')
})

t.test('the first page\'s cursor is not a cursor: page one is asked for without one', async (t) => {
  const reg = registry(1)
  reg.addTool(tool('a'))
  reg.addTool(tool('b'))
  reg.seal()
  const next = page(reg, 'modern').nextCursor
  t.equal(page(reg, 'modern', Buffer.from('page:0').toString('base64url')), undefined)
  t.same(page(reg, 'modern', next).tools.map((x: { name: string }) => x.name), ['b'])
})

t.test('the era shapes', async (t) => {
  const reg = registry(10, 60_000)
  reg.addTool(tool('a'))
  reg.seal()
  const modern = page(reg, 'modern')
  t.same(Object.keys(modern), ['resultType', 'tools', 'ttlMs', 'cacheScope', '_meta'])
  t.same(modern._meta, { 'io.modelcontextprotocol/serverInfo': info })
  t.equal(modern.resultType, 'complete')
  t.equal(modern.cacheScope, 'public')
  t.equal(modern.ttlMs, 60_000)
  t.same(page(reg, 'legacy'), { tools: [{ name: 'a', inputSchema: { type: 'object', properties: {}, additionalProperties: false } }] }, 'legacy: tools and nextCursor only')
})

t.test('an empty server lists one empty page', async (t) => {
  const reg = registry()
  reg.seal()
  t.same(page(reg, 'modern').tools, [])
  t.same(page(reg, 'legacy'), { tools: [] })
})

t.test('a page\'s ttlMs is the shortest among the server and its tools', async (t) => {
  const reg = registry(2, 10_000)
  reg.addTool(tool('a', { ttl: 5000 }))
  reg.addTool(tool('b', { ttl: 20_000 }))
  reg.addTool(tool('c'))
  reg.addTool(tool('d', { ttl: 0 }))
  reg.addTool(tool('e', { ttl: 50_000 }))
  reg.seal()
  const first = page(reg, 'modern')
  t.equal(first.ttlMs, 5000, 'a tool shortens its page')
  const second = page(reg, 'modern', first.nextCursor)
  t.equal(second.ttlMs, 0, 'down to zero')
  t.equal(page(reg, 'modern', second.nextCursor).ttlMs, 10_000, 'a longer tool ttl never lengthens the server\'s')
})

t.test('before seal, pages are built on demand, sorted the same way', async (t) => {
  const reg = registry(10)
  reg.addTool(tool('b'))
  reg.addTool(tool('a'))
  t.same(page(reg, 'modern').tools.map((x: { name: string }) => x.name), ['a', 'b'])
  reg.addTool(tool('0'))
  t.same(page(reg, 'legacy').tools.map((x: { name: string }) => x.name), ['0', 'a', 'b'], 'and reflect later additions')
})

t.test('filtered pages built before the registry is sealed are not kept', async (t) => {
  const server = new Server(10, 1000, new Map([['a', 'A']]), true)
  server.addTool({ name: 'x', scope: 'a', execute: () => 'x' })
  const caller = { subject: 's', scopes: [], claims: {} }
  t.same(JSON.parse(server.toolsPage('modern', undefined, caller)!).tools, [])
  server.addTool({ name: 'y', execute: () => 'y' })
  t.same(JSON.parse(server.toolsPage('modern', undefined, caller)!).tools.map((tool: { name: string }) => tool.name), ['y'], 'built again: y is there')
  t.same(JSON.parse(server.toolsPage('legacy', undefined)!).tools.map((tool: { name: string }) => tool.name), ['x', 'y'], 'no caller: the whole list')
})

t.test('before ready, resource lists are built on demand', async (t) => {
  const registry = new Registry()
  const lists = new ListPages(registry, { ttl: 10, pageSize: 5, serverInfoMeta, hideForbidden: false })
  registry.addResource({ uri: 'a://one', name: 'one', read: () => 'one' })
  t.same(JSON.parse(lists.page('resources', 'legacy', undefined)!), { resources: [{ uri: 'a://one', name: 'one' }] })
  registry.seal()
  lists.build()
  t.equal(lists.page('resources', 'modern', 'nope'), undefined)
})

t.test('server/discover and tools/list on the wire (was http/discover-and-list)', async (t) => {
  const SERVER_INFO = { name: 'test-server', version: '1.0.0', title: 'Test Server' }

  const log = captureLog()
  let app: FastifyInstance

  t.before(async () => {
    app = await build({ title: 'Test Server', instructions: 'Use the tools.', ttl: 60_000, pageSize: 2 }, { logger: log.logger })
    app.registerTool({ name: 'e_last', execute: () => 'e' })
    app.registerTool({ name: 'c_mid', ttl: 50_000, execute: () => 'c' })
    app.registerTool({ name: 'a_first', ttl: 1_000, title: 'First', description: 'The first tool', annotations: { readOnly: true, title: 'One' }, execute: () => 'a' })
    app.registerTool({ name: 'd_numbers', output: Type.Array(Type.Number()), execute: () => [1, 2] })
    app.registerTool({ name: 'b_sum', args: { region: Type.Optional(Type.String({ header: 'Region' })) }, output: { sum: Type.Number() }, execute: () => ({ sum: 1 }) })
    await app.ready()
  })
  t.teardown(() => app.close())

  const list = (cursor?: unknown, id: number | string = 'l') =>
    modernPost({ jsonrpc: '2.0', id, method: 'tools/list', params: cursor === undefined ? { _meta: modernMeta() } : { cursor, _meta: modernMeta() } })

  t.test('server/discover', async (t) => {
    const res = await send(app, modernPost({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: modernMeta() } }))
    t.equal(res.status, 200)
    t.equal(res.body.id, 'd')
    t.same(res.body.result, {
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
      instructions: 'Use the tools.',
      ttlMs: 60_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO }
    })
    t.notOk('serverInfo' in res.body.result, 'serverInfo lives in _meta, not at the top (SEP-2575)')
  })

  t.test('server/discover without instructions leaves the field out', async (t) => {
    const plain = await build()
    t.teardown(() => plain.close())
    const res = await send(plain, modernPost({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } }))
    t.notOk('instructions' in res.body.result)
    t.equal(res.body.result.ttlMs, 300_000, 'the default ttl')
    t.same(res.body.result._meta, { 'io.modelcontextprotocol/serverInfo': { name: 'test-server', version: '1.0.0' } })
  })

  t.test('modern tools/list: pages, a nextCursor chain, and per-page ttlMs', async (t) => {
    const first = await send(app, list(undefined, 1))
    t.equal(first.status, 200)
    t.equal(first.body.id, 1)
    const page1 = first.body.result
    t.same(page1.tools.map((tool: { name: string }) => tool.name), ['a_first', 'b_sum'], 'sorted by name, two a page')
    t.equal(page1.resultType, 'complete')
    t.equal(page1.ttlMs, 1_000, 'a_first\'s ttl is the shortest on the page')
    t.equal(page1.cacheScope, 'public')
    t.same(page1._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO })
    t.type(page1.nextCursor, 'string')

    const second = (await send(app, list(page1.nextCursor, 2))).body.result
    t.same(second.tools.map((tool: { name: string }) => tool.name), ['c_mid', 'd_numbers'])
    t.equal(second.ttlMs, 50_000, 'c_mid\'s ttl')
    t.equal(second.cacheScope, 'public', 'every page has the same cacheScope')
    t.type(second.nextCursor, 'string')
    t.not(second.nextCursor, page1.nextCursor)

    const third = (await send(app, list(second.nextCursor, 3))).body.result
    t.same(third.tools.map((tool: { name: string }) => tool.name), ['e_last'])
    t.equal(third.ttlMs, 60_000, 'no tool ttl: the server\'s')
    t.notOk('nextCursor' in third, 'the last page has no nextCursor')

    const again = (await send(app, list(page1.nextCursor, 4))).body.result
    t.same(again, second, 'a cursor can be reused: pages are stable')
  })

  t.test('modern tool objects', async (t) => {
    const page1 = (await send(app, list())).body.result
    t.same(page1.tools[0], {
      name: 'a_first',
      title: 'First',
      description: 'The first tool',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true, title: 'One' }
    })
    const sum = page1.tools[1]
    t.equal(sum.inputSchema.properties.region['x-mcp-header'], 'Region', 'header sugar is sent as x-mcp-header')
    t.notOk('header' in sum.inputSchema.properties.region)
    t.same(sum.outputSchema, { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] })
    const numbers = (await send(app, list(page1.nextCursor))).body.result.tools[1]
    t.same(numbers.outputSchema, { type: 'array', items: { type: 'number' } }, 'any output schema in 2026-07-28')
  })

  t.test('a bad cursor is -32602', async (t) => {
    const unknown = await send(app, list('not-a-cursor', 'c1'))
    t.equal(unknown.status, 200)
    t.equal(unknown.body.error.code, -32602)
    t.equal(unknown.body.id, 'c1')
    t.match(unknown.body.error.message, /^Invalid params: unknown cursor "not-a-cursor"; start again without a cursor/)

    const numeric = await send(app, list(2, 'c2'))
    t.equal(numeric.status, 200)
    t.equal(numeric.body.error.code, -32602)
    t.match(numeric.body.error.message, /^Invalid params: "cursor" must be a string/)
  })

  t.test('legacy tools/list: no resultType, ttlMs, cacheScope or _meta; object output schemas only', async (t) => {
    const session = await openSession(app, '2025-11-25')
    const first = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }))
    t.equal(first.status, 200)
    const page1 = first.body.result
    t.same(Object.keys(page1).sort(), ['nextCursor', 'tools'])
    t.same(page1.tools[1].outputSchema, { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }, 'an object output schema is kept')

    const page2 = (await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: page1.nextCursor } }))).body.result
    const numbers = page2.tools.find((tool: { name: string }) => tool.name === 'd_numbers')
    t.ok(numbers, 'the array-output tool is listed')
    t.notOk('outputSchema' in numbers, 'but without its non-object output schema')

    const bad = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'nope' } }))
    t.equal(bad.status, 200)
    t.equal(bad.body.error.code, -32602)
  })

  t.test('an empty server lists no tools and no cursor', async (t) => {
    const empty = await build()
    t.teardown(() => empty.close())
    const res = await send(empty, list())
    t.same(res.body.result.tools, [])
    t.notOk('nextCursor' in res.body.result)
  })

  t.test('nothing here was logged as an error', async (t) => {
    t.same(log.errors(), [])
  })
})

t.test('lists behind auth: hideForbidden (was auth/scopes)', async (t) => {
  t.test('hideForbidden: each caller lists only what its scopes allow, as private results', async (t) => {
    const issuer = await startIssuer(t)
    const app = await authApp(issuer, { hideForbidden: true })
    app.registerResource({ uri: 'issues://settings', name: 'Settings', scope: 'issues:admin', read: () => 'x' })
    app.registerResource({ uri: 'issues://about', name: 'About', read: () => 'about' })
    app.registerPrompt(definePrompt({ name: 'triage', scope: 'issues:write', get: () => 'x' }))
    await app.ready()
    const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
    const names = async (headers: Record<string, string>): Promise<string[]> => rpc(await app.inject(modernRequest('tools/list', {}, headers))).result.tools.map((tool: { name: string }) => tool.name)
    t.same(await names(reader), ['delete_repo', 'list_issues', 'open', 'recent_only'], 'step-up tools stay visible: a new sign-in unlocks them')
    t.same(await names(bearer(await issuer.sign())), ['close_issue', 'delete_repo', 'list_issues', 'open', 'recent_only'])
    t.same(await names(bearer(await issuer.sign({ scope: 'issues:admin other' }))), ['delete_repo', 'open', 'recent_only', 'stream_admin'])
    t.same(await names(reader), ['delete_repo', 'list_issues', 'open', 'recent_only'], 'the same pages again, from the cache')
    const page = rpc(await app.inject(modernRequest('tools/list', {}, reader))).result
    t.equal(page.cacheScope, 'private')
    const resources = rpc(await app.inject(modernRequest('resources/list', {}, reader))).result
    t.same(resources.resources.map((r: { uri: string }) => r.uri), ['issues://about'])
    t.equal(resources.cacheScope, 'private')
    const prompts = rpc(await app.inject(modernRequest('prompts/list', {}, reader))).result
    t.same(prompts.prompts, [])
    // a 2025 session filters the same way
    const session = await openSession(app, '2025-11-25', { headers: reader, initialized: false })
    const legacy = rpc(await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, reader))).result
    t.same(legacy.tools.map((tool: { name: string }) => tool.name), ['delete_repo', 'list_issues', 'open', 'recent_only'])
    // a hidden tool is still refused with its challenge, not as unknown: the client can step up
    const hidden = await app.inject(modernRequest('tools/call', { name: 'close_issue', arguments: { id: 1 } }, reader))
    t.equal(hidden.statusCode, 403)
  })

  t.test('without hideForbidden, lists are the same for everyone and public', async (t) => {
    const issuer = await startIssuer(t)
    const app = await authApp(issuer)
    await app.ready()
    const page = rpc(await app.inject(modernRequest('tools/list', {}, bearer(await issuer.sign({ scope: '' }))))).result
    t.equal(page.tools.length, 6)
    t.equal(page.cacheScope, 'public')
  })

  t.test('many different grants: the cache of filtered pages stays bounded', async (t) => {
    const issuer = await startIssuer(t)
    const scopes: Record<string, string> = {}
    for (let i = 0; i < 9; i++) scopes[`s${i}`] = `scope ${i}`
    const app = await build({ scopes, auth: { resource: 'https://mcp.example.com/mcp', authorizationServers: [issuer.issuer], jwks: issuer.jwks, hideForbidden: true } })
    for (let i = 0; i < 9; i++) app.registerTool({ name: `t${i}`, scope: `s${i}`, execute: () => 'x' })
    await app.ready()
    // 2^9 = 512 combinations, more than the 256 kept: every answer is still right
    for (let mask = 0; mask < 300; mask++) {
      const held = Object.keys(scopes).filter((_, i) => (mask & (1 << i)) !== 0)
      const res = rpc(await app.inject(modernRequest('tools/list', {}, bearer(await issuer.sign({ scope: held.join(' ') })))))
      if (res.result.tools.length !== held.length) t.fail(`mask ${mask}`)
    }
    t.pass('300 grant sets listed correctly')
  })
})
