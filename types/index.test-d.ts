// Type tests: compiled by `npm run test:types` (tsc --noEmit) against the built package, so they
// check the published declarations. Each `@ts-expect-error` must stay an error: if inference
// broke (say, an argument became `any`), the directive would go unused and the build fails.
import Fastify, { type FastifyRequest } from 'fastify'
import sake, {
  Type, StringEnum, defineTool, text, image, withMeta, toolError, ToolError,
  SakeError, SakeOptionError, errorCodes,
  type ToolContext, type ToolDefinition, type DefinedTool, type McpView, type SessionStore, type Session
} from 'fastify-sake'
import { definePrompt, defineResource, userMessage, assistantMessage, type DefinedPrompt } from 'fastify-sake'
import { AuthorizationError, mcpScopes, type AuthInfo, type Caller, type ScopeInfo, type AppScopeInfo, type ServerScopeInfo, type StdioHandle, type StdioOptions } from 'fastify-sake'

/** Fails to compile unless T is exactly Expected. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
function expectType<Expected> () {
  return <T>(value: T & (Equal<T, Expected> extends true ? unknown : never)): void => { void value }
}

const app = Fastify()
await app.register(sake, { name: 'types', version: '1.0.0' })

// @ts-expect-error name and version are required
await app.register(sake, { path: '/x' })
// @ts-expect-error ttl is a number of milliseconds
await app.register(sake, { name: 'x', version: '1', ttl: '5m' })
// the options' types come from their declarations (issue 42): groups, unions and Fastify's own register options
await app.register(sake, {
  name: 'x',
  version: '1',
  prefix: '/ai',
  logLevel: 'warn',
  sessions: { idleTimeout: 60_000, maxPerCaller: 5 },
  streams: { maxBuffered: 4096 },
  redis: { url: 'redis://127.0.0.1:6379', deadAfter: 10_000 },
  requestState: { keys: ['a'.repeat(44), new Uint8Array(32)] },
  allowedOrigins: 'cors',
  skills: { directory: new URL('file:///skills'), directoryRead: false }
})
await app.register(sake, { name: 'x', version: '1', redis: 'redis://127.0.0.1:6379' })
// @ts-expect-error a session bound is a number
await app.register(sake, { name: 'x', version: '1', sessions: { maxSessions: '10' } })
// @ts-expect-error the heartbeat is a number of milliseconds
await app.register(sake, { name: 'x', version: '1', redis: { url: 'redis://x', heartbeat: true } })
// @ts-expect-error Fastify's logLevel is one of its levels
await app.register(sake, { name: 'x', version: '1', logLevel: 'loud' })

// ---- args are inferred from `args`
app.registerTool({
  name: 'add',
  args: {
    a: Type.Number(),
    b: Type.Number(),
    precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, header: 'Precision' })),
    tags: Type.Array(Type.String()),
    status: StringEnum(['open', 'closed']),
    address: Type.Object({ city: Type.String(), zip: Type.Optional(Type.String()) })
  },
  execute ({ a, b, precision, tags, status, address }, ctx) {
    expectType<number>()(a)
    expectType<number>()(b)
    expectType<number | undefined>()(precision)
    expectType<string[]>()(tags)
    expectType<'open' | 'closed'>()(status)
    expectType<string>()(address.city)
    expectType<string | undefined>()(address.zip)
    expectType<ToolContext>()(ctx)
    expectType<AbortSignal>()(ctx.signal)
    expectType<'modern' | 'legacy'>()(ctx.era)
    // @ts-expect-error a is a number, not a string
    const wrong: string = a
    // @ts-expect-error no such argument
    void (arguments[0] as { a: number }).nope
    void wrong
    return a + b
  }
})

app.registerTool({
  name: 'wrong_destructure',
  args: { a: Type.Number() },
  // @ts-expect-error 'b' is not an argument of this tool
  execute ({ b }) { return b }
})

// ---- output types what execute may return
app.registerTool({
  name: 'sum',
  args: { a: Type.Number() },
  output: { sum: Type.Number() },
  execute ({ a }) { return { sum: a } }
})
app.registerTool({
  name: 'sum_meta',
  output: { sum: Type.Number() },
  execute () { return withMeta({ sum: 1 }, { 'example.com/trace': 'x' }) }
})
app.registerTool({
  name: 'sum_error',
  output: { sum: Type.Number() },
  execute () { return toolError('no sum today') }
})
// output says sum is a number: the error is reported where the value is, naming the property
// ("Type 'string' is not assignable to type 'number'"), not as a missing brand on the call
app.registerTool({
  name: 'sum_wrong',
  output: { sum: Type.Number() },
  // @ts-expect-error sum is a string here
  execute () { return { sum: 'one' } }
})
app.registerTool({
  name: 'whole_output',
  output: Type.Array(Type.Number()),
  execute: () => [1, 2, 3]
})

// ---- without output, anything goes: text, JSON values, content blocks
app.registerTool({ name: 'free', execute: () => [text('a'), image('AAAA', 'image/png')] })

// ---- input: a whole TypeBox schema types the arguments too
app.registerTool({
  name: 'whole_input',
  input: Type.Object({ q: Type.String(), limit: Type.Optional(Type.Integer()) }),
  execute ({ q, limit }) {
    expectType<string>()(q)
    expectType<number | undefined>()(limit)
    return q
  }
})

// ---- input: a plain JSON Schema leaves the arguments untyped but safe
app.registerTool({
  name: 'raw_input',
  input: { type: 'object', properties: { q: { type: 'string' } } },
  execute (args) {
    expectType<Record<string, unknown>>()(args)
    return 'ok'
  }
})

// ---- defineTool keeps the same inference and feeds registerTool, alone or in arrays
const echo = defineTool({
  name: 'echo',
  args: { text: Type.String() },
  execute ({ text }) {
    expectType<string>()(text)
    return text
  }
})
defineTool({
  name: 'bad',
  args: { text: Type.String() },
  // @ts-expect-error text is a string
  execute ({ text }) { const n: number = text; return n }
})
expectType<DefinedTool>()(echo)
app.registerTool(echo)
app.registerTool([echo, echo])
await Fastify().register(sake, { name: 'x', version: '1', tools: [echo] })
const untyped: ToolDefinition = { name: 'untyped', execute: (args: any) => args.whatever }
// @ts-expect-error a definition that skipped defineTool's inference is not accepted
app.registerTool([untyped])
// @ts-expect-error nor in the tools option
await Fastify().register(sake, { name: 'x', version: '1', tools: [untyped] })

// ---- complete: `arg` is one of the tool's argument names, from `args` or a whole TypeBox `input`
app.registerTool({
  name: 'deploy',
  args: { service: Type.String(), env: StringEnum(['staging', 'production']) },
  execute ({ service, env }) { return `${service} to ${env}` },
  complete (arg, partial, ctx) {
    expectType<'service' | 'env'>()(arg)
    expectType<string>()(partial)
    expectType<Readonly<Record<string, string>>>()(ctx.arguments)
    // @ts-expect-error 'region' is not an argument of this tool
    if (arg === 'region') return []
    return arg === 'env' ? { values: ['staging', 'production'], total: 2, hasMore: false } : [partial]
  }
})
app.registerTool({
  name: 'search',
  input: Type.Object({ q: Type.String(), limit: Type.Optional(Type.Integer()) }),
  execute: ({ q }) => q,
  complete: async (arg) => { expectType<'q' | 'limit'>()(arg); return [arg] }
})
app.registerTool({
  name: 'raw_complete',
  input: { type: 'object', properties: { q: { type: 'string' } } },
  execute: () => 'x',
  complete: (arg) => { expectType<string>()(arg); return [] }
})
const completing = defineTool({ name: 'completing', args: { a: Type.String() }, execute: ({ a }) => a, complete: (arg) => { expectType<'a'>()(arg); return [] } })
app.registerTool([completing, echo])
// @ts-expect-error complete returns strings
app.registerTool({ name: 'bad_complete', args: { a: Type.String() }, execute: () => 'x', complete: () => [1] })

// @ts-expect-error execute is required
app.registerTool({ name: 'no_execute' })
// @ts-expect-error annotations are booleans
app.registerTool({ name: 'bad_hint', annotations: { readOnly: 'yes' }, execute: () => '' })

// ---- the view and the errors
expectType<McpView>()(app.mcp)
expectType<number>()(app.mcp.tools.size)
// @ts-expect-error the view is read-only
app.mcp.tools.set('x', { name: 'x' })
expectType<string>()(new SakeOptionError('x').code)
const sakeErr: SakeError = new SakeOptionError('x')
void sakeErr
expectType<typeof SakeOptionError>()(errorCodes.SAKE_ERR_INVALID_OPTION)
// @ts-expect-error not a code
void errorCodes.SAKE_ERR_NOPE
void new ToolError('x')

// ---- a custom session store fits the interface
class MyStore implements SessionStore {
  private readonly map = new Map<string, Session>()
  async get (id: string) { return this.map.get(id) }
  async set (session: Session) { this.map.set(session.id, session) }
  async delete (id: string) { this.map.delete(id) }
}
await Fastify().register(sake, { name: 'x', version: '1', sessions: { store: new MyStore(), idleTimeout: 1000 } })

// ---- prompts: `get` sees its arguments typed from `args` (strings; Optional → | undefined)
app.registerPrompt({
  name: 'code_review',
  args: {
    code: Type.String({ description: 'The code' }),
    language: Type.Optional(StringEnum(['python', 'typescript'])),
    focus: Type.Optional(Type.String())
  },
  get ({ code, language, focus }, ctx) {
    expectType<string>()(code)
    expectType<'python' | 'typescript' | undefined>()(language)
    expectType<string | undefined>()(focus)
    expectType<'modern' | 'legacy'>()(ctx.era)
    // @ts-expect-error code is a string
    const n: number = code
    void n
    return [userMessage(code), assistantMessage(text('ok'))]
  },
  complete (argument, partial, ctx) {
    expectType<string>()(argument)
    expectType<string>()(partial)
    expectType<Readonly<Record<string, string>>>()(ctx.arguments)
    return { values: [partial], hasMore: false }
  }
})
app.registerPrompt({
  name: 'wrong_arg',
  args: { code: Type.String() },
  // @ts-expect-error 'lang' is not an argument of this prompt
  get: ({ lang }) => lang
})
// @ts-expect-error prompt arguments are strings: a number schema is refused
app.registerPrompt({ name: 'numeric', args: { n: Type.Number() }, get: () => 'x' })
// @ts-expect-error get returns a string, messages, or { description, messages }
app.registerPrompt({ name: 'bad_return', get: () => 42 })
const review = definePrompt({ name: 'review', args: { code: Type.String() }, get: ({ code }) => ({ description: 'd', messages: [userMessage(code)] }) })
expectType<DefinedPrompt>()(review)
app.registerPrompt([review, review])
await Fastify().register(sake, { name: 'x', version: '1', prompts: [review] })

// ---- resources: a template's variables are typed from the template
app.registerResource({
  uriTemplate: 'users://{org}/{+path}',
  name: 'files',
  read (uri, { org, path }, ctx) {
    expectType<string>()(uri)
    expectType<string>()(org)
    expectType<string>()(path)
    expectType<string | number>()(ctx.requestId)
    return [{ text: org }, { blob: new Uint8Array([1]), mimeType: 'application/octet-stream' }]
  },
  complete: (variable, partial) => [variable, partial]
})
app.registerResource({
  uriTemplate: 'users://{id}',
  name: 'user',
  // @ts-expect-error 'name' is not a variable of this template
  read: (_uri, { name }) => name
})
app.registerResource({ uri: 'config://app', name: 'config', read: () => Buffer.from('x') })
// @ts-expect-error a fixed resource has no completion
app.registerResource({ uri: 'config://x', name: 'x', read: () => 'x', complete: () => [] })
// @ts-expect-error read returns text, bytes or contents objects
app.registerResource({ uri: 'config://y', name: 'y', read: () => 42 })
const profile = defineResource({ uriTemplate: 'profiles://{id}', name: 'profile', read: (_uri, { id }) => id })
app.registerResource([profile, { uri: 'config://z', name: 'z', read: () => 'z' }])
await Fastify().register(sake, { name: 'x', version: '1', resources: [profile] })
expectType<number>()(app.mcp.resources.size)
expectType<number>()(app.mcp.templates.size)
expectType<number>()(app.mcp.prompts.size)

// ---- questions to the client: form content follows the schema; outcomes are a union on `action`
app.registerTool({
  name: 'ask',
  async execute (_args, ctx) {
    const who = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String(), age: Type.Optional(Type.Integer()) }))
    if (who.action === 'accept') {
      expectType<string>()(who.content.name)
      expectType<number | undefined>()(who.content.age)
      // @ts-expect-error no such field in the schema
      void who.content.email
    } else {
      expectType<'decline' | 'cancel' | 'unsupported'>()(who.action)
      // @ts-expect-error only an accepted form has content
      void who.content
    }
    const plain = await ctx.elicit.form('p', 'P?', { type: 'object', properties: { x: { type: 'string' } } })
    if (plain.action === 'accept') expectType<Record<string, unknown>>()(plain.content)
    // a form offering the handler's own completions keeps its content type
    const picked = await ctx.elicit.form('pick', 'Which?', Type.Object({ service: Type.String() }), { complete: ['service'] })
    if (picked.action === 'accept') expectType<string>()(picked.content.service)
    // @ts-expect-error complete lists property names
    await ctx.elicit.form('pick', 'Which?', Type.Object({ service: Type.String() }), { complete: 'service' })
    const sampled = await ctx.sample('s', { messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 })
    if (sampled.action === 'accept') expectType<string>()(sampled.message.model)
    // @ts-expect-error maxTokens is required
    await ctx.sample('s', { messages: [] })
    const roots = await ctx.roots('r')
    if (roots.action === 'accept') expectType<string>()(roots.roots[0]!.uri)
    const link = await ctx.elicit.url('u', 'Open', 'https://example.com')
    expectType<'accept' | 'decline' | 'cancel' | 'unsupported'>()(link.action)
    return 'ok'
  }
})

// ---- prepare: execute's arguments are what prepare returns
app.registerTool({
  name: 'prepared',
  args: { repo: Type.String() },
  async prepare ({ repo }, ctx) {
    expectType<string>()(repo)
    const sure = await ctx.elicit.form('c', 'Sure?', Type.Object({ yes: Type.Boolean() }))
    if (sure.action !== 'accept') return toolError('kept')
    return { repo, confirmed: sure.content.yes }
  },
  execute (args) {
    expectType<{ repo: string, confirmed: boolean }>()(args)
    // @ts-expect-error prepare returned no such field
    void args.force
    return args.repo
  }
})
defineTool({
  name: 'prepared_defined',
  input: Type.Object({ n: Type.Number() }),
  prepare: ({ n }) => ({ doubled: n * 2 }),
  execute: ({ doubled }) => { expectType<number>()(doubled); return doubled }
})
// without prepare, execute still gets the schema's type
defineTool({ name: 'unprepared', args: { n: Type.Number() }, execute: ({ n }) => { expectType<number>()(n); return n } })
// a prompt's get and a resource's read can ask too
definePrompt({ name: 'p_asks', get: async (_args, ctx) => { const r = await ctx.roots('r'); return r.action } })

// ---- requestState and inputTimeout options
await app.register(sake, { name: 'x', version: '1', requestState: { keys: ['a', new Uint8Array(32)], ttl: 1000 }, inputTimeout: 5000 })
// @ts-expect-error keys are strings or bytes
await app.register(sake, { name: 'x', version: '1', requestState: { keys: [1] } })
// ---- allowedHosts and allowedOrigins: lists, false, 'cors', or a synchronous function of the origin and the request
await Fastify().register(sake, { name: 'x', version: '1', allowedHosts: ['localhost'], allowedOrigins: ['https://app.example.com'] })
await Fastify().register(sake, { name: 'x', version: '1', allowedHosts: false, allowedOrigins: 'cors' })
await Fastify().register(sake, {
  name: 'x',
  version: '1',
  allowedOrigins: (origin, request) => { expectType<string>()(origin); expectType<string>()(request.url); return origin.endsWith('.example.com') }
})
// @ts-expect-error the check is synchronous: an async function returns a promise, not a boolean
await Fastify().register(sake, { name: 'x', version: '1', allowedOrigins: async (origin: string) => origin === 'https://app.example.com' })
// @ts-expect-error 'cors' is the only string accepted; one origin still goes in an array
await Fastify().register(sake, { name: 'x', version: '1', allowedOrigins: 'https://app.example.com' })
// ---- authorization: the auth and scopes options, scope / authentication, ctx.auth, request.mcpAuth
const secured = Fastify()
await secured.register(sake, {
  name: 'secured',
  version: '1',
  scopes: { 'issues:read': 'Read issues', 'issues:write': 'Change issues' },
  auth: {
    resource: 'https://mcp.example.com/mcp',
    authorizationServers: ['https://auth.example.com'],
    jwks: 'https://auth.example.com/.well-known/jwks.json',
    algorithms: ['ES256'],
    clockTolerance: 10,
    hideForbidden: true,
    metadata: { resource_name: 'Issues' }
  }
})
await Fastify().register(sake, {
  name: 'custom',
  version: '1',
  auth: {
    resource: 'https://mcp.example.com/mcp',
    authorizationServers: ['https://auth.example.com'],
    verify: async (token, request) => {
      expectType<string>()(token)
      expectType<string>()(request.url)
      return { subject: 'alice', scopes: 'issues:read', acr: 'mfa', authTime: 1, expiresAt: 2, claims: {} } satisfies Caller
    }
  }
})
await Fastify().register(sake, {
  name: 'reuse',
  version: '1',
  auth: {
    resource: 'https://mcp.example.com/mcp',
    authorizationServers: ['https://auth.example.com'],
    authenticate: async (request) => { void request.headers },
    caller: (request) => ({ subject: String(request.headers['x-user']) })
  }
})
await Fastify().register(sake, { name: 'off', version: '1', auth: false })
// @ts-expect-error auth is false or an object, never true
await Fastify().register(sake, { name: 'x', version: '1', auth: true })
// @ts-expect-error a verifier returns a caller with a subject
await Fastify().register(sake, { name: 'x', version: '1', auth: { resource: 'r', authorizationServers: [], verify: () => ({ sub: 'alice' }) } })
// @ts-expect-error scope descriptions are strings
await Fastify().register(sake, { name: 'x', version: '1', scopes: { 'issues:read': true } })

secured.registerTool({
  name: 'close_issue',
  scope: ['issues:read', 'issues:write'],
  authentication: { acr: ['mfa'], maxAge: 300 },
  args: { id: Type.Integer() },
  execute ({ id }, ctx) {
    expectType<AuthInfo | undefined>()(ctx.auth)
    expectType<string | undefined>()(ctx.auth?.subject)
    expectType<readonly string[] | undefined>()(ctx.auth?.scopes)
    // undefined over stdio, where no HTTP request carries the call
    expectType<FastifyRequest | undefined>()(ctx.request)
    expectType<AuthInfo | null | undefined>()(ctx.request?.mcpAuth)
    return `closed ${id}`
  }
})
// @ts-expect-error scope is a scope name or an array of them
secured.registerTool({ name: 'bad_scope', scope: 5, execute: () => 'x' })
// @ts-expect-error maxAge is a number of seconds
secured.registerTool({ name: 'bad_step_up', authentication: { maxAge: '5m' }, execute: () => 'x' })
secured.registerResource({ uri: 'issues://settings', name: 'settings', scope: 'issues:read', read: (_uri, _vars, ctx) => ctx.auth?.subject ?? 'nobody' })
secured.registerPrompt(definePrompt({ name: 'triage', scope: 'issues:read', get: (_args, ctx) => ctx.auth?.subject ?? 'nobody' }))
// @ts-expect-error step-up is for tools
secured.registerResource({ uri: 'issues://x', name: 'x', authentication: { maxAge: 1 }, read: () => 'x' })
secured.get('/whoami', async (request) => request.mcpAuth?.subject ?? null)
const scopeInfo: ScopeInfo[] = secured.mcp.scopes()
expectType<string>()(scopeInfo[0].description)
expectType<readonly string[]>()(scopeInfo[0].tools)
// the app's catalogue across its servers, from the app or any context of it
const catalogue = mcpScopes(secured)
expectType<AppScopeInfo[]>()(catalogue)
expectType<string>()(catalogue[0].description)
expectType<readonly ServerScopeInfo[]>()(catalogue[0].servers)
expectType<string | null>()(catalogue[0].servers[0].resource)
expectType<string>()(catalogue[0].servers[0].path)
expectType<readonly string[]>()(catalogue[0].servers[0].prompts)
secured.get('/consent', async (request) => mcpScopes(request.server).map(({ scope, description }) => ({ scope, description })))
// @ts-expect-error it takes the Fastify instance
mcpScopes()
// @ts-expect-error a request is not the instance (request.server is)
secured.get('/wrong', async (request) => mcpScopes(request))
// @ts-expect-error the catalogue is read-only
catalogue[0].servers[0].tools.push('x')
const refusal = new AuthorizationError(403, 'Forbidden', 'Bearer error="insufficient_scope"')
expectType<string>()(refusal.challenge)
expectType<number>()(refusal.status)

// ---- traces: the channel's name and its context object (issue 11, item 6)
{
  const { REQUEST_CHANNEL } = await import('fastify-sake')
  expectType<'fastify-sake:request'>()(REQUEST_CHANNEL)
  const onEnd = (ctx: import('fastify-sake').McpRequestTrace): void => {
    expectType<string>()(ctx.method)
    expectType<string | undefined>()(ctx.name)
    expectType<'modern' | 'legacy' | undefined>()(ctx.era)
    expectType<string | number | undefined>()(ctx.id)
    expectType<{ readonly code: number, readonly message: string } | undefined>()(ctx.rpcError)
    expectType<boolean | undefined>()(ctx.isError)
    expectType<string>()(ctx.request.url)
  }
  void onEnd
  await app.register(sake, { name: 'untraced', version: '1', tracing: false })
  // @ts-expect-error tracing is a boolean
  await app.register(sake, { name: 'x', version: '1', tracing: 'off' })
}

// ---- routes as tools: config.mcp on a route (FastifyContextConfig), schema.operationId (issue 12)
{
  const { SakeRouteToolError } = await import('fastify-sake')
  expectType<string>()(new SakeRouteToolError('x').code)
  app.get('/users/:id', { schema: { operationId: 'get_user', summary: 'One user' }, config: { mcp: true } }, async () => ({}))
  app.post('/users', {
    config: {
      mcp: {
        name: 'create_user',
        scope: 'users:write',
        authentication: { acr: ['mfa'] },
        annotations: { idempotent: false },
        rename: { 'querystring.id': 'query_id' },
        header: { region: 'Region' },
        meta: { x: 1 },
        config: { cost: 2 }
      }
    }
  }, async () => ({}))
  app.get('/plain', { config: { mcp: false } }, async () => ({}))
  // a route's config literal is inferred by Fastify's generic (ContextConfig), which accepts extra
  // keys; a config typed as FastifyContextConfig is checked against the augmentation
  const good: import('fastify').FastifyContextConfig = { mcp: { name: 'x', scope: ['a', 'b'] } }
  void good
  // @ts-expect-error config.mcp is true, false or an McpRouteConfig
  const notString: import('fastify').FastifyContextConfig = { mcp: 'yes' }
  // @ts-expect-error an unknown option of config.mcp
  const typo: import('fastify').FastifyContextConfig = { mcp: { nme: 'x' } }
  void notString
  void typo
  // @ts-expect-error a scope is a string or an array of them
  app.get('/bad', { config: { mcp: { name: 'x', scope: 1 } } }, async () => ({}))
  // @ts-expect-error rename maps 'part.field' to an argument name (a string)
  app.get('/bad', { config: { mcp: { name: 'x', rename: { 'body.a': 1 } } } }, async () => ({}))
  app.get('/read', async (request) => {
    const config: import('fastify-sake').McpRouteConfig | boolean | undefined = request.routeOptions.config.mcp
    expectType<'tools/call' | string | undefined>()(request.mcp?.method)
    return config
  })
}

// ---- a definition's config, typed by declaration merging (McpConfig): what request.mcp.config reads
declare module 'fastify-sake' {
  interface McpConfig {
    callsPerMinute?: number
    rateLimit?: { max: number, timeWindow: string }
  }
}
{
  app.registerTool({ name: 'report', config: { callsPerMinute: 2, rateLimit: { max: 2, timeWindow: '1 minute' } }, execute: () => 'x' })
  app.registerPrompt({ name: 'limited_prompt', config: { callsPerMinute: 2 }, get: () => 'x' })
  app.registerResource({ uri: 'config://limited', name: 'limited', config: { callsPerMinute: 2 }, read: () => 'x' })
  app.registerResource({ uriTemplate: 'limited://{id}', name: 'limited', config: { callsPerMinute: 2 }, read: (_uri, { id }) => id })
  app.registerTool(defineTool({ name: 'defined_report', config: { callsPerMinute: 2 }, execute: () => 'x' }))
  app.get('/limited', { config: { mcp: { name: 'limited_route', config: { callsPerMinute: 2 } } } }, async () => ({}))
  // keys nobody declared are still accepted, and read as unknown
  app.registerTool({ name: 'costly', config: { cost: 2 }, execute: () => 'x' })
  // @ts-expect-error a declared key takes its declared type
  app.registerTool({ name: 'bad_limit', config: { callsPerMinute: '2' }, execute: () => 'x' })
  // @ts-expect-error rateLimit is { max, timeWindow }
  app.registerTool({ name: 'bad_limit', config: { rateLimit: { max: 2 } }, execute: () => 'x' })
  // @ts-expect-error the same on a prompt
  app.registerPrompt({ name: 'bad_limit', config: { callsPerMinute: '2' }, get: () => 'x' })
  // @ts-expect-error on a resource
  app.registerResource({ uri: 'config://bad', name: 'bad', config: { callsPerMinute: '2' }, read: () => 'x' })
  // @ts-expect-error on a defined tool
  defineTool({ name: 'bad_limit', config: { callsPerMinute: '2' }, execute: () => 'x' })
  const routeConfig: import('fastify').FastifyContextConfig = {
    // @ts-expect-error on a route tool's config.mcp.config
    mcp: { name: 'bad_limit', config: { callsPerMinute: '2' } }
  }
  void routeConfig
  // @ts-expect-error config is an object
  app.registerTool({ name: 'bad_config', config: 2, execute: () => 'x' })
  // what the host's hooks read: the per-tool rate limit of docs/fastify.md compiles as written
  app.addHook('preHandler', async (request) => {
    const config = request.mcp?.config
    expectType<Readonly<import('fastify-sake').McpConfig> | undefined>()(config)
    expectType<number | undefined>()(config?.callsPerMinute)
    expectType<{ max: number, timeWindow: string } | undefined>()(config?.rateLimit)
    expectType<unknown>()(config?.cost)
    const max: number = request.mcp?.config?.callsPerMinute ?? 1000
    void max
  })
}

// ---- tasks: the tool option, and the store contract a user may implement
{
  app.registerTool({ name: 'as_task', task: 'optional', args: { n: Type.Number() }, execute: ({ n }) => n * 2 })
  app.registerTool({ name: 'task_where_taken', task: true, execute: () => 'x' })
  app.registerTool({ name: 'only_task', task: 'required', execute: () => 'x' })
  // @ts-expect-error task is 'optional', 'required' or true
  app.registerTool({ name: 'bad_task', task: 'sometimes', execute: () => 'x' })
  // @ts-expect-error false is no task: leave the option out
  app.registerTool({ name: 'bad_task2', task: false, execute: () => 'x' })
  // a task tool's prepare still types execute's arguments
  app.registerTool({
    name: 'prepared_task',
    task: 'required',
    args: { id: Type.String() },
    prepare: ({ id }) => ({ id, at: 1 }),
    execute: (args) => { expectType<{ id: string, at: number }>()(args); return args.id }
  })
  const store: import('fastify-sake').TaskStore = new (await import('fastify-sake')).MemoryTaskStore({ maxTasks: 10 })
  await Fastify().register(sake, { name: 'x', version: '1', tasks: { store, ttl: 60_000, maxTtl: 120_000, pollInterval: 500, closeTimeout: 1000 } })
  const record: import('fastify-sake').TaskRecord | undefined = await store.get('id')
  if (record !== undefined) {
    expectType<number>()(record.version)
    expectType<import('fastify-sake').TaskStatus>()(record.status)
  }
  // @ts-expect-error transition compares the version (a number), not a status
  void store.transition('id', 'working', { status: 'completed' })
  // @ts-expect-error maxTasks sizes the in-memory store: a number
  await Fastify().register(sake, { name: 'x', version: '1', tasks: { maxTasks: 'many' } })
  // the option types are exported, for settings built apart from the registration
  const taskOptions: import('fastify-sake').TaskOptions = { maxTasks: 100, ttl: 60_000 }
  const redisOptions: import('fastify-sake').RedisOptions = { url: 'redis://127.0.0.1:6379', prefix: 'app:', timeout: 1000 }
  await Fastify().register(sake, { name: 'x', version: '1', tasks: taskOptions, redis: redisOptions })
  // @ts-expect-error RedisOptions.timeout is a number of milliseconds
  const badRedis: import('fastify-sake').RedisOptions = { url: 'redis://127.0.0.1:6379', timeout: '1s' }
  void badRedis
}

// ---- skills: a folder, a skill in code, a dynamic skill; what read() gets and may return
app.registerSkill({ directory: new URL('./skills', import.meta.url), prefix: 'acme', scope: 'docs:read' })
app.registerSkill({ path: 'acme/refunds', files: { 'SKILL.md': '---\nname: refunds\ndescription: d\n---\n', 'logo.png': new Uint8Array([1]) } })
app.registerSkill({
  path: 'daily',
  resources: 'dynamic',
  frontmatter: { name: 'daily', description: 'd', license: 'MIT' },
  read: (file, ctx) => { expectType<string>()(file); expectType<string>()(ctx.protocolVersion); return file === 'SKILL.md' ? '# d' : undefined },
  list: async () => ['SKILL.md']
})
// @ts-expect-error a dynamic skill's read returns text, bytes, or nothing, not a number
app.registerSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd', description: 'd' }, read: () => 42 })
// @ts-expect-error the frontmatter needs a description
app.registerSkill({ path: 'd', resources: 'dynamic', frontmatter: { name: 'd' }, read: () => '' })
// @ts-expect-error a file is a string or bytes
app.registerSkill({ path: 'x', files: { 'SKILL.md': 3 } })
await Fastify().register(sake, { name: 'x', version: '1', skills: { directory: './skills', maxFileSize: 4096, directoryRead: false, definitions: [{ directory: 'more' }] } })
expectType<ReadonlyMap<string, Readonly<Record<string, unknown>>>>()(app.mcp.skills)

// ---- stdio: the same server to a local host (app.mcp.stdio), its options and its handle
{
  const { PassThrough } = await import('node:stream')
  const handle = await app.mcp.stdio()
  expectType<StdioHandle>()(handle)
  expectType<Promise<void>>()(handle.closed)
  expectType<Promise<void>>()(handle.close())
  const options: StdioOptions = { input: new PassThrough(), output: new PassThrough(), caller: { subject: 'dev', scopes: 'notes:read' }, closeOnEnd: false }
  await app.mcp.stdio(options)
  // @ts-expect-error the caller needs a subject
  await app.mcp.stdio({ caller: { scopes: ['a'] } })
  // @ts-expect-error closeOnEnd is a boolean
  await app.mcp.stdio({ closeOnEnd: 'yes' })
  // @ts-expect-error output is a writable stream, not a path
  await app.mcp.stdio({ output: '/dev/stdout' })
}
