// The Skills extension (SEP-2640) over a real port, with real clients. The official client's
// SkillsClient (@modelcontextprotocol/client/ext/skills) lists, gets and reads the example server's
// skill, verifying every file against its entry, and reads its folders, in both eras; this test
// recomputes every digest from the bytes on disk and from the bytes read. Then: skills over more
// than a page, a dynamic skill, scopes with signed tokens (a skill a token may not read is not
// listed, and reading it is the 403 of insufficient_scope), a skills folder with a secret beside it
// and symbolic links in it (no URI reaches anything but the skills' own files), and a bad SKILL.md
// refused at registration, naming the file on disk.
import { createHash } from 'node:crypto'
import { readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { parse } from 'yaml'
import * as z from 'zod'
import sake, { SKILLS_EXTENSION } from '../../lib/index.js'
import { build, freePort, listen } from '../helpers/app.js'
import { legacyClient, modernClient, startExample, type Running } from '../helpers/clients.js'
import { captureLog } from '../helpers/logs.js'
import { legacyPost, sessionOn, streamPost } from '../helpers/network.js'
import { SCOPES, authApp, startIssuer } from '../helpers/tokens.js'
import { tree } from '../helpers/files.js'

const sha = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`
const md = (name: string, body = `# ${name}\n`): string => `---\nname: ${name}\ndescription: Does ${name} things\n---\n${body}`
const { SkillsClient, SkillVerificationError } = await import('@modelcontextprotocol/client/ext/skills')
/** A pattern that matches `text` as it is (a path on disk has dots and slashes). */
const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

/** The official client in an era: pinned to 2026-07-28, or its default (a 2025-11-25 session, `pin: false`). */
type Pin = '2026-07-28' | false
const ERAS: ReadonlyArray<readonly [string, Pin]> = [['2026-07-28', '2026-07-28'], ['2025-11-25', false]]

async function skillsClient (t: Test, url: URL, pin: Pin, token?: string): Promise<{ client: Awaited<ReturnType<typeof modernClient>>['client'], skills: InstanceType<typeof SkillsClient> }> {
  const transport = token === undefined ? undefined : { authProvider: { token: async () => token, onUnauthorized: async () => {} } }
  const { client } = await modernClient(t, url, { name: 'skills-test', version: '1.0.0' }, { pin, transport })
  return { client, skills: new SkillsClient(client) }
}

t.test('the example server', async (t) => {
  let server: Running
  t.before(async () => { server = await startExample() })
  // `?.`: when the server failed to start, that failure is the one to report
  t.teardown(async () => server?.stop())

  const ROOT = 'skill://count-then-greet'
  const SKILL = `${ROOT}/SKILL.md`
  const folder = fileURLToPath(new URL('../../example-server/skills/count-then-greet/', import.meta.url))
  const onDisk = (file: string): Buffer => readFileSync(join(folder, file))
  const FILES = ['SKILL.md', 'references/ERRORS.md']
  // the entry as the files on disk make it: every digest recomputed here, the frontmatter parsed here
  const expected = {
    uri: SKILL,
    frontmatter: parse(/^---\n([\s\S]*?)\n---\n/.exec(onDisk('SKILL.md').toString())![1]!),
    resources: FILES.map((file) => ({ uri: `${ROOT}/${file}`, digest: sha(onDisk(file)), size: onDisk(file).byteLength }))
  }

  for (const [era, pin] of ERAS) {
    t.test(`the official SkillsClient lists, gets, reads (verified) and walks the example's skill (${era})`, async (t) => {
      const { client, skills } = await skillsClient(t, server.url, pin)
      t.equal(client.getNegotiatedProtocolVersion(), era)
      t.same((client.getServerCapabilities() as any).extensions[SKILLS_EXTENSION], { directoryRead: true })
      t.ok(skills.supported, 'the extension is declared, beside the resources capability')
      t.ok(skills.directoryRead)
      t.match(client.getInstructions(), SKILL, "the server's instructions point at the skill")

      const listing = await skills.list()
      t.same(listing.invalid, [], 'every entry valid to the client')
      t.same(listing.skills, [expected], 'the entry: the frontmatter verbatim, every file with the digest and size of its bytes on disk')
      t.same([listing.ttlMs, listing.cacheScope], pin === false ? [undefined, undefined] : [300_000, 'public'], 'cache hints from 2026-07-28 on')
      const got = await skills.get(SKILL)
      t.same(got.skill, expected, 'skills/get: the same entry')

      // SkillsClient.read checks the size, the digest and (for SKILL.md) the frontmatter; so does this test
      const manifest = await skills.read(got.skill)
      t.equal(manifest.verified, true)
      t.equal(manifest.mimeType, 'text/markdown')
      t.same(Buffer.from(manifest.bytes), onDisk('SKILL.md'), 'the bytes on disk, exactly')
      t.equal(sha(manifest.bytes), expected.resources[0]!.digest)
      t.same(manifest.frontmatter, expected.frontmatter)
      t.match(manifest.body, /# Count, then greet[\s\S]*read `references\/ERRORS.md`/)
      // the reference SKILL.md names, resolved against the skill's root as the spec says
      const errors = await skills.read(got.skill, 'references/ERRORS.md')
      t.same([errors.uri, errors.verified, errors.mimeType], [`${ROOT}/references/ERRORS.md`, true, 'text/markdown'])
      t.same(Buffer.from(errors.bytes), onDisk('references/ERRORS.md'))
      t.equal(sha(errors.bytes), expected.resources[1]!.digest)

      const top = await skills.readDirectory(ROOT)
      t.same(top.resources, [
        { uri: SKILL, name: 'SKILL.md', mimeType: 'text/markdown', size: onDisk('SKILL.md').byteLength },
        { uri: `${ROOT}/references`, name: 'references', mimeType: 'inode/directory' }
      ])
      t.same([top.ttlMs, top.cacheScope], pin === false ? [undefined, undefined] : [300_000, 'public'])
      t.same((await skills.readDirectory(`${ROOT}/references`)).resources, [
        { uri: `${ROOT}/references/ERRORS.md`, name: 'ERRORS.md', mimeType: 'text/markdown', size: onDisk('references/ERRORS.md').byteLength }
      ])

      // SKILL.md is a listed resource; its supporting files are not (read by URI)
      const { resources } = await client.listResources()
      t.same(resources.filter((r) => r.uri.startsWith('skill://')), [{ uri: SKILL, name: 'count-then-greet', description: expected.frontmatter.description, mimeType: 'text/markdown', size: onDisk('SKILL.md').byteLength }])

      await t.rejects(skills.get(`${ROOT}/references/ERRORS.md`), { code: -32602, message: /no skill is served at skill:\/\/count-then-greet\/references\/ERRORS\.md/ }, 'skills/get of a file that is no SKILL.md')
      await t.rejects(skills.get('skill://greet-then-count/SKILL.md'), { code: -32602 }, 'an unknown skill')
      await t.rejects(skills.readDirectory(SKILL), { code: -32602, message: /is not a directory resource/ })
      const unlisted = await skills.read(got.skill, '../other/SKILL.md').then(() => undefined, (err: unknown) => err)
      t.ok(unlisted instanceof SkillVerificationError, 'the client refuses a file the entry does not list, before asking')
      t.equal((unlisted as InstanceType<typeof SkillVerificationError>).reason, 'unlisted')
    })
  }

  t.test('the v1 SDK client (2025-11-25): the methods as raw requests, every file read and digested here', async (t) => {
    const { client } = await legacyClient(t, server.url, { name: 'v1', version: '1.0.0' })
    t.same((client.getServerCapabilities() as any).extensions[SKILLS_EXTENSION], { directoryRead: true }, 'declared at initialize')
    const listed = await client.request({ method: 'skills/list', params: {} } as any, z.looseObject({ skills: z.array(z.any()) }))
    t.same(listed.skills, [expected])
    t.equal(listed.ttlMs, undefined)
    for (const file of expected.resources) {
      const [content] = (await client.readResource({ uri: file.uri })).contents
      const bytes = Buffer.from((content as { text: string }).text, 'utf8')
      t.same([bytes.byteLength, sha(bytes)], [file.size, file.digest], file.uri)
    }
    const dir = await client.request({ method: 'resources/directory/read', params: { uri: ROOT } } as any, z.looseObject({ resources: z.array(z.any()) }))
    t.same(dir.resources.map((r: any) => r.name), ['SKILL.md', 'references'])
    await t.rejects(client.request({ method: 'skills/get', params: { uri: `${ROOT}/references` } } as any, z.any()), { code: -32602 })
  })
})

t.test('skills over several pages, and a dynamic skill, with the official client in both eras', async (t) => {
  const app = await build({ pageSize: 2, ttl: 60_000 })
  const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00])
  app.registerSkill([
    { path: 'alpha', files: { 'SKILL.md': md('alpha') } },
    { path: 'acme/billing/refunds', files: { 'SKILL.md': md('refunds', '# Refunds\nSee [the policy](references/POLICY.md).\n'), 'references/POLICY.md': 'Refund within 30 days.\n', 'assets/logo.png': PNG } },
    { path: 'beta', files: { 'SKILL.md': md('beta') } },
    { path: 'gamma', files: { 'SKILL.md': md('gamma') } }
  ])
  let reads = 0
  app.registerSkill({
    path: 'reports/daily',
    resources: 'dynamic',
    frontmatter: { name: 'daily', description: "Today's report, from live data", metadata: { refresh: 'on read' } },
    read: (file) => file === 'SKILL.md' ? '# Daily\nRead data/today.json.\n' : file === 'data/today.json' ? JSON.stringify({ read: ++reads }) : undefined,
    list: () => ['SKILL.md', 'data/today.json']
  })
  const url = new URL(await listen(t, app))
  const ORDER = ['skill://acme/billing/refunds/SKILL.md', 'skill://alpha/SKILL.md', 'skill://beta/SKILL.md', 'skill://gamma/SKILL.md', 'skill://reports/daily/SKILL.md']

  for (const [era, pin] of ERAS) {
    t.test(era, async (t) => {
      const { client, skills } = await skillsClient(t, url, pin)
      const first = await client.request({ method: 'skills/list', params: {} }, z.looseObject({ skills: z.array(z.looseObject({ uri: z.string() })), nextCursor: z.string() }))
      t.same(first.skills.map((s) => s.uri), ORDER.slice(0, 2), 'a page of two')
      t.type(first.nextCursor, 'string')
      const second = await skills.list({ cursor: first.nextCursor })
      t.same(second.skills.map((s) => s.uri), ORDER.slice(2, 4), 'the page the cursor names, through SkillsClient')
      t.type(second.nextCursor, 'string')
      const all = await skills.list()
      t.same(all.skills.map((s) => s.uri), ORDER, 'every page walked: five skills, each whole on its page')
      t.equal(all.nextCursor, undefined)

      const refunds = all.skills[0]!
      t.same((refunds.resources as Array<{ uri: string }>).map((r) => r.uri), ['skill://acme/billing/refunds/SKILL.md', 'skill://acme/billing/refunds/assets/logo.png', 'skill://acme/billing/refunds/references/POLICY.md'])
      const logo = await skills.read(refunds, 'assets/logo.png')
      t.same([logo.verified, logo.mimeType, logo.text], [true, 'image/png', undefined], 'bytes that are not UTF-8 come as a blob, verified')
      t.same(Buffer.from(logo.bytes), Buffer.from(PNG))
      const policy = await skills.read(refunds, 'references/POLICY.md')
      t.same([policy.text, sha(policy.bytes)], ['Refund within 30 days.\n', sha(Buffer.from('Refund within 30 days.\n'))])
      t.same((await skills.readDirectory('skill://acme')).resources, [{ uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' }], 'a folder above skills')

      // the dynamic skill: no digests to check, its frontmatter still checked by the client
      const daily = all.skills[4]!
      t.same(daily, { uri: 'skill://reports/daily/SKILL.md', frontmatter: { name: 'daily', description: "Today's report, from live data", metadata: { refresh: 'on read' } }, resources: 'dynamic' })
      const manifest = await skills.read(daily)
      t.same([manifest.verified, manifest.frontmatter, manifest.body], [false, daily.frontmatter, '# Daily\nRead data/today.json.\n'])
      const once = await skills.read(daily, 'data/today.json')
      // past the client's response cache (the file carries the server's ttl), to show it is generated anew
      const twice = await skills.read(daily, 'data/today.json', { cacheMode: 'refresh' })
      t.equal(once.verified, false)
      t.equal(once.mimeType, 'application/json')
      t.equal(JSON.parse(twice.text!).read, JSON.parse(once.text!).read + 1, 'generated at each read')
      t.same((await skills.readDirectory('skill://reports/daily')).resources, [
        { uri: 'skill://reports/daily/SKILL.md', name: 'SKILL.md' },
        { uri: 'skill://reports/daily/data', name: 'data', mimeType: 'inode/directory' }
      ], 'its folder, from list()')
      t.same((await skills.readDirectory('skill://reports')).resources, [{ uri: 'skill://reports/daily', name: 'daily', mimeType: 'inode/directory' }])
      await t.rejects(skills.read(daily, 'data/missing.json'), { code: -32602, message: 'Resource not found: skill://reports/daily/data/missing.json' }, 'a file read() does not know')
      await t.rejects(skills.read(daily, '../../alpha/SKILL.md'), { name: 'SkillVerificationError', reason: 'unlisted' }, 'outside the skill: refused by the client')
    })
  }
})

t.test('scopes, with signed tokens: a skill under issues:admin is listed to and readable by its holders only', async (t) => {
  const issuer = await startIssuer(t)
  const port = await freePort()
  const url = new URL(`http://127.0.0.1:${port}/mcp`)
  const app = await authApp(issuer, { resource: url.href })
  const ADMIN = 'skill://admin-runbook/SKILL.md'
  const KEYS = 'skill://admin-runbook/references/KEYS.md'
  app.registerSkill([
    { path: 'admin-runbook', scope: 'issues:admin', files: { 'SKILL.md': md('admin-runbook'), 'references/KEYS.md': 'rotate the keys' } },
    { path: 'triage', files: { 'SKILL.md': md('triage') } }
  ])
  await listen(t, app, { port })
  const reader = await issuer.sign({ sub: 'reader', aud: url.href, scope: 'issues:read' })
  const admin = await issuer.sign({ sub: 'admin', aud: url.href, scope: 'issues:read issues:admin' })
  const auth = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })
  const CHALLENGE = `Bearer error="insufficient_scope", scope="issues:admin", resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp", error_description="The access token lacks a scope this operation needs"`

  const metadata: any = await (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)).json()
  t.same(metadata.scopes_supported, Object.keys(SCOPES), 'scopes_supported: every declared scope')
  t.ok(metadata.scopes_supported.includes('issues:admin'), "the skill's scope among them")

  for (const [era, pin] of ERAS) {
    t.test(`the official client (${era})`, async (t) => {
      const forReader = await skillsClient(t, url, pin, reader)
      t.same((await forReader.skills.list()).skills.map((s) => s.uri), ['skill://triage/SKILL.md'], 'not listed without the scope')
      const listedResources = (await forReader.client.listResources()).resources.map((r) => r.uri)
      t.notOk(listedResources.includes(ADMIN), 'nor is its SKILL.md in resources/list')
      t.ok(listedResources.includes('skill://triage/SKILL.md'))
      await t.rejects(forReader.skills.get(ADMIN), { message: 'Insufficient scope: required "issues:admin"' }, 'skills/get: the 403')
      await t.rejects(forReader.client.readResource({ uri: KEYS }), { message: 'Insufficient scope: required "issues:admin"' }, 'resources/read of its file: the 403')
      await t.rejects(forReader.skills.readDirectory('skill://admin-runbook'), { message: 'Insufficient scope: required "issues:admin"' }, 'its folder: the 403')

      const forAdmin = await skillsClient(t, url, pin, admin)
      const listing = await forAdmin.skills.list()
      t.same(listing.skills.map((s) => s.uri), [ADMIN, 'skill://triage/SKILL.md'], 'listed with the scope')
      if (pin !== false) t.equal(listing.cacheScope, 'private', 'a listing that depends on the token')
      t.ok((await forAdmin.client.listResources()).resources.some((r) => r.uri === ADMIN))
      const entry = (await forAdmin.skills.get(ADMIN)).skill
      t.equal((await forAdmin.skills.read(entry, 'references/KEYS.md')).text, 'rotate the keys', 'read and verified')
      const folder = await forAdmin.skills.readDirectory('skill://admin-runbook')
      t.same(folder.resources.map((r) => r.name), ['SKILL.md', 'references'])
      if (pin !== false) t.equal(folder.cacheScope, 'private')
    })
  }

  t.test('on the wire: 403 with the insufficient_scope challenge, in both eras', async (t) => {
    const forbidden = (what: string): Record<string, unknown> => ({ code: -32600, message: `Forbidden: ${what} needs the scope issues:admin, which the access token does not grant`, data: { error: 'insufficient_scope', scopes: ['issues:admin'] } })
    // the challenge a tool under the same scope answers with
    const tool = await streamPost(url.href, 'tools/call', { name: 'stream_admin', arguments: {} }, auth(reader))
    t.same([tool.status, tool.headers.get('www-authenticate')], [403, CHALLENGE], "a tool's 403, to compare")
    for (const [method, uri, what] of [
      ['skills/get', ADMIN, `skill '${ADMIN}'`],
      ['resources/read', ADMIN, `resource '${ADMIN}'`],
      ['resources/read', KEYS, `resource '${KEYS}'`],
      ['resources/directory/read', 'skill://admin-runbook/references', "directory 'skill://admin-runbook/references'"]
    ] as const) {
      const named: Record<string, string> = method === 'resources/read' ? { 'mcp-name': uri } : {}
      const modern = await streamPost(url.href, method, { uri }, { ...auth(reader), ...named })
      t.same([modern.status, modern.headers.get('www-authenticate')], [403, CHALLENGE], `${method} ${uri}: the same challenge`)
      t.same((await modern.json()).error, forbidden(what))
      const allowed = await streamPost(url.href, method, { uri }, { ...auth(admin), ...named })
      t.equal(allowed.status, 200, 'with the scope')
      t.ok((await allowed.json()).result)
    }
    const { transport } = await legacyClient(t, url, { name: 'v1', version: '1' }, { transport: { requestInit: { headers: auth(reader) } } })
    for (const [method, uri, what] of [['skills/get', ADMIN, `skill '${ADMIN}'`], ['resources/read', KEYS, `resource '${KEYS}'`]]) {
      const legacy = await legacyPost(url.href, transport.sessionId!, '2025-11-25', { jsonrpc: '2.0', id: 1, method, params: { uri } }, auth(reader))
      t.same([legacy.status, legacy.headers.get('www-authenticate')], [403, CHALLENGE], `2025: ${method} ${uri}`)
      t.same((await legacy.json()).error, forbidden(what))
    }
  })
})

