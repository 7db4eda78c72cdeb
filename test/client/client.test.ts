// The client against fastify-sake itself, in-process ({ app }) and over a real port ({ url }), in
// both eras: every method, the headers it mirrors, questions over several rounds, progress, logs,
// tasks, the cache, a session that is gone, a stream that closes early, and the errors it raises.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, toolError, definePrompt, defineTool, userMessage } from '../../lib/index.js'
import { createClient, RpcError, AuthChallengeError, HttpError, UnansweredInputError, type Client, type FetchLike } from '../../lib/client/index.js'
import { build, listen } from '../helpers/app.js'
import { legacyClient } from '../helpers/clients.js'

const ERAS = ['modern', 'legacy'] as const

async function fixture (): Promise<FastifyInstance & { seen: Array<Record<string, unknown>> }> {
  const app = await build({ pageSize: 2 }) as FastifyInstance & { seen: Array<Record<string, unknown>> }
  const seen: Array<Record<string, unknown>> = []
  app.seen = seen
  app.addHook('onRequest', async (request) => { if (request.method === 'POST') seen.push({ ...request.headers }) })
  app.registerTool([
    defineTool({
      name: 'add',
      args: { a: Type.Number(), b: Type.Number(), precision: Type.Optional(Type.Integer({ header: 'Precision' })) },
      execute: ({ a, b, precision }) => ({ sum: precision === undefined ? a + b : Number((a + b).toFixed(precision)) })
    }),
    defineTool({
      name: 'label',
      args: { text: Type.String({ header: 'Label' }), loud: Type.Optional(Type.Boolean({ header: 'Loud' })) },
      execute: ({ text, loud }) => loud === true ? text.toUpperCase() : text
    }),
    defineTool({
      name: 'two_questions',
      async execute (_args, ctx) {
        const first = await ctx.elicit.form('first', 'First?', Type.Object({ n: Type.Integer() }))
        const second = await ctx.elicit.form('second', 'Second?', Type.Object({ n: Type.Integer() }))
        return `${first.action}:${first.action === 'accept' ? first.content.n : '-'} ${second.action}:${second.action === 'accept' ? second.content.n : '-'}`
      }
    }),
    defineTool({
      name: 'sample',
      async execute (_args, ctx) {
        const answer = await ctx.sample('llm', { messages: [{ role: 'user', content: { type: 'text', text: 'Hi?' } }], maxTokens: 10 })
        return answer.action === 'accept' ? JSON.stringify(answer.message.content) : answer.action
      }
    }),
    defineTool({
      name: 'roots',
      async execute (_args, ctx) {
        const answer = await ctx.roots('where')
        return answer.action === 'accept' ? answer.roots.map((root) => root.uri).join(',') : answer.action
      }
    }),
    defineTool({
      name: 'chatty',
      stream: true,
      execute: (_args, ctx) => {
        ctx.notify('info', { said: 'hello' }, 'tests')
        ctx.notify('debug', 'quiet')
        return 'done'
      }
    }),
    defineTool({
      name: 'slow',
      execute: async (_args, ctx) => await new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted')))
    }),
    defineTool({
      name: 'polling',
      stream: true,
      execute: async (_args, ctx) => {
        ctx.progress(1, 2)
        ctx.closeStream(1)
        await new Promise((resolve) => setTimeout(resolve, 30))
        return 'after the stream closed'
      }
    }),
    defineTool({
      name: 'job',
      task: 'optional',
      async execute (_args, ctx) {
        const go = await ctx.elicit.form('go', 'Go on?', Type.Object({ yes: Type.Boolean() }))
        return go.action === 'accept' && go.content.yes ? 'went on' : toolError('stopped')
      }
    }),
    defineTool({ name: 'broken', task: 'optional', execute: () => { throw new Error('boom') } }),
    defineTool({
      name: 'waiting',
      task: 'optional',
      execute: async (_args, ctx) => await new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped')))
    })
  ])
  app.registerResource([
    { uri: 'memo://a', name: 'a', ttl: 60_000, read: () => 'A' },
    { uri: 'memo://b', name: 'b', read: () => 'B' },
    { uri: 'memo://c', name: 'c', read: () => 'C' },
    {
      uri: 'memo://asked',
      name: 'asked',
      read: async (_uri, _vars, ctx) => {
        const who = await ctx.elicit.form('reader', 'Who reads?', Type.Object({ name: Type.String() }))
        return who.action === 'accept' ? `for ${who.content.name}` : 'for nobody'
      }
    },
    { uriTemplate: 'users://{id}', name: 'user', read: (_uri, { id }) => `user ${id}`, complete: (_variable, partial) => ['ada', 'alan'].filter((id) => id.startsWith(partial)) }
  ])
  app.registerPrompt(definePrompt({
    name: 'review',
    args: { code: Type.String() },
    get: async ({ code }, ctx) => {
      const tone = await ctx.elicit.form('tone', 'Which tone?', Type.Object({ tone: Type.String() }))
      return [userMessage(`Review (${tone.action === 'accept' ? tone.content.tone : 'plain'}): ${code}`)]
    },
    complete: (_argument, partial) => ['x = 1', 'y = 2'].filter((v) => v.startsWith(partial))
  }))
  return app
}

