// A form that offers the handler's own completions (`ctx.elicit.form(key, message, schema, { complete })`):
// a property naming one of the handler's arguments becomes a choice among the values its `complete`
// gives, when they are the whole list, in both eras (a 2026-07-28 round, a 2025 session's request)
// and for tools, prompts and resource templates; a partial list, an empty one or a failing callback
// leaves the property free text; the answer is checked against the choices; and every misuse of the
// option is the handler author's bug (a TypeError, logged).
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, definePrompt, toolError } from '../../../lib/index.js'
import { createClient, type InputRequest } from '../../../lib/client/index.js'
import { build } from '../../helpers/app.js'
import { ALL_CAPABILITIES as ALL, modernMeta, modernPost, send } from '../../helpers/requests.js'
import { captureLog } from '../../helpers/logs.js'
import Type1 from 'typebox'
import * as z from 'zod'

const KEY = Buffer.alloc(32, 7).toString('base64')
const log = captureLog()
let app: FastifyInstance
/** What each `complete` call got: its argument, partial and context arguments. */
const completions: unknown[] = []

t.before(async () => {
  app = await build({ requestState: { keys: [KEY] } }, { logger: log.logger })
  app.registerTool({
    name: 'deploy',
    args: { service: Type.Optional(Type.String()), env: Type.Optional(Type.String()), replicas: Type.Optional(Type.Integer()) },
    complete (arg, partial, ctx) {
      completions.push({ arg, partial, arguments: ctx.arguments })
      if (arg === 'service') return ['api', 'auth']
      if (arg === 'env') return { values: ['staging', 'production'], hasMore: true }
      return { values: ['1', '2'], total: 5 }
    },
    async execute ({ service, env }, ctx) {
      if (service !== undefined) return `${service} to ${env ?? 'staging'}`
      const form = Type.Object({
        service: Type.String({ title: 'Service', description: 'What to deploy', default: 'api', minLength: 2 }),
        env: Type.String({ default: 'qa' }),
        note: Type.Optional(Type.String())
      })
      const picked = await ctx.elicit.form('pick', 'What should be deployed?', form, { complete: ['service', 'env'] })
      if (picked.action !== 'accept') return toolError(picked.action)
      return `${picked.content.service} to ${picked.content.env}`
    }
  })
  app.registerTool({
    name: 'fallbacks',
    args: { empty: Type.Optional(Type.String()), partial: Type.Optional(Type.String()), broken: Type.Optional(Type.String()) },
    complete (arg) {
      if (arg === 'broken') throw new Error('the catalogue is down')
      return arg === 'empty' ? [] : { values: ['p1'], total: 2 }
    },
    async execute (_args, ctx) {
      const form = Type.Object({ empty: Type.String(), partial: Type.String({ default: 'p9' }), broken: Type.String() })
      const asked = await ctx.elicit.form('f', 'F?', form, { complete: ['empty', 'partial', 'broken'] })
      return asked.action
    }
  })
  app.registerTool({
    name: 'nothing_offered',
    async execute (_args, ctx) {
      const none = await ctx.elicit.form('none', 'N?', Type.Object({ x: Type.String() }), {})
      return (await ctx.elicit.form('n', 'N?', Type.Object({ x: Type.String() }), { complete: [] })).action + none.action
    }
  })
  app.registerPrompt(definePrompt({
    name: 'review',
    args: { language: Type.String(), style: Type.Optional(Type.String()) },
    complete: (arg) => arg === 'style' ? ['terse', 'thorough'] : ['ts'],
    async get ({ language }, ctx) {
      const style = await ctx.elicit.form('style', 'Which style?', Type.Object({ style: Type.String() }), { complete: ['style'] })
      return style.action === 'accept' ? `${style.content.style} review of ${language}` : 'plain review'
    }
  }))
  app.registerResource({
    uriTemplate: 'repos://{org}/{repo}',
    name: 'repo',
    complete (variable, _partial, ctx) {
      completions.push({ arg: variable, arguments: ctx.arguments })
      return variable === 'repo' ? [`${ctx.arguments.org}/web`, `${ctx.arguments.org}/api`] : ['acme']
    },
    async read (uri, { repo }, ctx) {
      const branch = await ctx.elicit.form('branch', 'Which repository?', Type.Object({ repo: Type.String() }), { complete: ['repo'] })
      return branch.action === 'accept' ? `${uri}: ${branch.content.repo}` : `${uri}: ${repo}`
    }
  })
  await app.ready()
})
t.teardown(async () => { await app.close() })

