// app.mcp: the read-only view of the server registered in a context (info, path, tools).
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import { Type } from '../lib/index.js'
import { build, listen } from './helpers/app.js'
import { getStream, sessionOn } from './helpers/network.js'
import { modernRequest, send } from './helpers/requests.js'

t.test('info and path', async (t) => {
  const app = await build({ title: 'Test', path: '/ai/mcp' })
  t.teardown(() => app.close())
  t.same(app.mcp.info, { name: 'test-server', version: '1.0.0', title: 'Test' })
  t.equal(app.mcp.path, '/ai/mcp')
  t.ok(Object.isFrozen(app.mcp), 'the view is frozen')
  t.ok(Object.isFrozen(app.mcp.info))
  t.throws(() => { (app.mcp as any).path = '/other' }, TypeError, 'cannot be changed (strict mode)')
})

t.test('path: the full path, a Fastify prefix included', async (t) => {
  const Fastify = (await import('fastify')).default
  const { default: sake } = await import('../lib/index.js')
  for (const [path, full] of [['/mcp', '/a/mcp'], ['/', '/a']] as const) {
    const app = Fastify({ logger: false })
    let seen: string | undefined
    await app.register(async (child) => {
      await child.register(sake, { name: 'p', version: '1', path })
      seen = child.mcp.path
    }, { prefix: '/a' })
    await app.ready()
    t.equal(seen, full, path)
    const answer = await app.inject({ method: 'GET', url: full })
    t.equal(answer.statusCode, 405, `the endpoint answers at ${full}`)
    await app.close()
  }
})

t.test('tools: a live, read-only map of the listed Tool objects', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const { tools } = app.mcp
  t.equal(tools.size, 0)
  t.equal(tools.get('add'), undefined)
  t.notOk(tools.has('add'))

  app.registerTool({ name: 'add', description: 'Adds', args: { a: Type.Number() }, execute: ({ a }) => a })
  app.registerTool({ name: 'echo', args: { s: Type.String() }, execute: ({ s }) => s })
  t.equal(tools.size, 2, 'live: sees tools registered after it was taken')
  t.ok(tools.has('add'))
  t.same(tools.get('add'), {
    name: 'add',
    description: 'Adds',
    inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false }
  }, 'the modern Tool object, as tools/list sends it')
  t.same([...tools.keys()], ['add', 'echo'])
  t.same([...tools.values()].map((tool) => tool.name), ['add', 'echo'])
  t.same([...tools.entries()].map(([name, tool]) => [name, tool.name]), [['add', 'add'], ['echo', 'echo']])
  t.same([...tools].map(([name]) => name), ['add', 'echo'], 'iterable as entries')
  const seen: Array<[string, string, boolean]> = []
  tools.forEach((tool, name, map) => seen.push([name, tool.name, map === tools]))
  t.same(seen, [['add', 'add', true], ['echo', 'echo', true]])
})

t.test('the Tool objects cannot be changed through the view', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerTool({ name: 'add', args: { a: Type.Number() }, execute: ({ a }) => a })
  const tool = app.mcp.tools.get('add') as any
  t.throws(() => { tool.name = 'evil' }, TypeError)
  t.throws(() => { tool.inputSchema.properties.a.type = 'string' }, TypeError, 'deeply')
  t.equal(app.mcp.tools.get('add')!.name, 'add')
  t.equal((app.mcp.tools as any).set, undefined, 'no set')
  t.equal((app.mcp.tools as any).delete, undefined, 'no delete')
  t.equal((app.mcp.tools as any).clear, undefined, 'no clear')
})