t.test('a skills folder with a secret beside it and symbolic links in it: no URI reaches anything but the skills\' own files', async (t) => {
  const SECRET = 'SECRET-7f3a9c-do-not-serve'
  const root = tree(t, {
    'secret.txt': SECRET,
    'skills/.env': SECRET,
    'skills/docs/SKILL.md': md('docs', '# Docs\nSee references/GUIDE.md.\n'),
    'skills/docs/references/GUIDE.md': 'the guide',
    'skills/docs/.env': SECRET,
    'skills/docs/.git/config': SECRET
  })
  const secret = join(root, 'secret.txt')
  symlinkSync(secret, join(root, 'skills/docs/leak.md'))
  symlinkSync(root, join(root, 'skills/docs/linked'))
  symlinkSync(join(root, 'skills/docs/references'), join(root, 'skills/docs/refs'))
  const log = captureLog({ level: 'warn' })
  const app = await build({ skills: { directory: join(root, 'skills') } }, { logger: log.logger })
  const url = await listen(t, app)
  t.same(log.lines.filter((line) => /symbolic link/.test(line.msg ?? '')).map((line) => line.file), ['leak.md', 'linked', 'refs'].map((name) => join(root, 'skills/docs', name)), 'each link reported, none followed')

  const answers: string[] = []
  const modern = async (method: string, params: Record<string, unknown>): Promise<any> => {
    const named: Record<string, string> = method === 'resources/read' ? { 'mcp-name': String(params.uri) } : {}
    const res = await streamPost(url, method, params, named)
    const body = await res.json()
    answers.push(JSON.stringify(body))
    return body
  }
  const session = await sessionOn(url)
  const legacy = async (method: string, params: Record<string, unknown>): Promise<any> => {
    const body = await (await legacyPost(url, session, '2025-11-25', { jsonrpc: '2.0', id: 1, method, params })).json()
    answers.push(JSON.stringify(body))
    return body
  }

  const entry = (await modern('skills/get', { uri: 'skill://docs/SKILL.md' })).result.skill
  t.same(entry.resources.map((r: any) => r.uri), ['skill://docs/SKILL.md', 'skill://docs/references/GUIDE.md'], 'only the regular, visible files')
  t.same((await modern('resources/directory/read', { uri: 'skill://docs' })).result.resources.map((r: any) => r.name), ['SKILL.md', 'references'])
  t.equal((await legacy('resources/read', { uri: 'skill://docs/references/GUIDE.md' })).result.contents[0].text, 'the guide', 'a real file is served')

  const absolute = secret.split('/').map(encodeURIComponent).join('/')
  const ATTEMPTS = [
    'skill://docs/../secret.txt', 'skill://docs/../../secret.txt', 'skill://docs/references/../../secret.txt',
    'skill://docs/%2e%2e/secret.txt', 'skill://docs/%2E%2E/%2E%2E/secret.txt', 'skill://docs/..%2F..%2Fsecret.txt',
    'skill://docs/references%2F..%2F..%2F..%2Fsecret.txt', 'skill://docs%2F..%2F..%2Fsecret.txt', 'skill://docs/..%5C..%5Csecret.txt',
    'skill://docs/.env', 'skill://.env', 'skill://docs/.git/config', 'skill://docs/%2Eenv',
    'skill://docs/leak.md', 'skill://docs/linked/secret.txt', 'skill://docs/refs/GUIDE.md',
    `skill://${secret}`, `skill://docs/${secret}`, `skill://docs${absolute}`, `skill://docs/${encodeURIComponent(secret)}`, `file://${secret}`, secret,
    'skill://docs/references/GUIDE.md%00', 'skill://docs/references/GUIDE.md/', 'skill://docs//references/GUIDE.md', 'skill://DOCS/SKILL.md'
  ]
  for (const uri of ATTEMPTS) {
    // the unknown-resource error of each era: -32602 from 2026-07-28 (SEP-2164), -32002 before
    t.same((await modern('resources/read', { uri })).error, { code: -32602, message: `Resource not found: ${uri}`, data: { uri } }, `2026-07-28: ${uri}`)
    t.same((await legacy('resources/read', { uri })).error, { code: -32002, message: `Resource not found: ${uri}`, data: { uri } }, `2025: ${uri}`)
    t.equal((await modern('skills/get', { uri })).error.code, -32602, `skills/get ${uri}`)
  }
  for (const uri of ['skill://docs/..', 'skill://docs/linked', 'skill://docs/refs', 'skill://docs/.git', `skill://${root}`, 'skill://docs/%2e%2e']) {
    t.same((await modern('resources/directory/read', { uri })).error, { code: -32602, message: `Invalid params: no directory is served at ${uri}`, data: { uri } }, `directory ${uri}`)
  }
  // the folder is not served as files over HTTP either
  for (const path of ['/docs/SKILL.md', '/skills/docs/SKILL.md', '/mcp/../secret.txt', '/secret.txt']) {
    const res = await fetch(new URL(path, url))
    answers.push(await res.text())
    t.equal(res.status, 404, path)
  }
  t.ok(answers.length > ATTEMPTS.length * 3)
  t.notOk(answers.some((answer) => answer.includes(SECRET)), 'the secret is in no answer')
})