/** A 2026-07-28 request with every client capability (or `capabilities`); returns the parsed answer. */
async function modern (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = ALL): Promise<any> {
  const headers: Record<string, string> = {}
  if (method === 'prompts/get') headers['mcp-name'] = params.name as string
  if (method === 'resources/read') headers['mcp-name'] = params.uri as string
  const meta = modernMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities })
  return (await send(app, modernPost({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }, headers))).body
}

t.test('2026-07-28: the whole list becomes the choices, a partial one stays free text', async (t) => {
  completions.length = 0
  const first = await modern('tools/call', { name: 'deploy', arguments: { replicas: 2 } })
  t.equal(first.result.resultType, 'input_required')
  t.same(first.result.inputRequests.pick.params.requestedSchema, {
    type: 'object',
    properties: {
      // the list makes minLength moot; title, description and a default among the values stay
      service: { type: 'string', enum: ['api', 'auth'], title: 'Service', description: 'What to deploy', default: 'api' },
      env: { type: 'string', default: 'qa' },
      note: { type: 'string' }
    },
    required: ['service', 'env']
  })
  t.same(completions, [{ arg: 'service', partial: '', arguments: {} }, { arg: 'env', partial: '', arguments: {} }], 'nothing typed; the call\'s other string arguments as context (none here)')

  const retry = { name: 'deploy', arguments: { replicas: 2 }, requestState: first.result.requestState }
  const done = await modern('tools/call', { ...retry, inputResponses: { pick: { action: 'accept', content: { service: 'auth', env: 'eu-1' } } } })
  t.same(done.result.content, [{ type: 'text', text: 'auth to eu-1' }], 'a free-text property takes any value')
  const outside = await modern('tools/call', { ...retry, inputResponses: { pick: { action: 'accept', content: { service: 'billing', env: 'eu-1' } } } })
  t.equal(outside.error.code, -32602)
  t.match(outside.error.message, /inputResponses\["pick"\] is not a valid answer to elicitation\/create: its content does not match the requested schema: .*service/, 'an answer outside the choices is refused')
})

t.test('the context of the form\'s complete: the call\'s other string arguments', async (t) => {
  completions.length = 0
  await modern('tools/call', { name: 'deploy', arguments: { env: 'staging', replicas: 3 } })
  t.same(completions, [{ arg: 'service', partial: '', arguments: { env: 'staging' } }, { arg: 'env', partial: '', arguments: {} }])
  completions.length = 0
  const read = await modern('resources/read', { uri: 'repos://acme/site' })
  t.same(read.result.inputRequests.branch.params.requestedSchema.properties.repo, { type: 'string', enum: ['acme/web', 'acme/api'] }, 'a template read: its other variables as context')
  t.same(completions, [{ arg: 'repo', arguments: { org: 'acme' } }])
})

t.test('a 2025 session: the form travels with its choices on the call\'s stream', async (t) => {
  const seen: InputRequest[] = []
  const client = createClient({
    app,
    era: 'legacy',
    onInput: {
      pick: (request) => { seen.push(request); return { action: 'accept', content: { service: 'api', env: 'prod' } } },
      style: { action: 'accept', content: { style: 'terse' } }
    }
  })
  t.teardown(() => client.close())
  t.same((await client.callTool('deploy', {})).content, [{ type: 'text', text: 'api to prod' }])
  t.same((seen[0] as any)?.params?.requestedSchema?.properties, {
    service: { type: 'string', enum: ['api', 'auth'], title: 'Service', description: 'What to deploy', default: 'api' },
    env: { type: 'string', default: 'qa' },
    note: { type: 'string' }
  })
  t.same((await client.getPrompt('review', { language: 'ts' })).messages, [{ role: 'user', content: { type: 'text', text: 'terse review of ts' } }], 'a prompt offers its own completions too')
})

