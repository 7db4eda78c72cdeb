// Questions to 2025 clients on the wire: the request on the call's event stream (opened on demand),
// the answer POSTed back on the session, and everything that can go wrong in between (errors,
// a wrong key, timeouts, a client gone, no stream at all), plus an answer reaching another
// instance of a fleet.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { InsufficientScopeError, MemoryBus, MemorySessionStore, Type, definePrompt, toolError, type BusEvent, type SakeOptions, type ToolContext } from '../../../lib/index.js'
import { build, deferred, listen, sleep, until } from '../../helpers/app.js'
import { ALL_CAPABILITIES as ALL, openSession, sessionPost } from '../../helpers/requests.js'
import { getStream, legacyPost, open, sessionOn, type OpenStream } from '../../helpers/network.js'
import { captureLog } from '../../helpers/logs.js'

const KEY = 'io.github.fastify-sake/key'

/** An app (keep-alive off) with what `register` adds, listening until `t` ends. */
async function serve (t: Test, options: Partial<SakeOptions> = {}, register: (app: FastifyInstance) => void = () => {}): Promise<{ app: FastifyInstance, url: string }> {
  const app = await build({ keepAlive: 0, ...options })
  register(app)
  return { app, url: await listen(t, app) }
}

const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

let nextId = 100
async function callTool (url: string, sessionId: string, name: string, protocolVersion = '2025-11-25', accept?: string): Promise<OpenStream> {
  return legacyPost(url, sessionId, protocolVersion, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: {} } }, accept === undefined ? {} : { accept })
}

/** Answers a question of ours on the session; the POST's status. */
async function answer (url: string, sessionId: string, id: unknown, outcome: Record<string, unknown>, protocolVersion = '2025-11-25'): Promise<number> {
  const res = await legacyPost(url, sessionId, protocolVersion, { jsonrpc: '2.0', id, ...outcome })
  await res.rest()
  return res.status
}

function greet (app: FastifyInstance, seen: unknown[] = []): void {
  app.registerTool({
    name: 'greet',
    async execute (args, ctx) {
      try {
        const who = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String() }))
        return who.action === 'accept' ? `Hello, ${who.content.name}!` : who.action
      } catch (err) {
        seen.push(err)
        throw err
      }
    }
  })
}

t.test('the question goes out on the call\'s stream, opened when it is asked; the answer comes back as a POST', async (t) => {
  const { url } = await serve(t, {}, (app) => greet(app))
  const sid = await sessionOn(url, { capabilities: ALL })
  const stream = await callTool(url, sid, 'greet')
  t.equal(stream.headers.get('content-type'), 'text/event-stream')
  const priming = await stream.next()
  t.equal(priming!.data, '', 'a 2025-11-25 stream starts with a priming event')
  const request = await stream.message()
  t.match(request, { jsonrpc: '2.0', id: /^sake-[A-Za-z0-9_-]+-\d+$/, method: 'elicitation/create' })
  t.same(request.params, { mode: 'form', message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, _meta: { [KEY]: 'who' } })
  t.equal(await answer(url, sid, request.id, { result: { action: 'accept', content: { name: 'Ada' }, _meta: { [KEY]: 'who' } } }), 202)
  const result = await stream.message()
  t.same(result.result.content, [{ type: 'text', text: 'Hello, Ada!' }])
  t.same(await stream.rest(), [], 'the stream ends with the result')
})

t.test('a handler that asks nothing answers JSON, even for a client that could be asked', async (t) => {
  const { url } = await serve(t, {}, (app) => app.registerTool({ name: 'plain', execute: () => 'plain' }))
  const sid = await sessionOn(url, { capabilities: ALL })
  const res = await callTool(url, sid, 'plain')
  t.match(res.headers.get('content-type'), /^application\/json/)
  t.same((await res.json()).result.content, [{ type: 'text', text: 'plain' }])
})

