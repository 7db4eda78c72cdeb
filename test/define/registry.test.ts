// The registry on its own: tools, resources and prompts by name or URI, compiled at registration
// with what they demand of callers, all or none in an array, closed once sealed.
import t from 'tap'
import { Registry } from '../../lib/define/registry.js'
import type { ToolDefinition } from '../../lib/define/tool.js'

function tool (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, execute: () => name, ...extra }
}

t.test('addTool compiles and keeps tools by name', async (t) => {
  const reg = new Registry()
  const compiled = reg.addTool(tool('a'))
  t.equal(reg.tools.get('a'), compiled)
  t.equal(compiled.name, 'a')
  t.equal(compiled.kind, 'tool')
  t.equal(compiled.access, undefined, 'no scope: nothing demanded')
})

t.test('sealed after seal(), and then closed to new tools', async (t) => {
  const reg = new Registry()
  t.equal(reg.sealed, false)
  reg.addTool(tool('a'))
  reg.seal()
  t.equal(reg.sealed, true)
  t.throws(() => reg.addTool(tool('b')), { code: 'SAKE_ERR_REGISTER_AFTER_READY' })
  t.equal(reg.tools.size, 1)
})

t.test('a scope is kept on the compiled item, and must be declared', async (t) => {
  const reg = new Registry(new Map([['a', 'A']]))
  t.same(reg.addTool(tool('x', { scope: 'a' })).access, { scopes: ['a'], stepUp: undefined })
  t.throws(() => reg.addTool(tool('y', { scope: 'b' })), { code: 'SAKE_ERR_INVALID_TOOL', message: /tool 'y': scope 'b' is not declared/ })
  t.notOk(reg.tools.has('y'))
})

t.test('all: a failure takes back what the array added before it', async (t) => {
  const reg = new Registry()
  reg.addTool(tool('kept'))
  t.throws(() => reg.all([tool('a'), tool('b'), tool('kept')], (one) => reg.addTool(one)), { code: 'SAKE_ERR_DUPLICATE_TOOL' })
  t.same([...reg.tools.keys()], ['kept'])
})

t.test('findResource: the fixed resource first, then templates in registration order', async (t) => {
  const reg = new Registry()
  const read = (): string => 'x'
  reg.addResource({ uriTemplate: 'notes://{id}', name: 'by id', read })
  reg.addResource({ uriTemplate: 'notes://{+path}', name: 'by path', read })
  reg.addResource({ uri: 'notes://index', name: 'index', read })
  t.equal(reg.findResource('notes://index')?.resource.key, 'notes://index')
  t.same(reg.findResource('notes://index')?.vars, {})
  const found = reg.findResource('notes://42')
  t.equal(found?.resource.key, 'notes://{id}')
  t.same(found?.vars, { id: '42' })
  t.equal(found?.uri, 'notes://42')
  t.equal(reg.findResource('notes://a/b')?.resource.key, 'notes://{+path}')
  t.equal(reg.findResource('other://x'), undefined)
})