t.test('a bad SKILL.md is refused at registration, naming the file on disk', async (t) => {
  const root = tree(t, {
    'no-name/broken/SKILL.md': '---\ndescription: no name\n---\n# Broken\n',
    'not-yaml/broken/SKILL.md': '---\nname: broken\ndescription: [unclosed\n---\n',
    'no-frontmatter/broken/SKILL.md': '# Just markdown\n',
    'good/fine/SKILL.md': md('fine')
  })
  for (const [dir, message] of [
    ['no-name', "the frontmatter's 'name' must be the skill's folder name 'broken'"],
    ['not-yaml', 'is not valid YAML'],
    ['no-frontmatter', 'must begin with YAML frontmatter']
  ] as const) {
    const file = join(root, dir, 'broken', 'SKILL.md')
    const app = Fastify({ logger: false })
    t.teardown(() => app.close())
    await t.rejects(async () => { await app.register(sake, { name: 's', version: '1', skills: { directory: join(root, dir) } }) }, { code: 'SAKE_ERR_INVALID_SKILL', name: 'SakeSkillDefinitionError', message: new RegExp(`${literally(file)}.*${literally(message)}`) }, `${dir}: app.register fails`)
    const later = await build({ skills: { directory: join(root, 'good') } })
    t.teardown(() => later.close())
    t.throws(() => later.registerSkill({ directory: join(root, dir) }), { code: 'SAKE_ERR_INVALID_SKILL', message: new RegExp(literally(file)) }, `${dir}: app.registerSkill throws`)
    await later.ready()
    t.same([...later.mcp.skills.keys()], ['skill://fine/SKILL.md'], 'nothing of the bad folder was kept')
  }
})
