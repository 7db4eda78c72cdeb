// A hostile client with real signed tokens, against the built package over a real port (issue 40):
// - step-up (`authentication: { maxAge }`) refuses an `auth_time` in the future (beyond the clock
//   skew): 401 insufficient_user_authentication, as a sign-in too old, in both eras, from the JWT
//   verifier and from a `verify` function (an auth_time in milliseconds is far in the future);
// - a task asks of every token that reads it what its tool's call asked: another token of the
//   same subject without the tool's scope (or its step-up) gets the call's own 403/401 and
//   challenge on tasks/get, tasks/result, tasks/cancel (2025-11-25) and tasks/get, tasks/update,
//   tasks/cancel (2026-07-28); tasks/list and a listen's taskIds leave such tasks out.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import sake from '../../dist/index.js'
import type { SakeOptions } from '../../dist/index.js'
import { deferred, listen } from '../helpers/app.js'
import { legacyPost, sessionOn, streamPost } from '../helpers/network.js'
import { ALL_CAPABILITIES } from '../helpers/requests.js'
import { METADATA_URL, RESOURCE, SCOPES, bearer, startIssuer, type Issuer } from '../helpers/tokens.js'

const V = '2025-11-25'
const EXT = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
const STEP_UP = `Bearer error="insufficient_user_authentication", max_age=60, resource_metadata="${METADATA_URL}", error_description="A stronger or more recent authentication is required"`
const SCOPE_WRITE = `Bearer error="insufficient_scope", scope="issues:write", resource_metadata="${METADATA_URL}", error_description="The access token lacks a scope this operation needs"`

const now = (): number => Math.floor(Date.now() / 1000)

/** The built package with auth on (the JWT verifier, unless `auth` says otherwise), on a real port. */
async function serve (t: Test, issuer: Issuer, auth: Record<string, unknown> = {}): Promise<{ url: string, release: () => void }> {
  const app = Fastify({ logger: false })
  const gate = deferred()
  await app.register(sake, {
    name: 'hostile-auth',
    version: '1.0.0',
    scopes: SCOPES,
    auth: { resource: RESOURCE, authorizationServers: [issuer.issuer], jwks: issuer.jwks, ...auth } as NonNullable<Exclude<SakeOptions['auth'], false>>
  })
  app.registerTool({ name: 'recent_only', authentication: { maxAge: 60 }, execute: () => 'fresh' })
  app.registerTool({ name: 'export_issues', scope: 'issues:write', task: 'optional', execute: () => 'the export' })
  app.registerTool({ name: 'slow_export', scope: 'issues:write', task: 'optional', execute: async () => { await gate.promise; return 'slow export' } })
  app.registerTool({ name: 'wipe', authentication: { maxAge: 60 }, task: 'optional', execute: () => 'wiped' })
  app.registerTool({ name: 'open_task', task: 'optional', execute: () => 'anyone' })
  const url = await listen(t, app)
  t.teardown(() => gate.resolve())
  return { url, release: () => gate.resolve() }
}

/** A 2026-07-28 request over the network, its status, WWW-Authenticate and JSON body. */
async function modern (url: string, method: string, params: Record<string, unknown>, headers: Record<string, string>): Promise<{ status: number, challenge: string | null, body: any }> {
  const res = await streamPost(url, method, params, headers)
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.json() }
}

/** A request on a 2025 session over the network, its status, WWW-Authenticate and JSON body. */
async function legacy (url: string, session: string, id: number, method: string, params: Record<string, unknown>, headers: Record<string, string>): Promise<{ status: number, challenge: string | null, body: any }> {
  const res = await legacyPost(url, session, V, { jsonrpc: '2.0', id, method, params }, headers)
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.json() }
}

