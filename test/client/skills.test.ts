// The client's side of the Skills extension (lib/client/skills.ts, through the methods of
// lib/client/client.ts): against a fastify-sake app in both eras, in-process and over a real port
// (skills listed through pages, got, every file read with its digest recomputed here from the
// bytes, folders read through pages, a dynamic skill); against servers that lie (each reason of
// SkillVerificationError, a stale cached copy read again); servers without the extension or
// without directoryRead; and the arguments checked.
import { createHash } from 'node:crypto'
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import {
  createClient, HttpError, RpcError, ServerCapabilityError, SkillVerificationError, SakeClientOptionError, SKILLS_EXTENSION,
  type Client, type Skill, type SkillResource
} from '../../lib/client/index.js'
import { entryProblem } from '../../lib/client/skills.js'
import { build, listen } from '../helpers/app.js'

const ERAS = ['modern', 'legacy'] as const
const md = (name: string, extra = ''): string => `---\nname: ${name}\ndescription: Does ${name} things\n${extra}---\n# ${name}\n`
const sha = (bytes: Uint8Array | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`
/** Not UTF-8 (0xff, 0x00 after the signature): served as a blob. */
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00])
const GIT_MD = md('git-workflow', 'license: MIT\nmetadata:\n  version: "2.1"\n')

type Seen = FastifyInstance & { seen: string[] }

/** A fastify-sake app with four skills (two pages of two): one in code with nested folders, one under a prefix with a binary file, a third, a dynamic one. */
async function skillsApp (): Promise<Seen> {
  const app = await build({ pageSize: 2, ttl: 60_000 }) as Seen
  app.seen = []
  app.addHook('onRequest', async (request) => {
    if (request.method === 'POST' && request.headers['mcp-method'] !== undefined) app.seen.push(String(request.headers['mcp-method']))
  })
  app.registerSkill([
    {
      path: 'git-workflow',
      files: { 'SKILL.md': GIT_MD, 'references/GUIDE.md': '# Guide\n', 'notes/a b.md': 'spaced', 'templates/a.md': 'a', 'templates/b.md': 'b' }
    },
    { path: 'acme/billing/refunds', files: { 'SKILL.md': md('refunds'), 'assets/logo.png': PNG } },
    { path: 'acme/support/triage', files: { 'SKILL.md': md('triage') } },
    {
      path: 'reports/daily',
      resources: 'dynamic',
      frontmatter: { name: 'daily', description: "Today's report" },
      read: (file) => file === 'SKILL.md' ? '# Daily\n' : file === 'data/today.json' ? '{"n":1}' : undefined,
      list: () => ['SKILL.md', 'data/today.json']
    }
  ])
  return app
}

/** The path of a listed file in its skill's folder, decoded, as a skill's own references write it. */
function pathOf (skill: Skill, uri: string): string {
  return uri.slice(skill.uri.length - 'SKILL.md'.length).split('/').map(decodeURIComponent).join('/')
}

let app: Seen
let url: string
t.before(async () => {
  app = await skillsApp()
  url = await listen(t, app)
})
const count = (method: string): number => app.seen.filter((m) => m === method).length

for (const era of ERAS) {
  for (const transport of ['app', 'url'] as const) {
    t.test(`${era} over ${transport}: skills listed through their pages, got, every file read and verified, folders read`, async (t) => {
      const client = transport === 'app' ? createClient({ app, era }) : createClient({ url, era })
      t.teardown(() => client.close())
      const lists = count('skills/list')
      const skills = await client.listSkills()
      t.same(skills.map((s) => s.uri), ['skill://acme/billing/refunds/SKILL.md', 'skill://acme/support/triage/SKILL.md', 'skill://git-workflow/SKILL.md', 'skill://reports/daily/SKILL.md'])
      t.equal(count('skills/list') - lists, 2, 'two pages of two')

      for (const listed of skills) {
        const skill = await client.getSkill(listed.uri)
        t.same(skill, listed, `${listed.uri}: skills/get gives the listed entry`)
        if (skill.resources === 'dynamic') continue
        for (const entry of skill.resources) {
          const file = await client.readSkillFile(skill, entry.uri)
          // recomputed here, from the bytes the client hands back
          t.equal(file.bytes.byteLength, entry.size, `${entry.uri}: size`)
          t.equal(sha(file.bytes), entry.digest, `${entry.uri}: digest`)
          t.equal(file.verified, true)
          t.equal(file.uri, entry.uri)
          const byPath = await client.readSkillFile(skill, pathOf(skill, entry.uri))
          t.same(Buffer.from(byPath.bytes), Buffer.from(file.bytes), `${entry.uri}: the same file by its path`)
        }
      }

      const git = skills[2]!
      const manifest = await client.readSkillFile(git, 'SKILL.md')
      t.equal(manifest.text, GIT_MD)
      t.equal(manifest.mimeType, 'text/markdown')
      t.same(manifest.frontmatter, { name: 'git-workflow', description: 'Does git-workflow things', license: 'MIT', metadata: { version: '2.1' } })
      t.same(manifest.frontmatter, git.frontmatter, "the file's frontmatter is the entry's")
      const guide = await client.readSkillFile(git, './references/../references/GUIDE.md')
      t.same([guide.text, guide.frontmatter], ['# Guide\n', undefined], 'a path resolved as a file system would; no frontmatter but on SKILL.md')
      t.equal((await client.readSkillFile(git, 'notes/a b.md')).uri, 'skill://git-workflow/notes/a%20b.md', 'a path with a space names the encoded URI')
      t.equal((await client.readSkillFile(git, 'notes/a%20b.md')).text, 'spaced', '...and so does the path as the URI writes it')
      const logo = await client.readSkillFile(skills[0]!, 'assets/logo.png')
      t.same([Buffer.from(logo.bytes), logo.text, logo.mimeType], [Buffer.from(PNG), undefined, 'image/png'], 'a binary file: its bytes, no text')

      const daily = skills[3]!
      t.equal(daily.resources, 'dynamic')
      const generated = await client.readSkillFile(daily, 'SKILL.md')
      t.same([generated.verified, generated.frontmatter, generated.text?.endsWith('# Daily\n')], [false, { name: 'daily', description: "Today's report" }, true], 'a dynamic SKILL.md: no digest, its frontmatter compared')
      t.same([(await client.readSkillFile(daily, 'data/today.json')).text, (await client.readSkillFile(daily, 'skill://reports/daily/data/today.json')).verified], ['{"n":1}', false])

      const reads = count('resources/directory/read')
      const root = await client.readSkillDirectory('skill://git-workflow')
      t.same(root.map((r) => [r.name, r.mimeType]), [['SKILL.md', 'text/markdown'], ['notes', 'inode/directory'], ['references', 'inode/directory'], ['templates', 'inode/directory']])
      t.equal(count('resources/directory/read') - reads, 2, 'four children, two pages')
      t.same((await client.readSkillDirectory('skill://git-workflow/templates')).map((r) => r.uri), ['skill://git-workflow/templates/a.md', 'skill://git-workflow/templates/b.md'])
      t.same((await client.readSkillDirectory('skill://reports/daily')).map((r) => r.name), ['SKILL.md', 'data'], "a dynamic skill's folder, from its list()")
    })
  }

  t.test(`${era}: what the server refuses, and what the client refuses without asking`, async (t) => {
    const client = createClient({ app, era })
    t.teardown(() => client.close())
    await t.rejects(client.getSkill('skill://acme/billing/chargebacks/SKILL.md'), { name: 'RpcError', code: -32602 })
    await t.rejects(client.readSkillDirectory('skill://git-workflow/SKILL.md'), RpcError, 'a file is not a folder')
    const [refunds, , git, daily] = await client.listSkills()
    await t.rejects(client.readSkillFile(daily!, 'data/gone.json'), { name: 'RpcError', code: era === 'modern' ? -32602 : -32002 }, "a file the dynamic skill's read() does not know")

    const reads = count('resources/read')
    const unlisted = async (skill: Skill, file: string, uri: string, message: RegExp): Promise<void> => {
      const err = await t.rejects(client.readSkillFile(skill, file), SkillVerificationError) as unknown as SkillVerificationError
      t.match(err, { reason: 'unlisted', uri, skill: skill.uri, message }, file)
    }
    await unlisted(git!, 'references/NOPE.md', 'skill://git-workflow/references/NOPE.md', /the entry of skill:\/\/git-workflow\/SKILL.md does not list it; a file the entry does not list is not read \(getSkill with fresh: true/)
    await unlisted(git!, 'skill://acme/billing/refunds/SKILL.md', 'skill://acme/billing/refunds/SKILL.md', /does not list it/)
    await unlisted(git!, '../acme/billing/refunds/SKILL.md', '../acme/billing/refunds/SKILL.md', /the path names no file inside the folder of skill:\/\/git-workflow\/SKILL.md/)
    await unlisted(git!, 'templates/..', 'templates/..', /names no file/)
    await unlisted(daily!, 'skill://git-workflow/SKILL.md', 'skill://git-workflow/SKILL.md', /not a file of skill:\/\/reports\/daily\/SKILL.md: it is outside the skill's folder/)
    await unlisted(daily!, 'skill://reports/daily/x/%2e%2e/y', 'skill://reports/daily/x/%2e%2e/y', /outside the skill's folder/)
    await unlisted(refunds!, 'skill://acme/billing/refunds', 'skill://acme/billing/refunds', /does not list it/)
    t.equal(count('resources/read') - reads, 0, 'nothing unlisted was asked for')
  })
}

t.test('the cache: a 2026-07-28 list, entry and file are fetched once for their ttlMs; fresh asks again; 2025 answers are never kept', async (t) => {
  const modern = createClient({ app, era: 'modern' })
  const [lists, gets, reads, discovers] = [count('skills/list'), count('skills/get'), count('resources/read'), count('server/discover')]
  const [skill] = await modern.listSkills()
  await modern.listSkills()
  await modern.getSkill(skill!.uri)
  await modern.getSkill(skill!.uri)
  await modern.readSkillFile(skill!, 'SKILL.md')
  await modern.readSkillFile(skill!, 'SKILL.md')
  t.same([count('skills/list') - lists, count('skills/get') - gets, count('resources/read') - reads], [2, 1, 1])
  t.equal(count('server/discover') - discovers, 1, 'what the server declares, asked once')
  await modern.listSkills({ fresh: true })
  t.same([count('skills/list') - lists, count('server/discover') - discovers], [4, 2], 'fresh: the declaration and the pages again')

  const legacy = createClient({ app, era: 'legacy' })
  t.teardown(() => legacy.close())
  const [lists2, reads2] = [count('skills/list'), count('resources/read')]
  const [first] = await legacy.listSkills()
  await legacy.listSkills({ fresh: true })
  await legacy.readSkillFile(first!, 'SKILL.md')
  await legacy.readSkillFile(first!, 'SKILL.md')
  t.same([count('skills/list') - lists2, count('resources/read') - reads2], [4, 2])
})

t.test('a server without the extension, and one without directoryRead: not asked, a ServerCapabilityError', async (t) => {
  const none = await build() as Seen
  none.seen = []
  none.addHook('onRequest', async (request) => { if (request.method === 'POST') none.seen.push(String(request.headers['mcp-method'])) })
  none.registerTool({ name: 'noop', execute: () => 'ok' })
  t.teardown(() => none.close())
  for (const era of ERAS) {
    const client = createClient({ app: none, era })
    const { extensions } = (await client.discover()).capabilities as { extensions?: Record<string, unknown> }
    t.equal(extensions?.[SKILLS_EXTENSION], undefined, 'what a caller can check first')
    for (const [method, call] of [
      ['skills/list', async () => await client.listSkills()],
      ['skills/get', async () => await client.getSkill('skill://a/SKILL.md')],
      ['resources/directory/read', async () => await client.readSkillDirectory('skill://a')]
    ] as Array<[string, () => Promise<unknown>]>) {
      const err = await t.rejects(call(), ServerCapabilityError) as unknown as ServerCapabilityError
      t.match(err, { method, capability: SKILLS_EXTENSION, message: `${method}: the server does not declare the Skills extension (capabilities.extensions["io.modelcontextprotocol/skills"]), so the client does not ask it for skills` })
    }
    await client.close()
  }
  t.notOk(none.seen.some((m) => m.startsWith('skills/') || m === 'resources/directory/read'), 'none of them was sent')

  const bare = await fakeServer({ skills: [], files: {}, capabilities: { resources: {} } })
  t.teardown(() => bare.close())
  await t.rejects(createClient({ app: bare, era: 'modern' }).listSkills(), { name: 'ServerCapabilityError', capability: SKILLS_EXTENSION }, 'no extensions declared at all')

  const noDirs = await build({ skills: { directoryRead: false, definitions: [{ path: 'a', files: { 'SKILL.md': md('a') } }] } })
  t.teardown(() => noDirs.close())
  for (const era of ERAS) {
    const client = createClient({ app: noDirs, era })
    t.same((await client.listSkills()).map((s) => s.uri), ['skill://a/SKILL.md'])
    const err = await t.rejects(client.readSkillDirectory('skill://a'), ServerCapabilityError) as unknown as ServerCapabilityError
    t.match(err, { method: 'resources/directory/read', capability: 'io.modelcontextprotocol/skills.directoryRead', message: /does not declare directoryRead: true in capabilities\.extensions\["io\.modelcontextprotocol\/skills"\]/ })
    await client.close()
  }
})

// ---- servers that lie: a plain Fastify route answering both eras from what a test puts in `state`

interface FakeState {
  skills: unknown[]
  /** A file's text or bytes by URI; null: an answer without contents; an array: the contents as they are. */
  files: Record<string, string | Uint8Array | null | unknown[] | undefined>
  /** What the server declares (default: the resources capability and the extension). */
  capabilities?: Record<string, unknown>
  /** What skills/get answers when no listed skill has the URI. */
  get?: unknown
  ttlMs?: number
  directoryRead?: boolean
}

/** A plain Fastify app at /mcp: `server/discover` or `initialize` (no session), and the extension's methods from `state`. */
async function fakeServer (state: FakeState): Promise<FastifyInstance & { methods: string[] }> {
  const fake = Fastify() as unknown as FastifyInstance & { methods: string[] }
  fake.methods = []
  fake.post('/mcp', async (request, reply) => {
    const { id, method, params } = request.body as { id?: number, method: string, params: Record<string, any> }
    if (id === undefined) return await reply.code(202).send()
    fake.methods.push(method)
    const capabilities = state.capabilities ?? { resources: {}, extensions: { [SKILLS_EXTENSION]: { directoryRead: state.directoryRead ?? false } } }
    // a 2026-07-28 request carries its version in _meta; only its answers have cache hints
    const modern = params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined
    const ok = (result: Record<string, unknown>): unknown => ({ jsonrpc: '2.0', id, result: modern ? { resultType: 'complete', ttlMs: state.ttlMs ?? 0, cacheScope: 'public', ...result } : result })
    if (method === 'initialize') return { jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25', capabilities, serverInfo: { name: 'liar', version: '1' } } }
    if (method === 'server/discover') return ok({ capabilities, supportedVersions: ['2026-07-28'] })
    if (method === 'skills/list') return ok({ skills: state.skills })
    if (method === 'skills/get') return ok({ skill: state.skills.find((s: any) => s.uri === params.uri) ?? state.get })
    const value = state.files[params.uri]
    if (value === null) return ok({})
    if (Array.isArray(value)) return ok({ contents: value })
    const content = value === undefined ? [] : [typeof value === 'string' ? { uri: params.uri, text: value } : { uri: params.uri, blob: Buffer.from(value).toString('base64') }]
    return ok({ contents: content })
  })
  return fake
}

/** An honest entry for `files` (by path) of the skill at `path`. */
function entryOf (path: string, frontmatter: Record<string, unknown>, files: Record<string, string | Uint8Array>): Skill & { resources: SkillResource[] } {
  const resources = Object.entries(files).map(([file, value]) => ({ uri: `skill://${path}/${file}`, digest: sha(value), size: Buffer.byteLength(value) }))
  return { uri: `skill://${path}/SKILL.md`, frontmatter: frontmatter as Skill['frontmatter'], resources }
}

