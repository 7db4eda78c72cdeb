// The registry on its own: tools, resources and prompts by name or URI, compiled at registration
// with what they demand of callers, all or none in an array, closed once sealed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Registry, type FoundResource } from '../../lib/define/registry.js'
import type { FoundDirectory } from '../../lib/define/skill-directories.js'
import type { ToolDefinition } from '../../lib/define/tool-definition.js'

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
  const found = (uri: string): FoundResource | undefined => {
    const one = reg.findResource(uri)
    return one?.kind === 'found' ? one : undefined
  }
  t.equal(found('notes://index')?.resource.key, 'notes://index')
  t.same(found('notes://index')?.vars, {})
  t.equal(found('notes://42')?.resource.key, 'notes://{id}')
  t.same(found('notes://42')?.vars, { id: '42' })
  t.equal(found('notes://42')?.uri, 'notes://42')
  t.equal(found('notes://a/b')?.resource.key, 'notes://{+path}')
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
  t.match(reg.findResource('skill://a/ref/x.md'), { kind: 'found', resource: skill!.files.get('skill://a/ref/x.md') }, 'but found by its URI')
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
  const directory = (uri: string): FoundDirectory => {
    const found = reg.findDirectory(uri)
    if (found?.kind !== 'directory') throw new Error(`no directory at ${uri}`)
    return found
  }
  const acme = directory('skill://acme')
  t.equal(acme.access, undefined, 'a folder above skills demands nothing itself')
  t.same(acme.children!.map((c) => [c.wire.uri, c.access?.scopes, c.skills?.map((access) => access?.scopes)]), [
    ['skill://acme/billing', undefined, [undefined, ['docs:read']]],
    ['skill://acme/secret', ['docs:read'], undefined]
  ], "a child that is a skill's root carries its scope; a folder above skills, what each skill under it demands")
  t.equal(acme.above, true)
  t.same(directory('skill://acme/billing').children!.map((c) => c.wire.uri), ['skill://acme/billing/refunds'])
  const partial = directory('skill://acme/billing/refunds/partial')
  t.equal(partial.access, undefined, "a nested skill's folder is its enclosing skill's, registered first")
  t.equal(partial.above, false)
  t.same(partial.children!.map((c) => c.wire.uri), ['skill://acme/billing/refunds/partial/SKILL.md'])
  const shared = reg.findResource('skill://acme/billing/refunds/partial/SKILL.md')
  t.equal(shared?.kind === 'found' && shared.resource.access?.scopes[0], 'docs:read', "a file shared by both is the nested skill's listed SKILL.md")
  const live = directory('skill://live')
  t.equal(live.children, undefined, 'a dynamic skill\'s folder is listed live')
  t.equal(live.skill?.uri, 'skill://live/SKILL.md')
  t.equal(live.above, false)
  t.same(reg.findDirectory('skill://live/sub'), { kind: 'in-skill', uri: 'skill://live/sub', asked: 'directory', access: undefined }, "a URI inside a skill's folder belongs to it")
  t.equal(reg.findDirectory('skill://nowhere'), undefined)
  reg.seal()
  t.ok(reg.findDirectory('skill://acme'), 'built again when sealed')
})

t.test('a URI inside a skill\'s folder that names nothing there belongs to the skill (the innermost), for every lookup; a skill\'s file still wins, and no template reaches inside', async (t) => {
  const reg = new Registry(new Map([['docs:read', 'Read docs'], ['vault:read', 'Read the vault']]))
  reg.addResource({ uriTemplate: 'skill://{+path}', name: 'anything', read: () => 'not a skill file' })
  reg.addSkill({ path: 'acme/refunds', scope: 'docs:read', files: { 'SKILL.md': skillMd('refunds'), 'references/policy.md': 'policy' } })
  reg.addSkill({ path: 'acme/refunds/vault', scope: 'vault:read', files: { 'SKILL.md': skillMd('vault') } })
  reg.addSkill({ path: 'live', scope: 'docs:read', resources: 'dynamic', frontmatter: { name: 'live', description: 'Live' }, read: () => '' })
  const docs = { scopes: ['docs:read'], stepUp: undefined }
  const vault = { scopes: ['vault:read'], stepUp: undefined }
  t.match(reg.findResource('skill://acme/refunds/references/policy.md'), { kind: 'found', resource: { access: docs } }, 'a file that exists')
  for (const uri of ['skill://acme/refunds/references/nope.md', 'skill://acme/refunds/references', 'skill://acme/refunds/..%2F..%2Fx', 'skill://acme/refunds//x']) {
    t.same(reg.findResource(uri), { kind: 'in-skill', uri, asked: 'resource', access: docs }, `resources/read ${uri}: the skill's, not the template's`)
  }
  t.same(reg.findResource('skill://acme/refunds/vault/nope'), { kind: 'in-skill', uri: 'skill://acme/refunds/vault/nope', asked: 'resource', access: vault }, 'inside a nested skill: the nested one\'s')
  t.same(reg.findResource('skill://live/.env'), { kind: 'in-skill', uri: 'skill://live/.env', asked: 'resource', access: docs }, 'a dynamic skill\'s name that can name no file')
  t.match(reg.findResource('skill://live/data.json'), { kind: 'found', vars: { file: 'data.json' } }, 'a dynamic skill\'s file')
  t.match(reg.findResource('skill://acme/refunds'), { kind: 'found', resource: { key: 'skill://{+path}' } }, 'not inside: a skill\'s folder itself, the namespace above')
  t.match(reg.findResource('skill://acme/other/x'), { kind: 'found', resource: { key: 'skill://{+path}' } })
  t.match(reg.findSkill('skill://acme/refunds/SKILL.md'), { kind: 'skill', uri: 'skill://acme/refunds/SKILL.md' })
  t.same(reg.findSkill('skill://acme/refunds/nope/SKILL.md'), { kind: 'in-skill', uri: 'skill://acme/refunds/nope/SKILL.md', asked: 'skill', access: docs })
  t.equal(reg.findSkill('skill://acme/nope/SKILL.md'), undefined)
  t.match(reg.findDirectory('skill://acme/refunds/references'), { kind: 'directory', access: docs })
  t.same(reg.findDirectory('skill://acme/refunds/nope'), { kind: 'in-skill', uri: 'skill://acme/refunds/nope', asked: 'directory', access: docs })
  t.same(reg.findDirectory('skill://acme/refunds/references/policy.md'), { kind: 'in-skill', uri: 'skill://acme/refunds/references/policy.md', asked: 'directory', access: docs }, 'a file is no directory')
  t.equal(reg.findDirectory('skill://acme/nope'), undefined)
  // a skill's folder is at most 3 segments down here: a URI of many segments is looked at that far, and no farther
  const deep = `skill://acme/refunds/${'x/'.repeat(100_000)}`
  const started = performance.now()
  t.same(reg.findResource(deep), { kind: 'in-skill', uri: deep, asked: 'resource', access: docs })
  t.ok(performance.now() - started < 50, 'a URI of 100,000 segments is found at once')
})
