// Multi round-trip requests (2026-07-28) on the wire: input_required, the sealed requestState and
// every way a retry can be wrong, handler control flow (prepare, caught signals, finally), prompts
// and resources, and a retry served by another instance.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, ToolError, definePrompt, toolError, type SakeOptions } from '../../../lib/index.js'
import { build, sleep } from '../../helpers/app.js'
import { ALL_CAPABILITIES as ALL, modernMeta, modernPost, send } from '../../helpers/requests.js'
import { sseMessages } from '../../helpers/sse.js'
import { captureLog } from '../../helpers/logs.js'

const KEY_A = Buffer.alloc(32, 1).toString('base64')
const KEY_B = Buffer.alloc(32, 2).toString('base64')

interface Round { status: number, body: any }

/** A tools/call (or another method) with these capabilities and params; returns status and body. */
async function call (app: FastifyInstance, params: Record<string, unknown>, capabilities: Record<string, unknown> = ALL, method = 'tools/call'): Promise<Round> {
  const meta = modernMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities })
  const headers: Record<string, string> = {}
  if (method === 'prompts/get') headers['mcp-name'] = params.name as string
  if (method === 'resources/read') headers['mcp-name'] = params.uri as string
  const answer = await send(app, modernPost({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: meta } }, headers))
  return { status: answer.status, body: answer.body }
}

async function server (options: Partial<SakeOptions> = {}, fastify: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = await build({ requestState: { keys: [KEY_A] }, ...options }, fastify)
  app.registerTool({
    name: 'greet',
    args: { greeting: Type.Optional(Type.String()) },
    async execute ({ greeting = 'Hello' }, ctx) {
      const who = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String({ minLength: 1 }) }))
      if (who.action === 'unsupported') return toolError('unsupported')
      return who.action === 'accept' ? `${greeting}, ${who.content.name}!` : who.action
    }
  })
  app.registerTool({
    name: 'three',
    async execute (args, ctx) {
      const a = await ctx.elicit.form('a', 'A?', Type.Object({ v: Type.String() }))
      const b = await ctx.sample('b', { messages: [{ role: 'user', content: { type: 'text', text: 'B?' } }], maxTokens: 5 })
      const c = await ctx.roots('c')
      return JSON.stringify([a, b, c].map((x) => x.action))
    }
  })
  return app
}

const accept = (content: Record<string, unknown>): Record<string, unknown> => ({ action: 'accept', content })

t.test('a first round answers input_required with the questions and a sealed requestState', async (t) => {
  const app = await server()
  const first = await call(app, { name: 'greet', arguments: {} })
  t.equal(first.status, 200)
  t.equal(first.body.id, 7)
  t.equal(first.body.result.resultType, 'input_required')
  t.same(first.body.result.inputRequests, {
    who: { method: 'elicitation/create', params: { mode: 'form', message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] } } }
  })
  t.match(first.body.result.requestState, /^v1\.[A-Za-z0-9_-]+$/)
  t.notOk(first.body.result.requestState.includes('who'), 'opaque')
  t.ok(first.body.result._meta['io.modelcontextprotocol/serverInfo'], 'a result like any other')

  const second = await call(app, { name: 'greet', arguments: {}, requestState: first.body.result.requestState, inputResponses: { who: accept({ name: 'Ada' }) } })
  t.same(second.body.result.content, [{ type: 'text', text: 'Hello, Ada!' }])
  t.equal(second.body.result.resultType, 'complete')
  await app.close()
})

