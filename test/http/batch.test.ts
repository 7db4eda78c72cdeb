// JSON-RPC batches (array bodies): only a 2025-03-26 session may send one. Inside, each item gets
// its own answer or error; notifications and responses get none; all-silent batches get 202.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '../../lib/index.js'
import { build, closeBegun } from '../helpers/app.js'
import { openSession, MODERN, post, send, sessionPost } from '../helpers/requests.js'
import { captureLog } from '../helpers/logs.js'
import { startRedis } from '../helpers/redis.js'
import { connect } from 'node:http2'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ShuttingDownError } from '../../lib/errors.js'
import { answerBatch, type BatchChecked } from '../../lib/http/batch.js'
import type { Endpoint } from '../../lib/http/endpoint.js'
import { classify } from '../../lib/protocol/inbound.js'
import { Registry } from '../../lib/define/registry.js'

const log = captureLog()
let app: FastifyInstance
let old: string

t.before(async () => {
  app = await build({}, { logger: log.logger })
  app.registerTool({ name: 'echo', args: { text: Type.String() }, execute: ({ text }) => text })
  app.registerTool({ name: 'region', args: { region: Type.String({ header: 'Region' }) }, execute: ({ region }) => region })
  await app.ready()
  old = await openSession(app, '2025-03-26')
})
t.teardown(() => app.close())

const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' })
// 2025-03-26 clients send no MCP-Protocol-Version header
const batch = (items: unknown[], headers: Record<string, string | undefined> = {}) =>
  sessionPost(old, '2025-03-26', items, { 'mcp-protocol-version': undefined, ...headers })

t.test('a batch where none is allowed is 400 + -32600', async (t) => {
  const noSession = await send(app, post([ping(1)]))
  t.equal(noSession.status, 400)
  t.equal(noSession.body.error.code, -32600)
  t.equal(noSession.body.id, null)
  t.match(noSession.body.error.message, /^Invalid Request: JSON-RPC batches \(array bodies\) are only allowed in 2025-03-26 sessions; send one message per POST/)

  const modern = await send(app, post([ping(1)], { 'mcp-protocol-version': MODERN }))
  t.equal(modern.status, 400, 'a 2026-07-28 client may not batch')
  t.equal(modern.body.error.code, -32600)

  for (const version of ['2025-11-25', '2025-06-18']) {
    const session = await openSession(app, version)
    const res = await send(app, sessionPost(session, version, [ping(1)]))
    t.equal(res.status, 400, `${version}: batches were removed`)
    t.equal(res.body.error.code, -32600)
    t.match(res.body.error.message, /only allowed in 2025-03-26 sessions/)
  }

  const unknown = await send(app, sessionPost('gone', '2025-03-26', [ping(1)]))
  t.equal(unknown.status, 404, 'an unknown session is reported first')
  t.equal(unknown.body.error.code, -32001)
})

t.test('an empty batch is 400 + -32600', async (t) => {
  const res = await send(app, batch([]))
  t.equal(res.status, 400)
  t.equal(res.body.error.code, -32600)
  t.equal(res.body.id, null)
  t.match(res.body.error.message, /^Invalid Request: the batch is empty/)
})

t.test('a 2025-03-26 batch of requests: an array of responses, in order', async (t) => {
  const res = await send(app, batch([
    ping('a'),
    { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    { jsonrpc: '2.0', id: 'c', method: 'tools/list' }
  ]))
  t.equal(res.status, 200)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.ok(Array.isArray(res.body))
  t.same(res.body.map((r: { id: string }) => r.id), ['a', 'b', 'c'])
  t.same(res.body[0], { jsonrpc: '2.0', id: 'a', result: {} })
  t.same(res.body[1].result, { content: [{ type: 'text', text: 'hi' }] })
  t.same(res.body[2].result.tools.map((tool: { name: string }) => tool.name), ['echo', 'region'])
})

t.test('notifications and responses in a batch get no answer; an all-silent batch is 202', async (t) => {
  const silent = await send(app, batch([
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }
  ]))
  t.equal(silent.status, 202)
  t.equal(silent.raw, '')

  const responses = await send(app, batch([{ jsonrpc: '2.0', id: 's1', result: {} }, { jsonrpc: '2.0', id: 's2', error: { code: 1, message: 'no' } }]))
  t.equal(responses.status, 202, 'responses to server requests')

  const mixed = await send(app, batch([{ jsonrpc: '2.0', method: 'notifications/initialized' }, ping(9), { jsonrpc: '2.0', id: 's3', result: {} }]))
  t.equal(mixed.status, 200)
  t.same(mixed.body, [{ jsonrpc: '2.0', id: 9, result: {} }], 'only the request is answered')
})

