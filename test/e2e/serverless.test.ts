// The plugin behind AWS Lambda (issue 41), as docs/fleet.md's "Serverless" says: @fastify/aws-lambda's
// proxy handler (awsLambdaFastify(app)) turns each API Gateway event into one app.inject and its
// buffered response into the Lambda result. Each invocation may land on another instance, so the
// tests use two apps as two Lambda instances:
// - a 2026-07-28 tools/call is one event and one JSON answer (API Gateway v2 and v1 events), and a
//   question asked by one instance is answered on the other (the sealed requestState, one key);
// - a 2025 session started on one instance is unknown to the other, unless they share a session
//   store (Redis here);
// - nothing streams: a streamed call's events come in one piece once the call is over, a question
//   on a 2025 call's stream reaches the client only after it timed out, and a GET stream never
//   answers until the instance closes.
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import awsLambdaFastify from '@fastify/aws-lambda'
import { Type, type SakeOptions } from '../../lib/index.js'
import { build, sleep } from '../helpers/app.js'
import { ALL_CAPABILITIES, initializeRequest, modernMeta, modernPost, sessionPost } from '../helpers/requests.js'
import { sseMessages } from '../helpers/sse.js'
import { startRedis } from '../helpers/redis.js'

const KEY = Buffer.alloc(32, 4).toString('base64')
const DOMAIN = 'abc123.execute-api.eu-west-1.amazonaws.com'
const CLIENT_IP = '203.0.113.7'

/**
 * What the proxy resolves with (its buffered form: `payloadAsStream` off). Declared here: the
 * package's types take `Context` from @types/aws-lambda, which nothing here installs.
 */
interface LambdaResult { statusCode: number, headers: Record<string, string>, body: string, cookies?: string[] }
type Handler = (event: unknown, context: unknown) => Promise<LambdaResult>

/** One Lambda instance: the app with the plugin and its tools, ready, behind the proxy handler. */
async function instance (t: Test, options: Partial<SakeOptions> = {}): Promise<{ app: FastifyInstance, handler: Handler, finished: number[], ips: string[] }> {
  const app = await build({ requestState: { keys: [KEY] }, ...options })
  const finished: number[] = []
  const ips: string[] = []
  app.addHook('onRequest', async (request) => { ips.push(request.ip) })
  app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, output: { sum: Type.Number() }, execute: ({ a, b }) => ({ sum: a + b }) })
  app.registerTool({
    name: 'greet',
    async execute (_args, ctx) {
      const who = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String() }))
      return who.action === 'accept' ? `Hello, ${who.content.name}!` : who.action
    }
  })
  app.registerTool({
    name: 'slow',
    stream: true,
    async execute (_args, ctx) {
      for (let i = 1; i <= 2; i++) {
        ctx.progress(i, 2, `step ${i}`)
        await sleep(100) // the point: steps that take time
      }
      finished.push(Date.now())
      return 'done'
    }
  })
  const handler = awsLambdaFastify(app) as unknown as Handler
  await app.ready()
  t.teardown(() => app.close())
  return { app, handler, finished, ips }
}

/** An API Gateway HTTP API (payload format 2.0) event for what `app.inject(options)` would send. */
function v2Event (options: InjectOptions): Record<string, unknown> {
  const url = new URL(options.url as string, `https://${DOMAIN}`)
  const method = options.method ?? 'GET'
  const now = Date.now()
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    // API Gateway lowercases header names
    headers: Object.fromEntries(Object.entries({ host: DOMAIN, 'user-agent': 'mcp-client', ...options.headers }).map(([name, value]) => [name.toLowerCase(), String(value)])),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: DOMAIN,
      domainPrefix: 'abc123',
      http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: CLIENT_IP, userAgent: 'mcp-client' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now
    },
    body: bodyOf(options),
    isBase64Encoded: false
  }
}

/** An API Gateway REST API (payload format 1.0) event for the same. */
function v1Event (options: InjectOptions): Record<string, unknown> {
  const url = new URL(options.url as string, `https://${DOMAIN}`)
  return {
    resource: '/{proxy+}',
    path: url.pathname,
    httpMethod: options.method ?? 'GET',
    headers: { Host: DOMAIN, ...options.headers },
    multiValueHeaders: {},
    queryStringParameters: null,
    pathParameters: { proxy: url.pathname.slice(1) },
    requestContext: { stage: 'prod', requestId: randomUUID(), resourcePath: '/{proxy+}', httpMethod: options.method, identity: { sourceIp: CLIENT_IP } },
    body: bodyOf(options),
    isBase64Encoded: false
  }
}

function bodyOf (options: InjectOptions): string | undefined {
  const { payload } = options
  return payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload)
}

function modernCall (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): InjectOptions {
  return modernPost({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, ...extra, _meta: modernMeta(meta) } })
}