t.test('what the client answers besides a good answer', async (t) => {
  const seen: unknown[] = []
  const { url } = await serve(t, {}, (app) => greet(app, seen))
  const sid = await sessionOn(url, { capabilities: ALL })
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ error: { code: -1, message: 'User rejected' } }, /the client answered elicitation\/create \('who'\) with error -1: User rejected/],
    [{ error: 'broken' }, /with error -32603: the client sent an error without a message/],
    [{ result: { action: 'accept', content: { name: 'x' }, _meta: { [KEY]: 'other' } } }, /is not valid: it answers key "other"/],
    [{ result: { action: 'accept', content: { name: 7 } } }, /does not match the requested schema/],
    [{ result: 'yes' }, /expected an elicitation result/]
  ]
  for (const [outcome, message] of cases) {
    const stream = await callTool(url, sid, 'greet')
    const request = await stream.message()
    t.equal(await answer(url, sid, request.id, outcome), 202)
    const result = (await stream.message()).result
    t.equal(result.isError, true)
    t.match(result.content[0].text, message)
    t.match(result.content[0].text, /^Tool 'greet': /)
  }
  t.equal(seen.length, cases.length)
  t.match(seen[0], { name: 'ClientInputError', key: 'who', method: 'elicitation/create', reason: 'error' })
  t.match(seen[2], { reason: 'invalid' })
})

t.test('no answer in time: a timeout the tool sees', async (t) => {
  const seen: unknown[] = []
  const { url } = await serve(t, { inputTimeout: 1 }, (app) => greet(app, seen))
  const sid = await sessionOn(url, { capabilities: ALL })
  const stream = await callTool(url, sid, 'greet')
  const request = await stream.message()
  const result = (await stream.message()).result
  t.match(result.content[0].text, /the client did not answer elicitation\/create \('who'\) within 1 ms/)
  t.match(seen[0], { reason: 'timeout' })
  t.equal(await answer(url, sid, request.id, { result: { action: 'decline' } }), 202, 'a late answer to a question asked here is taken and dropped')
})

t.test('the client goes away: the question is cancelled', async (t) => {
  const seen: unknown[] = []
  const { url } = await serve(t, {}, (app) => greet(app, seen))
  const sid = await sessionOn(url, { capabilities: ALL, protocolVersion: '2025-06-18' })
  const stream = await callTool(url, sid, 'greet', '2025-06-18')
  const request = await stream.message()
  t.same(request.params, { message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, _meta: { [KEY]: 'who' } }, '2025-06-18 has no mode')
  stream.close()
  await until(() => seen.length > 0, { what: 'the question to be cancelled' })
  t.match(seen[0], { name: 'ClientInputError', reason: 'cancelled', message: /the call ended before the client answered/ })
})

t.test('a question asked after the call ended, or once the client is gone, is cancelled at once', async (t) => {
  const seen: unknown[] = []
  let later: Promise<void> | undefined
  const callEnded = deferred()
  const { url } = await serve(t, {}, (app) => {
    app.registerTool({
      name: 'after',
      async execute (args, ctx) {
        await ctx.roots('first') // opens the stream
        later = callEnded.promise.then(async () => { await ctx.roots('late') }).catch((err) => { seen.push(err) })
        return 'returned'
      }
    })
    app.registerTool({
      name: 'gone',
      async execute (args, ctx) {
        await ctx.roots('first').catch((err) => { seen.push(err) })
        await ctx.sample('late', { messages: [], maxTokens: 1 }).catch((err) => { seen.push(err) })
        return 'x'
      }
    })
  })
  const sid = await sessionOn(url, { capabilities: { roots: {}, sampling: {} }, protocolVersion: '2025-06-18' })
  const stream = await callTool(url, sid, 'after', '2025-06-18')
  const request = await stream.message()
  t.equal(request.method, 'roots/list')
  await answer(url, sid, request.id, { result: { roots: [] } }, '2025-06-18')
  t.same((await stream.message()).result.content, [{ type: 'text', text: 'returned' }])
  callEnded.resolve() // the client has the result: the call, and its stream, are over
  await later
  t.match(seen[0], { reason: 'cancelled', message: /stream closed before roots\/list \('late'\) could be sent/ })
  const gone = await callTool(url, sid, 'gone', '2025-06-18')
  await gone.message()
  gone.close()
  await until(() => seen.length >= 3, { what: 'the questions of the call whose client went away to be cancelled' })
  t.match(seen[1], { reason: 'cancelled', message: /the call ended before the client answered roots\/list \('first'\)/ })
  t.match(seen[2], { reason: 'cancelled', message: /the call ended before the client answered sampling\/createMessage \('late'\)/ }, 'asked once the client was gone')
})

