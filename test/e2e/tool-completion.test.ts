// A tool's `complete` with real clients on a real port (the server's extension, ref/tool): the
// 2026-07-28 client and the v1 SDK client send completion/complete as a raw request and get the
// values; an unknown tool or argument, a tool without complete, a complete that throws and a scoped
// tool are JSON-RPC errors or empty answers, never a 500; the 100-value cap; the extension
// advertised in server/discover and initialize; and an elicitation form that offers the tool's own
// values, answered by each client.
import t, { type Test } from 'tap'
import { CompleteResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Type, TOOL_COMPLETION_EXTENSION, toolError } from '../../lib/index.js'
import { build, freePort, listen } from '../helpers/app.js'
import { legacyClient, modernClient } from '../helpers/clients.js'
import { SCOPES, startIssuer } from '../helpers/tokens.js'

const SERVICES = ['api', 'auth', 'billing']

function register (app: Awaited<ReturnType<typeof build>>): void {
  app.registerTool({
    name: 'deploy',
    args: { service: Type.Optional(Type.String()), env: Type.Optional(Type.String()) },
    complete: (arg, partial, ctx) => arg === 'service'
      ? SERVICES.filter((s) => s.startsWith(partial))
      : [`${ctx.arguments.service ?? 'any'}-staging`],
    async execute ({ service }, ctx) {
      if (service !== undefined) return `deployed ${service}`
      const picked = await ctx.elicit.form('pick', 'Which service?', Type.Object({ service: Type.String() }), { complete: ['service'] })
      return picked.action === 'accept' ? `deployed ${picked.content.service}` : toolError(picked.action)
    }
  })
  app.registerTool({ name: 'plain', args: { x: Type.String() }, execute: ({ x }) => x })
  app.registerTool({ name: 'broken', args: { x: Type.String() }, execute: ({ x }) => x, complete: () => { throw new Error('catalogue down') } })
  app.registerTool({ name: 'many', args: { n: Type.String() }, execute: ({ n }) => n, complete: () => Array.from({ length: 120 }, (_, i) => `n${i}`) })
}

async function serve (t: Test): Promise<URL> {
  const app = await build()
  register(app)
  return new URL(await listen(t, app))
}

const ref = (name: string, arg: string, value: string, context?: Record<string, string>): Record<string, unknown> =>
  ({ ref: { type: 'ref/tool', name }, argument: { name: arg, value }, ...(context === undefined ? {} : { context: { arguments: context } }) })

/** A raw completion/complete through either client, as an extension's request is sent. */
type Complete = (params: Record<string, unknown>) => Promise<any>

async function exercise (t: Test, complete: Complete): Promise<void> {
  t.same((await complete(ref('deploy', 'service', 'a'))).completion, { values: ['api', 'auth'] })
  t.same((await complete(ref('deploy', 'env', '', { service: 'api' }))).completion, { values: ['api-staging'] }, 'context arguments reach complete()')
  t.same((await complete(ref('plain', 'x', ''))).completion, { values: [] }, 'a tool without complete(): no values')
  const many = (await complete(ref('many', 'n', ''))).completion
  t.same([many.values.length, many.values[99], many.total, many.hasMore], [100, 'n99', 120, true], 'the spec\'s 100-value cap')
  await t.rejects(complete(ref('nope', 'x', '')), { code: -32602, message: /Unknown tool: nope/ })
  await t.rejects(complete(ref('deploy', 'region', '')), { code: -32602, message: /tool 'deploy' has no argument 'region'; its arguments are service, env/ })
  await t.rejects(complete(ref('broken', 'x', '')), { code: -32603, message: /Internal error: completion for tool 'broken' failed/ })
}

t.test('2026-07-28 client: the extension in server/discover, ref/tool as a raw request', async (t) => {
  const url = await serve(t)
  const { client } = await modernClient(t, url, { name: 'pin', version: '1' })
  t.equal(client.getProtocolEra(), 'modern')
  t.same((client.getServerCapabilities() as any)?.extensions?.[TOOL_COMPLETION_EXTENSION], {}, 'advertised by server/discover')
  await exercise(t, async (params) => await client.request({ method: 'completion/complete', params } as any))
})