t.test('step-up: an auth_time in the future is no recent sign-in, in both eras', async (t) => {
  const issuer = await startIssuer(t)
  const { url } = await serve(t, issuer)
  const ahead = bearer(await issuer.sign({ auth_time: now() + 3600 }))
  const refused = await modern(url, 'tools/call', { name: 'recent_only', arguments: {} }, ahead)
  t.equal(refused.status, 401, '2026-07-28: an hour ahead')
  t.equal(refused.challenge, STEP_UP)
  t.same(refused.body.error.data, { error: 'insufficient_user_authentication', maxAge: 60 })
  const session = await sessionOn(url, { headers: ahead })
  const legacyRefused = await legacy(url, session, 1, 'tools/call', { name: 'recent_only', arguments: {} }, ahead)
  t.equal(legacyRefused.status, 401, '2025-11-25: an hour ahead')
  t.equal(legacyRefused.challenge, STEP_UP)
  const skewed = bearer(await issuer.sign({ auth_time: now() + 10 }))
  t.equal((await modern(url, 'tools/call', { name: 'recent_only', arguments: {} }, skewed)).body.result.content[0].text, 'fresh', 'within the clock skew (30 s)')
  t.equal((await legacy(url, session, 2, 'tools/call', { name: 'recent_only', arguments: {} }, skewed)).body.result.content[0].text, 'fresh')
})

t.test('step-up: a verify function that returns authTime in milliseconds (or ahead) is refused too', async (t) => {
  const issuer = await startIssuer(t)
  const times: Record<string, number> = { ms: Date.now(), ahead: now() + 600, fresh: now() - 5 }
  const { url } = await serve(t, issuer, { jwks: undefined, verify: (token: string) => ({ subject: 'alice', authTime: times[token] }) })
  for (const token of ['ms', 'ahead']) {
    const res = await modern(url, 'tools/call', { name: 'recent_only', arguments: {} }, bearer(token))
    t.equal(res.status, 401, token)
    t.equal(res.challenge, STEP_UP, token)
  }
  t.equal((await modern(url, 'tools/call', { name: 'recent_only', arguments: {} }, bearer('fresh'))).body.result.content[0].text, 'fresh')
})

t.test("2025-11-25: a task's result, status and cancel need the tool's scope of every token that reads it", async (t) => {
  const issuer = await startIssuer(t)
  const { url, release } = await serve(t, issuer)
  const writer = bearer(await issuer.sign({ scope: 'issues:read issues:write' }))
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const bob = bearer(await issuer.sign({ sub: 'bob', scope: 'issues:read issues:write' }))
  // one session of alice's, used with either of her tokens (a session is bound to its subject)
  const session = await sessionOn(url, { headers: writer, capabilities: ALL_CAPABILITIES })
  const exported = (await legacy(url, session, 1, 'tools/call', { name: 'export_issues', arguments: {}, task: {} }, writer)).body.result.task.taskId
  const running = (await legacy(url, session, 2, 'tools/call', { name: 'slow_export', arguments: {}, task: {} }, writer)).body.result.task.taskId
  const open = (await legacy(url, session, 3, 'tools/call', { name: 'open_task', arguments: {}, task: {} }, reader)).body.result.task.taskId

  for (const [method, taskId] of [['tasks/get', exported], ['tasks/result', exported], ['tasks/cancel', running]] as const) {
    const res = await legacy(url, session, 4, method, { taskId }, reader)
    t.equal(res.status, 403, `${method}: the tool call's own 403`)
    t.equal(res.challenge, SCOPE_WRITE, method)
    t.same(res.body.error.data, { error: 'insufficient_scope', scopes: ['issues:write'] }, method)
    t.match(res.body.error.message, /^Forbidden: tool '(export_issues|slow_export)' needs the scope issues:write/, method)
    t.notOk(JSON.stringify(res.body).includes('the export'), `${method}: nothing of the task is answered`)
  }
  t.equal((await legacy(url, session, 5, 'tasks/get', { taskId: running }, writer)).body.result.status, 'working', 'the refused cancel cancelled nothing')
  const listed = (await legacy(url, session, 6, 'tasks/list', {}, reader)).body.result.tasks.map((task: { taskId: string }) => task.taskId)
  t.same(listed, [open], 'tasks/list shows the reader only what it may read')
  const all = (await legacy(url, session, 7, 'tasks/list', {}, writer)).body.result.tasks.map((task: { taskId: string }) => task.taskId)
  t.same(all, [exported, running, open])
  t.same((await legacy(url, session, 8, 'tasks/result', { taskId: exported }, writer)).body.result.content, [{ type: 'text', text: 'the export' }], 'the token that may call the tool reads the result')
  t.equal((await legacy(url, session, 9, 'tasks/result', { taskId: open }, reader)).body.result.content[0].text, 'anyone', 'a task of a tool that asks nothing: any token of its owner')
  const bobSession = await sessionOn(url, { headers: bob })
  const stranger = await legacy(url, bobSession, 10, 'tasks/get', { taskId: exported }, bob)
  t.equal(stranger.body.error.code, -32602, 'another subject still learns nothing: the unknown-task error')
  release()
})

