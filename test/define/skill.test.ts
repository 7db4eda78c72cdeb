// Skill definitions (lib/define/skill.ts): the entry a skill in code compiles to (digests and sizes
// of the exact bytes, recomputed here), its files as resources (text or blob, mime types), the
// Agent Skills rules on the frontmatter and the paths, the limits, and a dynamic skill.
import { createHash } from 'node:crypto'
import t, { type Test } from 'tap'
import { SakeSkillDefinitionError } from '../../lib/errors.js'
import { compileDynamicSkill, compileFilesSkill, checkSkillPath, fileInSkill, parseFrontmatter } from '../../lib/define/skill.js'

const LIMITS = { maxFileSize: 1024, directoryRead: true }
const NONE = new Map<string, string>()
const SCOPES = new Map([['skills:read', 'Read skills']])
const md = (name: string, extra = ''): string => `---\nname: ${name}\ndescription: Does ${name} things\n${extra}---\n\n# ${name}\n`
const sha = (bytes: Uint8Array | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`
const fails = (t: Test, fn: () => unknown, message: RegExp, what: string): void => {
  t.throws(fn, { name: 'SakeSkillDefinitionError', code: 'SAKE_ERR_INVALID_SKILL', message }, what)
}

t.test('a skill in code: the entry with every file digested, SKILL.md first, the frontmatter verbatim', async (t) => {
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x01])
  const skill = compileFilesSkill({
    path: 'acme/billing/refunds',
    files: { 'references/b c.md': 'B ü', 'SKILL.md': md('refunds', 'license: MIT\nmetadata:\n  version: "2"\n'), 'assets/logo.png': png, 'scripts/run.py': 'print(1)\n' }
  }, NONE, LIMITS)
  t.equal(skill.uri, 'skill://acme/billing/refunds/SKILL.md')
  t.equal(skill.root, 'skill://acme/billing/refunds')
  t.same(skill.entry.frontmatter, { name: 'refunds', description: 'Does refunds things', license: 'MIT', metadata: { version: '2' } })
  const resources = skill.entry.resources as Array<{ uri: string, digest: string, size: number }>
  t.same(resources.map((r) => r.uri), [
    'skill://acme/billing/refunds/SKILL.md',
    'skill://acme/billing/refunds/assets/logo.png',
    'skill://acme/billing/refunds/references/b%20c.md',
    'skill://acme/billing/refunds/scripts/run.py'
  ], 'SKILL.md first, then by path; each segment URI-encoded')
  t.same(resources[2], { uri: 'skill://acme/billing/refunds/references/b%20c.md', digest: sha(Buffer.from('B ü')), size: 4 }, 'the digest and size of the UTF-8 bytes')
  t.same(resources[1], { uri: 'skill://acme/billing/refunds/assets/logo.png', digest: sha(png), size: 8 })
  t.ok(Object.isFrozen(skill.entry) && Object.isFrozen(skill.entry.resources))

  const logo = skill.files.get('skill://acme/billing/refunds/assets/logo.png')!
  const read = (resource: typeof logo): any => resource.definition.read('', {} as never, {} as never)
  t.same(read(logo), { blob: png, mimeType: 'image/png' }, 'bytes that are not UTF-8: a blob')
  t.same(read(skill.files.get('skill://acme/billing/refunds/scripts/run.py')!), { text: 'print(1)\n', mimeType: 'text/x-python' })
  const manifest = skill.files.get(skill.uri)!
  t.same(manifest.wire.modern, { uri: skill.uri, name: 'refunds', description: 'Does refunds things', mimeType: 'text/markdown', size: Buffer.byteLength(md('refunds', 'license: MIT\nmetadata:\n  version: "2"\n')) }, 'the SKILL.md resource: named and described by its frontmatter')
  t.equal(manifest.skill, true, 'never listed to a caller its scope does not allow')

  const root = skill.directories.get(skill.root)!
  t.same(root.map((c) => c.wire), [
    { uri: 'skill://acme/billing/refunds/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: resources[0]!.size },
    { uri: 'skill://acme/billing/refunds/assets', name: 'assets', mimeType: 'inode/directory' },
    { uri: 'skill://acme/billing/refunds/references', name: 'references', mimeType: 'inode/directory' },
    { uri: 'skill://acme/billing/refunds/scripts', name: 'scripts', mimeType: 'inode/directory' }
  ])
  t.same(skill.directories.get('skill://acme/billing/refunds/references')!.map((c) => c.wire.uri), ['skill://acme/billing/refunds/references/b%20c.md'])
})

t.test('mime types: by extension, else text/plain for UTF-8 and application/octet-stream for bytes', async (t) => {
  const skill = compileFilesSkill({ path: 'm', files: { 'SKILL.md': md('m'), 'a.JSON': '{}', notes: 'plain', blob: Uint8Array.from([0xff]), 'x.yml': 'a: 1', 'y.svg': '<svg/>' } }, NONE, LIMITS)
  const type = (file: string): unknown => skill.files.get(`skill://m/${file}`)!.definition.mimeType
  t.equal(type('a.JSON'), 'application/json')
  t.equal(type('notes'), 'text/plain')
  t.equal(type('blob'), 'application/octet-stream')
  t.equal(type('x.yml'), 'application/yaml')
  t.equal(type('y.svg'), 'image/svg+xml')
})

