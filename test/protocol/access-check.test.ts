// Scopes and step-up on calls, in both eras: 403 insufficient_scope and 401
// insufficient_user_authentication with their challenges, decided from the body before any stream
// opens; scoped resources, prompts and completions (of a prompt, a template, a tool). The lists that hide what a caller may not use
// (hideForbidden) are tested in test/protocol/lists.test.ts.
import t from 'tap'
import { InsufficientScopeError, Type, definePrompt } from '../../lib/index.js'
import { openSession, sessionPost, modernRequest, rpc } from '../helpers/requests.js'
import { sseMessages } from '../helpers/sse.js'
import { METADATA_URL, authApp, bearer, startIssuer } from '../helpers/tokens.js'
import { CLOCK_SKEW, refusalOf, taskRefusalOf } from '../../lib/protocol/access-check.js'
import { AccessRefusal } from '../../lib/errors.js'
import type { TaskRecord } from '../../lib/state/task-store.js'
import { Registry } from '../../lib/define/registry.js'
import type { AuthInfo } from '../../lib/spec/types.js'

t.test('a missing scope is 403 with one challenge naming every scope the tool needs', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const res = await app.inject(modernRequest('tools/call', { name: 'close_issue', arguments: { id: 7 } }, reader))
  t.equal(res.statusCode, 403)
  t.equal(res.headers['www-authenticate'], `Bearer error="insufficient_scope", scope="issues:read issues:write", resource_metadata="${METADATA_URL}", error_description="The access token lacks a scope this operation needs"`)
  t.same(rpc(res).error, {
    code: -32600,
    message: "Forbidden: tool 'close_issue' needs the scopes issues:read, issues:write, which the access token does not grant",
    data: { error: 'insufficient_scope', scopes: ['issues:read', 'issues:write'] }
  })
  t.equal(typeof rpc(res).id, 'number', 'the request id is echoed: the body was read')
  const ok = await app.inject(modernRequest('tools/call', { name: 'list_issues', arguments: {} }, reader))
  t.equal(rpc(ok).result.content[0].text, 'issues for alice')
  const unknown = await app.inject(modernRequest('tools/call', { name: 'nope', arguments: {} }, reader))
  t.equal(rpc(unknown).error!.message, 'Unknown tool: nope', 'an unknown tool is still -32602')
})

t.test('the body decides, not the headers: a scoped tool behind an innocent Mcp-Name is refused by the header check first', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const res = await app.inject(modernRequest('tools/call', { name: 'close_issue', arguments: { id: 1 } }, { ...reader, 'mcp-name': 'open' }))
  t.equal(res.statusCode, 400)
  t.equal(rpc(res).error!.code, -32020)
})

t.test('a forbidden stream: true call never opens SSE, nor does one with a progressToken', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const streamed = await app.inject(modernRequest('tools/call', { name: 'stream_admin', arguments: {} }, reader))
  t.equal(streamed.statusCode, 403)
  t.match(streamed.headers['content-type'], /^application\/json/)
  t.match(streamed.headers['www-authenticate'], /scope="issues:admin"/)
  const progress = await app.inject(modernRequest('tools/call', { name: 'close_issue', arguments: { id: 1 }, _meta: { progressToken: 'p1' } }, reader))
  t.equal(progress.statusCode, 403)
  t.match(progress.headers['content-type'], /^application\/json/)
  const admin = bearer(await issuer.sign({ scope: 'issues:admin' }))
  const allowed = await app.inject(modernRequest('tools/call', { name: 'stream_admin', arguments: {}, _meta: { progressToken: 'p2' } }, admin))
  t.equal(allowed.statusCode, 200)
  t.match(allowed.headers['content-type'], /^text\/event-stream/, 'allowed: it streams its progress')
  const silent = await app.inject(modernRequest('tools/call', { name: 'stream_admin', arguments: {} }, admin))
  t.match(silent.headers['content-type'], /^application\/json/, 'allowed, without a progressToken: nothing to stream, JSON')
})