let app: Awaited<ReturnType<typeof fixture>>
let url: string
t.before(async () => {
  app = await fixture()
  url = await listen(t, app)
})

for (const era of ERAS) {
  for (const transport of ['app', 'url'] as const) {
    t.test(`${era} over ${transport}: every method`, async (t) => {
      const client: Client = transport === 'app'
        ? createClient({ app, era, legacyVersion: '2025-11-25' })
        : createClient({ url, era })
      t.teardown(() => client.close())
      t.equal(client.era, undefined, 'nothing sent before the first call')
      const description = await client.discover()
      t.equal(description.era, era)
      t.equal(description.serverInfo?.name, 'test-server')
      t.equal(client.protocolVersion, era === 'modern' ? '2026-07-28' : '2025-11-25')
      t.equal(typeof client.sessionId, era === 'modern' ? 'undefined' : 'string')
      t.ok('tools' in description.capabilities)

      const tools = await client.listTools()
      t.same(tools.map((tool) => tool.name), ['add', 'broken', 'chatty', 'job', 'label', 'polling', 'roots', 'sample', 'slow', 'two_questions', 'waiting'], 'six pages of two, all read')
      t.same((await client.callTool('add', { a: 1, b: 2.555, precision: 2 })).structuredContent, { sum: 3.56 })
      t.same((await client.callTool('label', { text: 'Grüße ', loud: true })).content, [{ type: 'text', text: 'GRÜSSE ' }])
      const headers = app.seen.at(-1)!
      t.equal(headers['mcp-param-label'], '=?base64?' + Buffer.from('Grüße ').toString('base64') + '?=', 'non-ASCII and a trailing space: base64')
      t.equal(headers['mcp-param-loud'], 'true')
      t.equal(headers['mcp-name'], 'label')
      t.equal(headers['mcp-method'], 'tools/call')

      t.same((await client.listResources()).map((r) => r.uri), ['memo://a', 'memo://asked', 'memo://b', 'memo://c'])
      t.same((await client.listResourceTemplates()).map((r) => r.uriTemplate), ['users://{id}'])
      t.same((await client.readResource('users://42')).contents, [{ uri: 'users://42', text: 'user 42' }])
      t.same((await client.listPrompts()).map((p) => p.name), ['review'])
      t.same((await client.complete({ type: 'ref/resource', uri: 'users://{id}' }, { name: 'id', value: 'a' })).completion.values, ['ada', 'alan'])
      t.same((await client.complete({ type: 'ref/prompt', name: 'review' }, { name: 'code', value: 'x' }, { code: '' })).completion.values, ['x = 1'])
      const prompt = await client.getPrompt('review', { code: 'x = 1' }, { onInput: { tone: { action: 'accept', content: { tone: 'kind' } } } })
      t.same(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Review (kind): x = 1' } }], 'prompts/get with a question')
      const read = await client.readResource('memo://asked', { onInput: { reader: { action: 'accept', content: { name: 'Ada' } } } })
      t.same(read.contents, [{ uri: 'memo://asked', text: 'for Ada' }], 'resources/read with a question')
      t.same(await client.request(era === 'modern' ? 'server/discover' : 'ping'), era === 'modern' ? (await client.discover({ fresh: true })).result : {}, 'a raw request')
      await t.rejects(client.callTool('missing'), { name: 'RpcError', code: -32602, message: /Unknown tool/ })
    })
  }

  t.test(`${era}: questions answered by key, over several rounds, per call over the client's`, async (t) => {
    const client = createClient({ app, era, onInput: { first: { action: 'accept', content: { n: 1 } }, second: (request) => ({ action: 'accept', content: { n: (request.params as any).message === 'Second?' ? 2 : 0 } }) } })
    t.teardown(() => client.close())
    t.same((await client.callTool('two_questions')).content, [{ type: 'text', text: 'accept:1 accept:2' }], 'two rounds in 2026-07-28, two requests on the stream in 2025')
    const override = await client.callTool('two_questions', {}, { onInput: { second: { action: 'accept', content: { n: 9 } } } })
    t.same(override.content, [{ type: 'text', text: 'accept:1 accept:9' }], "the call's answer wins, the client's answers the rest")
    const fn = await client.callTool('two_questions', {}, { onInput: (_request, key) => key === 'first' ? { action: 'accept', content: { n: 5 } } : undefined })
    t.same(fn.content, [{ type: 'text', text: 'accept:5 accept:2' }], 'a function of the call; undefined falls back to the client')
  })

  t.test(`${era}: an unanswered question is declined, cancelled, or an error`, async (t) => {
    const client = createClient({ app, era })
    t.teardown(() => client.close())
    t.same((await client.callTool('two_questions')).content, [{ type: 'text', text: 'decline:- decline:-' }], 'declined by default')
    t.same((await client.callTool('two_questions', {}, { unanswered: 'cancel' })).content, [{ type: 'text', text: 'cancel:- cancel:-' }])
    if (era === 'modern') {
      t.same((await client.callTool('two_questions', {}, { unanswered: 'error' })).content, [{ type: 'text', text: 'unsupported:- unsupported:-' }], "'error' and no onInput: elicitation is not declared for this call")
    } else {
      // a 2025 session declared elicitation at initialize (the client's unanswered is 'decline'): asked, and refused here
      await t.rejects(client.callTool('two_questions', {}, { unanswered: 'error' }), UnansweredInputError)
    }
    await t.rejects(client.callTool('two_questions', {}, { unanswered: 'error', onInput: { other: { action: 'cancel' } } }), { name: 'UnansweredInputError', key: 'first', method: 'elicitation/create' })
    t.same((await client.callTool('sample')).content, [{ type: 'text', text: 'unsupported' }], 'no sampling answer: the capability is not declared')
    t.same((await client.callTool('roots')).content, [{ type: 'text', text: 'unsupported' }], 'no roots answer: not declared either')
  })

  t.test(`${era}: sampling and roots answered, capabilities declared for them`, async (t) => {
    const client = createClient({ app, era, onInput: { llm: { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'm' }, where: { roots: [{ uri: 'file:///a' }] } } })
    t.teardown(() => client.close())
    t.same((await client.callTool('sample')).content, [{ type: 'text', text: '{"type":"text","text":"Hello"}' }])
    t.same((await client.callTool('roots')).content, [{ type: 'text', text: 'file:///a' }])
  })

  t.test(`${era}: a question no answer can meet`, async (t) => {
    // a function may answer anything, so every capability is declared; this one has no sampling answer
    const client = createClient({ app, era, onInput: () => undefined })
    t.teardown(() => client.close())
    if (era === 'modern') {
      await t.rejects(client.callTool('sample'), UnansweredInputError, 'sampling cannot be declined in inputResponses')
    } else {
      const result = await client.callTool('sample')
      t.equal(result.isError, true, 'refused with a JSON-RPC error on the stream: the tool sees it fail')
    }
    await t.rejects(client.callTool('sample', {}, { unanswered: 'error' }), UnansweredInputError)
  })

  t.test(`${era}: progress and log messages of a call`, async (t) => {
    const client = createClient({ url, era })
    t.teardown(() => client.close())
    const logs: unknown[] = []
    t.same((await client.callTool('chatty', {}, { onLog: (log) => logs.push(log), logLevel: 'info' })).content, [{ type: 'text', text: 'done' }])
    t.same(logs, [{ level: 'info', logger: 'tests', data: { said: 'hello' } }], 'info asked for: debug not sent')
    const all: unknown[] = []
    await client.callTool('chatty', {}, { onLog: (log) => all.push(log) })
    t.same(all.map((log: any) => log.level), ['info', 'debug'], "onLog alone asks for 'debug'")
  })

  t.test(`${era}: a task, its question answered on the way`, async (t) => {
    const client = createClient({ app, era, legacyVersion: '2025-11-25', onInput: { go: { action: 'accept', content: { yes: true } } } })
    t.teardown(() => client.close())
    t.same((await client.callTool('job', {}, { task: true })).content, [{ type: 'text', text: 'went on' }])
    t.same((await client.callTool('job', {}, { task: { ttl: 60_000 }, onInput: { go: { action: 'decline' } } })).isError, true, 'a tool error in a task is still a result')
    if (era === 'modern') await t.rejects(client.callTool('broken', {}, { task: true }), { name: 'RpcError' })
    else t.equal((await client.callTool('broken', {}, { task: true })).isError, true)
    t.same((await client.callTool('add', { a: 1, b: 1 }, { task: true })).structuredContent, { sum: 2 }, 'a tool without task runs inline')
    if (era === 'modern') {
      const cancels = (): number => app.seen.filter((h) => h['mcp-method'] === 'tasks/cancel').length
      const before = cancels()
      await t.rejects(client.callTool('waiting', {}, { task: true, signal: AbortSignal.timeout(100) }), { name: 'TimeoutError' })
      t.equal(cancels() - before, 1, 'an aborted wait cancels the task')
    }
  })

  t.test(`${era}: aborting a call`, async (t) => {
    const client = createClient({ url, era })
    t.teardown(() => client.close())
    await client.listTools()
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('enough')), 50)
    await t.rejects(client.callTool('slow', {}, { signal: controller.signal }), { message: 'enough' })
    await t.rejects(client.callTool('slow', {}, { timeout: 50 }), { name: 'TimeoutError' })
  })
}