t.test('an empty or partial list, or a failing complete(): free text, the failure logged', async (t) => {
  const before = log.errors().length
  const first = await modern('tools/call', { name: 'fallbacks' })
  t.same(first.result.inputRequests.f.params.requestedSchema.properties, {
    empty: { type: 'string' },
    partial: { type: 'string', default: 'p9' },
    broken: { type: 'string' }
  })
  t.equal(log.errors().length, before + 1)
  t.match(log.errors().at(-1), { completing: "tool 'fallbacks'", argument: 'broken', err: { message: 'the catalogue is down' }, msg: /completion for tool 'fallbacks' failed: the form asks for 'broken' without its values/ })
  const plain = await modern('tools/call', { name: 'nothing_offered' })
  t.same(plain.result.inputRequests.none.params.requestedSchema.properties, { x: { type: 'string' } }, 'options without complete offer nothing')
  const second = await modern('tools/call', { name: 'nothing_offered', requestState: plain.result.requestState, inputResponses: { none: { action: 'decline' } } })
  t.same(second.result.inputRequests.n.params.requestedSchema.properties, { x: { type: 'string' } }, 'complete: [] offers nothing')
})

t.test('a client that cannot answer a form: unsupported, and complete() is not asked', async (t) => {
  completions.length = 0
  const answer = await modern('tools/call', { name: 'deploy' }, {})
  t.same(answer.result.content, [{ type: 'text', text: 'unsupported' }])
  t.equal(answer.result.isError, true)
  t.same(completions, [])
})

t.test('misuses of the option are the handler author\'s bug: a tool error, the TypeError logged', async (t) => {
  const local = captureLog()
  const other = await build({ requestState: { keys: [KEY] } }, { logger: local.logger })
  t.teardown(() => other.close())
  const form = Type.Object({ a: Type.String(), n: Type.Integer(), listed: Type.String({ enum: ['x'] }), chosen: Type.String({ oneOf: [{ const: 'x' }] }), fixed: Type.String({ const: 'x' }) })
  const cases: Array<[string, unknown, RegExp]> = [
    ['not_an_object', 'a', /ctx\.elicit\.form\('k'\)'s options must be an object such as \{ complete: \['name'\] \}, got a string/],
    ['not_a_list', { complete: 'a' }, /ctx\.elicit\.form\('k'\)'s 'complete' must be an array of the form's property names, got a string/],
    ['not_strings', { complete: [1] }, /'complete' must be an array of the form's property names, got an array/],
    ['not_a_property', { complete: ['b'] }, /'b' in 'complete' must be a string property of the form without listed values/],
    ['not_a_string', { complete: ['n'] }, /'n' in 'complete' must be a string property/],
    ['enum', { complete: ['listed'] }, /'listed' in 'complete' must be a string property of the form without listed values/],
    ['one_of', { complete: ['chosen'] }, /'chosen' in 'complete' must be/],
    ['constant', { complete: ['fixed'] }, /'fixed' in 'complete' must be/]
  ]
  for (const [name, options] of cases) {
    other.registerTool({ name, args: { a: Type.String() }, complete: () => ['x'], execute: async (_args, ctx) => (await ctx.elicit.form('k', 'K?', form, options as any)).action })
  }
  other.registerTool({ name: 'other_arg', args: { a: Type.String(), z: Type.String() }, complete: () => ['x'], execute: async (_args, ctx) => (await ctx.elicit.form('k', 'K?', Type.Object({ b: Type.String() }), { complete: ['b'] })).action })
  other.registerTool({ name: 'no_complete', args: { a: Type.String() }, execute: async (_args, ctx) => (await ctx.elicit.form('k', 'K?', form, { complete: ['a'] })).action })
  other.registerResource({ uri: 'config://fixed', name: 'fixed', read: async (_uri, _vars, ctx) => (await ctx.elicit.form('k', 'K?', form, { complete: ['a'] })).action })
  await other.ready()
  const meta = modernMeta({ 'io.modelcontextprotocol/clientCapabilities': ALL })
  for (const [name, , message] of cases) {
    const answer = (await send(other, modernPost({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { a: 'a' }, _meta: meta } }))).body
    t.equal(answer.result.isError, true, name)
    t.match(local.errors().at(-1)?.err, { message }, name)
  }
  await send(other, modernPost({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'other_arg', arguments: { a: 'a', z: 'z' }, _meta: meta } }))
  t.match(local.errors().at(-1)?.err, { message: /ctx\.elicit\.form\('k'\): tool 'other_arg' has no complete\(\) for 'b'; it completes a, z$/ })
  await send(other, modernPost({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'no_complete', arguments: { a: 'a' }, _meta: meta } }))
  t.match(local.errors().at(-1)?.err, { message: /tool 'no_complete' has no complete\(\) for 'a'$/ }, 'a handler without complete() completes nothing')
  const fixed = (await send(other, modernPost({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'config://fixed', _meta: meta } }, { 'mcp-name': 'config://fixed' }))).body
  t.equal(fixed.error.code, -32603)
  t.match(local.errors().at(-1)?.err, { message: /resource 'config:\/\/fixed' has no complete\(\) for 'a'$/ }, 'a fixed resource has no variables')
})