t.test('three rounds: answers of earlier rounds travel in requestState, a new one each round', async (t) => {
  const app = await server()
  const r1 = await call(app, { name: 'three' })
  t.same(Object.keys(r1.body.result.inputRequests), ['a'])
  const r2 = await call(app, { name: 'three', requestState: r1.body.result.requestState, inputResponses: { a: accept({ v: 'x' }) } })
  t.same(r2.body.result.inputRequests, { b: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'B?' } }], maxTokens: 5 } } })
  // only the answers of the last round are sent again: 'a' is inside the state now
  const r3 = await call(app, { name: 'three', requestState: r2.body.result.requestState, inputResponses: { b: { role: 'assistant', model: 'm', content: { type: 'text', text: 'b' } } } })
  t.same(r3.body.result.inputRequests, { c: { method: 'roots/list', params: {} } })
  t.not(r3.body.result.requestState, r2.body.result.requestState)
  const r4 = await call(app, { name: 'three', requestState: r3.body.result.requestState, inputResponses: { c: { roots: [{ uri: 'file:///' }] } } })
  t.same(r4.body.result.content, [{ type: 'text', text: '["accept","accept","accept"]' }])
  await app.close()
})

t.test('questions asked together go out together', async (t) => {
  const fresh = await server()
  fresh.registerTool({
    name: 'together',
    async execute (args, ctx) {
      const [a, b] = await Promise.all([ctx.elicit.form('a', 'A?', Type.Object({ v: Type.String() })), ctx.roots('b')])
      return `${a.action}/${b.action}`
    }
  })
  const first = await call(fresh, { name: 'together' })
  t.same(Object.keys(first.body.result.inputRequests), ['a', 'b'])
  // one answered: the other is asked again, and the answer kept
  const second = await call(fresh, { name: 'together', requestState: first.body.result.requestState, inputResponses: { b: { roots: [] } } })
  t.same(Object.keys(second.body.result.inputRequests), ['a'])
  const third = await call(fresh, { name: 'together', requestState: second.body.result.requestState, inputResponses: { a: accept({ v: '1' }), b: 'ignored: not asked in this round' } })
  t.same(third.body.result.content, [{ type: 'text', text: 'accept/accept' }])
  await fresh.close()
})

t.test('only what the client declared is asked', async (t) => {
  const app = await server()
  // no elicitation: the tool hears `unsupported` and carries on to sampling
  const r1 = await call(app, { name: 'three' }, { sampling: {} })
  t.same(Object.keys(r1.body.result.inputRequests), ['b'])
  const r2 = await call(app, { name: 'three', requestState: r1.body.result.requestState, inputResponses: { b: { role: 'assistant', model: 'm', content: [{ type: 'text', text: 'b' }] } } }, { sampling: {} })
  t.same(r2.body.result.content, [{ type: 'text', text: '["unsupported","accept","unsupported"]' }])
  // url-only elicitation is not form elicitation
  t.same((await call(app, { name: 'greet' }, { elicitation: { url: {} } })).body.result.content, [{ type: 'text', text: 'unsupported' }])
  // an empty elicitation capability means form
  t.equal((await call(app, { name: 'greet' }, { elicitation: {} })).body.result.resultType, 'input_required')
  await app.close()
})

t.test('extra answers are ignored; a missing one is asked again', async (t) => {
  const app = await server()
  const first = await call(app, { name: 'greet' })
  const state = first.body.result.requestState
  const extra = await call(app, { name: 'greet', requestState: state, inputResponses: { who: accept({ name: 'Bo' }), other: accept({ x: 1 }) } })
  t.same(extra.body.result.content, [{ type: 'text', text: 'Hello, Bo!' }])
  const missing = await call(app, { name: 'greet', requestState: state, inputResponses: { wrong_key: accept({ name: 'Bo' }) } })
  t.equal(missing.body.result.resultType, 'input_required')
  t.same(Object.keys(missing.body.result.inputRequests), ['who'])
  const none = await call(app, { name: 'greet', requestState: state })
  t.equal(none.body.result.resultType, 'input_required', 'a retry with the state alone asks again')
  await app.close()
})