t.test('2025-11-25: a stream the server closes early is resumed with Last-Event-ID', async (t) => {
  const client = createClient({ url, era: 'legacy' })
  t.teardown(() => client.close())
  const progress: number[] = []
  t.same((await client.callTool('polling', {}, { onProgress: (p) => progress.push(p.progress) })).content, [{ type: 'text', text: 'after the stream closed' }])
  t.same(progress, [1])
})

t.test('2025: a session the server ended is opened again, once', async (t) => {
  const client = createClient({ url, era: 'legacy', logLevel: 'info' })
  t.teardown(() => client.close())
  await client.listTools()
  const first = client.sessionId!
  const res = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': first, 'mcp-protocol-version': '2025-11-25' } })
  t.equal(res.status, 204)
  t.same((await client.callTool('add', { a: 2, b: 2 })).structuredContent, { sum: 4 })
  t.not(client.sessionId, first, 'a new session')
  await client.close()
  t.equal(client.sessionId, undefined)
  t.same((await client.callTool('add', { a: 3, b: 3 })).structuredContent, { sum: 6 }, 'a closed client opens a new session on its next call')
})

t.test('the cache: a list fetched once until its ttlMs passes; fresh skips it', async (t) => {
  const client = createClient({ app, era: 'modern' })
  const count = (): number => app.seen.filter((h) => h['mcp-method'] === 'tools/list').length
  const before = count()
  await client.listTools()
  await client.listTools()
  t.equal(count() - before, 6, 'six pages, once')
  await client.listTools({ fresh: true })
  t.equal(count() - before, 12)
  const reads = (uri: string): number => app.seen.filter((h) => h['mcp-name'] === uri).length
  const a = reads('memo://a')
  await client.readResource('memo://a')
  await client.readResource('memo://a')
  t.equal(reads('memo://a') - a, 1, 'a read with a ttl is cached')
  const asked = reads('memo://asked')
  await client.readResource('memo://asked')
  await client.readResource('memo://asked')
  t.equal(reads('memo://asked') - asked, 4, 'a read that took a round of questions is not')
  const legacy = createClient({ app, era: 'legacy' })
  t.teardown(() => legacy.close())
  const start = count()
  await legacy.listTools()
  await legacy.listTools()
  t.equal(count() - start, 12, '2025 lists carry no ttlMs: never cached')
})