t.test('scope: checked against the declared scopes, on the skill and each of its files', async (t) => {
  const skill = compileFilesSkill({ path: 's', scope: 'skills:read', files: { 'SKILL.md': md('s'), 'a.md': 'a' } }, SCOPES, LIMITS)
  t.same(skill.access, { scopes: ['skills:read'], stepUp: undefined })
  t.same(skill.files.get('skill://s/a.md')!.access, skill.access)
  fails(t, () => compileFilesSkill({ path: 's', scope: 'nope', files: { 'SKILL.md': md('s') } }, SCOPES, LIMITS), /^skill 's': .*'nope'/, 'an undeclared scope')
})

t.test('the frontmatter: Agent Skills rules, each mistake named with what to change', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['# no frontmatter\n', /: SKILL\.md: it must begin with YAML frontmatter between two '---' lines/],
    ['---\nname: [unclosed\n---\n', /its frontmatter is not valid YAML/],
    ['---\nname: a\nname: a\ndescription: x\n---\n', /not valid YAML: .*[Mm]ap keys must be unique/],
    ['---\n- a\n- b\n---\n', /its frontmatter must be a YAML mapping/],
    ['---\nname: other\ndescription: x\n---\n', /'name' must be the skill's folder name 'a' \(the last segment of its path\), got "other"/],
    ['---\ndescription: x\n---\n', /'name' must be the skill's folder name 'a'.*got nothing/],
    ['---\nname: a\n---\n', /'description' is required/],
    ['---\nname: a\ndescription: "   "\n---\n', /'description' is required/],
    [`---\nname: a\ndescription: ${'x'.repeat(1025)}\n---\n`, /1 to 1024 characters/],
    ['---\nname: a\ndescription: x\nwhen: .inf\n---\n', /a value JSON cannot carry/],
    ['---\nname: a\ndescription: x\nlicense: 3\n---\n', /'license' must be a string/],
    ['---\nname: a\ndescription: x\ncompatibility: ""\n---\n', /'compatibility' must be a string of 1 to 500/],
    [`---\nname: a\ndescription: x\ncompatibility: ${'c'.repeat(501)}\n---\n`, /'compatibility' must be a string of 1 to 500/],
    ['---\nname: a\ndescription: x\ncompatibility: 3\n---\n', /'compatibility' must be a string of 1 to 500/],
    ['---\nname: a\ndescription: x\nmetadata:\n  n: 1\n---\n', /'metadata' must be a mapping of strings to strings/],
    ['---\nname: a\ndescription: x\nallowed-tools: [a]\n---\n', /'allowed-tools' must be a string/]
  ]
  for (const [text, message] of cases) fails(t, () => compileFilesSkill({ path: 'a', files: { 'SKILL.md': text } }, NONE, { ...LIMITS, maxFileSize: 4096 }), message, text.slice(0, 40))
  fails(t, () => compileFilesSkill({ path: 'a', files: { 'SKILL.md': Uint8Array.from([0xff, 0xfe]) } }, NONE, LIMITS), /^skill 'a': SKILL\.md: it is not UTF-8 text$/, 'not text')
  t.same(parseFrontmatter('\ufeff---\r\nname: a\r\ndescription: x\r\n---\r\nbody', 'a', 'w'), { name: 'a', description: 'x' }, 'a byte order mark and CRLF lines')
})