t.test('a 2026-07-28 tools/call is one API Gateway event and one JSON answer, v2 and v1 events alike', async (t) => {
  const { handler, ips } = await instance(t)
  for (const [kind, event] of [['v2', v2Event(modernCall('add', { a: 1, b: 2 }))], ['v1', v1Event(modernCall('add', { a: 2, b: 3 }))]] as const) {
    const answer = await handler(event, {})
    t.equal(answer.statusCode, 200, kind)
    t.match(answer.headers['content-type'], /^application\/json/, kind)
    const body = JSON.parse(answer.body)
    t.match(body, { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', structuredContent: { sum: kind === 'v2' ? 3 : 5 } } }, kind)
  }
  t.same(ips, [CLIENT_IP, CLIENT_IP], 'request.ip (the quotas\' caller without a token) is the event\'s sourceIp')
})

t.test('a question asked by one instance is answered on another: requestState, sealed with the key they share', async (t) => {
  const a = await instance(t)
  const b = await instance(t)
  const capabilities = { 'io.modelcontextprotocol/clientCapabilities': ALL_CAPABILITIES }
  const first = JSON.parse((await a.handler(v2Event(modernCall('greet', {}, {}, capabilities)), {})).body)
  t.equal(first.result.resultType, 'input_required')
  t.same(Object.keys(first.result.inputRequests), ['who'])
  const retry = modernCall('greet', {}, { requestState: first.result.requestState, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } }, capabilities)
  const second = JSON.parse((await b.handler(v2Event(retry), {})).body)
  t.same(second.result.content, [{ type: 'text', text: 'Hello, Ada!' }])
})

t.test('a 2025 session: unknown to another instance, unless the instances share a session store (Redis)', async (t) => {
  const alone = [await instance(t), await instance(t)]
  const started = await alone[0]!.handler(v2Event(initializeRequest('2025-11-25')), {})
  const session = started.headers['mcp-session-id']!
  t.type(session, 'string')
  const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } }
  const lost = await alone[1]!.handler(v2Event(sessionPost(session, '2025-11-25', call)), {})
  t.equal(lost.statusCode, 404, 'each instance keeps its own sessions: the other has never heard of it')

  const redis = await startRedis(t)
  const shared = [await instance(t, { redis: redis.url }), await instance(t, { redis: redis.url })]
  const opened = await shared[0]!.handler(v2Event(initializeRequest('2025-11-25')), {})
  const id = opened.headers['mcp-session-id']!
  await shared[1]!.handler(v2Event(sessionPost(id, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/initialized' })), {})
  const served = await shared[1]!.handler(v2Event(sessionPost(id, '2025-11-25', call)), {})
  t.equal(served.statusCode, 200)
  t.match(JSON.parse(served.body), { id: 2, result: { structuredContent: { sum: 2 } } })
})

t.test('nothing streams: a streamed call\'s events arrive in one piece, once the call is over', async (t) => {
  const { handler, finished } = await instance(t)
  const answer = await handler(v2Event(modernCall('slow', {}, {}, { progressToken: 'p' })), {})
  const arrived = Date.now()
  t.equal(answer.statusCode, 200)
  t.match(answer.headers['content-type'], /^text\/event-stream/)
  const messages = sseMessages(answer.body)
  t.same(messages.map((message) => message.method ?? 'result'), ['notifications/progress', 'notifications/progress', 'result'])
  t.ok(finished[0]! <= arrived, 'the progress reached the client with the result, after the tool returned')
})

t.test('a question on a 2025 call\'s stream cannot be answered: the client sees it once the call gave up waiting', async (t) => {
  const { handler } = await instance(t, { inputTimeout: 300 })
  // the wait's timer does not hold the process (unref): a Lambda's runtime does, by its own connection
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => clearInterval(alive))
  const started = await handler(v2Event(initializeRequest('2025-11-25', { capabilities: ALL_CAPABILITIES })), {})
  const session = started.headers['mcp-session-id']!
  await handler(v2Event(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/initialized' })), {})
  const asked = Date.now()
  const answer = await handler(v2Event(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'greet', arguments: {} } })), {})
  t.ok(Date.now() - asked >= 300, 'the response came after inputTimeout')
  const messages = sseMessages(answer.body)
  t.equal(messages[0].method, 'elicitation/create', 'the question, too late to answer')
  t.match(messages.at(-1), { id: 3, result: { isError: true, content: [{ type: 'text', text: /did not answer elicitation\/create \('who'\) within 300 ms/ }] } }, 'then the call\'s end: no answer came')
})

t.test('a 2025 session\'s GET stream and a 2026-07-28 listen never answer: the proxy waits until the instance closes', async (t) => {
  const { app, handler } = await instance(t)
  const started = await handler(v2Event(initializeRequest('2025-11-25')), {})
  const session = started.headers['mcp-session-id']!
  const get = handler(v2Event({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } }), {})
  const listen = handler(v2Event(modernPost({ jsonrpc: '2.0', id: 4, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: modernMeta() } })), {})
  const early = await Promise.race([Promise.race([get, listen]).then(() => 'answered'), sleep(500).then(() => 'pending')])
  t.equal(early, 'pending', 'no answer while a stream is open: a Lambda would run until its timeout')
  await app.close()
  for (const answer of await Promise.all([get, listen])) {
    t.equal(answer.statusCode, 200)
    t.match(answer.headers['content-type'], /^text\/event-stream/)
  }
  t.match(sseMessages((await listen).body).at(-1), { id: 4, result: { resultType: 'complete' } }, 'the listen\'s final response, at close')
})
