// Issue 40 (item 6, skills), tried as a hostile client would, against the built package (dist/:
// `npm run build` first), over a real port with real signed tokens, in both eras, and over stdio
// with a caller: a hard link in a skills folder (a secret outside it, linked in) is never served,
// at registration or at a reload, and each is logged; a caller who may not see a skill learns
// nothing of it: no folder name in a listing leads to it, a folder holding only such skills answers
// as a missing one, and under a scoped skill's path a name that exists and one that does not get
// the same 403 challenge (the same 401 without a token, the same error over stdio).
import { linkSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import sake, { type SkillFilesDefinition } from '../../dist/index.js'
import { listen } from '../helpers/app.js'
import { tree } from '../helpers/files.js'
import { captureLog } from '../helpers/logs.js'
import { legacyPost, sessionOn, streamPost } from '../helpers/network.js'
import { MODERN as MODERN_META, initialize, stdioPeer, type StdioPeer } from '../helpers/stdio.js'
import { METADATA_URL, RESOURCE, bearer, startIssuer } from '../helpers/tokens.js'

const md = (name: string): string => `---\nname: ${name}\ndescription: Does ${name} things\n---\n# ${name}\n`
const LINK_WARNING = 'fastify-sake: a symbolic link, a hard link (a file with more than one name) or another special file in a skills folder is not read, and not served; copy the file into the skill instead (a copy, not a link)'

/** An answer as a client sees it: its HTTP status and challenge (none over stdio), and its body. */
interface Seen { status?: number, challenge?: string | null, body: any }

/** What a caller could tell two URIs apart by: the answer with the URI asked, and the request's id, taken out. */
function shape (seen: Seen, uri: string): string {
  const { id, ...body } = seen.body
  return JSON.stringify({ ...seen, body }).replaceAll(uri, '<uri>')
}

/** One era's way to ask the server something: `params` a URI (`{ uri }`), or the params themselves. */
type Ask = (method: string, params: string | Record<string, unknown>) => Promise<Seen>
const paramsOf = (params: string | Record<string, unknown>): Record<string, unknown> => typeof params === 'string' ? { uri: params } : params

/** A 2026-07-28 request over the network, with Mcp-Name where the method mirrors the URI in it. */
function modernAsker (url: string, headers: Record<string, string> = {}): Ask {
  return async (method, params) => {
    const { uri } = paramsOf(params)
    const named: Record<string, string> = method === 'resources/read' ? { 'mcp-name': String(uri) } : {}
    const res = await streamPost(url, method, paramsOf(params), { ...headers, ...named })
    return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.json() }
  }
}

/** A request on a 2025-11-25 session of this token's, over the network. */
async function legacyAsker (url: string, headers: Record<string, string> = {}): Promise<Ask> {
  const session = await sessionOn(url, { headers })
  return async (method, params) => {
    const res = await legacyPost(url, session, '2025-11-25', { jsonrpc: '2.0', id: 1, method, params: paramsOf(params) }, headers)
    return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.json() }
  }
}

let stdioId = 0
/** A request over stdio, in the era `modern` says (2025: the peer's session). */
function stdioAsker (peer: StdioPeer, modern: boolean): Ask {
  return async (method, params) => ({ body: await peer.request(`q${stdioId++}`, method, modern ? { ...paramsOf(params), _meta: MODERN_META } : paramsOf(params)) })
}

