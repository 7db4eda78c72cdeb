// prompts/list and prompts/get in both eras: the listed arguments (strings on the wire), pages and
// cache hints, what get() may return, and every error: an unknown prompt or a missing required
// argument is -32602 naming it; a get() that fails is -32603 with its error in the log only.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, StringEnum, userMessage, assistantMessage, text, image, resource, resourceLink, ProtocolError } from '../../../lib/index.js'
import { build } from '../../helpers/app.js'
import { openSession, modernMeta, modernPost, send, sessionPost } from '../../helpers/requests.js'
import { captureLog } from '../../helpers/logs.js'

const SECRET = 'password=hunter2 at db.internal:5432'
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'test-server', version: '1.0.0' } }

const log = captureLog()
let app: FastifyInstance
let session: string
const seen: Array<{ args: unknown, era: string, requestId: unknown }> = []

t.before(async () => {
  app = await build({ ttl: 60_000, pageSize: 2 }, { logger: log.logger })
  app.registerPrompt({
    name: 'code_review',
    title: 'Request Code Review',
    description: 'Asks for a review',
    icons: [{ src: 'https://example.com/review.svg', mimeType: 'image/svg+xml', sizes: ['any'] }],
    meta: { 'example.com/k': 'v' },
    ttl: 10_000,
    args: {
      code: Type.String({ description: 'The code to review' }),
      language: Type.Optional(StringEnum(['python', 'typescript'], { title: 'Language' })),
      focus: Type.Optional(Type.String({ minLength: 3 }))
    },
    get ({ code, language, focus }, ctx) {
      seen.push({ args: { code, language, focus }, era: ctx.era, requestId: ctx.requestId })
      return `Please review this ${language ?? 'code'}:\n${code}`
    }
  })
  app.registerPrompt({ name: 'a_plain', get: () => [userMessage('hi'), assistantMessage(text('hello', { annotations: { priority: 1 } })), userMessage(image(new Uint8Array([1]), 'image/png'))] })
  app.registerPrompt({ name: 'b_described', description: 'Default description', get: () => ({ description: 'Chosen description', messages: [userMessage(resource('file:///a.md', '# A', { mimeType: 'text/markdown' })), userMessage(resourceLink('file:///b.md', 'b.md'))] }) })
  app.registerPrompt({ name: 'c_default_description', description: 'From the definition', get: async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'plain object' } }] }) })
  app.registerPrompt({ name: 'fail_throw', get: () => { throw new Error(SECRET) } })
  app.registerPrompt({ name: 'fail_shape', get: () => 42 as any })
  app.registerPrompt({ name: 'fail_role', get: () => [{ role: 'system', content: text('x') }] as any })
  app.registerPrompt({ name: 'fail_content', get: () => [{ role: 'user', content: 'not a block' }] as any })
  app.registerPrompt({ name: 'fail_message', get: () => ['just a string'] as any })
  app.registerPrompt({ name: 'fail_description', get: () => ({ description: 5, messages: [] }) as any })
  app.registerPrompt({ name: 'fail_protocol', get: () => { throw new ProtocolError(-32602, 'Invalid params: not today') } })
  await app.ready()
  session = await openSession(app, '2025-11-25')
})
t.teardown(() => app.close())

const modern = (method: string, params: Record<string, unknown> = {}, id: number | string = 1, headers: Record<string, string> = {}) =>
  modernPost({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } }, headers)
const get = (name: unknown, args?: unknown, id: number | string = 'g') =>
  modern('prompts/get', args === undefined ? { name } : { name, arguments: args }, id, typeof name === 'string' ? { 'mcp-name': name } : {})
const legacy = (method: string, params: Record<string, unknown> = {}, id: number | string = 'L') =>
  sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id, method, params })

