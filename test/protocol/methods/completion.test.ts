// completion/complete in both eras: prompt arguments, resource template variables and (the server's
// extension, ref/tool) tool arguments, the 100-value cap, an empty answer when nothing completes,
// and every error (-32602 for an unknown prompt, template, tool or argument and for malformed
// params; -32603 for a callback that fails; an app-only tool refused as its call is).
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, ProtocolError, StringEnum, TOOL_COMPLETION_EXTENSION } from '../../../lib/index.js'
import { build } from '../../helpers/app.js'
import { openSession, modernMeta, modernPost, send, sessionPost } from '../../helpers/requests.js'
import { captureLog } from '../../helpers/logs.js'
import { createClient, type Client } from '../../../lib/client/index.js'

const SECRET = 'password=hunter2'
const LANGUAGES = ['python', 'perl', 'php', 'typescript']
const log = captureLog()
let app: FastifyInstance
let session: string
let clients: { modern: Client, legacy: Client }
const contexts: unknown[] = []

t.before(async () => {
  app = await build({}, { logger: log.logger })
  app.registerPrompt({
    name: 'code_review',
    args: { language: Type.String(), framework: Type.Optional(Type.String()), plain: Type.Optional(Type.String()) },
    get: ({ language }) => language,
    complete (arg, partial, ctx) {
      contexts.push({ arg, partial, arguments: ctx.arguments, era: ctx.era })
      if (arg === 'language') return LANGUAGES.filter((l) => l.startsWith(partial))
      if (arg === 'framework') return { values: ['flask', 'fastapi'].filter((f) => f.startsWith(partial)), total: 2, hasMore: false }
      return []
    }
  })
  app.registerPrompt({ name: 'no_complete', args: { x: Type.String() }, get: () => 'x' })
  app.registerPrompt({ name: 'many', args: { n: Type.String() }, get: () => 'x', complete: () => Array.from({ length: 150 }, (_, i) => `v${i}`) })
  app.registerPrompt({ name: 'many_total', args: { n: Type.String() }, get: () => 'x', complete: async () => ({ values: Array.from({ length: 101 }, (_, i) => `v${i}`), total: 5000 }) })
  app.registerPrompt({ name: 'fail_throw', args: { a: Type.String() }, get: () => 'x', complete: () => { throw new Error(SECRET) } })
  app.registerPrompt({ name: 'fail_values', args: { a: Type.String() }, get: () => 'x', complete: () => [1, 2] as any })
  app.registerPrompt({ name: 'fail_total', args: { a: Type.String() }, get: () => 'x', complete: () => ({ values: [], total: -1 }) })
  app.registerPrompt({ name: 'fail_more', args: { a: Type.String() }, get: () => 'x', complete: () => ({ values: [], hasMore: 'yes' }) as any })
  app.registerPrompt({ name: 'no_args', get: () => 'x' })
  app.registerPrompt({ name: 'protocol', args: { a: Type.String() }, get: () => 'x', complete: () => { throw new ProtocolError(-32602, 'Invalid params: not completable now') } })
  app.registerResource({ uriTemplate: 'users://{org}/{id}', name: 'user', read: () => 'u', complete: (variable, partial) => variable === 'org' ? ['acme', 'apex'].filter((o) => o.startsWith(partial)) : [`${partial}1`] })
  app.registerResource({ uriTemplate: 'plain://{x}', name: 'plain', read: () => 'p' })
  app.registerResource({ uri: 'config://app', name: 'config', read: () => 'c' })
  app.registerTool({
    name: 'deploy',
    // a header argument: a completion naming the tool sends no Mcp-Param-* (only its call mirrors arguments)
    args: { service: Type.String({ header: 'Service' }), env: Type.Optional(StringEnum(['staging', 'production'])), replicas: Type.Optional(Type.Integer()) },
    execute: ({ service }) => service,
    complete (arg, partial, ctx) {
      contexts.push({ arg, partial, arguments: ctx.arguments, era: ctx.era })
      if (arg === 'service') return ['api', 'auth', 'billing'].filter((s) => s.startsWith(partial))
      if (arg === 'env') return { values: ['staging', 'production'], total: 2, hasMore: false }
      return []
    }
  })
  app.registerTool({ name: 'no_complete_tool', args: { x: Type.String() }, execute: () => 'x' })
  app.registerTool({ name: 'raw_tool', input: { type: 'object' }, execute: () => 'x', complete: () => ['never'] })
  app.registerTool({ name: 'many_tool', args: { n: Type.String() }, execute: () => 'x', complete: () => Array.from({ length: 250 }, (_, i) => `t${i}`) })
  app.registerTool({ name: 'fail_tool', args: { a: Type.String() }, execute: () => 'x', complete: () => { throw new Error(SECRET) } })
  app.registerTool({ name: 'app_only', args: { a: Type.String() }, visibility: ['app'], execute: () => 'x', complete: () => ['a1'] })
  await app.ready()
  session = await openSession(app, '2025-11-25')
  // the feature tests go through the package's client; the error tests below stay on the wire
  clients = { modern: createClient({ app, era: 'modern' }), legacy: createClient({ app, era: 'legacy' }) }
})
t.teardown(async () => {
  await clients.legacy.close()
  await app.close()
})