t.test('paths: the skill name rule on the last segment, safe prefix segments, files inside the folder only', async (t) => {
  t.same(checkSkillPath('acme/billing.v2/refunds', 'w'), ['acme', 'billing.v2', 'refunds'])
  for (const [path, message] of [
    ['', /'path' must be the skill's place/],
    [undefined, /'path' must be the skill's place.*got undefined/],
    ['Refunds', /must be 1 to 64 lowercase letters, digits and single hyphens.*got 'Refunds'/],
    ['a--b', /got 'a--b'/],
    ['-a', /got '-a'/],
    ['x'.repeat(65), /1 to 64/],
    ['../a', /'\.\.' in 'path' is not a segment we serve/],
    ['.hidden/a', /'\.hidden' in 'path'/],
    ['acme//a', /'' in 'path'/],
    ['a b/c', /'a b' in 'path'/]
  ] as const) fails(t, () => checkSkillPath(path, 'w'), message, String(path))
  for (const [file, message] of [
    ['../secret', /no empty, '\.' or '\.\.' segment/],
    ['a/./b', /no empty, '\.' or '\.\.' segment/],
    ['/etc/passwd', /give it relative/],
    ['a\\b', /give it relative/],
    ['.env', /hidden \(a segment starts with '\.'\): hidden files are never served/],
    ['.git/config', /hidden/]
  ] as const) fails(t, () => compileFilesSkill({ path: 'a', files: { 'SKILL.md': md('a'), [file]: 'x' } }, NONE, LIMITS), message, file)
  fails(t, () => compileFilesSkill({ path: 'a', files: { 'README.md': 'x' } }, NONE, LIMITS), /every skill has a SKILL\.md at the root of its folder/, 'no SKILL.md')
  fails(t, () => compileFilesSkill({ path: 'a', files: 'x' as never }, NONE, LIMITS), /'files' must be an object/, 'files not an object')
  fails(t, () => compileFilesSkill({ path: 'a', files: { 'SKILL.md': md('a'), n: 3 as never } }, NONE, LIMITS), /n: a file is a string or bytes, got number/, 'a number')
  fails(t, () => compileFilesSkill({ path: 'a', filez: {} } as never, NONE, LIMITS), /unknown option 'filez'/, 'a typo')
  t.throws(() => compileFilesSkill(null as never, NONE, LIMITS), SakeSkillDefinitionError)
})

t.test('limits: a file above maxFileSize, more than 512 files, more than 16 MiB in all', async (t) => {
  fails(t, () => compileFilesSkill({ path: 'a', files: { 'SKILL.md': md('a'), big: 'x'.repeat(1025) } }, NONE, LIMITS), /big is 1025 bytes, above skills\.maxFileSize \(1024\)/, 'one file too large')
  const many: Record<string, string> = { 'SKILL.md': md('a') }
  for (let i = 0; i < 512; i++) many[`f${i}`] = 'x'
  fails(t, () => compileFilesSkill({ path: 'a', files: many }, NONE, LIMITS), /513 files; a skill has at most 512/, 'too many files')
  const huge: Record<string, Uint8Array> = { 'SKILL.md': Buffer.from(md('a')) }
  const chunk = new Uint8Array(4 * 1024 * 1024)
  for (let i = 0; i < 5; i++) huge[`part${i}`] = chunk
  fails(t, () => compileFilesSkill({ path: 'a', files: huge }, NONE, { maxFileSize: 8 * 1024 * 1024, directoryRead: true }), /add up to more than 16777216 bytes/, 'too large in all')
  const where = (file: string): string => `/srv/skills/a/${file}`
  fails(t, () => compileFilesSkill({ path: 'a', files: { 'SKILL.md': '# none' } }, NONE, LIMITS, where), /^skill 'a': \/srv\/skills\/a\/SKILL\.md: it must begin/, 'a folder skill names the file on disk')
})

t.test('a dynamic skill: its frontmatter checked at registration and written before the body it reads', async (t) => {
  const asked: string[] = []
  const skill = compileDynamicSkill({
    path: 'reports/daily',
    resources: 'dynamic',
    frontmatter: { name: 'daily', description: "Today's report", metadata: { 'a"b': 'c\nd' } },
    read: (file) => { asked.push(file); return file === 'SKILL.md' ? '# Today\n' : file === 'data/now.json' ? '{"n":1}' : file === 'img.bin' ? Uint8Array.from([0xff]) : undefined }
  }, NONE)
  t.same(skill.entry, { uri: 'skill://reports/daily/SKILL.md', frontmatter: { name: 'daily', description: "Today's report", metadata: { 'a"b': 'c\nd' } }, resources: 'dynamic' })
  const manifest = await skill.files.get(skill.uri)!.definition.read(skill.uri, {} as never, {} as never) as { text: string }
  t.same(parseFrontmatter(manifest.text, 'daily', 'w'), skill.entry.frontmatter, 'the served file parses to the entry\'s frontmatter, whatever its characters')
  t.ok(manifest.text.endsWith('---\n# Today\n'))
  const other = skill.dynamic!.definition.read
  t.same(await other('', { file: 'data/now.json' } as never, {} as never), { text: '{"n":1}', mimeType: 'application/json' })
  t.same(await other('', { file: 'img.bin' } as never, {} as never), { blob: Uint8Array.from([0xff]), mimeType: 'application/octet-stream' })
  t.equal(await other('', { file: 'gone' } as never, {} as never), undefined)
  t.same(asked, ['SKILL.md', 'data/now.json', 'img.bin', 'gone'])

  const bytes = compileDynamicSkill({ path: 'b', resources: 'dynamic', frontmatter: { name: 'b', description: 'B' }, read: (file) => file === 'SKILL.md' ? Buffer.from('# from bytes ü') : undefined }, NONE)
  const fromBytes = await bytes.files.get(bytes.uri)!.definition.read(bytes.uri, {} as never, {} as never) as { text: string }
  t.ok(fromBytes.text.endsWith('---\n# from bytes ü'), 'a body given as bytes is UTF-8 text after the frontmatter')
  const none = compileDynamicSkill({ path: 'n', resources: 'dynamic', frontmatter: { name: 'n', description: 'N' }, read: () => null }, NONE)
  t.equal(await none.files.get(none.uri)!.definition.read(none.uri, {} as never, {} as never), null, 'no body: no SKILL.md (not found)')

  fails(t, () => compileDynamicSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'x', description: 'y' }, read: () => '' }, NONE), /^skill 'd': the frontmatter's 'name' must be the skill's folder name 'd'/, 'a name that is not the folder')
  fails(t, () => compileDynamicSkill({ path: 'd', resources: 'dynamic', frontmatter: 'x' as never, read: () => '' }, NONE), /declares its 'frontmatter'/, 'no frontmatter')
  fails(t, () => compileDynamicSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd', description: 'y' }, read: 3 as never }, NONE), /'read' must be a function/, 'no read')
  fails(t, () => compileDynamicSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd', description: 'y' }, read: () => '', list: 3 as never }, NONE), /'list' must be a function/, 'a bad list')
  fails(t, () => compileDynamicSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd', description: 'y' }, read: () => '', files: {} } as never, NONE), /give 'read', not 'files'/, 'files on a dynamic skill')
  fails(t, () => compileDynamicSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd', description: 'y' }, read: () => '', reed: 1 } as never, NONE), /unknown option 'reed'/, 'a typo')
  fails(t, () => compileDynamicSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd', description: 'y' }, read: () => '', ttl: -1 }, NONE), /'ttl' must be a non-negative integer \(milliseconds a client may keep a read\), got -1/, 'a bad ttl')
  fails(t, () => compileDynamicSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd', description: 'y' }, read: () => '', ttl: 'x' as never }, NONE), /'ttl' must be a non-negative integer/, 'a ttl that is not a number')
  t.equal(skill.files.get(skill.uri)!.ttl, 0, 'generated content: read afresh by default')
  t.equal(skill.dynamic!.ttl, 0)
  t.equal(compileDynamicSkill({ path: 'k', resources: 'dynamic', frontmatter: { name: 'k', description: 'K' }, read: () => '', ttl: 5000 }, NONE).dynamic!.ttl, 5000)
})

t.test('fileInSkill: only a plain path under the root; traversal, encoded separators and hidden segments find nothing', async (t) => {
  const root = 'skill://reports/daily'
  t.equal(fileInSkill(root, `${root}/data/a%20b.json`), 'data/a b.json')
  for (const uri of [
    'skill://reports/dailyx/a', `${root}`, `${root}/`, `${root}/../secret`, `${root}/%2e%2e/secret`, `${root}/a%2Fb`, `${root}/a%5Cb`,
    `${root}/.env`, `${root}/%2Eenv`, `${root}/a//b`, `${root}/%E0%A4%A`, `${root}/a%00b`
  ]) t.equal(fileInSkill(root, uri), undefined, uri)
})
