// completion/complete in both eras: prompt arguments and resource template variables, the
// 100-value cap, an empty answer when nothing completes, and every error (-32602 for an unknown
// prompt, template or argument and for malformed params; -32603 for a callback that fails).
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, ProtocolError } from '../../../lib/index.js'
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
    [{ argument: { name: 'x', value: '' } }, 'Invalid params: completion/complete needs "ref", { type: "ref/prompt", name } or { type: "ref/resource", uri }, got nothing'],
    [{ ref: 'x', argument: { name: 'x', value: '' } }, 'Invalid params: completion/complete needs "ref", { type: "ref/prompt", name } or { type: "ref/resource", uri }, got "x"'],
    [{ ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'x', value: '' } }, 'Invalid params: "ref.type" must be "ref/prompt" or "ref/resource", got "ref/tool"'],
    [{ ref: { type: 5 }, argument: { name: 'x', value: '' } }, 'Invalid params: "ref.type" must be "ref/prompt" or "ref/resource", got a number'],
    [{ ref: { name: 'x' }, argument: { name: 'x', value: '' } }, 'Invalid params: "ref.type" must be "ref/prompt" or "ref/resource", got nothing'],
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