t.test('a scope refusal decided inside execute: a plain 403 unless the stream already opened, in both eras', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const needsAdmin = (): never => { throw new InsufficientScopeError('issues:admin') }
  app.registerTool({ name: 'dyn_stream', stream: true, execute: needsAdmin })
  app.registerTool({ name: 'dyn_plain', execute: needsAdmin })
  app.registerTool({ name: 'dyn_after', stream: true, execute: (_args, ctx) => { ctx.progress(1, 2); return needsAdmin() } })
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const session = await openSession(app, '2025-11-25', { headers: reader, initialized: false })
  const older = await openSession(app, '2025-06-18', { headers: reader, initialized: false })
  let id = 10
  const call = (name: string, meta: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: {}, _meta: meta } })
  const eras = {
    modern: (name: string, meta: Record<string, unknown>) => modernRequest('tools/call', { name, arguments: {}, _meta: meta }, reader),
    '2025-11-25': (name: string, meta: Record<string, unknown>) => sessionPost(session, '2025-11-25', call(name, meta), reader),
    '2025-06-18': (name: string, meta: Record<string, unknown>) => sessionPost(older, '2025-06-18', call(name, meta), reader)
  }
  for (const [era, request] of Object.entries(eras)) {
    for (const name of ['dyn_stream', 'dyn_plain', 'dyn_after']) {
      for (const meta of [{}, { progressToken: 'p' }]) {
        const what = `${era} ${name} ${'progressToken' in meta ? 'with' : 'without'} a progressToken`
        const res = await app.inject(request(name, meta))
        if (name === 'dyn_after' && 'progressToken' in meta) {
          // its progress opened the stream: the refusal can only be its last event
          t.equal(res.statusCode, 200, what)
          t.equal(res.headers['content-type'], 'text/event-stream', what)
          const messages = sseMessages(res.body)
          t.equal(messages[0].method, 'notifications/progress', what)
          t.same(messages.at(-1).error.data, { error: 'insufficient_scope', scopes: ['issues:admin'] }, what)
          continue
        }
        t.equal(res.statusCode, 403, what)
        t.match(res.headers['content-type'], /^application\/json/, what)
        t.match(res.headers['www-authenticate'], /^Bearer error="insufficient_scope", scope="issues:admin", resource_metadata=/, what)
        t.same(rpc(res).error!.data, { error: 'insufficient_scope', scopes: ['issues:admin'] }, what)
      }
    }
  }
})

t.test('step-up: acr not listed, or a sign-in too old, is 401 insufficient_user_authentication', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const now = Math.floor(Date.now() / 1000)
  const challenge = `Bearer error="insufficient_user_authentication", acr_values="mfa hwk", max_age=300, resource_metadata="${METADATA_URL}", error_description="A stronger or more recent authentication is required"`
  const cases: Array<[string, Record<string, unknown>]> = [
    ['no acr', { auth_time: now }],
    ['acr not listed', { acr: 'pwd', auth_time: now }],
    ['no auth_time', { acr: 'mfa' }],
    ['sign-in too old', { acr: 'mfa', auth_time: now - 301 }]
  ]
  for (const [what, claims] of cases) {
    const res = await app.inject(modernRequest('tools/call', { name: 'delete_repo', arguments: {} }, bearer(await issuer.sign(claims))))
    t.equal(res.statusCode, 401, what)
    t.equal(res.headers['www-authenticate'], challenge, what)
    t.same(rpc(res).error!.data, { error: 'insufficient_user_authentication', acrValues: ['mfa', 'hwk'], maxAge: 300 }, what)
  }
  t.match(rpc(await app.inject(modernRequest('tools/call', { name: 'delete_repo', arguments: {} }, bearer(await issuer.sign({ acr: 'pwd' }))))).error!.message,
    /^Unauthorized: tool 'delete_repo' needs an authentication context of mfa or hwk and a sign-in at most 300 seconds old/)
  const ok = await app.inject(modernRequest('tools/call', { name: 'delete_repo', arguments: {} }, bearer(await issuer.sign({ acr: 'hwk', auth_time: now - 100 }))))
  t.equal(rpc(ok).result.content[0].text, 'deleted')
  const old = await app.inject(modernRequest('tools/call', { name: 'recent_only', arguments: {} }, bearer(await issuer.sign({ auth_time: now - 120 }))))
  t.equal(old.statusCode, 401)
  t.equal(old.headers['www-authenticate'], `Bearer error="insufficient_user_authentication", max_age=60, resource_metadata="${METADATA_URL}", error_description="A stronger or more recent authentication is required"`)
  t.same(rpc(old).error!.data, { error: 'insufficient_user_authentication', maxAge: 60 })
  t.match(rpc(old).error!.message, /needs a sign-in at most 60 seconds old;/)
})