t.test('a hard link in a skills folder (a secret outside it, linked in) is not served in either era, at registration or at a reload, and each is logged', async (t) => {
  const SECRET = 'SECRET-hard-link-5e1d'
  const root = tree(t, { 'secret.txt': SECRET, 'skills/docs/SKILL.md': md('docs'), 'skills/docs/references/GUIDE.md': 'the guide' })
  const secret = join(root, 'secret.txt')
  const passwd = join(root, 'skills/docs/references/passwd')
  linkSync(secret, passwd)
  const log = captureLog({ level: 'warn' })
  const app = Fastify({ logger: log.logger })
  await app.register(sake, { name: 'hostile', version: '1.0.0', skills: { directory: join(root, 'skills') } })
  const url = await listen(t, app)
  t.same(log.lines.filter((line) => line.file !== undefined).map((line) => [line.msg, line.file]), [[LINK_WARNING, passwd]], 'the hard link, logged at registration, saying what to do')

  const answers: string[] = []
  const eras: Array<[string, Ask, number]> = [['2026-07-28', modernAsker(url), -32602], ['2025-11-25', await legacyAsker(url), -32002]]
  for (const [era, ask, notFound] of eras) {
    const entry = (await ask('skills/get', 'skill://docs/SKILL.md')).body.result.skill
    t.same(entry.resources.map((r: any) => r.uri), ['skill://docs/SKILL.md', 'skill://docs/references/GUIDE.md'], `${era}: not in the skill's entry`)
    t.same((await ask('resources/directory/read', 'skill://docs/references')).body.result.resources.map((r: any) => r.name), ['GUIDE.md'], `${era}: not in its folder`)
    const read = await ask('resources/read', 'skill://docs/references/passwd')
    answers.push(JSON.stringify(read))
    t.same(read.body.error, { code: notFound, message: 'Resource not found: skill://docs/references/passwd', data: { uri: 'skill://docs/references/passwd' } }, `${era}: not served`)
  }

  // another name linked in while the server runs: a reload reads the folder through the same walk
  const shadow = join(root, 'skills/docs/shadow.md')
  linkSync(secret, shadow)
  t.same(await app.mcp.reloadSkills(), { added: [], removed: [], changed: [], skipped: [passwd, shadow] }, 'the reload skips both, and says so')
  for (const [era, ask, notFound] of eras) {
    const read = await ask('resources/read', 'skill://docs/shadow.md')
    answers.push(JSON.stringify(read))
    t.equal(read.body.error.code, notFound, `${era}: the new link is not served either`)
  }
  t.notOk(answers.some((answer) => answer.includes(SECRET)), 'the secret is in no answer')
})

/** The skills every test below serves: a public one, two under billing:read (alone in their folder), one under vault:read. */
const SKILLS: SkillFilesDefinition[] = [
  { path: 'acme/open/hello', files: { 'SKILL.md': md('hello') } },
  { path: 'acme/billing/refunds', scope: 'billing:read', files: { 'SKILL.md': md('refunds'), 'references/policy.md': 'refund within 30 days' } },
  { path: 'acme/billing/invoices', scope: 'billing:read', files: { 'SKILL.md': md('invoices') } },
  { path: 'vault/keys', scope: 'vault:read', files: { 'SKILL.md': md('keys'), 'references/rotation.md': 'rotate monthly' } }
]
const SCOPES = { 'billing:read': 'Read the billing skills', 'vault:read': 'Read the vault' }

/** Names of a folder's children as `ask` is shown them. */
async function children (ask: Ask, uri: string): Promise<string[]> {
  return (await ask('resources/directory/read', uri)).body.result.resources.map((r: any) => r.name)
}

/**
 * What a caller without billing:read and vault:read must see, in any era and over any transport:
 * `refused(what)` is the shape of the refusal of a name inside a scoped skill.
 */
async function learnsNothing (t: Test, ask: Ask, refused: (what: string) => string): Promise<void> {
  t.same(await children(ask, 'skill://acme'), ['open'], 'skill://acme names no folder that leads only to skills it may not see')
  const missing = shape(await ask('resources/directory/read', 'skill://acme/nowhere'), 'skill://acme/nowhere')
  t.match(missing, /no directory is served at <uri>/)
  for (const uri of ['skill://acme/billing', 'skill://vault', 'skill://nowhere']) {
    t.equal(shape(await ask('resources/directory/read', uri), uri), missing, `${uri} answers exactly as a missing folder`)
  }
  const PROBES = [
    ['resources/read', 'resource', ['skill://acme/billing/refunds/references/policy.md', 'skill://acme/billing/refunds/references/nope.md', 'skill://acme/billing/refunds/SKILL.md', 'skill://acme/billing/refunds/nope/deeper.md']],
    ['resources/directory/read', 'directory', ['skill://acme/billing/refunds/references', 'skill://acme/billing/refunds/nope', 'skill://acme/billing/refunds']],
    ['skills/get', 'skill', ['skill://acme/billing/refunds/SKILL.md', 'skill://acme/billing/refunds/nope/SKILL.md']]
  ] as const
  for (const [method, what, uris] of PROBES) {
    for (const uri of uris) t.equal(shape(await ask(method, uri), uri), refused(what), `${method} ${uri}: the same refusal, whether it exists or not`)
  }
  // the lists and completion show nothing of those skills either
  t.same((await ask('skills/list', {})).body.result.skills.map((s: any) => s.uri), ['skill://acme/open/hello/SKILL.md'], 'skills/list')
  t.same((await ask('resources/list', {})).body.result.resources.map((r: any) => r.uri), ['skill://acme/open/hello/SKILL.md'], 'resources/list')
  t.same((await ask('resources/templates/list', {})).body.result.resourceTemplates, [], 'resources/templates/list')
  const completion = async (uri: string): Promise<string> => shape(await ask('completion/complete', { ref: { type: 'ref/resource', uri }, argument: { name: 'file', value: '' } }), uri)
  t.equal(await completion('skill://acme/billing/refunds/SKILL.md'), await completion('skill://acme/nowhere/SKILL.md'), 'completion: a skill is no template, whether it exists or not')
}