t.test('a header mismatch: the tools are listed again, the call retried once', async (t) => {
  let lists = 0
  const fetcher: FetchLike = async (target, init) => {
    const body = JSON.parse(init.body ?? '{}')
    if (body.method === 'tools/list') {
      lists++
      // the first list hides the header annotation, as if the tool changed since
      const res = await fetch(target, init)
      const json = await res.json() as any
      if (lists === 1) for (const tool of json.result.tools) delete tool.inputSchema.properties?.precision?.['x-mcp-header']
      return Response.json(json)
    }
    return await fetch(target, init)
  }
  const client = createClient({ url, era: 'modern', fetch: fetcher })
  t.same((await client.callTool('add', { a: 1, b: 1, precision: 0 })).structuredContent, { sum: 2 })
  t.equal(lists, 12, 'its six pages listed again after the -32020, then the retry passed')
})

t.test('401 and 403 carry the parsed challenge', async (t) => {
  const secured = await build({
    scopes: { 'notes:read': 'Read', 'notes:write': 'Write' },
    auth: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://auth.example.com'],
      verify: async (token: string) => {
        if (token !== 'good') throw new Error('bad token')
        return { subject: 'alice', scopes: ['notes:read'] }
      }
    }
  })
  secured.registerTool({ name: 'write', scope: 'notes:write', execute: () => 'written' })
  secured.registerTool({ name: 'read', scope: 'notes:read', execute: () => 'read' })
  t.teardown(() => secured.close())
  for (const era of ['modern', 'legacy', 'auto'] as const) {
    const anonymous = createClient({ app: secured, era })
    const denied = await t.rejects(anonymous.listTools(), AuthChallengeError) as unknown as AuthChallengeError
    t.equal(denied.status, 401)
    t.equal(denied.resourceMetadata, 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp')
    t.equal(denied.error, undefined)
    let calls = 0
    const client = createClient({ app: secured, era, token: async () => { calls++; return 'good' } })
    t.same((await client.callTool('read')).content, [{ type: 'text', text: 'read' }])
    t.ok(calls > 0, 'the token function is asked')
    const forbidden = await t.rejects(client.callTool('write'), AuthChallengeError) as unknown as AuthChallengeError
    t.match(forbidden, { status: 403, error: 'insufficient_scope', scopes: ['notes:write'], rpc: { code: -32600 } })
    t.match(forbidden.message, /403 \(insufficient_scope, scope "notes:write"\)/)
    const bad = await t.rejects(createClient({ app: secured, era, token: 'bad' }).listTools(), AuthChallengeError) as unknown as AuthChallengeError
    t.equal(bad.error, 'invalid_token')
    await client.close()
  }
})