t.test('every bad retry is -32602 naming what is wrong', async (t) => {
  // the clock the sealer reads: Date.now, taken when the plugin registers, so captured before it
  // does; `later` moves it on instead of waiting out the ttl
  const realNow = Date.now
  let later = 0
  t.capture(Date, 'now', () => realNow() + later)
  const app = await server({ requestState: { keys: [KEY_A], ttl: 60_000 } })
  const first = await call(app, { name: 'greet', arguments: { greeting: 'Hi' } })
  const state: string = first.body.result.requestState
  const refused = async (params: Record<string, unknown>, message: RegExp, name = 'greet'): Promise<void> => {
    const answer = await call(app, { name, arguments: { greeting: 'Hi' }, ...params })
    t.equal(answer.status, 200)
    t.equal(answer.body.error?.code, -32602, JSON.stringify(answer.body))
    t.match(answer.body.error.message, message)
    t.equal(answer.body.id, 7)
  }
  await refused({ inputResponses: { who: accept({ name: 'Ada' }) } }, /inputResponses came without the requestState they answer/)
  await refused({ requestState: state.slice(0, -2) + (state.at(-2) === 'A' ? 'B' : 'A') + state.slice(-1), inputResponses: { who: accept({ name: 'Ada' }) } }, /integrity check|not base64url/)
  await refused({ requestState: state + '-TAMPERED', inputResponses: { who: accept({ name: 'Ada' }) } }, /not one this server issued/)
  await refused({ requestState: 42 }, /must be a string/)
  await refused({ requestState: state, inputResponses: null }, /"inputResponses" must be an object/)
  await refused({ requestState: state, inputResponses: [] }, /"inputResponses" must be an object/)
  await refused({ requestState: state, inputResponses: { who: 12345 } }, /inputResponses\["who"\] must be the client's result for elicitation\/create, got 12345 \(number\)|got a number/)
  await refused({ requestState: state, inputResponses: { who: { action: 'maybe' } } }, /inputResponses\["who"\] is not a valid answer to elicitation\/create: "action" must be accept, decline or cancel/)
  await refused({ requestState: state, inputResponses: { who: { action: 'accept' } } }, /an accepted form must carry "content"/)
  await refused({ requestState: state, inputResponses: { who: accept({ name: '' }) } }, /does not match the requested schema: .*name/)
  // minted for another call: other arguments, another tool
  const other = await call(app, { name: 'greet', arguments: { greeting: 'Yo' }, requestState: state, inputResponses: { who: accept({ name: 'Ada' }) } })
  t.match(other.body.error.message, /minted for another call \(the arguments differ\)/)
  await refused({ requestState: state, inputResponses: { a: accept({ v: 'x' }) } }, /minted for another call \(the name differs\)/, 'three')
  // expired
  later += 60_001
  await refused({ requestState: state, inputResponses: { who: accept({ name: 'Ada' }) } }, /expired .* ago/)
  await app.close()
})

t.test('a handler that swallows the question still answers input_required; finally blocks run', async (t) => {
  const app = await server()
  let released = 0
  app.registerTool({
    name: 'careless',
    async execute (args, ctx) {
      try {
        await ctx.elicit.form('x', 'X?', { type: 'object', properties: { v: { type: 'string' } } })
      } catch {
        return 'swallowed'
      } finally {
        released++
      }
      return 'done'
    }
  })
  const first = await call(app, { name: 'careless' })
  t.equal(first.body.result.resultType, 'input_required')
  t.equal(released, 1, 'the handler ended through its finally block')
  // and an unreadable answer fails the request even when the handler catches it
  const bad = await call(app, { name: 'careless', requestState: first.body.result.requestState, inputResponses: { x: { action: 'accept', content: { v: 1 } } } })
  t.equal(bad.body.error.code, -32602)
  t.equal(released, 2)
  await app.close()
})

t.test('prepare runs first, may ask, and hands execute its arguments', async (t) => {
  const app = await server()
  const executed: unknown[] = []
  app.registerTool({
    name: 'delete_repo',
    args: { repo: Type.String() },
    async prepare ({ repo }, ctx) {
      const sure = await ctx.elicit.form('confirm', `Delete ${repo}?`, Type.Object({ yes: Type.Boolean() }))
      if (sure.action !== 'accept' || !sure.content.yes) return toolError(`${repo} kept`)
      return { repo, confirmed: true }
    },
    execute (args) {
      executed.push(args)
      return `deleted ${args.repo}`
    }
  })
  app.registerTool({ name: 'throws_in_prepare', prepare () { throw new ToolError('not today') }, execute: () => 'never' })
  app.registerTool({ name: 'forgets_to_return', prepare () {}, execute: () => 'never' })
  const first = await call(app, { name: 'delete_repo', arguments: { repo: 'r' } })
  t.equal(first.body.result.resultType, 'input_required')
  t.same(executed, [], 'execute did not run before the answer')
  const no = await call(app, { name: 'delete_repo', arguments: { repo: 'r' }, requestState: first.body.result.requestState, inputResponses: { confirm: accept({ yes: false }) } })
  t.same(no.body.result, { resultType: 'complete', content: [{ type: 'text', text: 'r kept' }], isError: true, _meta: no.body.result._meta })
  const yes = await call(app, { name: 'delete_repo', arguments: { repo: 'r' }, requestState: first.body.result.requestState, inputResponses: { confirm: accept({ yes: true }) } })
  t.same(yes.body.result.content, [{ type: 'text', text: 'deleted r' }])
  t.same(executed, [{ repo: 'r', confirmed: true }])
  const thrown = await call(app, { name: 'throws_in_prepare' })
  t.same(thrown.body.result.content, [{ type: 'text', text: 'not today' }])
  const log = captureLog()
  const logged = await server({}, { logger: log.logger })
  logged.registerTool({ name: 'forgets_to_return', prepare () {}, execute: () => 'never' })
  const forgot = await call(logged, { name: 'forgets_to_return' })
  t.equal(forgot.body.result.isError, true)
  t.match(log.errors()[0]!.msg, /prepare must return the arguments for execute \(an object\), got undefined/)
  await logged.close()
  await app.close()
})

t.test('prompts/get and resources/read answer input_required too', async (t) => {
  const app = await build({ requestState: { keys: [KEY_A] } })
  app.registerPrompt(definePrompt({
    name: 'brief',
    args: { topic: Type.String() },
    async get ({ topic }, ctx) {
      const depth = await ctx.elicit.form('depth', `How deep on ${topic}?`, Type.Object({ pages: Type.Integer() }))
      return depth.action === 'accept' ? `${depth.content.pages} pages on ${topic}` : 'short'
    }
  }))
  app.registerResource({
    uri: 'app://secret',
    name: 'secret',
    async read (uri, vars, ctx) {
      const ok = await ctx.elicit.form('unlock', 'Unlock?', Type.Object({ pin: Type.String() }))
      return ok.action === 'accept' && ok.content.pin === '1234' ? 'the secret' : undefined
    }
  })
  const p1 = await call(app, { name: 'brief', arguments: { topic: 'tides' } }, ALL, 'prompts/get')
  t.equal(p1.body.result.inputRequests.depth.params.message, 'How deep on tides?')
  const p2 = await call(app, { name: 'brief', arguments: { topic: 'tides' }, requestState: p1.body.result.requestState, inputResponses: { depth: accept({ pages: 3 }) } }, ALL, 'prompts/get')
  t.same(p2.body.result.messages, [{ role: 'user', content: { type: 'text', text: '3 pages on tides' } }])
  const foreign = await call(app, { name: 'brief', arguments: { topic: 'waves' }, requestState: p1.body.result.requestState, inputResponses: { depth: accept({ pages: 3 }) } }, ALL, 'prompts/get')
  t.match(foreign.body.error.message, /the arguments differ/)

  const r1 = await call(app, { uri: 'app://secret' }, ALL, 'resources/read')
  t.equal(r1.body.result.resultType, 'input_required')
  const r2 = await call(app, { uri: 'app://secret', requestState: r1.body.result.requestState, inputResponses: { unlock: accept({ pin: '1234' }) } }, ALL, 'resources/read')
  t.equal(r2.body.result.contents[0].text, 'the secret')
  const wrongMethod = await call(app, { name: 'brief', arguments: { topic: 'tides' }, requestState: r1.body.result.requestState, inputResponses: {} }, ALL, 'prompts/get')
  t.match(wrongMethod.body.error.message, /the method, the name and the arguments differ/)
  await app.close()
})

t.test('questions where none can be asked: completion, and lists, never answer input_required', async (t) => {
  const app = await build({ requestState: { keys: [KEY_A] } })
  app.registerPrompt(definePrompt({
    name: 'p',
    args: { a: Type.String() },
    complete: async (argument, partial, ctx) => [(await ctx.elicit.form('k', 'K?', Type.Object({}))).action],
    get: () => 'p'
  }))
  const completion = await call(app, { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }, ALL, 'completion/complete')
  t.same(completion.body.result.completion.values, ['unsupported'])
  await app.close()
})

t.test('another instance with the same key serves the retry; one with another key refuses it', async (t) => {
  const a = await server({ requestState: { keys: [KEY_A] } })
  const b = await server({ requestState: { keys: [KEY_B, KEY_A] } })
  const c = await server({ requestState: { keys: [KEY_B] } })
  const first = await call(a, { name: 'greet' })
  const retry = { name: 'greet', requestState: first.body.result.requestState, inputResponses: { who: accept({ name: 'Fleet' }) } }
  t.same((await call(b, retry)).body.result.content, [{ type: 'text', text: 'Hello, Fleet!' }], 'rotation: the old key still opens')
  const refused = await call(c, retry)
  t.equal(refused.body.error.code, -32602)
  t.match(refused.body.error.message, /sealed with a key this server does not hold/)
  // b seals with its first key, which a does not hold
  const fromB = await call(b, { name: 'greet' })
  t.match((await call(a, { ...retry, requestState: fromB.body.result.requestState })).body.error.message, /does not hold/)
  await Promise.all([a.close(), b.close(), c.close()])
})

t.test('without keys: a warning when a call first asks (once), or at registration on a fleet; the per-process key still works', async (t) => {
  const log = captureLog()
  const app = await build({}, { logger: log.logger })
  app.registerTool({ name: 'greet', async execute (args, ctx) { const w = await ctx.elicit.form('w', 'W?', Type.Object({ n: Type.String() })); return w.action } })
  app.registerTool({ name: 'plain', execute: () => 'no question' })
  const warnings = (): string[] => log.lines.filter((line) => line.level === 40).map((line) => line.msg ?? '')
  await app.ready()
  t.same(warnings(), [], 'no warning at start: nothing has asked yet')
  t.same((await call(app, { name: 'plain' })).body.result.content, [{ type: 'text', text: 'no question' }])
  t.same(warnings(), [], 'nor after a call that asks nothing')
  const first = await call(app, { name: 'greet' })
  t.equal(warnings().length, 1)
  t.match(warnings()[0], /requestState is sealed with a random key of this process.*requestState\.keys/, 'said when a call first asks')
  const second = await call(app, { name: 'greet', requestState: first.body.result.requestState, inputResponses: { w: accept({ n: 'x' }) } })
  t.same(second.body.result.content, [{ type: 'text', text: 'accept' }])
  await call(app, { name: 'greet' })
  t.equal(warnings().length, 1, 'once')
  const quiet = captureLog()
  const keyed = await build({ requestState: { keys: [KEY_A] } }, { logger: quiet.logger })
  keyed.registerTool({ name: 'greet', async execute (args, ctx) { const w = await ctx.elicit.form('w', 'W?', Type.Object({ n: Type.String() })); return w.action } })
  await call(keyed, { name: 'greet' })
  t.equal(quiet.lines.filter((line) => line.level >= 40).length, 0, 'no warning with keys')
  await Promise.all([app.close(), keyed.close()])
})

t.test('a streamed call (progress) ends with input_required on its stream', async (t) => {
  const app = await server()
  app.registerTool({
    name: 'slow_ask',
    stream: true,
    async execute (args, ctx) {
      ctx.progress(1, 2)
      const who = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String() }))
      return who.action
    }
  })
  const res = await app.inject(modernPost({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow_ask', _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': ALL, progressToken: 'p' }) } }))
  t.equal(res.headers['content-type'], 'text/event-stream')
  const messages = sseMessages(res.body, { dataFirst: true })
  t.equal(messages[0].method, 'notifications/progress')
  t.equal(messages.at(-1).result.resultType, 'input_required')
  t.notOk(messages.some((m) => m.method === 'elicitation/create'), 'never a request on a 2026-07-28 stream')
  await app.close()
})

