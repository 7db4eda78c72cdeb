// The registry on its own: tools by name, sealed at ready, tools/list pages serialised per era with
// opaque cursors and a ttlMs that is the shortest among the server and the tools on the page.
import t from 'tap'
import { Registry } from '../../lib/registry.js'
import type { ToolDefinition } from '../../lib/define/tool.js'

const info = { name: 'reg', version: '1.0.0' }

function registry (pageSize = 2, ttl = 300_000): Registry {
  return new Registry({ info, ttl, pageSize })
}

function tool (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, execute: () => name, ...extra }
}

function page (reg: Registry, era: 'modern' | 'legacy', cursor?: string): any {
  const text = reg.toolsPage(era, cursor)
  return text === undefined ? undefined : JSON.parse(text)
}

t.test('addTool compiles and keeps tools by name', async (t) => {
  const reg = registry()
  const compiled = reg.addTool(tool('a'))
  t.equal(reg.tools.get('a'), compiled)
  t.equal(compiled.name, 'a')
})

t.test('sealed after seal(), and then closed to new tools', async (t) => {
  const reg = registry()
  t.equal(reg.sealed, false)
  reg.addTool(tool('a'))
  reg.seal()
  t.equal(reg.sealed, true)
  t.throws(() => reg.addTool(tool('b')), { code: 'SAKE_ERR_REGISTER_AFTER_READY' })
  t.equal(reg.tools.size, 1)
})

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

t.test('serverInfoMeta is frozen', async (t) => {
  t.ok(Object.isFrozen(registry().serverInfoMeta))
})