t.test('what cannot be asked is unsupported', async (t) => {
  const { url } = await serve(t, {}, (app) => {
    app.registerTool({
      name: 'all',
      async execute (args, ctx) {
        const form = await ctx.elicit.form('f', 'F?', Type.Object({ a: Type.String() }))
        const link = await ctx.elicit.url('u', 'Open', 'https://example.com/x')
        const sample = await ctx.sample('s', { messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 1 })
        const roots = await ctx.roots('r')
        return [form, link, sample, roots].map((o) => o.action).join(',')
      }
    })
  })
  // 2025-03-26 has no elicitation; 2025-06-18 no URL mode; sampling exists in both
  for (const [version, expected] of [['2025-03-26', 'unsupported,unsupported,accept,accept'], ['2025-06-18', 'accept,unsupported,accept,accept']] as const) {
    const sid = await sessionOn(url, { capabilities: ALL, protocolVersion: version })
    const stream = await callTool(url, sid, 'all', version)
    for (;;) {
      const message = await stream.message()
      if (message.result !== undefined) {
        t.same(message.result.content, [{ type: 'text', text: expected }], version)
        break
      }
      const reply = message.method === 'sampling/createMessage'
        ? { role: 'user', model: 'm', content: { type: 'text', text: 'a' } } // the spec's Role allows either
        : message.method === 'roots/list' ? { roots: [] } : { action: 'accept', content: { a: 'x' } }
      await answer(url, sid, message.id, { result: reply }, version)
    }
  }
  // a client that accepts only JSON cannot be asked on a stream
  const sid = await sessionOn(url, { capabilities: ALL })
  const json = await callTool(url, sid, 'all', '2025-11-25', 'application/json')
  t.same((await json.json()).result.content, [{ type: 'text', text: 'unsupported,unsupported,unsupported,unsupported' }])
})

t.test('URL elicitation in a 2025-11-25 session carries an elicitationId', async (t) => {
  const { url } = await serve(t, {}, (app) => {
    app.registerTool({ name: 'link', async execute (args, ctx) { return (await ctx.elicit.url('auth', 'Sign in', 'https://example.com/a')).action } })
  })
  const sid = await sessionOn(url, { capabilities: ALL })
  const stream = await callTool(url, sid, 'link')
  const request = await stream.message()
  t.match(request.params, { mode: 'url', message: 'Sign in', url: 'https://example.com/a', elicitationId: /^[0-9a-f-]{36}$/ })
  await answer(url, sid, request.id, { result: { action: 'accept' } })
  t.same((await stream.message()).result.content, [{ type: 'text', text: 'accept' }])
})

t.test('asking the same key twice asks once', async (t) => {
  const { url } = await serve(t, {}, (app) => {
    app.registerTool({
      name: 'twice',
      async execute (args, ctx: ToolContext) {
        const a = await ctx.roots('r')
        const b = await ctx.roots('r')
        return String(a === b || JSON.stringify(a) === JSON.stringify(b))
      }
    })
  })
  const sid = await sessionOn(url, { capabilities: ALL })
  const stream = await callTool(url, sid, 'twice')
  const request = await stream.message()
  await answer(url, sid, request.id, { result: { roots: [{ uri: 'file:///a' }] } })
  t.same((await stream.message()).result.content, [{ type: 'text', text: 'true' }])
})

t.test('prompts and resources whose question fails answer -32603 naming it', async (t) => {
  const { url } = await serve(t, {}, (app) => {
    app.registerPrompt(definePrompt({ name: 'p', async get (args, ctx) { return (await ctx.roots('r')).action } }))
    app.registerResource({ uri: 'app://r', name: 'r', async read (uri, vars, ctx) { return (await ctx.roots('r')).action } })
  })
  const sid = await sessionOn(url, { capabilities: ALL })
  for (const [body, what] of [[{ method: 'prompts/get', params: { name: 'p' } }, "prompt 'p'"], [{ method: 'resources/read', params: { uri: 'app://r' } }, "resource 'app://r'"]] as const) {
    const stream = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 5, ...body })
    const request = await stream.message()
    await answer(url, sid, request.id, { error: { code: -32601, message: 'no roots here' } })
    const failed = await stream.message()
    t.equal(failed.error.code, -32603)
    t.equal(failed.error.message, `Internal error: ${what} failed: the client answered roots/list ('r') with error -32601: no roots here`)
  }
})