t.test('a form of a Standard Schema (Zod) or TypeBox 1.x: its JSON Schema is asked, its library checks the answer (issue 41)', async (t) => {
  const zapp = await build()
  t.teardown(() => zapp.close())
  const form = z.object({ name: z.string().min(2).refine((name) => name !== 'Bob', 'anyone but Bob'), age: z.string().transform(Number) })
  zapp.registerTool({
    name: 'ask',
    async execute (_args, ctx) {
      const answer = await ctx.elicit.form('who', 'Who?', form)
      if (answer.action !== 'accept') return answer.action
      const typed: { name: string, age: number } = answer.content
      return { name: typed.name, age: typed.age }
    }
  })
  zapp.registerTool({
    name: 'ask_tb1',
    async execute (_args, ctx) {
      const answer = await ctx.elicit.form('who', 'Who?', Type1.Object({ name: Type1.String() }))
      return answer.action === 'accept' ? answer.content.name : answer.action
    }
  })
  zapp.registerTool({ name: 'ask_number', execute: async (_args, ctx) => (await ctx.elicit.form('n', 'N?', z.number() as never)).action })
  zapp.registerTool({ name: 'ask_date', execute: async (_args, ctx) => (await ctx.elicit.form('d', 'D?', z.object({ when: z.date() }))).action })
  for (const era of ['modern', 'legacy'] as const) {
    let asked: InputRequest | undefined
    const good = createClient({ app: zapp, era, onInput: (request) => { asked = request; return { action: 'accept', content: { name: 'Ada', age: '36' } } } })
    t.same((await good.callTool('ask', {})).structuredContent, { name: 'Ada', age: 36 }, `${era}: the transform's output is the content`)
    t.same((asked!.params as any).requestedSchema.properties, { name: { type: 'string', minLength: 2 }, age: { type: 'string' } }, `${era}: the library's JSON Schema is asked`)
    t.same((await good.callTool('ask_tb1', {})).content, [{ type: 'text', text: 'Ada' }], `${era}: TypeBox 1.x`)
    await good.close()
    const bad = createClient({ app: zapp, era, onInput: () => ({ action: 'accept', content: { name: 'Bob', age: '1' } }) })
    // as ajv's refusal is: 2026-07-28 refuses the retry (-32602), a 2025 session's call fails with it
    const mismatch = /its content does not match the requested schema: property 'name': anyone but Bob/
    if (era === 'modern') {
      await t.rejects(bad.callTool('ask', {}), { code: -32602, message: mismatch }, `${era}: an answer the library refuses never reaches the tool`)
    } else {
      const refused = await bad.callTool('ask', {})
      t.equal(refused.isError, true, `${era}: an answer the library refuses never reaches the tool`)
      t.match((refused.content as Array<{ text: string }>)[0]!.text, mismatch)
    }
    t.match((await bad.callTool('ask_number', {})).content, [{ text: /Tool 'ask_number' failed/ }], `${era}: a form that is no object is the author's bug`)
    t.match((await bad.callTool('ask_date', {})).content, [{ text: /Tool 'ask_date' failed/ }], `${era}: a form that cannot be exported too`)
    await bad.close()
  }
})