t.test('modern prompts/list: sorted by name, paged, arguments as strings, ttlMs per page', async (t) => {
  const first = await send(app, modern('prompts/list', {}, 'p'))
  t.equal(first.status, 200)
  t.equal(first.body.id, 'p')
  const pages = [first.body.result]
  while (pages.at(-1).nextCursor !== undefined) pages.push((await send(app, modern('prompts/list', { cursor: pages.at(-1).nextCursor }))).body.result)
  t.same(pages.flatMap((page) => page.prompts.map((p: any) => p.name)), [
    'a_plain', 'b_described', 'c_default_description', 'code_review', 'fail_content', 'fail_description', 'fail_message', 'fail_protocol', 'fail_role', 'fail_shape', 'fail_throw'
  ])
  for (const page of pages) {
    t.equal(page.resultType, 'complete')
    t.equal(page.cacheScope, 'public')
    t.same(page._meta, SERVER_META)
  }
  t.same(pages.map((page) => page.ttlMs), [60_000, 10_000, 60_000, 60_000, 60_000, 60_000], 'code_review\'s ttl shortens its page')
  t.same(pages[1].prompts[1], {
    name: 'code_review',
    title: 'Request Code Review',
    description: 'Asks for a review',
    icons: [{ src: 'https://example.com/review.svg', mimeType: 'image/svg+xml', sizes: ['any'] }],
    arguments: [
      { name: 'code', description: 'The code to review', required: true },
      { name: 'language', title: 'Language', required: false },
      { name: 'focus', required: false }
    ],
    _meta: { 'example.com/k': 'v' }
  })
  t.same(pages[0].prompts[0], { name: 'a_plain' }, 'no arguments: no arguments field')
})

t.test('legacy prompts/list: the same prompts, no cache fields', async (t) => {
  const res = await send(app, legacy('prompts/list'))
  t.equal(res.status, 200)
  t.same(Object.keys(res.body.result).sort(), ['nextCursor', 'prompts'])
  t.same(res.body.result.prompts.map((p: any) => p.name), ['a_plain', 'b_described'])
  const bad = await send(app, legacy('prompts/list', { cursor: 'x' }))
  t.equal(bad.body.error.code, -32602)
})

t.test('prompts/get: a string is one user message; args arrive typed and validated', async (t) => {
  seen.length = 0
  const res = await send(app, get('code_review', { code: 'x = 1', language: 'python' }, 'g1'))
  t.equal(res.status, 200)
  t.equal(res.body.id, 'g1')
  t.same(res.body.result, {
    resultType: 'complete',
    description: 'Asks for a review',
    messages: [{ role: 'user', content: { type: 'text', text: 'Please review this python:\nx = 1' } }],
    _meta: SERVER_META
  })
  t.notOk('ttlMs' in res.body.result, 'prompts/get is not a cacheable result')
  t.same(seen, [{ args: { code: 'x = 1', language: 'python', focus: undefined }, era: 'modern', requestId: 'g1' }])

  const legacyRes = await send(app, legacy('prompts/get', { name: 'code_review', arguments: { code: 'y' } }, 'g2'))
  t.same(legacyRes.body.result, { description: 'Asks for a review', messages: [{ role: 'user', content: { type: 'text', text: 'Please review this code:\ny' } }] })
  t.equal(seen[1].era, 'legacy')
})

t.test('prompts/get: messages, content helpers, and descriptions', async (t) => {
  const plain = (await send(app, get('a_plain'))).body.result
  t.same(plain.messages, [
    { role: 'user', content: { type: 'text', text: 'hi' } },
    { role: 'assistant', content: { type: 'text', text: 'hello', annotations: { priority: 1 } } },
    { role: 'user', content: { type: 'image', data: 'AQ==', mimeType: 'image/png' } }
  ])
  t.notOk('description' in plain)
  const described = (await send(app, get('b_described'))).body.result
  t.equal(described.description, 'Chosen description', 'the returned description wins')
  t.same(described.messages, [
    { role: 'user', content: { type: 'resource', resource: { uri: 'file:///a.md', text: '# A', mimeType: 'text/markdown' } } },
    { role: 'user', content: { type: 'resource_link', uri: 'file:///b.md', name: 'b.md' } }
  ])
  const fallback = (await send(app, get('c_default_description'))).body.result
  t.equal(fallback.description, 'From the definition')
  t.same(fallback.messages, [{ role: 'user', content: { type: 'text', text: 'plain object' } }], 'a plain content object with a known type is accepted')
})

t.test('an unknown prompt is -32602 "Unknown prompt: x" in both eras', async (t) => {
  const m = await send(app, get('nope', undefined, 'u1'))
  t.equal(m.status, 200)
  t.equal(m.body.id, 'u1')
  t.same(m.body.error, { code: -32602, message: 'Unknown prompt: nope' })
  const l = await send(app, legacy('prompts/get', { name: 'nope' }))
  t.equal(l.status, 200)
  t.same(l.body.error, { code: -32602, message: 'Unknown prompt: nope' })
})