t.test('per-item errors: initialize, invalid items, unknown methods, bad params', async (t) => {
  const res = await send(app, batch([
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
    { jsonrpc: '1.0', id: 2, method: 'ping' },
    'not a message',
    { jsonrpc: '2.0', id: null, method: 'ping' },
    { jsonrpc: '2.0', id: 5, method: 'nope/nope' },
    { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'missing' } },
    ping(7)
  ]))
  t.equal(res.status, 200, 'the batch itself is fine')
  t.equal(res.body.length, 7)
  const [init, version, junk, nullId, unknown, tool, ok] = res.body

  t.equal(init.id, 1)
  t.equal(init.error.code, -32600, 'initialize inside a batch')
  t.match(init.error.message, /initialize must be sent alone, without Mcp-Session-Id, as the first request/)

  t.equal(version.id, 2, 'an invalid item\'s readable id is echoed')
  t.equal(version.error.code, -32600)
  t.match(version.error.message, /"jsonrpc" must be the string "2\.0"/)

  t.equal(junk.id, null)
  t.equal(junk.error.code, -32600)
  t.match(junk.error.message, /expected a JSON-RPC object, got a string/)

  t.equal(nullId.id, null)
  t.match(nullId.error.message, /"id" must be a string or an integer, got null/)

  t.equal(unknown.id, 5)
  t.equal(unknown.error.code, -32601)
  t.match(unknown.error.message, /Method not found: nope\/nope/)

  t.equal(tool.id, 6)
  t.equal(tool.error.code, -32602)
  t.match(tool.error.message, /Unknown tool: missing/)

  t.same(ok, { jsonrpc: '2.0', id: 7, result: {} }, 'the valid item is still answered')
})

t.test('a batch\'s Mcp-* headers cannot mirror every item, so they are not checked', async (t) => {
  const res = await send(app, batch([
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'region', arguments: { region: 'us' } } }
  ], { 'mcp-method': 'ping', 'mcp-param-region': 'eu' }))
  t.equal(res.status, 200)
  t.same(res.body[0].result, { content: [{ type: 'text', text: 'us' }] })
})