const modern = (params: Record<string, unknown>, id: number | string = 'c') =>
  modernPost({ jsonrpc: '2.0', id, method: 'completion/complete', params: { ...params, _meta: modernMeta() } })
const legacy = (params: Record<string, unknown>, id: number | string = 'L') =>
  sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id, method: 'completion/complete', params })
const prompt = (name: string, arg: string, value: string, context?: unknown) =>
  ({ ref: { type: 'ref/prompt', name }, argument: { name: arg, value }, ...(context === undefined ? {} : { context }) })

t.test('a prompt argument: values from complete(), with context arguments', async (t) => {
  contexts.length = 0
  // the raw answer once: a 2026-07-28 completion result is not cacheable
  const res = await send(app, modern(prompt('code_review', 'language', 'p', { arguments: { framework: 'flask' } }), 'c1'))
  t.equal(res.status, 200)
  t.equal(res.body.id, 'c1')
  t.same(res.body.result, {
    resultType: 'complete',
    completion: { values: ['python', 'perl', 'php'] },
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'test-server', version: '1.0.0' } }
  })
  t.notOk('ttlMs' in res.body.result, 'not a cacheable result')
  t.same(contexts, [{ arg: 'language', partial: 'p', arguments: { framework: 'flask' }, era: 'modern' }])

  const legacyRes = await clients.legacy.complete({ type: 'ref/prompt', name: 'code_review' }, { name: 'framework', value: 'f' })
  t.same(legacyRes, { completion: { values: ['flask', 'fastapi'], total: 2, hasMore: false } }, 'total and hasMore as given')
  t.same(contexts[1], { arg: 'framework', partial: 'f', arguments: {}, era: 'legacy' })
})

t.test('a resource template variable', async (t) => {
  const ref = { type: 'ref/resource', uri: 'users://{org}/{id}' } as const
  t.same((await clients.modern.complete(ref, { name: 'org', value: 'a' })).completion, { values: ['acme', 'apex'] })
  t.same((await clients.legacy.complete(ref, { name: 'id', value: '4' }, { org: 'acme' })).completion, { values: ['41'] })
})

t.test('no complete() callback: empty values', async (t) => {
  t.same((await clients.modern.complete({ type: 'ref/prompt', name: 'no_complete' }, { name: 'x', value: '' })).completion, { values: [] })
  t.same(await clients.legacy.complete({ type: 'ref/resource', uri: 'plain://{x}' }, { name: 'x', value: 'a' }), { completion: { values: [] } })
  t.same((await clients.modern.complete({ type: 'ref/prompt', name: 'code_review' }, { name: 'plain', value: 'z' })).completion, { values: [] }, 'a callback may answer nothing')
})