t.test('over HTTP with signed tokens: a caller who may not see a skill learns nothing of it, in both eras', async (t) => {
  const issuer = await startIssuer(t)
  const app: FastifyInstance = Fastify({ logger: false })
  await app.register(sake, {
    name: 'hostile',
    version: '1.0.0',
    scopes: SCOPES,
    auth: { resource: RESOURCE, authorizationServers: [issuer.issuer], jwks: issuer.jwks },
    skills: { definitions: SKILLS }
  })
  const url = await listen(t, app)
  const stranger = bearer(await issuer.sign({ sub: 'stranger', scope: 'profile' }))
  const billing = bearer(await issuer.sign({ sub: 'billing', scope: 'billing:read' }))
  const CHALLENGE = `Bearer error="insufficient_scope", scope="billing:read", resource_metadata="${METADATA_URL}", error_description="The access token lacks a scope this operation needs"`
  const refused = (what: string): string => JSON.stringify({
    status: 403,
    challenge: CHALLENGE,
    body: { jsonrpc: '2.0', error: { code: -32600, message: `Forbidden: ${what} '<uri>' needs the scope billing:read, which the access token does not grant`, data: { error: 'insufficient_scope', scopes: ['billing:read'] } } }
  })

  for (const [era, asker, notFound] of [['2026-07-28', async (headers: Record<string, string>) => modernAsker(url, headers), -32602], ['2025-11-25', async (headers: Record<string, string>) => await legacyAsker(url, headers), -32002]] as const) {
    t.test(era, async (t) => {
      await learnsNothing(t, await asker(stranger), refused)
      // with the scope: the folders are there, the files read, and what is not there is not found
      const holder = await asker(billing)
      t.same(await children(holder, 'skill://acme'), ['billing', 'open'])
      t.same(await children(holder, 'skill://acme/billing'), ['invoices', 'refunds'])
      t.equal((await holder('resources/read', 'skill://acme/billing/refunds/references/policy.md')).body.result.contents[0].text, 'refund within 30 days')
      t.same((await holder('resources/read', 'skill://acme/billing/refunds/references/nope.md')).body.error, { code: notFound, message: 'Resource not found: skill://acme/billing/refunds/references/nope.md', data: { uri: 'skill://acme/billing/refunds/references/nope.md' } })
      t.match((await holder('resources/directory/read', 'skill://vault')).body.error, { code: -32602, message: 'Invalid params: no directory is served at skill://vault' }, 'another scope\'s folder: missing for it too')
      t.equal((await holder('resources/read', 'skill://vault/keys/references/rotation.md')).status, 403)
    })
  }

  t.test('2026-07-28 without a token: the 401 names the same scopes for a name that exists and one that does not', async (t) => {
    const anonymous = modernAsker(url)
    const exists = await anonymous('resources/read', 'skill://acme/billing/refunds/references/policy.md')
    t.equal(exists.status, 401)
    t.match(exists.challenge, /scope="billing:read"/)
    t.equal(shape(await anonymous('resources/read', 'skill://acme/billing/refunds/references/nope.md'), 'skill://acme/billing/refunds/references/nope.md'), shape(exists, 'skill://acme/billing/refunds/references/policy.md'))
  })
})

t.test('over stdio with a caller: a caller who may not see a skill learns nothing of it, in both eras', async (t) => {
  const refused = (what: string): string => JSON.stringify({
    body: { jsonrpc: '2.0', error: { code: -32600, message: `Forbidden: ${what} '<uri>' needs the scope billing:read, which the access token does not grant`, data: { error: 'insufficient_scope', scopes: ['billing:read'] } } }
  })
  for (const modern of [true, false]) {
    t.test(modern ? '2026-07-28' : '2025-11-25', async (t) => {
      const app = Fastify({ logger: false })
      await app.register(sake, { name: 'hostile', version: '1.0.0', scopes: SCOPES, skills: { definitions: SKILLS } })
      const peer = await stdioPeer(t, app, { caller: { subject: 'stranger', scopes: ['profile'] } })
      if (!modern) await initialize(peer)
      await learnsNothing(t, stdioAsker(peer, modern), refused)
    })
  }
})