t.test('what is not a JSON-RPC answer is an HttpError', async (t) => {
  const answers: Array<(id: number) => Response> = []
  const fake: FetchLike = async (_url, init) => answers.shift()!(JSON.parse(init.body!).id)
  const modern = createClient({ url: 'http://127.0.0.1:9/mcp', era: 'modern', fetch: fake })
  answers.push(() => new Response('<h1>Bad gateway</h1>', { status: 502, headers: { 'content-type': 'text/html' } }))
  await t.rejects(modern.request('ping'), { name: 'HttpError', status: 502, body: '<h1>Bad gateway</h1>', message: /HTTP 502 \(text\/html\) with no JSON-RPC error/ })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id: id + 1000, result: {} }))
  await t.rejects(modern.request('ping'), { name: 'HttpError', message: /no JSON-RPC response to the request/ })
  answers.push(() => new Response('', { status: 200 }))
  await t.rejects(modern.request('ping'), HttpError, 'no content type, no body')
  answers.push(() => new Response('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}\n\ndata: not json\n\n', { headers: { 'content-type': 'text/event-stream' } }))
  await t.rejects(modern.request('ping'), { name: 'HttpError', message: /event stream ended before the response/ })
  answers.push((id) => new Response(`data: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'in the stream' } })}\n\n`, { headers: { 'content-type': 'text/event-stream' } }))
  await t.rejects(modern.request('ping'), { name: 'RpcError', code: -32000, status: undefined })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id: null, error: { message: 7 } }, { status: 400 }))
  await t.rejects(modern.request('ping'), { name: 'RpcError', code: -32603, message: 'the server sent an error without a message', status: 400 })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id, result: { tools: [], nextCursor: 'again' } }))
  answers.push((id) => Response.json({ jsonrpc: '2.0', id, result: { tools: [], nextCursor: 'again' } }))
  await t.rejects(modern.listTools(), { name: 'HttpError', message: /returned the cursor "again" twice/ })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id, result: { resultType: 'input_required', inputRequests: { q: { method: 'elicitation/create', params: { message: '?' } } } } }))
  answers.push((id) => Response.json({ jsonrpc: '2.0', id, result: { resultType: 'input_required', inputRequests: { q: { method: 'elicitation/create', params: { message: '?' } } } } }))
  const limited = createClient({ url: 'http://127.0.0.1:9/mcp', era: 'modern', fetch: fake, maxRounds: 2 })
  await t.rejects(limited.getPrompt('p'), { name: 'UnansweredInputError', message: /still asks for input after 2 rounds/ })
  t.equal(answers.length, 0)

  const legacy = createClient({ url: 'http://127.0.0.1:9/mcp', era: 'legacy', fetch: fake })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id, result: { protocolVersion: '2026-07-28', capabilities: {} } }))
  await t.rejects(legacy.listTools(), { name: 'HttpError', message: /protocol version "2026-07-28", which this client does not speak/ })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } } }, { headers: { 'mcp-session-id': 's1' } }))
  answers.push(() => new Response('nope', { status: 500 }))
  await t.rejects(legacy.listTools(), { name: 'HttpError', status: 500, message: /answered 500 to notifications\/initialized/ })
})

t.test("era 'auto' falls back to a 2025 session only when the server is not modern", async (t) => {
  const answers: Array<(id: number) => Response> = []
  const fake: FetchLike = async (_url, init) => answers.shift()!(JSON.parse(init.body!).id)
  const init = (id: number): Response => Response.json({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'old', version: '1' }, instructions: 'hi' } })
  // a 2025 server: 400 without a modern error
  const a = createClient({ url: 'http://127.0.0.1:9/mcp', fetch: fake })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }, { status: 400 }), (id) => init(id), () => new Response(null, { status: 202 }))
  t.match(await a.discover(), { era: 'legacy', instructions: 'hi', supportedVersions: ['2025-11-25'] })
  // a server that knows 2026-07-28 but does not serve it
  const b = createClient({ url: 'http://127.0.0.1:9/mcp', fetch: fake })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id, error: { code: -32022, message: 'Unsupported', data: { supported: ['2025-11-25'], requested: '2026-07-28' } } }, { status: 400 }), (id) => init(id), () => new Response(null, { status: 202 }))
  t.equal((await b.discover()).era, 'legacy')
  // discover answers, but without 2026-07-28 in its list
  const c = createClient({ url: 'http://127.0.0.1:9/mcp', fetch: fake })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id, result: { supportedVersions: ['2027-01-01'] } }), (id) => init(id), () => new Response(null, { status: 202 }))
  t.equal((await c.discover()).era, 'legacy')
  // a modern server refusing the request: not a reason to fall back
  const d = createClient({ url: 'http://127.0.0.1:9/mcp', fetch: fake })
  answers.push((id) => Response.json({ jsonrpc: '2.0', id, error: { code: -32020, message: 'Header mismatch' } }, { status: 400 }))
  await t.rejects(d.discover(), { name: 'RpcError', code: -32020 })
  t.equal(d.era, undefined, 'the era stays undecided after a failed probe')
  t.equal(answers.length, 0)
})