t.test('reloadSkills: a folder read again, changes counted, lists rebuilt and clients told; a mistake leaves every skill as it was', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'sake-reload-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const write = (path: string, content: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  const md = (name: string, description = `Does ${name}`): string => `---\nname: ${name}\ndescription: ${description}\n---\n`
  write('one/SKILL.md', md('one'))
  write('two/SKILL.md', md('two'))
  const app = await build({ skills: { directory: root, definitions: [{ path: 'code', files: { 'SKILL.md': md('code') } }] } })
  t.teardown(() => app.close())
  t.same(await app.mcp.reloadSkills(), { added: [], removed: [], changed: [], skipped: [] }, 'before ready, nothing changed')
  const url = await listen(t, app)
  const listed = async (): Promise<string[]> => (await send(app, modernRequest('skills/list'))).body.result.skills.map((s: any) => s.uri)
  t.same(await listed(), ['skill://code/SKILL.md', 'skill://one/SKILL.md', 'skill://two/SKILL.md'])
  const stream = await getStream(url, await sessionOn(url))
  await stream.next() // the priming event
  write('one/SKILL.md', md('one', 'Does one, better'))
  write('one/extra.md', 'more')
  rmSync(join(root, 'two'), { recursive: true })
  write('three/SKILL.md', md('three'))
  const changes = await app.mcp.reloadSkills()
  t.same(changes, { added: ['skill://three/SKILL.md'], removed: ['skill://two/SKILL.md'], changed: ['skill://one/SKILL.md'], skipped: [] })
  t.same(await stream.message(2000), { jsonrpc: '2.0', method: 'notifications/resources/list_changed' }, 'a 2025 GET stream is told')
  t.same(await listed(), ['skill://code/SKILL.md', 'skill://one/SKILL.md', 'skill://three/SKILL.md'], 'the list built again')
  const one = (await send(app, modernRequest('skills/get', { uri: 'skill://one/SKILL.md' }))).body.result.skill
  t.same(one.frontmatter.description, 'Does one, better')
  t.same(one.resources.map((r: any) => r.uri), ['skill://one/SKILL.md', 'skill://one/extra.md'])
  const gone = (await send(app, modernRequest('resources/read', { uri: 'skill://two/SKILL.md' }, { 'mcp-name': 'skill://two/SKILL.md' }))).body
  t.equal(gone.error.code, -32602, "a removed skill's files are gone")
  t.same(await app.mcp.reloadSkills(), { added: [], removed: [], changed: [], skipped: [] }, 'nothing changed since')
  const outside = mkdtempSync(join(tmpdir(), 'sake-outside-'))
  t.teardown(() => rmSync(outside, { recursive: true, force: true }))
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET')
  linkSync(join(outside, 'secret.txt'), join(root, 'one/leak.txt'))
  t.same(await app.mcp.reloadSkills(), { added: [], removed: [], changed: [], skipped: [join(root, 'one/leak.txt')] }, 'a hard link put in since: skipped, as at registration')
  const leak = (await send(app, modernRequest('resources/read', { uri: 'skill://one/leak.txt' }, { 'mcp-name': 'skill://one/leak.txt' }))).body
  t.equal(leak.error.code, -32602, 'and not served')
  rmSync(join(root, 'one/leak.txt'))

  write('four/SKILL.md', '# no frontmatter')
  await t.rejects(app.mcp.reloadSkills(), { code: 'SAKE_ERR_INVALID_SKILL', message: /four\/SKILL\.md: it must begin with YAML frontmatter/ })
  t.same(await listed(), ['skill://code/SKILL.md', 'skill://one/SKILL.md', 'skill://three/SKILL.md'], 'a mistake: every skill as it was')
  rmSync(join(root, 'four'), { recursive: true })
  write('code/SKILL.md', md('code'))
  await t.rejects(app.mcp.reloadSkills(), { code: 'SAKE_ERR_INVALID_SKILL', message: /a skill is already registered at this path \(skill:\/\/code\/SKILL\.md\)/ }, 'a folder skill at the path of a skill in code')
  t.same(await listed(), ['skill://code/SKILL.md', 'skill://one/SKILL.md', 'skill://three/SKILL.md'])
  const [three] = (await send(app, modernRequest('resources/read', { uri: 'skill://three/SKILL.md' }, { 'mcp-name': 'skill://three/SKILL.md' }))).body.result.contents
  t.equal(three.text, md('three'), 'and still served')
})