t.test('over 100 values: the first 100, hasMore, and the total', async (t) => {
  const many = (await clients.modern.complete({ type: 'ref/prompt', name: 'many' }, { name: 'n', value: '' })).completion
  t.equal(many.values.length, 100)
  t.equal(many.values[99], 'v99')
  t.equal(many.hasMore, true)
  t.equal(many.total, 150, 'the count of what complete() returned')
  const total = (await clients.legacy.complete({ type: 'ref/prompt', name: 'many_total' }, { name: 'n', value: '' })).completion
  t.equal(total.values.length, 100)
  t.equal(total.total, 5000, 'a total given is kept')
  t.equal(total.hasMore, true)
})

t.test('unknown prompt, template or argument: -32602 in both eras', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [prompt('nope', 'x', ''), 'Unknown prompt: nope'],
    [{ ref: { type: 'ref/resource', uri: 'nope://{x}' }, argument: { name: 'x', value: '' } }, 'Unknown resource template: nope://{x}'],
    [{ ref: { type: 'ref/resource', uri: 'config://app' }, argument: { name: 'x', value: '' } }, 'Unknown resource template: config://app'],
    [prompt('code_review', 'lang', ''), "Invalid params: prompt 'code_review' has no argument 'lang'; its arguments are language, framework, plain"],
    [prompt('no_args', 'x', ''), "Invalid params: prompt 'no_args' has no argument 'x'"],
    [{ ref: { type: 'ref/resource', uri: 'users://{org}/{id}' }, argument: { name: 'name', value: '' } }, "Invalid params: resource template 'users://{org}/{id}' has no argument 'name'; its arguments are org, id"]
  ]
  for (const [params, message] of cases) {
    const m = await send(app, modern(params, 'e'))
    t.equal(m.status, 200)
    t.equal(m.body.id, 'e')
    t.same(m.body.error, { code: -32602, message })
    const l = await send(app, legacy(params))
    t.same(l.body.error, { code: -32602, message })
  }
})

t.test('malformed params: -32602 saying what is expected', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ argument: { name: 'x', value: '' } }, 'Invalid params: completion/complete needs "ref", { type: "ref/prompt", name }, { type: "ref/resource", uri } or { type: "ref/tool", name }, got nothing'],
    [{ ref: 'x', argument: { name: 'x', value: '' } }, 'Invalid params: completion/complete needs "ref", { type: "ref/prompt", name }, { type: "ref/resource", uri } or { type: "ref/tool", name }, got "x"'],
    [{ ref: { type: 'ref/tools', name: 'x' }, argument: { name: 'x', value: '' } }, 'Invalid params: "ref.type" must be "ref/prompt", "ref/resource" or "ref/tool", got "ref/tools"'],
    [{ ref: { type: 5 }, argument: { name: 'x', value: '' } }, 'Invalid params: "ref.type" must be "ref/prompt", "ref/resource" or "ref/tool", got a number'],
    [{ ref: { name: 'x' }, argument: { name: 'x', value: '' } }, 'Invalid params: "ref.type" must be "ref/prompt", "ref/resource" or "ref/tool", got nothing'],
    [{ ref: { type: 'ref/tool' }, argument: { name: 'x', value: '' } }, 'Invalid params: a ref/tool needs "name", the tool, as a string'],
    [{ ref: { type: 'ref/tool', name: 'deploy' }, argument: { name: 'service', value: 1 } }, 'Invalid params: completion/complete needs "argument" as { name, value } with string values'],
    [{ ref: { type: 'ref/prompt' }, argument: { name: 'x', value: '' } }, 'Invalid params: a ref/prompt needs "name", the prompt, as a string'],
    [{ ref: { type: 'ref/resource', uri: 1 }, argument: { name: 'x', value: '' } }, 'Invalid params: a ref/resource needs "uri", the resource template, as a string'],
    [{ ref: { type: 'ref/prompt', name: 'code_review' } }, 'Invalid params: completion/complete needs "argument" as { name, value } with string values'],
    [{ ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 3 } }, 'Invalid params: completion/complete needs "argument" as { name, value } with string values'],
    [prompt('code_review', 'language', '', 'x'), 'Invalid params: "context" must be { arguments: { name: value } } with string values'],
    [prompt('code_review', 'language', '', { arguments: { a: 1 } }), 'Invalid params: "context" must be { arguments: { name: value } } with string values'],
    [prompt('code_review', 'language', '', { arguments: [] }), 'Invalid params: "context" must be { arguments: { name: value } } with string values']
  ]
  for (const [params, message] of cases) {
    const m = await send(app, modern(params))
    t.same(m.body.error, { code: -32602, message }, message)
  }
  t.same((await send(app, modern(prompt('code_review', 'language', 'ty', {})))).body.result.completion, { values: ['typescript'] }, 'context without arguments is none')
})