t.test("2025-11-25: a step-up tool's task needs a recent sign-in of its reader", async (t) => {
  const issuer = await startIssuer(t)
  const { url } = await serve(t, issuer)
  const fresh = bearer(await issuer.sign({ auth_time: now() }))
  const session = await sessionOn(url, { headers: fresh })
  const taskId = (await legacy(url, session, 1, 'tools/call', { name: 'wipe', arguments: {}, task: {} }, fresh)).body.result.task.taskId
  for (const [what, claims] of [['a sign-in an hour old', { auth_time: now() - 3600 }], ['no auth_time', {}], ['an auth_time an hour ahead', { auth_time: now() + 3600 }]] as const) {
    const res = await legacy(url, session, 2, 'tasks/result', { taskId }, bearer(await issuer.sign(claims)))
    t.equal(res.status, 401, what)
    t.equal(res.challenge, STEP_UP, what)
  }
  t.equal((await legacy(url, session, 3, 'tasks/result', { taskId }, fresh)).body.result.content[0].text, 'wiped')
})

t.test("2026-07-28: tasks/get, tasks/update, tasks/cancel and a listen's taskIds need the tool's scope and step-up", async (t) => {
  const issuer = await startIssuer(t)
  const { url, release } = await serve(t, issuer)
  const writer = bearer(await issuer.sign({ scope: 'issues:read issues:write', auth_time: now() }))
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const stale = bearer(await issuer.sign({ scope: 'issues:read issues:write', auth_time: now() - 3600 }))
  const exported = (await modern(url, 'tools/call', { name: 'export_issues', arguments: {}, _meta: EXT }, writer)).body.result.taskId
  const running = (await modern(url, 'tools/call', { name: 'slow_export', arguments: {}, _meta: EXT }, writer)).body.result.taskId
  const wiped = (await modern(url, 'tools/call', { name: 'wipe', arguments: {}, _meta: EXT }, writer)).body.result.taskId
  t.ok(typeof exported === 'string' && typeof running === 'string' && typeof wiped === 'string', 'three tasks')

  const cases = [['tasks/get', exported, {}], ['tasks/update', running, { inputResponses: {} }], ['tasks/cancel', running, {}]] as const
  for (const [method, taskId, params] of cases) {
    const res = await modern(url, method, { taskId, ...params, _meta: EXT }, { ...reader, 'mcp-name': taskId })
    t.equal(res.status, 403, `${method}: the tool call's own 403`)
    t.equal(res.challenge, SCOPE_WRITE, method)
    t.notOk(JSON.stringify(res.body).includes('the export'), `${method}: nothing of the task is answered`)
  }
  const step = await modern(url, 'tasks/get', { taskId: wiped, _meta: EXT }, { ...stale, 'mcp-name': wiped })
  t.equal(step.status, 401, 'a step-up tool\'s task: an old sign-in is refused')
  t.equal(step.challenge, STEP_UP)
  const still = await modern(url, 'tasks/get', { taskId: running, _meta: EXT }, { ...writer, 'mcp-name': running })
  t.equal(still.body.result.status, 'working', 'the refused cancel cancelled nothing')
  const done = await modern(url, 'tasks/get', { taskId: exported, _meta: EXT }, { ...writer, 'mcp-name': exported })
  t.same(done.body.result.result.content, [{ type: 'text', text: 'the export' }], 'the token that may call the tool reads it')

  const refusedListen = await streamPost(url, 'subscriptions/listen', { notifications: { taskIds: [exported, running] }, _meta: EXT }, reader, 'l-reader')
  t.same((await refusedListen.message()).params.notifications, {}, 'a listen of a token without the scope follows none of them')
  refusedListen.close()
  const allowedListen = await streamPost(url, 'subscriptions/listen', { notifications: { taskIds: [exported, running] }, _meta: EXT }, writer, 'l-writer')
  t.same((await allowedListen.message()).params.notifications, { taskIds: [exported, running] })
  allowedListen.close()
  release()
})