t.test('step-up: an auth_time later than now plus the clock skew is refused as a sign-in not recent enough', async (t) => {
  const issuer = await startIssuer(t)
  const now = Math.floor(Date.now() / 1000)
  const call = (token: string): ReturnType<typeof modernRequest> => modernRequest('tools/call', { name: 'recent_only', arguments: {} }, bearer(token))
  const app = await authApp(issuer)
  // each time read when its token is signed (a loaded machine takes seconds to get here), with a
  // second to spare past the 30 s of skew (31 s ahead of a time read before the app was built was
  // under 30 s ahead when checked, on a loaded CI)
  const secondsAhead = (seconds: number): number => Math.floor(Date.now() / 1000) + seconds
  for (const [what, authTime] of [['an hour ahead', () => secondsAhead(3600)], ['in milliseconds', () => Date.now()], ['32 s ahead', () => secondsAhead(32)]] as const) {
    const res = await app.inject(call(await issuer.sign({ auth_time: authTime() })))
    t.equal(res.statusCode, 401, what)
    t.equal(res.headers['www-authenticate'], `Bearer error="insufficient_user_authentication", max_age=60, resource_metadata="${METADATA_URL}", error_description="A stronger or more recent authentication is required"`, what)
    t.same(rpc(res).error!.data, { error: 'insufficient_user_authentication', maxAge: 60 }, what)
  }
  const ahead = await issuer.sign({ auth_time: now + 20 })
  t.equal(rpc(await app.inject(call(ahead))).result.content[0].text, 'fresh', 'within the default 30 s of skew')
  t.equal(rpc(await app.inject(modernRequest('tools/call', { name: 'list_issues', arguments: {} }, bearer(await issuer.sign({ auth_time: now + 3600 }))))).result.content[0].text,
    'issues for alice', 'a tool without maxAge does not read auth_time: the token stays good for it')
  const strict = await authApp(issuer, { clockTolerance: 0 })
  t.equal((await strict.inject(call(ahead))).statusCode, 401, 'auth.clockTolerance: 0 allows no skew')
  const lenient = await authApp(issuer, { clockTolerance: 120 })
  t.equal(rpc(await lenient.inject(call(await issuer.sign({ auth_time: now + 100 })))).result.content[0].text, 'fresh', 'auth.clockTolerance: 120')
})

t.test('refusalOf: maxAge against the skew and the clock it is given', async (t) => {
  const registry = new Registry(new Map([['issues:read', 'Read issues']]))
  const tool = registry.addTool({ name: 'fresh', authentication: { maxAge: 10 }, execute: () => 'x' })
  const caller = (authTime: number | undefined): AuthInfo => ({ subject: 'a', scopes: [], acr: undefined, authTime, expiresAt: undefined, claims: {} })
  const now = 1_000_000
  t.equal(refusalOf(tool, caller(now - 10), 0, now), undefined, 'exactly maxAge old')
  t.equal(refusalOf(tool, caller(now - 11), 0, now)?.reason, 'insufficient_user_authentication', 'older than maxAge')
  t.equal(refusalOf(tool, caller(now + 5), 5, now), undefined, 'ahead by the skew')
  t.equal(refusalOf(tool, caller(now + 6), 5, now)?.reason, 'insufficient_user_authentication', 'ahead by more than the skew')
  t.equal(refusalOf(tool, caller(undefined), 5, now)?.reason, 'insufficient_user_authentication', 'none')
  t.equal(CLOCK_SKEW, 30)
  t.equal(refusalOf(tool, caller(Date.now() / 1000 + 20)), undefined, 'by default: 30 s of skew against the clock')
  t.equal(refusalOf(tool, caller(Date.now()))?.reason, 'insufficient_user_authentication', 'by default: milliseconds are far ahead')
})