const HONEST_MD = md('honest', 'license: MIT\n')
const FM = { name: 'honest', description: 'Does honest things', license: 'MIT' }

for (const era of ERAS) {
  t.test(`${era}: a server whose files are not what its entries say: each reason`, async (t) => {
    const files = { 'SKILL.md': HONEST_MD, 'references/GUIDE.md': 'guide' }
    const state: FakeState = { skills: [], files: {} }
    const fake = await fakeServer(state)
    t.teardown(() => fake.close())
    const client = createClient({ app: fake, era })
    t.teardown(() => client.close())
    const serve = (path: string, served: Record<string, string | Uint8Array>): void => {
      for (const [file, value] of Object.entries(served)) state.files[`skill://${path}/${file}`] = value
    }
    const failure = async (skill: Skill, file: string, match: Record<string, unknown>): Promise<SkillVerificationError> => {
      const err = await t.rejects(client.readSkillFile(skill, file), SkillVerificationError) as unknown as SkillVerificationError
      t.match(err, match, `${String(match.reason)}: ${file}`)
      return err
    }

    // honest first: the fake serves what it lists
    const honest = entryOf('honest', FM, files)
    serve('honest', files)
    state.skills = [honest]
    t.same((await client.readSkillFile((await client.listSkills())[0]!, 'references/GUIDE.md')).text, 'guide')

    // size: one byte more than listed (the digest is the real one)
    const sized = entryOf('sized', { ...FM, name: 'sized' }, { ...files, 'SKILL.md': md('sized', 'license: MIT\n') })
    sized.resources[1]!.size++
    serve('sized', { ...files, 'SKILL.md': md('sized', 'license: MIT\n') })
    await failure(sized, 'references/GUIDE.md', { reason: 'size', uri: 'skill://sized/references/GUIDE.md', skill: 'skill://sized/SKILL.md', message: /^skill:\/\/sized\/references\/GUIDE\.md: 5 bytes read, the entry says 6, not what the entry of skill:\/\/sized\/SKILL\.md says; the content is not used/ })

    // digest: the same size, other bytes
    serve('honest', { 'references/GUIDE.md': 'GUIDE' })
    const err = await failure(honest, 'references/GUIDE.md', { reason: 'digest', uri: 'skill://honest/references/GUIDE.md' })
    t.match(err.message, `the bytes read hash to ${sha('GUIDE')}, the entry says ${sha('guide')}`)
    serve('honest', { 'references/GUIDE.md': 'guide' })

    // frontmatter: the file's bytes match the entry's digest, its frontmatter not the entry's
    const differs = { ...honest, frontmatter: { name: 'honest', description: 'Does other things', version: 2, long: 'x'.repeat(80) } }
    await failure(differs, 'SKILL.md', {
      reason: 'frontmatter',
      uri: 'skill://honest/SKILL.md',
      message: 'skill://honest/SKILL.md: its frontmatter differs from the entry\'s: \'description\' is "Does honest things" in the file, "Does other things" in the entry; \'license\' is only in the file; \'version\' is only in the entry; \'long\' is only in the entry; the skill is not loaded'
    })
    const longer = { ...honest, frontmatter: { ...FM, description: 'y'.repeat(80) } }
    await failure(longer, 'SKILL.md', { reason: 'frontmatter', message: `'description' is "Does honest things" in the file, "${'y'.repeat(56)}... in the entry` })

    // SKILL.md files that cannot carry the entry's frontmatter (their digests listed honestly)
    const manifests: Array<[string, string | Uint8Array, RegExp]> = [
      ['binary', Uint8Array.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe]), /it is not UTF-8 text, so it has no frontmatter to compare/],
      ['bare', '# No frontmatter\n', /it does not begin with YAML frontmatter between two '---' lines/],
      ['twice', '---\nname: twice\nname: twice\ndescription: d\n---\n', /its frontmatter is not valid YAML: Map keys must be unique/],
      ['listed', '---\n- name\n- description\n---\n', /its frontmatter is not a mapping \(name: …, description: …\), got \["name","description"\] \(array\)/],
      ['bomb', `---\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [${'*a,'.repeat(9)}*a]\nc: &c [${'*b,'.repeat(9)}*b]\nd: [${'*c,'.repeat(9)}*c]\n---\n`, /its frontmatter cannot be read: Excessive alias count/]
    ]
    for (const [name, bytes, message] of manifests) {
      const entry = entryOf(name, { name, description: 'd' }, { 'SKILL.md': bytes })
      serve(name, { 'SKILL.md': bytes })
      await failure(entry, 'SKILL.md', { reason: 'frontmatter', uri: `skill://${name}/SKILL.md`, message })
    }

    // unlisted: the server has the file, the entry does not list it; nothing is asked for
    serve('honest', { 'references/EXTRA.md': 'extra' })
    const before = fake.methods.length
    await failure(honest, 'references/EXTRA.md', { reason: 'unlisted', uri: 'skill://honest/references/EXTRA.md' })
    t.equal(fake.methods.length, before, 'not read')

    // a dynamic skill: no digest to check, but its SKILL.md's frontmatter is still compared
    const dynamic = { uri: 'skill://live/SKILL.md', frontmatter: { name: 'live', description: 'Live' }, resources: 'dynamic' as const }
    serve('live', { 'SKILL.md': '---\nname: live\ndescription: Something else\n---\n', 'data.json': '{}' })
    t.same([(await client.readSkillFile(dynamic, 'data.json')).verified], [false])
    await failure(dynamic, 'skill://live/SKILL.md', { reason: 'frontmatter', message: /'description' is "Something else" in the file, "Live" in the entry/ })

    // answers that hold nothing for the file: no contents, another file's, none at all
    state.files['skill://live/else.md'] = [{ uri: 'skill://live/other.md', text: 'x' }]
    state.files['skill://live/empty.md'] = null
    for (const file of ['missing.md', 'else.md', 'empty.md']) {
      const missing = await t.rejects(client.readSkillFile(dynamic, file), HttpError) as unknown as HttpError
      t.match(missing, { status: 200, message: `resources/read: the server's answer holds no text or blob for skill://live/${file}` })
    }
  })

  t.test(`${era}: entries that break the extension's rules: left out of the list, refused by getSkill and readSkillFile`, async (t) => {
    const good = entryOf('good', { name: 'good', description: 'd' }, { 'SKILL.md': md('good') })
    const state: FakeState = {
      skills: [
        good,
        { ...good, uri: 'skill://static/SKILL.md', frontmatter: { name: 'static', description: 'd' }, resources: 'static' },
        { uri: 'skill://none/SKILL.md', frontmatter: { name: 'none', description: 'd' } },
        'not an entry'
      ],
      files: {},
      get: { uri: 'skill://good/SKILL.md', frontmatter: { name: 'good', description: 'd' }, resources: 'dynamic' }
    }
    const fake = await fakeServer(state)
    t.teardown(() => fake.close())
    const client = createClient({ app: fake, era })
    t.teardown(() => client.close())
    t.same(await client.listSkills(), [good], 'only the entry a host may load')
    const refused = await t.rejects(client.getSkill('skill://static/SKILL.md'), SkillVerificationError) as unknown as SkillVerificationError
    t.match(refused, { reason: 'entry', uri: 'skill://static/SKILL.md', skill: 'skill://static/SKILL.md', message: 'skill://static/SKILL.md: the skill\'s entry breaks the Skills extension\'s rules (its resources are neither an array of files nor "dynamic", got "static" (string)); such a skill is not loaded' })
    await t.rejects(client.getSkill('skill://other/SKILL.md'), { name: 'SkillVerificationError', reason: 'entry', message: 'skill://other/SKILL.md: skills/get answered with the entry of another skill, skill://good/SKILL.md' })
    state.get = undefined
    await t.rejects(client.getSkill('skill://gone/SKILL.md'), { reason: 'entry', message: /\(it is not an object, got nothing\)/ })
    await t.rejects(client.readSkillFile({ ...good, resources: [] }, 'SKILL.md'), { reason: 'entry', message: /its resources do not list its SKILL\.md/ })
  })

  t.test(`${era}: a copy from the cache that fails is fetched again, once; one fetched now that fails is refused`, async (t) => {
    const state: FakeState = { skills: [], files: { 'skill://s/SKILL.md': md('s'), 'skill://s/a.md': 'one' }, ttlMs: 60_000 }
    const old = entryOf('s', { name: 's', description: 'Does s things' }, { 'SKILL.md': md('s'), 'a.md': 'one', 'gone.md': 'gone' })
    const fake = await fakeServer(state)
    t.teardown(() => fake.close())
    const client = createClient({ app: fake, era })
    t.teardown(() => client.close())
    const reads = (): number => fake.methods.filter((m) => m === 'resources/read').length
    t.equal((await client.readSkillFile(old, 'a.md')).text, 'one')
    let before = reads()
    await client.readSkillFile(old, 'a.md')
    t.equal(reads() - before, era === 'modern' ? 0 : 1, era === 'modern' ? 'kept for its ttlMs' : '2025 answers carry no ttlMs: read again')

    // the skill changes: new bytes, a new entry
    state.files['skill://s/a.md'] = 'two!'
    const changed = entryOf('s', { name: 's', description: 'Does s things' }, { 'SKILL.md': md('s'), 'a.md': 'two!' })
    before = reads()
    t.equal((await client.readSkillFile(changed, 'a.md')).text, 'two!', era === 'modern' ? 'the cached "one" failed the new entry: fetched again, and passed' : 'read')
    t.equal(reads() - before, 1)
    before = reads()
    await t.rejects(client.readSkillFile(old, 'a.md'), { name: 'SkillVerificationError', reason: 'size' }, 'the old entry against the new bytes')
    t.equal(reads() - before, 1, era === 'modern' ? 'the cached "two!" failed, and so did the copy fetched again: one read' : 'one read, not repeated')
    before = reads()
    await t.rejects(client.readSkillFile(old, 'a.md', { fresh: true }), { name: 'SkillVerificationError', reason: 'size' })
    t.equal(reads() - before, 1, 'fresh: fetched once, not again')

    // an answer without the file, cached: not a verification failure, so not fetched again
    await t.rejects(client.readSkillFile(old, 'gone.md'), HttpError)
    before = reads()
    await t.rejects(client.readSkillFile(old, 'gone.md'), HttpError)
    t.equal(reads() - before, era === 'modern' ? 0 : 1)
  })
}