t.test('a ProtocolError thrown by complete() is sent as it is', async (t) => {
  const res = await send(app, modern(prompt('protocol', 'a', '')))
  t.same(res.body.error, { code: -32602, message: 'Invalid params: not completable now' })
})

t.test('a callback that fails: -32603, generic, logged', async (t) => {
  for (const name of ['fail_throw', 'fail_values', 'fail_total', 'fail_more']) {
    const before = log.errors().length
    const m = await send(app, modern(prompt(name, 'a', '')))
    t.equal(m.status, 200)
    t.same(m.body.error, { code: -32603, message: `Internal error: completion for prompt '${name}' failed` })
    t.notMatch(m.raw, /hunter2/)
    const l = await send(app, legacy(prompt(name, 'a', '')))
    t.same(l.body.error, m.body.error)
    t.equal(log.errors().length, before + 2)
  }
  t.match(log.errors()[0], { completing: "prompt 'fail_throw'", argument: 'a', err: { message: SECRET } })
})

const tool = (name: string, arg: string, value: string, context?: unknown) =>
  ({ ref: { type: 'ref/tool', name }, argument: { name: arg, value }, ...(context === undefined ? {} : { context }) })

t.test('a tool argument (ref/tool): values from the tool\'s complete(), with context arguments, in both eras', async (t) => {
  contexts.length = 0
  // no Mcp-Param-Service: the Mcp-* headers of a completion are Mcp-Method alone, whatever it names
  const res = await send(app, modern(tool('deploy', 'service', 'a', { arguments: { env: 'staging' } }), 't1'))
  t.equal(res.status, 200)
  t.same(res.body.result, {
    resultType: 'complete',
    completion: { values: ['api', 'auth'] },
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'test-server', version: '1.0.0' } }
  })
  t.same(contexts, [{ arg: 'service', partial: 'a', arguments: { env: 'staging' }, era: 'modern' }])
  const mirrored = await send(app, modernPost({ jsonrpc: '2.0', id: 2, method: 'completion/complete', params: { ...tool('deploy', 'service', 'b'), _meta: modernMeta() } }, { 'mcp-param-service': 'api' }))
  t.same(mirrored.body.result.completion, { values: ['billing'] }, 'an Mcp-Param-* header is no argument of a completion: not checked')
  const legacyRes = await send(app, legacy(tool('deploy', 'env', '')))
  t.same(legacyRes.body.result, { completion: { values: ['staging', 'production'], total: 2, hasMore: false } }, 'total and hasMore as given')
  t.same(contexts.at(-1), { arg: 'env', partial: '', arguments: {}, era: 'legacy' })
  // nothing to declare: a client that declares the extension anyway is served the same
  const declared = modernMeta({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TOOL_COMPLETION_EXTENSION]: {} } } })
  const withDeclaration = await send(app, modernPost({ jsonrpc: '2.0', id: 3, method: 'completion/complete', params: { ...tool('deploy', 'service', 'au'), _meta: declared } }))
  t.same(withDeclaration.body.result.completion, { values: ['auth'] })
  // the package's client sends ref/tool too
  t.same((await clients.modern.complete({ type: 'ref/tool', name: 'deploy' }, { name: 'service', value: 'b' })).completion, { values: ['billing'] })
  t.same((await clients.legacy.complete({ type: 'ref/tool', name: 'deploy' }, { name: 'replicas', value: '' }, { service: 'api' })).completion, { values: [] })
})