t.test('an answer posted to another instance of the fleet reaches the one that asked', async (t) => {
  const bus = new MemoryBus()
  const sessions = new MemorySessionStore({ idleTimeout: 60_000, maxSessions: 10 })
  const a = await serve(t, { bus, sessions: { store: sessions } }, (app) => greet(app))
  const b = await serve(t, { bus, sessions: { store: sessions } }, (app) => greet(app))
  const events: BusEvent[] = []
  t.teardown(bus.subscribe((event) => events.push(event)))
  const sid = await sessionOn(a.url, { capabilities: ALL })
  // the session's GET stream sees the bus too, and leaves answers alone
  const get = await getStream(a.url, sid)
  t.teardown(() => get.close())
  const stream = await callTool(a.url, sid, 'greet')
  const request = await stream.message()
  t.equal(await answer(b.url, sid, request.id, { result: { action: 'accept', content: { name: 'Fleet' } } }), 202)
  t.same((await stream.message()).result.content, [{ type: 'text', text: 'Hello, Fleet!' }])
  t.match(events, [{ type: 'clientResponse', sessionId: sid, id: request.id, answer: { result: { action: 'accept' } } }])
  // another instance's id: with a bus of the host's own and no inbox, nothing can tell whether that
  // instance waits for it, so it travels the bus (and is kept nowhere)
  t.equal(await answer(a.url, sid, 'sake-unknown-1', { result: {} }), 202)
  // ids that cannot be ours, and this instance's own that no question waits for, are refused
  t.equal(await answer(a.url, sid, null, { error: { code: -32700, message: 'x' } }), 400)
  t.equal(await answer(a.url, sid, 17, { error: { code: 1, message: 'x', data: { why: 'numbers are never our ids' } } }), 400)
  t.equal(await answer(a.url, sid, 'not-ours', { result: { big: 'x'.repeat(1000) } }), 400)
  t.equal(await answer(a.url, sid, request.id, { result: { action: 'accept', content: { name: 'Again' } } }), 202, 'answered already, on the instance that asked: taken and dropped')
  t.equal(await answer(a.url, sid, request.id.replace(/-\d+$/, '-999'), { result: {} }), 400, 'an id this instance never gave out: refused')
  t.equal(events.length, 2, 'refused answers never travel the bus')
  // an event from a bus shared with something else: not ours, dropped by every instance
  await bus.publish({ type: 'clientResponse', sessionId: sid, id: 5, answer: { result: {} } })
  t.equal(events.length, 3)
  await get.next(100).catch(() => undefined)
})

t.test('a bus that fails to carry an answer is logged, and the POST still accepted', async (t) => {
  const log = captureLog()
  const bus = new MemoryBus()
  bus.publish = () => { throw new Error('bus down') }
  const app = await build({ keepAlive: 0, bus }, { logger: log.logger })
  const url = await listen(t, app)
  const sid = await sessionOn(url, { capabilities: ALL })
  t.equal(await answer(url, sid, 'sake-nobody-1', { result: {} }), 202)
  t.match(log.errors()[0], { msg: /the bus failed to carry a client response/, err: { message: 'bus down' } })
})

t.test('2025-03-26 batches: an answer inside a batch reaches its question', async (t) => {
  const { url } = await serve(t, {}, (app) => greet(app))
  const sid = await sessionOn(url, { capabilities: ALL, protocolVersion: '2025-03-26' })
  // 2025-03-26 has no elicitation: use roots through a tool of its own
  const stream = await open(url, { method: 'POST', headers: { ...base, 'mcp-session-id': sid }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: {} } }) })
  t.same((await stream.json()).result.content, [{ type: 'text', text: 'unsupported' }])
  const batch = await open(url, { method: 'POST', headers: { ...base, 'mcp-session-id': sid }, body: JSON.stringify([{ jsonrpc: '2.0', id: 'sake-nobody-2', result: {} }, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: {} } }]) })
  const answers = await batch.json()
  t.same(answers.map((a: any) => a.id), [2], 'the answer is consumed; the call answered, without a stream to ask on')
  t.same(answers[0].result.content, [{ type: 'text', text: 'unsupported' }])
})