t.test('a batch with a version header outside the 2025 era is refused like any request of the session', async (t) => {
  const res = await send(app, batch([ping(1)], { 'mcp-protocol-version': '2026-07-28' }))
  t.equal(res.status, 400)
  t.equal(res.body.error.code, -32600)
  t.match(res.body.error.message, /MCP-Protocol-Version header '2026-07-28' is not a version of this session's protocol era; this session negotiated '2025-03-26'/)
  const other = await send(app, batch([ping(2)], { 'mcp-protocol-version': '2025-11-25' }))
  t.equal(other.status, 200, 'another 2025 version is served at the negotiated one')
})

t.test('a batch holds at most maxBatchItems messages (default 32): one more is 400 + -32600 naming the option', async (t) => {
  const full = await send(app, batch(Array.from({ length: 32 }, (_, i) => ping(i))))
  t.equal(full.status, 200)
  t.equal(full.body.length, 32, 'at the bound: every item answered')
  const over = await send(app, batch(Array.from({ length: 33 }, (_, i) => ping(i))))
  t.equal(over.status, 400)
  t.equal(over.body.id, null)
  t.equal(over.body.error.code, -32600)
  t.equal(over.body.error.message, 'Invalid Request: the batch holds 33 messages, more than maxBatchItems (32) allows; send fewer at a time')

  const small = await build({ maxBatchItems: 2 })
  t.teardown(() => small.close())
  await small.ready()
  const session = await openSession(small, '2025-03-26')
  const two = await send(small, sessionPost(session, '2025-03-26', [ping(1), ping(2)], { 'mcp-protocol-version': undefined }))
  t.equal(two.status, 200)
  const three = await send(small, sessionPost(session, '2025-03-26', [ping(1), ping(2), ping(3)], { 'mcp-protocol-version': undefined }))
  t.equal(three.status, 400)
  t.match(three.body.error.message, /holds 3 messages, more than maxBatchItems \(2\) allows/)
})

t.test("each message of a batch passes the route's and the app's hooks as a POST of its own", async (t) => {
  const seen: Array<{ method: string | undefined, name: string | undefined, id: string, ip: string, auth: string | undefined }> = []
  const hooked = await build({}, { requestIdHeader: 'x-request-id', trustProxy: true })
  t.teardown(() => hooked.close())
  hooked.addHook('preHandler', async (request, reply) => {
    if (request.mcp === null) return
    seen.push({ method: request.mcp.method, name: request.mcp.name, id: request.id, ip: request.ip, auth: request.headers.authorization })
    // a host hook refusing one tool as @fastify/rate-limit does (a 429 error), and one answering on its own
    if (request.mcp.name === 'limited') throw Object.assign(new Error('Rate limit exceeded, retry in 1 minute'), { statusCode: 429 })
    if (request.mcp.name === 'teapot') return await reply.code(418).send('short and stout')
    if (request.mcp.name === 'broken') return await reply.code(502).send({ oops: true })
  })
  for (const name of ['echo', 'limited', 'teapot', 'broken']) hooked.registerTool({ name, execute: () => name })
  await hooked.ready()
  const session = await openSession(hooked, '2025-03-26')
  seen.length = 0
  const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } })
  const res = await send(hooked, sessionPost(session, '2025-03-26', [
    ping(1), call(2, 'echo'), { jsonrpc: '2.0', method: 'notifications/initialized' }, call(3, 'limited'), call(4, 'teapot'), call(5, 'broken')
  ], { 'mcp-protocol-version': undefined, 'x-request-id': 'batch-7', 'x-forwarded-for': '203.0.113.9', authorization: 'Bearer not-checked-here' }))
  t.equal(res.status, 200)
  const byId = new Map(res.body.map((item: any) => [item.id, item]))
  t.same(byId.get(1), { jsonrpc: '2.0', id: 1, result: {} })
  t.same((byId.get(2) as any).result.content, [{ type: 'text', text: 'echo' }])
  const limited = byId.get(3) as any
  t.equal(limited.error.code, -32600, "the host's 429 keeps its error and the item's id")
  t.equal(limited.error.message, 'Too Many Requests: Rate limit exceeded, retry in 1 minute')
  t.same((byId.get(4) as any).error, { code: -32600, message: 'Invalid Request: this message was answered with HTTP 418 and no JSON-RPC response' })
  t.same((byId.get(5) as any).error, { code: -32603, message: 'Internal error: this message was answered with HTTP 502 and no JSON-RPC response' })
  t.equal(res.body.length, 5, 'the notification has no answer')

  // the batch itself (no method), then each message of it
  t.same(seen.map((s) => s.method === undefined ? 'batch' : `${s.method}${s.name === undefined ? '' : ' ' + s.name}`).sort(),
    ['batch', 'notifications/initialized', 'ping', 'tools/call broken', 'tools/call echo', 'tools/call limited', 'tools/call teapot'])
  t.ok(seen.every((s) => s.id === 'batch-7'), "every item logs under the batch's request id")
  t.ok(seen.every((s) => s.ip === '203.0.113.9'), 'every item has the batch\'s request.ip (trustProxy: X-Forwarded-For passed on)')
  t.ok(seen.every((s) => s.auth === 'Bearer not-checked-here'), 'credentials pass on')
})

t.test('an answer inside a batch: one nobody waits for is dropped, the batch answered; one the store cannot take fails the batch', async (t) => {
  const answers = await send(app, batch([{ jsonrpc: '2.0', id: 'sake-nobody-1', result: {} }, ping('after')]))
  t.equal(answers.status, 200)
  t.same(answers.body, [{ jsonrpc: '2.0', id: 'after', result: {} }], 'the request is answered; the stray answer dropped')

  const redis = await startRedis(t)
  // a copy of the session held for a minute: the batch reaches its answer with Redis away
  const fleet = await build({ redis: { url: redis.url, timeout: 300, sessionCache: 60_000 }, sessions: { idleTimeout: 600_000 }, requestState: { keys: [Buffer.alloc(32, 3).toString('base64')] } })
  t.teardown(() => fleet.close())
  await fleet.ready()
  const session = await openSession(fleet, '2025-03-26')
  await redis.kill()
  // the session is this instance's copy for a second (redis.sessionCache): the batch gets to its answer
  const res = await send(fleet, sessionPost(session, '2025-03-26', [{ jsonrpc: '2.0', id: 'sake-elsewhere-1', result: {} }, ping(1)], { 'mcp-protocol-version': undefined }))
  t.equal(res.status, 503, 'the fleet cannot tell whether its asker waits: the batch is refused, so that the client sends it again')
  t.equal(res.body.error.code, -32603)
})