t.test('a tool without complete() answers no values; over 100 values are capped', async (t) => {
  t.same((await clients.modern.complete({ type: 'ref/tool', name: 'no_complete_tool' }, { name: 'x', value: '' })).completion, { values: [] })
  const many = (await clients.legacy.complete({ type: 'ref/tool', name: 'many_tool' }, { name: 'n', value: '' })).completion
  t.equal(many.values.length, 100)
  t.same([many.values[0], many.values[99], many.total, many.hasMore], ['t0', 't99', 250, true])
})

t.test('an unknown tool or argument: -32602 in both eras; a failing complete(): -32603, generic, logged', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [tool('nope', 'x', ''), 'Unknown tool: nope'],
    [tool('deploy', 'region', ''), "Invalid params: tool 'deploy' has no argument 'region'; its arguments are service, env, replicas"],
    [tool('raw_tool', 'q', ''), "Invalid params: tool 'raw_tool' has no argument 'q'"]
  ]
  for (const [params, message] of cases) {
    const m = await send(app, modern(params, 'e'))
    t.equal(m.status, 200)
    t.same(m.body.error, { code: -32602, message })
    t.same((await send(app, legacy(params))).body.error, { code: -32602, message })
  }
  const before = log.errors().length
  const failed = await send(app, modern(tool('fail_tool', 'a', '')))
  t.equal(failed.status, 200, 'a JSON-RPC error, never a 500')
  t.same(failed.body.error, { code: -32603, message: "Internal error: completion for tool 'fail_tool' failed" })
  t.notMatch(failed.raw, /hunter2/)
  t.same((await send(app, legacy(tool('fail_tool', 'a', '')))).body.error, failed.body.error)
  t.equal(log.errors().length, before + 2)
  t.match(log.errors()[before], { completing: "tool 'fail_tool'", argument: 'a', err: { message: SECRET } })
})

t.test('an app-only tool: completed only for a client with MCP Apps, refused as its call is', async (t) => {
  const refused = await send(app, modern(tool('app_only', 'a', '')))
  t.equal(refused.status, 400)
  t.equal(refused.body.error.code, -32021)
  t.match(refused.body.error.message, /called only by an MCP App/)
  t.same((await send(app, legacy(tool('app_only', 'a', '')))).body.error.code, -32602)
  const apps = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } }
  const allowed = await send(app, modernPost({ jsonrpc: '2.0', id: 1, method: 'completion/complete', params: { ...tool('app_only', 'a', ''), _meta: modernMeta(apps) } }))
  t.same(allowed.body.result.completion, { values: ['a1'] })
})

t.test('the extension is advertised when a tool completes, in server/discover and initialize', async (t) => {
  const discover = await send(app, modernPost({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } }))
  t.same(discover.body.result.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/ui': {}, [TOOL_COMPLETION_EXTENSION]: {} })
  t.equal(TOOL_COMPLETION_EXTENSION, 'io.github.fastify-sake/tool-completion')
  t.same((await clients.legacy.discover()).capabilities.extensions, { 'io.modelcontextprotocol/ui': {}, [TOOL_COMPLETION_EXTENSION]: {} })

  // a server whose tools do not complete does not advertise it, yet answers ref/tool (empty values)
  const plain = await build()
  plain.registerTool({ name: 'echo', args: { x: Type.String() }, execute: ({ x }) => x })
  plain.registerPrompt({ name: 'p', get: () => 'x', complete: () => ['y'] })
  await plain.ready()
  t.teardown(() => plain.close())
  const plainDiscover = await send(plain, modernPost({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } }))
  t.same(plainDiscover.body.result.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} })
  const plainLegacy = createClient({ app: plain, era: 'legacy' })
  t.teardown(() => plainLegacy.close())
  t.equal((await plainLegacy.discover()).capabilities.extensions, undefined)
  t.same((await plainLegacy.complete({ type: 'ref/tool', name: 'echo' }, { name: 'x', value: '' })).completion, { values: [] })
})
