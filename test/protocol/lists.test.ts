// The list pages on their own: tools/list pages serialised per era with opaque cursors and a
// ttlMs that is the shortest among the server and the tools on the page; the other lists and the
// filtered pages of hideForbidden.
import t from 'tap'
import { Registry } from '../../lib/define/registry.js'
import type { ToolDefinition } from '../../lib/define/tool.js'
import { ListPages } from '../../lib/protocol/lists.js'

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
