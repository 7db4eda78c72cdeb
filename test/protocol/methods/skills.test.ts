// The Skills extension's methods in both eras (lib/protocol/methods/skills.ts): the declaration,
// skills/list pages, skills/get, resources/read of every file (digests recomputed from the bytes
// read), resources/directory/read with its pages, a dynamic skill, the errors (-32602 for an
// unknown skill or a URI that is not a folder, unknown methods without skills), and URIs that try
// to leave a skill's folder.
import { createHash } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../helpers/app.js'
import { modernRequest, openSession, send, sessionPost } from '../../helpers/requests.js'
import { authApp, bearer, startIssuer } from '../../helpers/tokens.js'

const md = (name: string, extra = ''): string => `---\nname: ${name}\ndescription: Does ${name} things\n${extra}---\n# ${name}\n`
const sha = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`
const EXTENSION = 'io.modelcontextprotocol/skills'
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00])

let app: FastifyInstance
let session: string
/** A 2026-07-28 request; a resources/read carries its URI in Mcp-Name, as SEP-2243 asks. */
const named = (method: string, params: Record<string, unknown>): Record<string, string> => method === 'resources/read' ? { 'mcp-name': String(params.uri) } : {}
const modern = async (method: string, params: Record<string, unknown> = {}): Promise<any> => (await send(app, modernRequest(method, params, named(method, params)))).body
let id = 100
const legacy = async (method: string, params: Record<string, unknown> = {}): Promise<any> => (await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: id++, method, params }))).body

t.before(async () => {
  app = await build({ pageSize: 2, ttl: 60_000 })
  app.registerSkill([
    { path: 'git-workflow', files: { 'SKILL.md': md('git-workflow'), 'references/GUIDE.md': 'guide', 'references/deep/x.md': 'x' } },
    { path: 'acme/billing/refunds', files: { 'SKILL.md': md('refunds', 'license: MIT\n'), 'assets/logo.png': PNG } },
    { path: 'acme/support/triage', files: { 'SKILL.md': md('triage') } },
    {
      path: 'reports/daily',
      resources: 'dynamic',
      frontmatter: { name: 'daily', description: "Today's report" },
      read: (file) => file === 'SKILL.md' ? '# Daily\n' : file === 'data/today.json' ? '{"n":1}' : undefined,
      list: () => ['SKILL.md', 'data/today.json', 'data/older/1.json', '.secret', 7 as never]
    }
  ])
  app.registerResource({ uri: 'config://plain', name: 'plain', read: () => 'plain' })
  await app.ready()
  session = await openSession(app)
})
t.teardown(() => app.close())

t.test('declared in both eras: the extension with directoryRead, beside the resources capability', async (t) => {
  const discover = await modern('server/discover')
  t.same(discover.result.capabilities.extensions[EXTENSION], { directoryRead: true })
  t.ok(discover.result.capabilities.resources)
  const init = await send(app, { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } })
  t.same(init.body.result.capabilities.extensions[EXTENSION], { directoryRead: true })
})

t.test('skills/list: entries by URI, a page at a time, cacheable in 2026-07-28; the same entries in 2025', async (t) => {
  const first = (await modern('skills/list')).result
  t.same(first.skills.map((s: any) => s.uri), ['skill://acme/billing/refunds/SKILL.md', 'skill://acme/support/triage/SKILL.md'])
  t.equal(first.resultType, 'complete')
  t.equal(first.ttlMs, 60_000)
  t.equal(first.cacheScope, 'public')
  t.type(first.nextCursor, 'string')
  const second = (await modern('skills/list', { cursor: first.nextCursor })).result
  t.same(second.skills.map((s: any) => s.uri), ['skill://git-workflow/SKILL.md', 'skill://reports/daily/SKILL.md'])
  t.equal(second.nextCursor, undefined)
  t.same(second.skills[1], { uri: 'skill://reports/daily/SKILL.md', frontmatter: { name: 'daily', description: "Today's report" }, resources: 'dynamic' })
  const old = (await legacy('skills/list')).result
  t.same(old.skills, first.skills, 'the same entries')
  t.equal(old.ttlMs, undefined, 'no cache hints before 2026-07-28')
  const bad = await modern('skills/list', { cursor: 'nope' })
  t.equal(bad.error.code, -32602)
})

t.test('every listed file reads back with the digest and size of its entry (recomputed here); SKILL.md in resources/list', async (t) => {
  for (const uri of ['skill://acme/billing/refunds/SKILL.md', 'skill://git-workflow/SKILL.md']) {
    const { skill } = (await modern('skills/get', { uri })).result
    t.equal(skill.uri, uri)
    for (const file of skill.resources) {
      for (const ask of [modern, legacy]) {
        const [content] = (await ask('resources/read', { uri: file.uri })).result.contents
        const bytes = content.text === undefined ? Buffer.from(content.blob, 'base64') : Buffer.from(content.text, 'utf8')
        t.equal(bytes.byteLength, file.size, `${file.uri}: size`)
        t.equal(sha(bytes), file.digest, `${file.uri}: digest`)
      }
    }
  }
  const [png] = (await modern('resources/read', { uri: 'skill://acme/billing/refunds/assets/logo.png' })).result.contents
  t.same(png, { uri: 'skill://acme/billing/refunds/assets/logo.png', mimeType: 'image/png', blob: Buffer.from(PNG).toString('base64') })
  const listed = (await send(app, modernRequest('resources/list'))).body.result
  const all = [...listed.resources]
  for (let cursor = listed.nextCursor; cursor !== undefined;) {
    const next = (await modern('resources/list', { cursor })).result
    all.push(...next.resources)
    cursor = next.nextCursor
  }
  t.same(all.find((r: any) => r.uri === 'skill://acme/billing/refunds/SKILL.md'), { uri: 'skill://acme/billing/refunds/SKILL.md', name: 'refunds', description: 'Does refunds things', mimeType: 'text/markdown', size: Buffer.byteLength(md('refunds', 'license: MIT\n')) })
  t.notOk(all.some((r: any) => r.uri.endsWith('logo.png')), 'supporting files are not listed')
})

t.test('skills/get: the entry, cacheable in 2026-07-28; -32602 naming the URI for anything that is not a skill', async (t) => {
  const got = (await modern('skills/get', { uri: 'skill://acme/billing/refunds/SKILL.md' })).result
  t.same(Object.keys(got).sort(), ['_meta', 'cacheScope', 'resultType', 'skill', 'ttlMs'])
  t.equal(got.nextCursor, undefined)
  t.same((await legacy('skills/get', { uri: 'skill://acme/billing/refunds/SKILL.md' })).result, { skill: got.skill })
  for (const uri of ['skill://acme/billing/chargebacks/SKILL.md', 'skill://acme/billing/refunds', 'skill://acme/billing/refunds/assets/logo.png', 'config://plain']) {
    for (const ask of [modern, legacy]) {
      const { error } = await ask('skills/get', { uri })
      t.equal(error.code, -32602, uri)
      t.equal(error.message, `Invalid params: no skill is served at ${uri}; a skill is named by the URI of its SKILL.md (skills/list gives them)`)
      t.same(error.data, { uri })
    }
  }
  t.match((await modern('skills/get', {})).error, { code: -32602, message: 'Invalid params: skills/get needs "uri" as a string' })
})

t.test('resources/directory/read: direct children, sub-folders as inode/directory, pages; folders above skills; -32602 otherwise', async (t) => {
  const root = (await modern('resources/directory/read', { uri: 'skill://git-workflow' })).result
  t.same(root.resources, [
    { uri: 'skill://git-workflow/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: Buffer.byteLength(md('git-workflow')) },
    { uri: 'skill://git-workflow/references', name: 'references', mimeType: 'inode/directory' }
  ])
  t.equal(root.nextCursor, undefined)
  // not asked by the spec, but the official 2026-07-28 client refuses a page without them (skills.ts)
  t.equal(root.ttlMs, 60_000, "the server's ttl")
  t.equal(root.cacheScope, 'public', 'no scope, no token')
  const refs = (await legacy('resources/directory/read', { uri: 'skill://git-workflow/references' })).result
  t.equal(refs.ttlMs, undefined, 'no cache hints before 2026-07-28')
  t.equal(refs.cacheScope, undefined)
  t.same(refs.resources.map((r: any) => [r.name, r.mimeType]), [['GUIDE.md', 'text/markdown'], ['deep', 'inode/directory']])
  const acme = (await modern('resources/directory/read', { uri: 'skill://acme' })).result
  t.same(acme.resources, [
    { uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' },
    { uri: 'skill://acme/support', name: 'support', mimeType: 'inode/directory' }
  ], 'a folder above skills lists the next folders down')
  t.equal(acme.nextCursor, undefined, 'two children, a page of two')

  // a page of two: three children need a cursor
  const billingApp = await build({ pageSize: 2 })
  t.teardown(() => billingApp.close())
  billingApp.registerSkill({ path: 'many', files: { 'SKILL.md': md('many'), a: 'a', b: 'b' } })
  const page1 = (await send(billingApp, modernRequest('resources/directory/read', { uri: 'skill://many' }))).body.result
  t.same(page1.resources.map((r: any) => r.name), ['SKILL.md', 'a'])
  const page2 = (await send(billingApp, modernRequest('resources/directory/read', { uri: 'skill://many', cursor: page1.nextCursor }))).body.result
  t.same(page2.resources.map((r: any) => r.name), ['b'])
  t.equal(page2.nextCursor, undefined)
  const wrongFolder = (await send(billingApp, modernRequest('resources/directory/read', { uri: 'skill://other', cursor: page1.nextCursor }))).body
  t.equal(wrongFolder.error.code, -32602, "another folder's cursor")

  for (const [uri, message] of [
    ['skill://git-workflow/SKILL.md', 'Invalid params: skill://git-workflow/SKILL.md is not a directory resource (read it with resources/read)'],
    ['skill://nowhere', 'Invalid params: no directory is served at skill://nowhere'],
    ['skill://git-workflow/', 'Invalid params: no directory is served at skill://git-workflow/']
  ]) {
    for (const ask of [modern, legacy]) {
      const { error } = await ask('resources/directory/read', { uri })
      t.same(error, { code: -32602, message, data: { uri } })
    }
  }
  t.equal((await modern('resources/directory/read', { uri: 'skill://git-workflow', cursor: 5 })).error.code, -32602)
  t.equal((await modern('resources/directory/read', { uri: 'skill://git-workflow', cursor: 'bm9wZQ' })).error.code, -32602)
})

t.test('a dynamic skill: SKILL.md generated under its declared frontmatter, files read live, its folder from list()', async (t) => {
  const [manifest] = (await modern('resources/read', { uri: 'skill://reports/daily/SKILL.md' })).result.contents
  t.equal(manifest.mimeType, 'text/markdown')
  t.equal(manifest.text, '---\n"name": "daily"\n"description": "Today\'s report"\n---\n# Daily\n')
  const [data] = (await legacy('resources/read', { uri: 'skill://reports/daily/data/today.json' })).result.contents
  t.same(data, { uri: 'skill://reports/daily/data/today.json', mimeType: 'application/json', text: '{"n":1}' })
  t.equal((await modern('resources/read', { uri: 'skill://reports/daily/data/gone.json' })).error.code, -32602, 'a file read() does not know: not found')
  const listed = (await modern('resources/directory/read', { uri: 'skill://reports/daily' })).result
  t.same(listed.resources, [
    { uri: 'skill://reports/daily/SKILL.md', name: 'SKILL.md' },
    { uri: 'skill://reports/daily/data', name: 'data', mimeType: 'inode/directory' }
  ], 'hidden names and what is not a path are left out')
})

t.test('URIs that try to leave a skill\'s folder find nothing: not found, naming only the URI asked', async (t) => {
  const secret = await build()
  t.teardown(() => secret.close())
  secret.registerSkill({ path: 'a', files: { 'SKILL.md': md('a') } })
  secret.registerSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd', description: 'dyn' }, read: (file) => `served ${file}` })
  for (const uri of [
    'skill://a/../b/SKILL.md', 'skill://a/%2e%2e/SKILL.md', 'skill://a/..%2FSKILL.md', 'skill://a/.env', 'skill://a//SKILL.md', 'skill:///etc/passwd',
    'skill://a/SKILL.md/', 'skill://A/SKILL.md', 'skill://d/../a/SKILL.md', 'skill://d/%2e%2e/a', 'skill://d/.env', 'skill://d/a%2Fb', 'skill://d/a%5Cb', 'skill://d/x/../../etc'
  ]) {
    const modernAnswer = (await send(secret, modernRequest('resources/read', { uri }, { 'mcp-name': uri }))).body
    t.same(modernAnswer.error, { code: -32602, message: `Resource not found: ${uri}`, data: { uri } }, uri)
  }
  const ok = (await send(secret, modernRequest('resources/read', { uri: 'skill://d/notes/a%20b.md' }, { 'mcp-name': 'skill://d/notes/a%20b.md' }))).body.result.contents[0]
  t.equal(ok.text, 'served notes/a b.md', 'a plain path, decoded, is the dynamic skill\'s to answer')
})

t.test('no skill: no extension declared, the methods unknown; directoryRead: false: that method unknown', async (t) => {
  const none = await build()
  t.teardown(() => none.close())
  const discover = (await send(none, modernRequest('server/discover'))).body.result
  t.equal(discover.capabilities.extensions[EXTENSION], undefined)
  for (const method of ['skills/list', 'skills/get', 'resources/directory/read']) {
    const answer = await send(none, modernRequest(method, { uri: 'skill://a' }))
    t.equal(answer.status, 404, method)
    t.same(answer.body.error, { code: -32601, message: `Method not found: ${method}` })
  }
  const noDirs = await build({ skills: { directoryRead: false, definitions: [{ path: 'a', files: { 'SKILL.md': md('a') } }] } })
  t.teardown(() => noDirs.close())
  t.same((await send(noDirs, modernRequest('server/discover'))).body.result.capabilities.extensions[EXTENSION], { directoryRead: false })
  t.equal((await send(noDirs, modernRequest('resources/directory/read', { uri: 'skill://a' }))).body.error.code, -32601)
  t.equal((await send(noDirs, modernRequest('skills/list'))).body.result.skills.length, 1)
  const session2 = await openSession(noDirs)
  const old = (await send(noDirs, sessionPost(session2, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'resources/directory/read', params: { uri: 'skill://a' } })))
  t.equal(old.status, 200, 'a 2025 session keeps 200 for an unknown method')
  t.equal(old.body.error.code, -32601)
})

t.test('scopes: a skill its token does not allow is not listed (skills/list, resources/list, folders above it) and is 403 to get or read', async (t) => {
  const issuer = await startIssuer(t)
  const scoped = await authApp(issuer)
  t.teardown(() => scoped.close())
  scoped.registerSkill([
    { path: 'acme/open', files: { 'SKILL.md': md('open'), 'a.md': 'a' } },
    { path: 'acme/admin', scope: 'issues:admin', files: { 'SKILL.md': md('admin'), 'ref/b.md': 'b' } }
  ])
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const admin = bearer(await issuer.sign({ scope: 'issues:read issues:admin' }))
  const ask = async (headers: Record<string, string>, method: string, params: Record<string, unknown> = {}): Promise<{ status: number, body: any }> => {
    const answer = await send(scoped, modernRequest(method, params, { ...headers, ...named(method, params) }))
    return { status: answer.status, body: answer.body }
  }
  const listed = async (headers: Record<string, string>): Promise<string[]> => (await ask(headers, 'skills/list')).body.result.skills.map((s: any) => s.uri)
  t.same(await listed(reader), ['skill://acme/open/SKILL.md'], 'without the scope: not listed')
  t.same(await listed(admin), ['skill://acme/admin/SKILL.md', 'skill://acme/open/SKILL.md'], 'with it: listed')
  const list = (await ask(reader, 'skills/list')).body.result
  t.equal(list.cacheScope, 'private', 'a list that depends on the token is private')
  const resources = async (headers: Record<string, string>): Promise<string[]> => (await ask(headers, 'resources/list')).body.result.resources.map((r: any) => r.uri)
  t.notOk((await resources(reader)).includes('skill://acme/admin/SKILL.md'), 'its SKILL.md is not in resources/list either')
  t.ok((await resources(admin)).includes('skill://acme/admin/SKILL.md'))
  const folder = async (headers: Record<string, string>): Promise<string[]> => (await ask(headers, 'resources/directory/read', { uri: 'skill://acme' })).body.result.resources.map((r: any) => r.uri)
  t.same(await folder(reader), ['skill://acme/open'], 'a folder above skills shows only the skills the token allows')
  t.same(await folder(admin), ['skill://acme/admin', 'skill://acme/open'])
  for (const [method, uri] of [['skills/get', 'skill://acme/admin/SKILL.md'], ['resources/read', 'skill://acme/admin/ref/b.md'], ['resources/directory/read', 'skill://acme/admin']] as const) {
    const refused = await ask(reader, method, { uri })
    t.equal(refused.status, 403, `${method} ${uri}`)
    t.same(refused.body.error.data, { error: 'insufficient_scope', scopes: ['issues:admin'] })
    t.match(refused.body.error.message, /^Forbidden: (skill|resource|directory) 'skill:\/\/acme\/admin.*' needs the scope issues:admin, which the access token does not grant$/)
    t.equal((await ask(admin, method, { uri })).status, 200)
  }
  const got = (await ask(admin, 'skills/get', { uri: 'skill://acme/open/SKILL.md' })).body.result
  t.equal(got.cacheScope, 'private', 'with auth on, an answer is for its token')
  t.same(scoped.mcp.scopes().find((scope) => scope.scope === 'issues:admin')?.skills, ['skill://acme/admin/SKILL.md'], 'the scope\'s skills in the catalogue')
})

t.test('a caller who may not see a skill learns nothing of it: no folder name leads to it, a folder of such skills is missing, names inside it all get the 403', async (t) => {
  const issuer = await startIssuer(t)
  const scoped = await authApp(issuer)
  t.teardown(() => scoped.close())
  const admin = { scope: 'issues:admin' as const }
  scoped.registerSkill([
    { path: 'acme/open/hello', files: { 'SKILL.md': md('hello') } },
    { path: 'acme/billing/refunds', ...admin, files: { 'SKILL.md': md('refunds'), 'references/policy.md': 'policy', 'partial/SKILL.md': md('partial') } },
    { path: 'acme/billing/refunds/partial', ...admin, files: { 'SKILL.md': md('partial') } },
    { path: 'acme/billing/invoices', ...admin, files: { 'SKILL.md': md('invoices') } },
    { path: 'acme/live/today', ...admin, resources: 'dynamic', frontmatter: { name: 'today', description: 'Today' }, read: () => '# today' },
    { path: 'vault/deep/keys', ...admin, files: { 'SKILL.md': md('keys') } }
  ])
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const holder = bearer(await issuer.sign({ scope: 'issues:read issues:admin' }))
  const ask = async (headers: Record<string, string>, method: string, params: Record<string, unknown>): Promise<{ status: number, body: any, challenge: unknown }> => {
    const answer = await send(scoped, modernRequest(method, params, { ...headers, ...named(method, params) }))
    return { status: answer.status, body: answer.body, challenge: answer.headers['www-authenticate'] }
  }
  /** An answer with the URI asked (and the request's id) taken out: what a caller could tell two URIs apart by. */
  const shape = async (headers: Record<string, string>, method: string, uri: string): Promise<string> => {
    const { status, body: { id, ...body }, challenge } = await ask(headers, method, { uri })
    return JSON.stringify({ status, body, challenge }).replaceAll(uri, '<uri>')
  }
  const children = async (headers: Record<string, string>, uri: string): Promise<string[]> => (await ask(headers, 'resources/directory/read', { uri })).body.result.resources.map((r: any) => r.name)

  t.same(await children(reader, 'skill://acme'), ['open'], 'no name of a folder that leads only to skills the token may not see')
  t.same(await children(holder, 'skill://acme'), ['billing', 'live', 'open'])
  t.same(await children(holder, 'skill://acme/billing'), ['invoices', 'refunds'])
  const missing = await shape(reader, 'resources/directory/read', 'skill://acme/nowhere')
  t.match(JSON.parse(missing), { status: 200, body: { error: { code: -32602, message: 'Invalid params: no directory is served at <uri>', data: { uri: '<uri>' } } } })
  for (const uri of ['skill://acme/billing', 'skill://vault', 'skill://vault/deep', 'skill://acme/live']) {
    t.equal(await shape(reader, 'resources/directory/read', uri), missing, `${uri}, which holds only such skills, answers as a missing folder`)
  }

  const refused = (what: string): string => JSON.stringify({
    status: 403,
    body: { jsonrpc: '2.0', error: { code: -32600, message: `Forbidden: ${what} '<uri>' needs the scope issues:admin, which the access token does not grant`, data: { error: 'insufficient_scope', scopes: ['issues:admin'] } } },
    challenge: 'Bearer error="insufficient_scope", scope="issues:admin", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", error_description="The access token lacks a scope this operation needs"'
  })
  const PROBES: ReadonlyArray<readonly [string, string, readonly string[]]> = [
    ['resources/read', 'resource', ['skill://acme/billing/refunds/references/policy.md', 'skill://acme/billing/refunds/references/nope.md', 'skill://acme/billing/refunds/nope/x.md', 'skill://acme/billing/refunds/references', 'skill://acme/live/today/.env', 'skill://acme/live/today/x']],
    ['skills/get', 'skill', ['skill://acme/billing/refunds/partial/SKILL.md', 'skill://acme/billing/refunds/nope/SKILL.md', 'skill://acme/billing/refunds/references/policy.md']],
    ['resources/directory/read', 'directory', ['skill://acme/billing/refunds/references', 'skill://acme/billing/refunds/nope', 'skill://acme/billing/refunds/references/policy.md', 'skill://acme/live/today/sub']]
  ]
  for (const [method, what, uris] of PROBES) {
    for (const uri of uris) t.equal(await shape(reader, method, uri), refused(what), `${method} ${uri}: the skill's 403, whether it exists or not`)
  }
  // with the scope: what is there, and the not-found answers
  t.equal((await ask(holder, 'resources/read', { uri: 'skill://acme/billing/refunds/references/policy.md' })).body.result.contents[0].text, 'policy')
  t.same((await ask(holder, 'resources/read', { uri: 'skill://acme/billing/refunds/references/nope.md' })).body.error, { code: -32602, message: 'Resource not found: skill://acme/billing/refunds/references/nope.md', data: { uri: 'skill://acme/billing/refunds/references/nope.md' } })
  t.equal((await ask(holder, 'skills/get', { uri: 'skill://acme/billing/refunds/nope/SKILL.md' })).body.error.message, 'Invalid params: no skill is served at skill://acme/billing/refunds/nope/SKILL.md; a skill is named by the URI of its SKILL.md (skills/list gives them)')
  t.equal((await ask(holder, 'resources/directory/read', { uri: 'skill://acme/billing/refunds/nope' })).body.error.message, 'Invalid params: no directory is served at skill://acme/billing/refunds/nope')
  t.equal((await ask(holder, 'resources/directory/read', { uri: 'skill://acme/billing/refunds/references/policy.md' })).body.error.message, 'Invalid params: skill://acme/billing/refunds/references/policy.md is not a directory resource (read it with resources/read)')

  // without a token: the 401 names the scopes Mcp-Name's item needs, the same for a name that exists and one that does not
  const anonymous = async (uri: string): Promise<unknown> => (await send(scoped, modernRequest('resources/read', { uri }, { 'mcp-name': uri }))).headers['www-authenticate']
  t.match(await anonymous('skill://acme/billing/refunds/references/policy.md'), /scope="issues:admin"/)
  t.equal(await anonymous('skill://acme/billing/refunds/references/nope.md'), await anonymous('skill://acme/billing/refunds/references/policy.md'))
})