t.test('a missing or non-string name is -32602', async (t) => {
  for (const params of [{}, { name: 3 }]) {
    const m = await send(app, modern('prompts/get', params))
    t.equal(m.body.error.code, -32602)
    t.equal(m.body.error.message, 'Invalid params: prompts/get needs "name", the prompt, as a string')
  }
})

t.test('arguments: a missing required one, a wrong type, a rule broken, an unknown one: -32602 naming it', async (t) => {
  const cases: Array<[unknown, string]> = [
    [undefined, "Invalid params: prompt 'code_review' needs argument 'code'"],
    [{}, "Invalid params: prompt 'code_review' needs argument 'code'"],
    [{ language: 'python' }, "Invalid params: prompt 'code_review' needs argument 'code'"],
    [{ code: 5 }, "Invalid params: invalid arguments for prompt 'code_review': argument 'code' must be a string, got 5"],
    [{ code: 'x', language: 'cobol' }, "Invalid params: invalid arguments for prompt 'code_review': argument 'language' must be one of \"python\", \"typescript\""],
    [{ code: 'x', focus: 'ab' }, "Invalid params: invalid arguments for prompt 'code_review': argument 'focus'"],
    [{ code: 'x', extra: 'y' }, "Invalid params: invalid arguments for prompt 'code_review': unknown argument 'extra'"],
    [['x'], "Invalid params: \"arguments\" of prompt 'code_review' must be an object of strings, got an array"],
    ['x', "Invalid params: \"arguments\" of prompt 'code_review' must be an object of strings, got a string"]
  ]
  for (const [args, message] of cases) {
    const m = await send(app, get('code_review', args, 'a'))
    t.equal(m.status, 200)
    t.equal(m.body.error?.code, -32602, JSON.stringify(args))
    t.ok(m.body.error.message.startsWith(message), `${m.body.error.message} starts with ${message}`)
    const l = await send(app, legacy('prompts/get', args === undefined ? { name: 'code_review' } : { name: 'code_review', arguments: args }))
    t.equal(l.body.error?.code, -32602)
    t.equal(l.body.error.message, m.body.error.message, 'the same words in both eras')
  }
})

t.test('the Mcp-Name header must mirror the prompt name', async (t) => {
  const missing = await send(app, modern('prompts/get', { name: 'a_plain' }))
  t.equal(missing.status, 400)
  t.equal(missing.body.error.code, -32020)
  t.match(missing.body.error.message, /Mcp-Name header is required for prompts\/get/)
})

t.test('a get() that fails is -32603 with a generic message; the error is logged, never sent', async (t) => {
  for (const name of ['fail_throw', 'fail_shape', 'fail_role', 'fail_content', 'fail_message', 'fail_description']) {
    const before = log.errors().length
    for (const res of [await send(app, get(name)), await send(app, legacy('prompts/get', { name }))]) {
      t.equal(res.status, 200)
      t.same(res.body.error, { code: -32603, message: `Internal error: prompt '${name}' failed` }, name)
      t.notMatch(res.raw, /hunter2|db\.internal|system|42/)
    }
    const logged = log.errors().slice(before)
    t.equal(logged.length, 2)
    t.equal(logged[0].prompt, name, 'the log line names the prompt')
  }
  const messages = log.errors().map((line) => (line.err as { message: string }).message)
  t.ok(messages.includes(SECRET))
  t.ok(messages.includes('get() returned number; it returns a string, an array of messages, or { description?, messages }'))
  t.ok(messages.includes('message 0 has role "system"; a role is \'user\' or \'assistant\''))
  t.ok(messages.some((m) => m.startsWith('message 0 has content that is not a content block')))
  t.ok(messages.includes('message 0 is string, not { role, content }'))
  t.ok(messages.includes("'description' must be a string"))
})

t.test('a ProtocolError thrown by get is sent as it is', async (t) => {
  const res = await send(app, get('fail_protocol'))
  t.same(res.body.error, { code: -32602, message: 'Invalid params: not today' })
})