t.test('2025-03-26: a real answer inside a batch settles its question', async (t) => {
  const { url } = await serve(t, {}, (app) => {
    app.registerTool({ name: 'rooted', async execute (_args, ctx) { const r = await ctx.roots('r'); return r.action === 'accept' ? r.roots.map((root) => root.uri).join(',') : r.action } })
  })
  const sid = await sessionOn(url, { capabilities: { roots: {} }, protocolVersion: '2025-03-26' })
  const stream = await open(url, { method: 'POST', headers: { ...base, 'mcp-session-id': sid }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'rooted', arguments: {} } }) })
  const question = await stream.message()
  t.equal(question.method, 'roots/list')
  const batch = await open(url, { method: 'POST', headers: { ...base, 'mcp-session-id': sid }, body: JSON.stringify([{ jsonrpc: '2.0', id: question.id, result: { roots: [{ uri: 'file:///work' }] } }]) })
  t.equal(batch.status, 202, 'a batch of one answer: nothing to answer back')
  t.same((await stream.message()).result.content, [{ type: 'text', text: 'file:///work' }])
})

t.test('the tool error a question produces when the tool does not catch it', async (t) => {
  const { url } = await serve(t, {}, (app) => {
    app.registerTool({ name: 'bare', async execute (args, ctx) { const r = await ctx.roots('r'); return r.action === 'accept' ? 'ok' : toolError('no') } })
  })
  const sid = await sessionOn(url, { capabilities: ALL })
  const stream = await callTool(url, sid, 'bare')
  const request = await stream.message()
  await answer(url, sid, request.id, { error: { code: 1, message: 'nope' } })
  const result = (await stream.message()).result
  t.same(result, { content: [{ type: 'text', text: "Tool 'bare': the client answered roots/list ('r') with error 1: nope" }], isError: true })
})

t.test('closing the server ends the wait of a question at once; the call answers', async (t) => {
  const seen: unknown[] = []
  const app = await build({ keepAlive: 0 })
  greet(app, seen)
  const url = await listen(t, app, { teardown: false })
  const sid = await sessionOn(url, { capabilities: ALL })
  const stream = await callTool(url, sid, 'greet')
  await stream.message()
  const started = Date.now()
  const closing = app.close()
  const result = (await stream.message()).result
  await closing
  t.ok(Date.now() - started < 2000, 'closed without waiting for inputTimeout (10 minutes)')
  t.match(result.content[0].text, /the server is closing before the client answered/)
  t.match(seen[0], { reason: 'cancelled' })
})

t.test('a streamed 2025-11-25 call asks on its resumable stream; a client that reconnects gets the question by replay', async (t) => {
  const { url } = await serve(t, {}, (app) => {
    app.registerTool({
      name: 'steps',
      stream: true,
      async execute (args, ctx) {
        ctx.progress(1, 2)
        const who = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String() }))
        ctx.progress(2, 2)
        return who.action === 'accept' ? `Hello, ${who.content.name}!` : who.action
      }
    })
  })
  const sid = await sessionOn(url, { capabilities: ALL })
  const stream = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'steps', arguments: {}, _meta: { progressToken: 'p' } } })
  const priming = await stream.next()
  t.equal(priming!.data, '')
  const progress = await stream.next()
  t.equal(JSON.parse(progress!.data!).method, 'notifications/progress')
  const asked = await stream.next()
  const question = JSON.parse(asked!.data!)
  t.equal(question.method, 'elicitation/create')
  // the connection drops after the progress event: the call goes on (2025-11-25), and the
  // question is replayed on the GET that resumes the stream
  stream.close()
  await sleep(50) // for the server to see the connection drop: nothing outside it shows that
  const resumed = await getStream(url, sid, progress!.id!)
  const replayed = await resumed.next()
  t.equal(replayed!.id, asked!.id, 'the question, with its event id')
  t.same(JSON.parse(replayed!.data!), question)
  t.equal(await answer(url, sid, question.id, { result: { action: 'accept', content: { name: 'Again' } } }), 202)
  const rest = (await resumed.rest()).filter((event) => event.data !== undefined && event.data !== '').map((event) => JSON.parse(event.data!))
  t.equal(rest[0].method, 'notifications/progress')
  t.same(rest.at(-1).result.content, [{ type: 'text', text: 'Hello, Again!' }])
})