t.test('entryProblem: the rules an entry must keep for the client to verify it', async (t) => {
  const good = entryOf('x', { name: 'x', description: 'd' }, { 'SKILL.md': 'a', 'b%E0%A4%A.md': 'b' })
  t.equal(entryProblem(good), undefined, 'a segment that is not percent-encoding is kept as written')
  t.equal(entryProblem({ ...good, resources: 'dynamic' }), undefined)
  const [skillMd, other] = good.resources as [SkillResource, SkillResource]
  const cases: Array<[unknown, RegExp]> = [
    [null, /it is not an object, got null/],
    [{ ...good, uri: 'skill://x/README.md' }, /its uri is not the URI of a SKILL\.md, got "skill:\/\/x\/README\.md"/],
    [{ ...good, frontmatter: { name: 'x' } }, /its frontmatter is not an object with a string name and description/],
    [{ ...good, frontmatter: 'x' }, /its frontmatter is not an object/],
    [{ ...good, frontmatter: { name: 'y', description: 'd' } }, /the last segment of its path is not its frontmatter's name "y"/],
    [{ ...good, resources: [{ ...skillMd, digest: 'sha256:abc' }] }, /a file of its resources is not \{ uri, digest: 'sha256:<64 hex>', size \}/],
    [{ ...good, resources: [{ ...skillMd, size: -1 }] }, /is not \{ uri, digest/],
    [{ ...good, resources: [{ ...skillMd, size: 1.5 }] }, /is not \{ uri, digest/],
    [{ ...good, resources: [{ ...skillMd, uri: 7 }] }, /is not \{ uri, digest/],
    [{ ...good, resources: ['x'] }, /is not \{ uri, digest/],
    [{ ...good, resources: [...good.resources, { ...other, uri: 'skill://y/a.md' }] }, /skill:\/\/y\/a\.md in its resources is not a file in the skill's folder/],
    [{ ...good, resources: [...good.resources, { ...other, uri: 'skill://x/a/../../y' }] }, /is not a file in the skill's folder/],
    [{ ...good, resources: [...good.resources, { ...other, uri: 'skill://x/' }] }, /is not a file in the skill's folder/],
    [{ ...good, resources: [...good.resources, other] }, /skill:\/\/x\/b%E0%A4%A\.md is in its resources twice/],
    [{ ...good, resources: undefined }, /its resources are neither an array of files nor "dynamic", got nothing/]
  ]
  for (const [entry, message] of cases) t.match(entryProblem(entry), message)
})

t.test('arguments and call options are checked before anything is sent', async (t) => {
  const client: Client = createClient({ url: 'http://127.0.0.1:9/mcp', fetch: async () => { throw new Error('nothing may be sent') } })
  const skill = entryOf('x', { name: 'x', description: 'd' }, { 'SKILL.md': md('x') })
  const cases: Array<[() => Promise<unknown>, RegExp]> = [
    [async () => await client.getSkill(42 as never), /fastify-sake\/client: getSkill's 'uri' must be the URI of a skill's SKILL\.md \('skill:\/\/git-workflow\/SKILL\.md'\), got 42 \(number\)/],
    [async () => await client.readSkillDirectory(''), /readSkillDirectory's 'uri' must be the URI of a skill's folder/],
    [async () => await client.readSkillFile(null as never, 'SKILL.md'), /readSkillFile's 'skill' must be a skill entry, as listSkills or getSkill give it, got null/],
    [async () => await client.readSkillFile({ frontmatter: {} } as never, 'SKILL.md'), /readSkillFile's 'skill' must be a skill entry/],
    [async () => await client.readSkillFile(skill, ''), /readSkillFile's 'file' must be a path in the skill's folder \('references\/GUIDE\.md'\) or a URI its entry lists, got "" \(string\)/],
    [async () => await client.readSkillFile(skill, 'SKILL.md', { fersh: true } as never), /unknown call option 'fersh' \(did you mean 'fresh'\?\)/],
    [async () => await client.listSkills({ fresh: 'yes' } as never), /option 'fresh' must be a boolean/],
    [async () => await client.getSkill('skill://x/SKILL.md', { timeout: -1 }), /option 'timeout' must be a positive integer/],
    [async () => await client.readSkillDirectory('skill://x', { headers: { a: 1 } } as never), /option 'headers' must be an object of header names/]
  ]
  for (const [call, message] of cases) {
    const err = await t.rejects(call(), SakeClientOptionError) as unknown as SakeClientOptionError
    t.match(err, { code: 'SAKE_ERR_INVALID_CLIENT_OPTION', message })
  }
})