t.test('v1 SDK client: the extension at initialize, ref/tool as a raw request', async (t) => {
  const url = await serve(t)
  const { client } = await legacyClient(t, url, { name: 'v1', version: '1' })
  t.same((client.getServerCapabilities() as any)?.extensions, { [TOOL_COMPLETION_EXTENSION]: {} }, 'advertised at initialize')
  await exercise(t, async (params) => await client.request({ method: 'completion/complete', params } as any, CompleteResultSchema))
})

t.test('a scoped tool\'s completions need its scope, with either client', async (t) => {
  const issuer = await startIssuer(t)
  const port = await freePort()
  const url = new URL(`http://127.0.0.1:${port}/mcp`)
  const app = await build({ scopes: SCOPES, auth: { resource: url.href, authorizationServers: [issuer.issuer], jwks: issuer.jwks } })
  app.registerTool({ name: 'close_issue', scope: 'issues:write', args: { id: Type.String() }, execute: ({ id }) => id, complete: () => ['7', '8'] })
  await listen(t, app, { port })
  const reader = await issuer.sign({ sub: 'reader', aud: url.href, scope: 'issues:read' })
  const writer = await issuer.sign({ sub: 'writer', aud: url.href, scope: 'issues:read issues:write' })
  const headers = (token: string): { requestInit: { headers: Record<string, string> } } => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } })

  const legacyReader = (await legacyClient(t, url, { name: 'reader', version: '1' }, { transport: headers(reader) })).client
  await t.rejects(legacyReader.request({ method: 'completion/complete', params: ref('close_issue', 'id', '') } as any, CompleteResultSchema), { code: 403 }, 'the 403 of insufficient_scope')
  const legacyWriter = (await legacyClient(t, url, { name: 'writer', version: '1' }, { transport: headers(writer) })).client
  t.same((await legacyWriter.request({ method: 'completion/complete', params: ref('close_issue', 'id', '') } as any, CompleteResultSchema)).completion.values, ['7', '8'])

  const modernReader = (await modernClient(t, url, { name: 'reader', version: '1' }, { transport: { authProvider: { token: async () => reader, onUnauthorized: async () => {} } } })).client
  await t.rejects(modernReader.request({ method: 'completion/complete', params: ref('close_issue', 'id', '') } as any), { message: 'Insufficient scope: required "issues:write"' })
  const modernWriter = (await modernClient(t, url, { name: 'writer', version: '1' }, { transport: { authProvider: { token: async () => writer, onUnauthorized: async () => {} } } })).client
  t.same((await modernWriter.request({ method: 'completion/complete', params: ref('close_issue', 'id', '') } as any) as any).completion.values, ['7', '8'])
})

t.test('an elicitation form offers the tool\'s own values, answered by each client', async (t) => {
  const url = await serve(t)
  const seen: any[] = []
  const answer = (params: any): any => { seen.push(params.requestedSchema); return { action: 'accept', content: { service: params.requestedSchema.properties.service.enum.at(-1) } } }
  const { client: modern } = await modernClient(t, url, { name: 'pin', version: '1' }, {
    options: { capabilities: { elicitation: {} } },
    setup: (client) => client.setRequestHandler('elicitation/create', async (request) => answer(request.params))
  })
  t.same((await modern.callTool({ name: 'deploy', arguments: {} })).content, [{ type: 'text', text: 'deployed billing' }])
  const { client: legacy } = await legacyClient(t, url, { name: 'v1', version: '1' }, {
    options: { capabilities: { elicitation: {} } },
    setup: (client) => client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params))
  })
  t.same((await legacy.callTool({ name: 'deploy', arguments: {} })).content, [{ type: 'text', text: 'deployed billing' }])
  const schema = { type: 'object', properties: { service: { type: 'string', enum: SERVICES } }, required: ['service'] }
  t.same(seen, [schema, schema], 'the same form in both eras')
})