t.test('taskRefusalOf: what the task\'s tool asks, of whoever reads the task; a tool not served here is refused', async (t) => {
  const registry = new Registry(new Map([['issues:write', 'Change issues']]))
  registry.addTool({ name: 'export', scope: 'issues:write', task: 'optional', execute: () => 'x' })
  registry.addTool({ name: 'fresh', authentication: { maxAge: 10 }, task: 'optional', execute: () => 'x' })
  registry.addTool({ name: 'open', task: 'optional', execute: () => 'x' })
  const caller = (scopes: string[], authTime?: number): AuthInfo => ({ subject: 'a', scopes, acr: undefined, authTime, expiresAt: undefined, claims: {} })
  const record = (tool: string | undefined): TaskRecord => ({ taskId: 't-1', version: 0, owner: 'sub:a', tool, protocolVersion: '2026-07-28', status: 'completed', createdAt: 0, lastUpdatedAt: 0, ttl: 1000 })
  const now = Date.now() / 1000
  t.match(taskRefusalOf(registry, record('export'), caller([]), 30), { reason: 'insufficient_scope', status: 403, scopes: ['issues:write'], message: /^Forbidden: tool 'export' needs the scope issues:write/ })
  t.equal(taskRefusalOf(registry, record('export'), caller(['issues:write']), 30), undefined)
  t.match(taskRefusalOf(registry, record('fresh'), caller([], now + 3600), 30), { reason: 'insufficient_user_authentication', status: 401, maxAge: 10 })
  t.equal(taskRefusalOf(registry, record('fresh'), caller([], now), 30), undefined)
  t.equal(taskRefusalOf(registry, record('open'), caller([]), 30), undefined, 'a tool that asks nothing')
  t.match(taskRefusalOf(registry, record('gone'), caller(['issues:write']), 30), {
    code: -32602,
    message: 'Invalid params: task "t-1" was made by tool \'gone\', which this server does not serve: what that tool asks of a caller cannot be checked, so the task cannot be read here'
  })
  t.match(taskRefusalOf(registry, record(undefined), caller(['issues:write']), 30), { code: -32602, message: /^Invalid params: task "t-1" does not record the tool that made it: / })
  t.notOk(taskRefusalOf(registry, record('gone'), caller([]), 30) instanceof AccessRefusal, 'not a refusal by scope: there is no challenge to give')
})

t.test('2025 sessions: the same 403 on a tools/call, in every legacy version', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    const session = await openSession(app, version, { headers: reader, initialized: false })
    const res = await app.inject(sessionPost(session, version, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'close_issue', arguments: { id: 1 } } }, reader))
    t.equal(res.statusCode, 403, version)
    t.match(res.headers['www-authenticate'], /^Bearer error="insufficient_scope", scope="issues:read issues:write"/)
    t.equal(rpc(res).id, 5)
    const ok = await app.inject(sessionPost(session, version, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'list_issues', arguments: {} } }, reader))
    t.equal(rpc(ok).result.content[0].text, 'issues for alice', version)
  }
})

t.test('a 2025-03-26 batch with one forbidden call is refused whole; an allowed one runs', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const session = await openSession(app, '2025-03-26', { headers: reader, initialized: false })
  const forbidden = await app.inject(sessionPost(session, '2025-03-26', [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_issues', arguments: {} } },
    null,
    { jsonrpc: '2.0', id: 2, method: 'ping' },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'close_issue', arguments: { id: 1 } } }
  ], reader))
  t.equal(forbidden.statusCode, 403)
  t.match(forbidden.headers['www-authenticate'], /scope="issues:read issues:write"/)
  const allowed = await app.inject(sessionPost(session, '2025-03-26', [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_issues', arguments: {} } },
    { jsonrpc: '2.0', id: 2, method: 'ping' }
  ], reader))
  t.equal(allowed.statusCode, 200)
  t.equal(JSON.parse(allowed.body).length, 2)
})