t.test("era 'auto': calls made at once while the era is being found all wait for it (a 2025-only server)", async (t) => {
  const seen: string[] = []
  // a 2025-only server, slow enough that the first calls overlap the probe
  const fake: FetchLike = async (_url, init) => {
    const headers = new Headers(init.headers)
    if (init.method === 'DELETE') return new Response(null, { status: 204 })
    const message = JSON.parse(init.body!)
    seen.push(`${String(message.method)} ${headers.get('mcp-session-id') ?? '-'}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
    if (message.id === undefined) return new Response(null, { status: 202 })
    if (message.method === 'initialize') {
      return Response.json({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'old', version: '1' } } }, { headers: { 'mcp-session-id': 'S1' } })
    }
    if (headers.get('mcp-session-id') !== 'S1') return Response.json({ jsonrpc: '2.0', id: message.id, error: { code: -32600, message: 'Bad Request: no session' } }, { status: 400 })
    return Response.json({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'add', inputSchema: { type: 'object' } }] } })
  }
  const client = createClient({ url: 'http://127.0.0.1:9/mcp', fetch: fake })
  const results = await Promise.all([client.listTools(), client.listTools(), client.discover()])
  t.same(results[0].map((tool) => tool.name), ['add'])
  t.same(results[1].map((tool) => tool.name), ['add'])
  t.equal(results[2].era, 'legacy')
  const lists = seen.filter((line) => line.startsWith('tools/list'))
  t.ok(lists.length >= 1 && lists.every((line) => line === 'tools/list S1'), `every list in the session, none as 2026-07-28 (${lists.join(', ')})`)
  t.equal(seen.filter((line) => line.startsWith('server/discover')).length, 1, 'one probe')
  await client.close()
})

t.test('close() after the server is gone does not throw; an onInput function that throws fails the call and answers the server', async (t) => {
  const app = await fixture()
  const url = await listen(t, app)
  const legacy = createClient({ url, era: 'legacy' })
  await legacy.listTools()
  await app.close()
  await t.resolves(legacy.close(), 'the DELETE fails: the session ends with the server anyway')

  const again = await fixture()
  const url2 = await listen(t, again)
  const throwing = createClient({ url: url2, era: 'legacy', onInput: () => { throw new Error('handler bug') } })
  t.teardown(() => throwing.close())
  await t.rejects(throwing.callTool('two_questions', {}), /handler bug/)
  const after = await throwing.callTool('add', { a: 1, b: 2 })
  t.notOk(after.isError, 'the session goes on')
})

t.test('a 2025 server request the client does not serve, and ping', async (t) => {
  const posted: unknown[] = []
  const stream = (events: unknown[]): Response => new Response(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } })
  const fake: FetchLike = async (_url, init) => {
    const body = JSON.parse(init.body!)
    if (body.method === 'initialize') return Response.json({ jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-03-26', capabilities: {} } })
    if (body.method === 'tools/list') {
      return stream([
        { jsonrpc: '2.0', id: 'p', method: 'ping' },
        { jsonrpc: '2.0', id: 'x', method: 'other/thing' },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'not ours', progress: 1 } },
        { jsonrpc: '2.0', id: body.id, result: { tools: [{ name: 'bad', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } }, { name: 'ok', inputSchema: { type: 'object' } }] } }
      ])
    }
    posted.push(body)
    return new Response(null, { status: 202 })
  }
  const client = createClient({ url: 'http://127.0.0.1:9/mcp', era: 'legacy', fetch: fake })
  t.same((await client.listTools()).map((tool) => tool.name), ['ok'], 'a tool with an invalid x-mcp-header is left out')
  t.same(posted, [
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 'p', result: {} },
    { jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'Method not found: the client does not serve other/thing' } }
  ])
  t.equal(client.sessionId, undefined, 'a server that gives no session')
  await client.close()
})

t.test('RpcError keeps code, message, data and status', async (t) => {
  const err = new RpcError(-32602, 'Invalid', { uri: 'x' }, 200)
  t.same([err.name, err.code, err.message, err.data, err.status], ['RpcError', -32602, 'Invalid', { uri: 'x' }, 200])
})

t.test('unusual servers: what the client makes of them', async (t) => {
  type Handler = (body: any, init: { method: string, headers: Record<string, string> }) => Response
  const queue: Handler[] = []
  const fake: FetchLike = async (_url, init) => queue.shift()!(init.body === undefined ? undefined : JSON.parse(init.body), init)
  const sse = (...events: unknown[]): Response => new Response(events.map((e) => `id: ${Math.random()}\ndata: ${JSON.stringify(e)}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } })
  const ok = (body: any, result: unknown, init?: ResponseInit): Response => Response.json({ jsonrpc: '2.0', id: body.id, result }, init)
  const accepted = (): Response => new Response(null, { status: 202 })
  const endpoint = 'http://127.0.0.1:9/mcp'

  // a 2025 server: no capabilities in initialize, a question without a key, a response POST refused, a resume refused
  const legacy = createClient({ url: endpoint, era: 'legacy', fetch: fake, onInput: { legacy: { action: 'accept', content: { name: 'Key-less' } } } })
  queue.push((b) => ok(b, { protocolVersion: '2025-11-25' }, { headers: { 'mcp-session-id': 's' } }), accepted)
  t.same((await legacy.discover()).capabilities, {}, 'no capabilities: none')
  const answered: unknown[] = []
  queue.push((b) => sse(
    { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'fastify-sake-client-1', progress: 1, total: 2, message: 'half' } },
    { jsonrpc: '2.0', id: 'q1', method: 'elicitation/create', params: { message: 'Who?' } },
    { jsonrpc: '2.0', id: b.id, result: { content: [] } }
  ), (b) => { answered.push(b); return accepted() })
  const progress: unknown[] = []
  await legacy.request('tools/call', { name: 'x' }, { onProgress: (p) => progress.push(p) })
  t.same(progress, [{ progress: 1, total: 2, message: 'half' }])
  t.same(answered, [{ jsonrpc: '2.0', id: 'q1', result: { action: 'accept', content: { name: 'Key-less' } } }], "a question naming no key is answered under 'legacy'")
  queue.push(() => sse({ jsonrpc: '2.0', id: 'q2', method: 'roots/list' }), () => Response.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no such question' } }, { status: 400 }))
  await t.rejects(legacy.request('tools/call', { name: 'x' }, { onInput: { legacy: { roots: [] } } }), { name: 'RpcError', status: 400, message: 'no such question' })
  queue.push(() => sse({ jsonrpc: '2.0', id: 'q3', method: 'ping' }), () => new Response('', { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } }))
  await t.rejects(legacy.request('tools/call', { name: 'x' }), { name: 'AuthChallengeError', status: 401, error: 'invalid_token', rpc: undefined })
  queue.push(() => sse({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } }), () => new Response('no', { status: 400 }))
  await t.rejects(legacy.request('ping'), { name: 'HttpError', status: 400, message: /resuming the event stream after event .* was answered HTTP 400/ })
  queue.push(() => sse({ jsonrpc: '2.0', id: 'q4', method: 'ping' }), () => new Response('', { status: 500 }))
  await t.rejects(legacy.request('ping'), { name: 'HttpError', status: 500, message: /answered 500 to a response of the client/ })
  t.equal(queue.length, 0)

  // a 2026-07-28 server: a list cached privately, discover without its optional fields, tasks that fail and are cancelled
  let token = 'one'
  const modern = createClient({ url: endpoint, era: 'modern', fetch: fake, token: () => token, capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } })
  queue.push((b) => ok(b, { resultType: 'complete', prompts: [{ name: 'p' }], ttlMs: 60_000, cacheScope: 'private' }))
  await modern.listPrompts()
  await modern.listPrompts()
  t.equal(queue.length, 0, 'a private list is reused for the same token')
  token = 'two'
  queue.push((b) => ok(b, { resultType: 'complete', prompts: [], ttlMs: 60_000, cacheScope: 'private' }))
  t.same(await modern.listPrompts(), [], '...and fetched again for another')
  queue.push((b) => ok(b, { resultType: 'complete', capabilities: 'odd', ttlMs: 0, cacheScope: 'public' }))
  t.match(await modern.discover(), { instructions: undefined, supportedVersions: [], serverInfo: undefined, capabilities: {} })
  queue.push((b) => ok(b, { resultType: 'complete', capabilities: {}, instructions: 'Be kind.', supportedVersions: ['2026-07-28', 7], ttlMs: 0, cacheScope: 'public' }))
  t.match(await modern.discover(), { instructions: 'Be kind.', supportedVersions: ['2026-07-28'] })
  let declared: any
  queue.push((b) => ok(b, { resultType: 'complete', tools: [{ name: 'long', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } }], ttlMs: 0, cacheScope: 'public' }))
  queue.push((b) => { declared = b.params._meta['io.modelcontextprotocol/clientCapabilities']; return ok(b, { resultType: 'task', taskId: 't1', status: 'working', pollIntervalMs: 'soon' }) })
  queue.push((b) => ok(b, { resultType: 'complete', taskId: 't1', status: 'input_required', inputRequests: { q: { method: 'elicitation/create', params: { message: '?' } }, bad: 'not a question' }, pollIntervalMs: 1 }))
  queue.push((b) => { t.same(b.params.inputResponses, { q: { action: 'decline' } }); return ok(b, { resultType: 'complete' }) })
  queue.push((b) => ok(b, { resultType: 'complete', taskId: 't1', status: 'input_required', inputRequests: { q: { method: 'elicitation/create', params: { message: '?' } } }, pollIntervalMs: 1 }))
  queue.push((b) => ok(b, { resultType: 'complete', taskId: 't1', status: 'input_required', pollIntervalMs: 1 }))
  queue.push((b) => ok(b, { resultType: 'complete', taskId: 't1', status: 'failed', statusMessage: 'it broke' }))
  await t.rejects(modern.callTool('long', {}, { task: true }), { name: 'RpcError', code: -32603, message: 'task t1 failed: it broke' })
  t.same(Object.keys(declared.extensions), ['io.modelcontextprotocol/ui', 'io.modelcontextprotocol/tasks'], 'the tasks extension joins the declared ones')
  queue.push((b) => ok(b, { resultType: 'task', taskId: 't2', status: 'cancelled' }))
  await t.rejects(modern.callTool('long', {}, { task: true }), { name: 'RpcError', message: 'task t2 was cancelled', data: { taskId: 't2', status: 'cancelled' } })
  queue.push((b) => ok(b, { resultType: 'task', taskId: 't3', status: 'failed', error: { code: -32000, message: 'upstream' } }))
  await t.rejects(modern.callTool('long', {}, { task: true }), { name: 'RpcError', code: -32000, message: 'upstream' })
  queue.push((b) => ok(b, { resultType: 'complete', content: [] }))
  t.same(await modern.callTool('long', {}, { task: true }), { resultType: 'complete', content: [] }, 'a server that ran it inline')
  queue.push(() => new Response(null, { status: 200 }))
  await t.rejects(modern.request('ping'), { name: 'HttpError', message: 'ping: the server answered HTTP 200 with no JSON-RPC response to the request' }, 'no content type at all')
  t.equal(queue.length, 0)
})

