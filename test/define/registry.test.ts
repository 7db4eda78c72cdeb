// The registry on its own: tools, resources and prompts by name or URI, compiled at registration
// with what they demand of callers, all or none in an array, closed once sealed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

const skillMd = (name: string): string => `---\nname: ${name}\ndescription: Does ${name} things\n---\n# ${name}\n`

t.test('skills: a SKILL.md is a listed resource, its other files found by URI; the same path or URI twice is refused', async (t) => {
  const reg = new Registry(new Map([['docs:read', 'Read docs']]))
  t.equal(reg.servesSkills(), false)
  const [skill] = reg.addSkill({ path: 'a', files: { 'SKILL.md': skillMd('a'), 'ref/x.md': 'x' } }).skills
  t.equal(reg.servesSkills(), true)
  t.equal(reg.scopedSkills(), false)
  t.equal(reg.resources.get('skill://a/SKILL.md'), skill!.files.get('skill://a/SKILL.md'), 'listed with the fixed resources')
  t.notOk(reg.resources.has('skill://a/ref/x.md'), 'a supporting file is not listed')
  t.equal(reg.findResource('skill://a/ref/x.md')?.resource, skill!.files.get('skill://a/ref/x.md'), 'but found by its URI')
  t.throws(() => reg.addSkill({ path: 'a', files: { 'SKILL.md': skillMd('a') } }), { code: 'SAKE_ERR_INVALID_SKILL', message: "skill 'a': a skill is already registered at this path (skill://a/SKILL.md); give one of them another path or prefix" })
  reg.addResource({ uri: 'skill://b/SKILL.md', name: 'taken', read: () => 'x' })
  t.throws(() => reg.addSkill({ path: 'b', files: { 'SKILL.md': skillMd('b') } }), { code: 'SAKE_ERR_DUPLICATE_RESOURCE' }, "a resource already at a skill's SKILL.md")
  t.throws(() => reg.addSkill(null as never), { code: 'SAKE_ERR_INVALID_SKILL', message: /must be an object: \{ directory \}, \{ path, files \} or .*got null/ })
  t.throws(() => reg.addSkill('x' as never), { message: /got string$/ })
  reg.addSkill({ path: 'c', scope: 'docs:read', files: { 'SKILL.md': skillMd('c') } })
  t.equal(reg.scopedSkills(), true)
  reg.seal()
  t.throws(() => reg.addSkill({ path: 'd', files: { 'SKILL.md': skillMd('d') } }), { code: 'SAKE_ERR_REGISTER_AFTER_READY', message: /cannot register skill 'd' after the server is ready/ })
  t.throws(() => reg.addSkill({ directory: '/srv/skills' }), { code: 'SAKE_ERR_REGISTER_AFTER_READY', message: /cannot register skill '\/srv\/skills' after the server is ready/ }, 'a folder names itself')
})

t.test('all: a folder of skills inside an array is taken back whole when a later definition fails', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'sake-registry-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const name of ['one', 'two']) {
    mkdirSync(join(root, name))
    writeFileSync(join(root, name, 'SKILL.md'), skillMd(name))
  }
  const reg = new Registry()
  t.throws(() => reg.all([{ directory: root }, { path: 'bad', files: {} }], (one) => reg.addSkill(one as never)), { code: 'SAKE_ERR_INVALID_SKILL' })
  t.same([...reg.skills.keys()], [], 'the folder\'s two skills taken back')
  t.same([...reg.resources.keys()], [])
  reg.all([{ directory: root }], (one) => reg.addSkill(one as never))
  t.same([...reg.skills.keys()], ['skill://one/SKILL.md', 'skill://two/SKILL.md'])
})

t.test('findDirectory: a skill\'s folders, the folders above skills (their children carry each skill\'s scope), nested skills, dynamic roots', async (t) => {
  const reg = new Registry(new Map([['docs:read', 'Read docs']]))
  reg.addSkill({ path: 'acme/billing/refunds', files: { 'SKILL.md': skillMd('refunds'), 'partial/SKILL.md': skillMd('partial') } })
  reg.addSkill({ path: 'acme/billing/refunds/partial', scope: 'docs:read', files: { 'SKILL.md': skillMd('partial') } })
  reg.addSkill({ path: 'acme/secret', scope: 'docs:read', files: { 'SKILL.md': skillMd('secret') } })
  reg.addSkill({ path: 'live', resources: 'dynamic', frontmatter: { name: 'live', description: 'Live' }, read: () => '' })
  const acme = reg.findDirectory('skill://acme')!
  t.equal(acme.access, undefined, 'a folder above skills demands nothing itself')
  t.same(acme.children!.map((c) => [c.wire.uri, c.access?.scopes]), [['skill://acme/billing', undefined], ['skill://acme/secret', ['docs:read']]], "a child that is a skill's root carries its scope")
  t.same(reg.findDirectory('skill://acme/billing')!.children!.map((c) => c.wire.uri), ['skill://acme/billing/refunds'])
  const partial = reg.findDirectory('skill://acme/billing/refunds/partial')!
  t.equal(partial.access, undefined, "a nested skill's folder is its enclosing skill's, registered first")
  t.same(partial.children!.map((c) => c.wire.uri), ['skill://acme/billing/refunds/partial/SKILL.md'])
  t.equal(reg.findResource('skill://acme/billing/refunds/partial/SKILL.md')?.resource.access?.scopes[0], 'docs:read', "a file shared by both is the nested skill's listed SKILL.md")
  const live = reg.findDirectory('skill://live')!
  t.equal(live.children, undefined, 'a dynamic skill\'s folder is listed live')
  t.equal(live.skill?.uri, 'skill://live/SKILL.md')
  t.equal(reg.findDirectory('skill://live/sub'), undefined)
  t.equal(reg.findDirectory('skill://nowhere'), undefined)
  reg.seal()
  t.ok(reg.findDirectory('skill://acme'), 'built again when sealed')
})