t.test('resources, templates, prompts and completions take a scope too', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  app.registerResource({ uri: 'issues://settings', name: 'Settings', scope: 'issues:admin', read: () => 'secret settings' })
  app.registerResource({ uriTemplate: 'issues://{id}', name: 'Issue', scope: 'issues:read', read: (_uri, { id }) => `issue ${id}`, complete: () => ['1', '2'] })
  app.registerResource({ uriTemplate: 'admin://{id}', name: 'Admin record', scope: 'issues:admin', read: (_uri, { id }) => `record ${id}`, complete: () => ['1'] })
  app.registerPrompt(definePrompt({ name: 'triage', scope: ['issues:read', 'issues:write'], args: { id: Type.String() }, get: ({ id }) => `Triage ${id}`, complete: () => ['1'] }))
  app.registerResource({ uri: 'issues://about', name: 'About', read: () => 'about' })
  app.registerTool({ name: 'assign', scope: 'issues:write', args: { user: Type.String() }, execute: ({ user }) => user, complete: (_arg, partial) => ['ada', 'alan', 'bob'].filter((u) => u.startsWith(partial)) })
  app.registerTool({ name: 'label', scope: 'issues:read', args: { name: Type.String() }, execute: ({ name }) => name, complete: () => ['bug', 'docs'] })
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const settings = await app.inject(modernRequest('resources/read', { uri: 'issues://settings' }, { ...reader, 'mcp-name': 'issues://settings' }))
  t.equal(settings.statusCode, 403)
  t.match(rpc(settings).error!.message, /resource 'issues:\/\/settings' needs the scope issues:admin/)
  const issue = await app.inject(modernRequest('resources/read', { uri: 'issues://42' }, { ...reader, 'mcp-name': 'issues://42' }))
  t.equal(rpc(issue).result.contents[0].text, 'issue 42')
  t.equal(rpc(issue).result.cacheScope, 'private', 'a read behind authorization is private')
  const prompt = await app.inject(modernRequest('prompts/get', { name: 'triage', arguments: { id: '1' } }, { ...reader, 'mcp-name': 'triage' }))
  t.equal(prompt.statusCode, 403)
  t.match(prompt.headers['www-authenticate'], /scope="issues:read issues:write"/)
  const promptCompletion = await app.inject(modernRequest('completion/complete', { ref: { type: 'ref/prompt', name: 'triage' }, argument: { name: 'id', value: '' } }, reader))
  t.equal(promptCompletion.statusCode, 403)
  t.match(rpc(promptCompletion).error!.message, /^Forbidden: prompt 'triage' needs the scopes issues:read, issues:write/)
  const templateCompletion = await app.inject(modernRequest('completion/complete', { ref: { type: 'ref/resource', uri: 'issues://{id}' }, argument: { name: 'id', value: '' } }, reader))
  t.same(rpc(templateCompletion).result.completion.values, ['1', '2'])
  const adminCompletion = await app.inject(modernRequest('completion/complete', { ref: { type: 'ref/resource', uri: 'admin://{id}' }, argument: { name: 'id', value: '' } }, reader))
  t.equal(adminCompletion.statusCode, 403)
  t.match(rpc(adminCompletion).error!.message, /^Forbidden: resource template 'admin:\/\/\{id\}' needs the scope issues:admin/, 'the refusal names the template')
  // a tool's completions (ref/tool) need what its call needs
  const toolCompletion = await app.inject(modernRequest('completion/complete', { ref: { type: 'ref/tool', name: 'assign' }, argument: { name: 'user', value: '' } }, reader))
  t.equal(toolCompletion.statusCode, 403)
  t.match(toolCompletion.headers['www-authenticate'], /error="insufficient_scope", scope="issues:write"/)
  t.match(rpc(toolCompletion).error!.message, /^Forbidden: tool 'assign' needs the scope issues:write/)
  const readerTool = await app.inject(modernRequest('completion/complete', { ref: { type: 'ref/tool', name: 'label' }, argument: { name: 'name', value: '' } }, reader))
  t.same(rpc(readerTool).result.completion.values, ['bug', 'docs'])
  const writer = bearer(await issuer.sign({ scope: 'issues:read issues:write' }))
  const writerTool = await app.inject(modernRequest('completion/complete', { ref: { type: 'ref/tool', name: 'assign' }, argument: { name: 'user', value: 'a' } }, writer))
  t.same(rpc(writerTool).result.completion.values, ['ada', 'alan'])
  const badRef = await app.inject(modernRequest('completion/complete', { ref: 'x', argument: { name: 'id', value: '' } }, reader))
  t.equal(rpc(badRef).error!.code, -32602, 'a malformed ref is still the method\'s -32602')
  const unknownPrompt = await app.inject(modernRequest('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'id', value: '' } }, reader))
  t.equal(rpc(unknownPrompt).error!.code, -32602)
  const unknownUri = await app.inject(modernRequest('resources/read', { uri: 'other://x' }, { ...reader, 'mcp-name': 'other://x' }))
  t.equal(rpc(unknownUri).error!.code, -32602)
  const missingPrompt = await app.inject(modernRequest('prompts/get', { name: 'nope' }, { ...reader, 'mcp-name': 'nope' }))
  t.equal(rpc(missingPrompt).error!.code, -32602)
  const about = await app.inject(modernRequest('resources/read', { uri: 'issues://about' }, { ...reader, 'mcp-name': 'issues://about' }))
  t.equal(rpc(about).result.contents[0].text, 'about')
  // no token: the challenge's scope hint comes from Mcp-Method / Mcp-Name
  const anonymous = await app.inject(modernRequest('resources/read', { uri: 'issues://settings' }, { 'mcp-name': 'issues://settings' }))
  t.equal(anonymous.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}", scope="issues:admin"`)
  // 2025: subscribe is checked like read
  const session = await openSession(app, '2025-11-25', { headers: reader, initialized: false })
  const subscribe = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'issues://settings' } }, reader))
  t.equal(subscribe.statusCode, 403)
  const notification = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/initialized' }, reader))
  t.equal(notification.statusCode, 202)
  const noParams = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'ping' }, reader))
  t.same(rpc(noParams).result, {})
})