t.test('bad questions are the handler author\'s bug: a tool error, logged', async (t) => {
  const log = captureLog()
  const app = await server({}, { logger: log.logger })
  const cases: Array<[string, (ctx: any) => Promise<unknown>, RegExp]> = [
    ['bad_key', (ctx) => ctx.elicit.form('has space', 'M', Type.Object({})), /an input key must be 1 to 128 characters/],
    ['bad_message', (ctx) => ctx.elicit.form('k', 42, Type.Object({})), /needs a message string/],
    ['bad_schema', (ctx) => ctx.elicit.form('k', 'M', 'nope'), /needs an object schema, got/],
    ['not_object_schema', (ctx) => ctx.elicit.form('k', 'M', Type.String()), /object schema with properties/],
    ['bad_url', (ctx) => ctx.elicit.url('k', 'M', 'not a url'), /needs a message string and an absolute http\(s\) URL/],
    ['script_url', (ctx) => ctx.elicit.url('k', 'M', 'javascript:alert(1)'), /absolute http\(s\) URL/],
    ['bad_sample', (ctx) => ctx.sample('k', { messages: 'hi' }), /needs \{ messages: \[\.\.\.\], maxTokens: number \}/]
  ]
  for (const [name, ask] of cases) {
    app.registerTool({ name, execute: async (args, ctx) => ask(ctx) })
  }
  await app.ready()
  for (const [name, , message] of cases) {
    const answer = await call(app, { name })
    t.equal(answer.body.result.isError, true, name)
    t.match(log.errors().at(-1)?.err, { message }, name)
  }
  await app.close()
})