t.test('{ app } without the plugin: the path defaults to /mcp', async (t) => {
  const Fastify = (await import('fastify')).default
  const plain = Fastify()
  plain.post('/mcp', async (request) => ({ jsonrpc: '2.0', id: (request.body as any).id, result: { resultType: 'complete', pong: true } }))
  t.teardown(() => plain.close())
  t.same(await createClient({ app: plain, era: 'modern' }).request('ping'), { resultType: 'complete', pong: true })
})

t.test("2025-11-25: a task's progress reaches onProgress, on the call's own token, as it reaches the v1 client", async (t) => {
  const server = await build({ tasks: { pollInterval: 10 } })
  server.registerTool(defineTool({
    name: 'export',
    task: 'required',
    async execute (_args, ctx) {
      // asked first, so the progress below goes out while the caller's tasks/result stream is open
      const go = await ctx.elicit.form('go', 'Go on?', Type.Object({ yes: Type.Boolean() }))
      ctx.progress(1, 2, 'half')
      ctx.progress(2, 2)
      return go.action
    }
  }))
  const tokens: unknown[] = []
  server.addHook('preHandler', async (request) => {
    const body = request.body as any
    if (request.method === 'POST' && typeof body?.method === 'string') tokens.push([body.method, body.params?._meta?.progressToken])
  })
  const endpoint = await listen(t, server)

  const client = createClient({ url: endpoint, era: 'legacy', onInput: { go: { action: 'accept', content: { yes: true } } } })
  t.teardown(() => client.close())
  const progress: unknown[] = []
  const result = await client.callTool('export', {}, { task: true, onProgress: (p) => progress.push(p) })
  t.same(result.content, [{ type: 'text', text: 'accept' }])
  t.same(progress, [{ progress: 1, total: 2, message: 'half' }, { progress: 2, total: 2 }], 'fastify-sake/client: the task\'s progress')
  const call = tokens.find((entry: any) => entry[0] === 'tools/call') as [string, unknown]
  t.type(call[1], 'string', 'the tools/call carried a progressToken')
  t.same(tokens.filter((entry: any) => entry[0] === 'tasks/result'), [['tasks/result', undefined]], 'tasks/result sends no token of its own: the task keeps its call\'s')

  // the official v1 client, against the same server
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js')
  const { client: v1 } = await legacyClient(t, new URL(endpoint), { name: 'v1', version: '1' }, {
    options: { capabilities: { elicitation: {} } },
    setup: (c) => c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { yes: true } }))
  })
  const seen: unknown[] = []
  for await (const message of v1.experimental.tasks.callToolStream({ name: 'export', arguments: {} }, undefined, { task: {}, onprogress: (p) => seen.push(p) })) {
    if (message.type === 'error') t.fail(String(message.error))
  }
  // the v1 client hands over the notification's params as they are (the related-task _meta too)
  t.same(seen.map(({ progress, total, message }: any) => ({ progress, total, ...(message === undefined ? {} : { message }) })), progress, 'the v1 client got the same')
})