t.test('a dynamic skill without list(): its folder shows its SKILL.md', async (t) => {
  const plain = await build()
  t.teardown(() => plain.close())
  plain.registerSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd', description: 'D' }, read: () => '# d' })
  t.same((await send(plain, modernRequest('resources/directory/read', { uri: 'skill://d' }))).body.result.resources, [{ uri: 'skill://d/SKILL.md', name: 'SKILL.md' }])
  t.same([...plain.mcp.skills.keys()], ['skill://d/SKILL.md'], 'app.mcp.skills')
  t.same(plain.mcp.skills.get('skill://d/SKILL.md'), { uri: 'skill://d/SKILL.md', frontmatter: { name: 'd', description: 'D' }, resources: 'dynamic' })
})

t.test('request.mcp on a skill request: the skill or folder named, no config of the user\'s; a URI that is not a string names nothing', async (t) => {
  const seen: unknown[] = []
  const hooked = await build({ routeOptions: { preHandler: async (request: any) => { seen.push([request.mcp.method, request.mcp.config, request.mcp.resource]) } } })
  t.teardown(() => hooked.close())
  hooked.registerSkill({ path: 'a', files: { 'SKILL.md': md('a'), 'x.md': 'x' } })
  t.ok((await send(hooked, modernRequest('skills/get', { uri: 'skill://a/SKILL.md' }))).body.result.skill)
  t.ok((await send(hooked, modernRequest('resources/directory/read', { uri: 'skill://a' }))).body.result.resources)
  t.equal((await send(hooked, modernRequest('resources/read', { uri: 'skill://a/nope.md' }, { 'mcp-name': 'skill://a/nope.md' }))).body.error.code, -32602)
  t.same(seen, [['skills/get', undefined, undefined], ['resources/directory/read', undefined, undefined], ['resources/read', undefined, undefined]], 'a name inside a skill that is not there: nothing of the user\'s')
  const bad = (await send(hooked, modernRequest('resources/directory/read', { uri: 5 }))).body
  t.same(bad.error, { code: -32602, message: 'Invalid params: resources/directory/read needs "uri" as a string' })
  const view = hooked.mcp.skills
  t.equal(view.size, 1)
  t.ok(view.has('skill://a/SKILL.md'))
  t.same([...view.values()].map((entry) => entry.uri), ['skill://a/SKILL.md'])
  t.same([...view].map(([uri]) => uri), ['skill://a/SKILL.md'])
  const each: string[] = []
  view.forEach((entry, uri) => each.push(`${uri}=${String(entry.uri)}`))
  t.same(each, ['skill://a/SKILL.md=skill://a/SKILL.md'])
})