t.test('a tool that needs more scope keeps its 403 challenge for a client that could be asked', async (t) => {
  const app = await build()
  app.registerTool({ name: 'strict', execute: () => { throw new InsufficientScopeError(['a:write']) } })
  t.teardown(() => app.close())
  for (const capabilities of [{}, ALL]) {
    const sid = await openSession(app, '2025-06-18', { capabilities, clientInfo: { name: 'c', version: '1' }, initialized: false })
    const res = await app.inject(sessionPost(sid, '2025-06-18', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'strict', arguments: {} } }))
    t.equal(res.statusCode, 403, JSON.stringify(capabilities))
    t.match(res.headers['www-authenticate'], /insufficient_scope", scope="a:write"/)
    t.equal(JSON.parse(res.body).id, 4)
  }
})

t.test('a question asked once the server is closing fails at once', async (t) => {
  const seen: unknown[] = []
  const app = await build({ keepAlive: 0, inputTimeout: 60_000 })
  // the tool asks again only once close() has begun: this preClose hook runs after the plugin's
  const closing = deferred()
  app.addHook('preClose', async () => { closing.resolve() })
  app.registerTool({
    name: 'slow',
    async execute (args, ctx) {
      await ctx.roots('first')
      await closing.promise
      return (await ctx.roots('late').catch((err) => { seen.push(err); throw err })).action
    }
  })
  const url = await listen(t, app, { teardown: false })
  const sid = await sessionOn(url, { capabilities: ALL })
  const stream = await callTool(url, sid, 'slow')
  const first = await stream.message()
  await answer(url, sid, first.id, { result: { roots: [] } })
  const started = Date.now()
  await app.close()
  t.ok(Date.now() - started < 2000, 'close did not wait for inputTimeout')
  t.match(seen[0], { reason: 'cancelled', message: /the server is closing: roots\/list \('late'\) was not sent/ })
})

t.test('questions left open are cancelled when the call answers, and when the session ends', async (t) => {
  const seen: unknown[] = []
  const { url } = await serve(t, {}, (app) => {
    app.registerTool({
      name: 'race',
      async execute (args, ctx) {
        const slow = ctx.sample('b', { messages: [], maxTokens: 1 }).catch((err) => { seen.push(err); return undefined })
        const first = await Promise.race([ctx.roots('a'), slow])
        return first === undefined ? 'none' : first.action
      }
    })
    greet(app, seen)
  })
  const sid = await sessionOn(url, { capabilities: ALL })
  const stream = await callTool(url, sid, 'race')
  const [one, two] = [await stream.message(), await stream.message()]
  const roots = one.method === 'roots/list' ? one : two
  const sampling = one.method === 'roots/list' ? two : one
  await answer(url, sid, roots.id, { result: { roots: [] } })
  t.same((await stream.message()).result.content, [{ type: 'text', text: 'accept' }])
  await until(() => seen.length > 0, { what: 'the unanswered sampling question to be cancelled' })
  t.match(seen[0], { reason: 'cancelled', message: /the call answered before the client answered sampling\/createMessage \('b'\)/ })
  t.equal(await answer(url, sid, sampling.id, { result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'late' } } }), 202, 'a late answer is taken and dropped')

  const other = await callTool(url, sid, 'greet')
  await other.message()
  const deleted = await open(url, { method: 'DELETE', headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } })
  t.equal(deleted.status, 204)
  const result = (await other.message()).result
  t.match(result.content[0].text, /the session ended before the client answered elicitation\/create \('who'\)/)
})