t.test('a batch whose server began to close while it waited in a host hook: refused whole, 503, nothing runs', async (t) => {
  let runs = 0
  const closing = await build()
  closing.registerTool({ name: 'count', execute: () => { runs++; return 'ran' } })
  const began = closeBegun(closing)
  closing.addHook('preHandler', async (request) => {
    // the batch waits here while the server begins to close
    if (Array.isArray(request.body)) {
      void closing.close()
      await began
    }
  })
  await closing.ready()
  const session = await openSession(closing, '2025-03-26')
  const res = await send(closing, sessionPost(session, '2025-03-26', [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count', arguments: {} } }], { 'mcp-protocol-version': undefined }))
  t.equal(res.status, 503)
  t.ok(res.headers['retry-after'])
  t.match(res.body.error.message, /^Service Unavailable: this server instance is shutting down/)
  t.equal(runs, 0)
})

t.test('answerBatch: an inject Fastify refuses (app.close() began a moment before our preClose) refuses the batch as closing', async (t) => {
  const refusal = new ShuttingDownError(1)
  const endpoint = {
    streams: { calls: { received () {} } },
    shutdown: { closing: false, refusal },
    batch: { maxItems: 32, requestIdHeader: undefined, inject: async () => { throw Object.assign(new Error('Fastify is closing'), { code: 'FST_ERR_REOPENED_CLOSE_SERVER' }) } }
  } as unknown as Endpoint
  const warned: unknown[] = []
  const request = { headers: { host: 'localhost' }, host: 'localhost', id: 'r', url: '/mcp', socket: { remoteAddress: '127.0.0.1' }, log: { warn: (obj: unknown) => warned.push(obj) } } as unknown as FastifyRequest
  const item = classify(new Registry(), { jsonrpc: '2.0', id: 1, method: 'ping' }, 's', undefined)
  const checked = { kind: 'batch', session: { id: 's' }, items: [item], messages: [{ jsonrpc: '2.0', id: 1, method: 'ping' }] } as unknown as BatchChecked
  await t.rejects(answerBatch(endpoint, request, {} as FastifyReply, checked), refusal)
  t.equal(warned.length, 1, 'logged at warn')
})

t.test("an item refused before its body was read gets that error with its own id; an HTTP/2 batch's items keep its host", async (t) => {
  let seen = 0
  const refusing = await build({ allowedHosts: ['mcp.example.com'] }, { http2: true })
  refusing.addHook('onRequest', async (request) => {
    if (request.headers['x-refuse-items'] !== undefined && seen++ > 0) throw Object.assign(new Error('go away'), { statusCode: 403 })
  })
  await refusing.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => refusing.close())
  const { port } = refusing.server.address() as { port: number }
  const h2 = connect(`http://127.0.0.1:${port}`)
  t.teardown(() => h2.close())
  const h2post = async (headers: Record<string, string>, body: unknown): Promise<{ status: number, headers: Record<string, unknown>, body: any }> => await new Promise((resolve, reject) => {
    const stream = h2.request({ ':method': 'POST', ':path': '/mcp', ':authority': 'mcp.example.com', 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers })
    let text = ''
    let head: Record<string, unknown> = {}
    stream.setEncoding('utf8')
    stream.on('response', (h) => { head = h })
    stream.on('data', (chunk: string) => { text += chunk })
    stream.on('end', () => resolve({ status: Number(head[':status']), headers: head, body: text === '' ? undefined : JSON.parse(text) }))
    stream.on('error', reject)
    stream.end(JSON.stringify(body))
  })
  const init = await h2post({}, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'h2', version: '1' } } })
  const session = init.headers['mcp-session-id'] as string
  t.ok(session, 'HTTP/2, Host from :authority, allowed')
  const ok = await h2post({ 'mcp-session-id': session }, [ping('h2')])
  t.same(ok.body, [{ jsonrpc: '2.0', id: 'h2', result: {} }], "the item passed the Host check with the batch's :authority")
  const refused = await h2post({ 'mcp-session-id': session, 'x-refuse-items': '1' }, [ping(5)])
  t.same(refused.body, [{ jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'Forbidden: go away' } }], 'the refusal, with the item\'s id')
})

t.test('nothing here was logged as an error', async (t) => {
  t.same(log.errors(), [])
})