t.test('malformed requests behind auth still get the method\'s own error', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  app.registerResource({ uriTemplate: 'issues://{id}', name: 'Issue', scope: 'issues:read', read: (_uri, { id }) => `issue ${id}`, complete: () => ['1'] })
  const token = bearer(await issuer.sign({ scope: '' }))
  const cases: Array<[string, Record<string, unknown>, number]> = [
    ['tools/call', { arguments: {} }, -32602],
    ['resources/read', { uri: 5 }, -32602],
    ['prompts/get', { name: 5 }, -32602],
    ['completion/complete', { ref: { type: 'ref/resource', uri: 5 }, argument: { name: 'id', value: '' } }, -32602],
    ['completion/complete', { ref: { type: 'ref/resource', uri: 'nope://{x}' }, argument: { name: 'x', value: '' } }, -32602],
    ['completion/complete', { ref: { type: 'ref/other' }, argument: { name: 'x', value: '' } }, -32602]
  ]
  for (const [method, params, code] of cases) {
    const res = await app.inject(modernRequest(method, params, { ...token, 'mcp-name': undefined }))
    t.equal(rpc(res).error?.code, code, `${method} ${JSON.stringify(params)}`)
  }
  // without a token, an Mcp-Name the server does not know gives no scope hint
  const anonymous = await app.inject(modernRequest('tools/call', { name: 'nope', arguments: {} }))
  t.equal(anonymous.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}"`)
})