t.test('url elicitation', async (t) => {
  const app = await server()
  app.registerTool({
    name: 'connect',
    async execute (args, ctx) {
      const went = await ctx.elicit.url('oauth', 'Sign in to continue', 'https://example.com/auth')
      return went.action
    }
  })
  const first = await call(app, { name: 'connect' })
  t.same(first.body.result.inputRequests.oauth, { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in to continue', url: 'https://example.com/auth' } })
  const second = await call(app, { name: 'connect', requestState: first.body.result.requestState, inputResponses: { oauth: { action: 'accept' } } })
  t.same(second.body.result.content, [{ type: 'text', text: 'accept' }])
  const declined = await call(app, { name: 'connect', requestState: first.body.result.requestState, inputResponses: { oauth: { action: 'decline' } } })
  t.same(declined.body.result.content, [{ type: 'text', text: 'decline' }])
  t.same((await call(app, { name: 'connect' }, { elicitation: {} })).body.result.content, [{ type: 'text', text: 'unsupported' }], 'form-only clients')
  await app.close()
})

t.test('form schemas are compiled once per distinct text, in a bounded cache', async (t) => {
  const app = await server()
  let compiled = 0
  app.registerTool({
    name: 'many',
    async execute (args, ctx) {
      // no elicitation declared: every schema is still checked (compiled), and the answer is unsupported
      for (let i = 0; i < 300; i++) {
        const outcome = await ctx.elicit.form(`k${i}`, 'M', { type: 'object', properties: { [`p${i}`]: { type: 'string' } } })
        if (outcome.action === 'unsupported') compiled++
      }
      // the first ones were evicted and compile again, the same as ever
      return String(compiled + ((await ctx.elicit.form('again', 'M', { type: 'object', properties: { p0: { type: 'string' } } })).action === 'unsupported' ? 1 : 0))
    }
  })
  t.same((await call(app, { name: 'many' }, {})).body.result.content, [{ type: 'text', text: '301' }])
  await app.close()
})

t.test('answers of the wrong shape for sampling and roots', async (t) => {
  const app = await server()
  const r1 = await call(app, { name: 'three' }, { sampling: {}, roots: {} })
  const badSample = await call(app, { name: 'three', requestState: r1.body.result.requestState, inputResponses: { b: { role: 'assistant', content: { type: 'text', text: 'no model' } } } }, { sampling: {}, roots: {} })
  t.match(badSample.body.error.message, /inputResponses\["b"\] is not a valid answer to sampling\/createMessage: expected a sampling result/)
  const badRole = await call(app, { name: 'three', requestState: r1.body.result.requestState, inputResponses: { b: { role: 'system', model: 'm', content: { type: 'text', text: 'b' } } } }, { sampling: {}, roots: {} })
  t.match(badRole.body.error.message, /expected a sampling result/)
  const badContent = await call(app, { name: 'three', requestState: r1.body.result.requestState, inputResponses: { b: { role: 'assistant', model: 'm', content: 'text' } } }, { sampling: {}, roots: {} })
  t.match(badContent.body.error.message, /expected a sampling result/)
  const r2 = await call(app, { name: 'three', requestState: r1.body.result.requestState, inputResponses: { b: { role: 'assistant', model: 'm', content: { type: 'text', text: 'b' } } } }, { sampling: {}, roots: {} })
  const badRoots = await call(app, { name: 'three', requestState: r2.body.result.requestState, inputResponses: { c: { roots: [{ name: 'no uri' }] } } }, { sampling: {}, roots: {} })
  t.match(badRoots.body.error.message, /not a valid answer to roots\/list: expected a roots result/)
  await app.close()
})

t.test('a question started and never awaited does not crash the process', async (t) => {
  const app = await server()
  let unhandled = 0
  const count = (): void => { unhandled++ }
  process.on('unhandledRejection', count)
  t.teardown(() => { process.off('unhandledRejection', count) })
  app.registerTool({
    name: 'two_at_a_time',
    async execute (args, ctx) {
      const first = ctx.elicit.form('first', 'First?', Type.Object({ a: Type.String() }))
      const second = ctx.sample('second', { messages: [], maxTokens: 1 })
      const third = ctx.roots('third')
      const fourth = ctx.elicit.url('fourth', 'Open', 'https://example.com')
      await first // ends the round: the others reject unobserved
      return [await second, await third, await fourth].length
    }
  })
  const answer = await call(app, { name: 'two_at_a_time' })
  t.same(Object.keys(answer.body.result.inputRequests), ['first', 'second', 'third', 'fourth'])
  await sleep(20) // the point: no unhandled rejection surfaces meanwhile
  t.equal(unhandled, 0)
  await app.close()
})

t.test('with auth on, requestState is bound to the caller: another subject cannot resume it', async (t) => {
  const app = await server({
    auth: {
      resource: 'http://localhost/mcp',
      authorizationServers: ['https://auth.example.com'],
      // the token is the subject's name: enough to tell two callers apart
      verify: async (token) => ({ subject: token, scopes: [] })
    }
  })
  const as = (subject: string, params: Record<string, unknown>): Promise<Round> => {
    const meta = modernMeta({ 'io.modelcontextprotocol/clientCapabilities': ALL })
    return send(app, modernPost({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { ...params, _meta: meta } }, { authorization: `Bearer ${subject}` }))
  }
  const first = await as('alice', { name: 'greet' })
  t.equal(first.body.result.resultType, 'input_required')
  const retry = { name: 'greet', requestState: first.body.result.requestState, inputResponses: { who: accept({ name: 'Alice' }) } }
  const stolen = await as('bob', retry)
  t.equal(stolen.status, 200)
  t.equal(stolen.body.error.code, -32602)
  t.match(stolen.body.error.message, /minted for another call \(the caller differs\)/)
  t.same((await as('alice', retry)).body.result.content, [{ type: 'text', text: 'Hello, Alice!' }])
  await app.close()
})

t.test('a question chained with .then and never awaited ends nothing but the round', async (t) => {
  const app = await server()
  let unhandled = 0
  const count = (): void => { unhandled++ }
  process.on('unhandledRejection', count)
  t.teardown(() => { process.off('unhandledRejection', count) })
  let finals = 0
  app.registerTool({
    name: 'chained',
    async execute (args, ctx) {
      const later = ctx.sample('b', { messages: [], maxTokens: 1 }).then((r) => r.action)
      const caught = ctx.roots('c').catch(() => 'caught').finally(() => {})
      void ctx.elicit.url('d', 'Open', 'https://example.com/d').finally(() => { finals++ })
      const who = await ctx.elicit.form('a', 'A?', Type.Object({ v: Type.String() }))
      return `${who.action} ${await later} ${await caught}`
    }
  })
  const answer = await call(app, { name: 'chained' })
  t.same(Object.keys(answer.body.result.inputRequests), ['b', 'c', 'd', 'a'])
  await sleep(30) // the point: no unhandled rejection surfaces meanwhile
  t.equal(unhandled, 0, 'no unhandled rejection: the process would have ended')
  t.equal(finals, 1, 'a finally on an unanswered question runs once the round ends it')
  await app.close()
})

t.test('prepare that catches its unanswered question: execute does not run', async (t) => {
  const app = await server()
  const charged: unknown[] = []
  app.registerTool({
    name: 'charge',
    args: { amount: Type.Number() },
    async prepare ({ amount }, ctx) {
      const ok = await ctx.elicit.form('confirm', `Charge ${amount}?`, Type.Object({ yes: Type.Boolean() })).catch(() => ({ action: 'cancel' as const }))
      return { amount, confirmed: ok.action === 'accept' }
    },
    execute (args) {
      charged.push(args)
      return 'charged'
    }
  })
  const first = await call(app, { name: 'charge', arguments: { amount: 5 } })
  t.equal(first.body.result.resultType, 'input_required')
  t.same(charged, [], 'no side effect on the round that asked')
  const second = await call(app, { name: 'charge', arguments: { amount: 5 }, requestState: first.body.result.requestState, inputResponses: { confirm: accept({ yes: true }) } })
  t.same(second.body.result.content, [{ type: 'text', text: 'charged' }])
  t.same(charged, [{ amount: 5, confirmed: true }])
  await app.close()
})

t.test('a handler that swallows the question and returns a bad output logs nothing', async (t) => {
  const log = captureLog()
  const app = await server({}, { logger: log.logger })
  app.registerTool({
    name: 'typed',
    output: { n: Type.Number() },
    async execute (args, ctx) {
      await ctx.elicit.form('x', 'X?', Type.Object({ v: Type.String() })).catch(() => undefined)
      return { n: 'not a number' } as never
    }
  })
  const answer = await call(app, { name: 'typed' })
  t.equal(answer.body.result.resultType, 'input_required')
  t.equal(log.errors().length, 0)
  await app.close()
})
