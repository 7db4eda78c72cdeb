// The routes of the MCP endpoint, one group per concern, each with its own app and log:
// - bodies and HTTP framing the endpoint must refuse before any era is chosen: bad JSON, things that
//   are not JSON-RPC requests, wrong Content-Type, oversized bodies, Accept. Each answer names the
//   problem, echoes the id when one could be read, and none of it is logged as an error;
// - GET, DELETE and the other HTTP methods on the endpoint. GET without a session is 405 (404 for a
//   session that is gone; the standalone stream itself is tested in test/http/session-streams.test.ts);
//   DELETE ends a 2025 session;
// - the one 500 the endpoint gives: a fault of the server itself (here a session store that fails),
//   never a client's mistake. The client gets -32603 and a generic text; the log gets the error.
import t from 'tap'
import { Readable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import sake, { MemoryBus, type SessionStore } from '../../lib/index.js'
import { build } from '../helpers/app.js'
import { modernRequest, openSession, modernMeta, modernPost, post, send, sessionPost } from '../helpers/requests.js'
import { captureLog } from '../helpers/logs.js'

t.test('bad input and HTTP framing, refused before any era (was http/bad-input)', async (t) => {
  const log = captureLog()
  let app: FastifyInstance

  t.before(async () => {
    app = await build({}, { logger: log.logger })
    await app.ready()
  })
  t.teardown(() => app.close())

  const discover = (headers: Record<string, string | undefined> = {}) =>
    modernPost({ jsonrpc: '2.0', id: 'd1', method: 'server/discover', params: { _meta: modernMeta() } }, headers)

  t.test('malformed JSON is 400 + -32700 with the parser\'s reason', async (t) => {
    const cut = await send(app, post('{"jsonrpc":"2.0","id":1,'))
    t.equal(cut.status, 400)
    t.equal(cut.body.error.code, -32700)
    t.equal(cut.body.id, null, 'no id can be read from unparsable JSON')
    t.match(cut.body.error.message, /^Parse error: .*JSON/)

    const junk = await send(app, post('{nope}'))
    t.equal(junk.status, 400)
    t.equal(junk.body.error.code, -32700)
    t.match(junk.body.error.message, /^Parse error: .*property name/i, 'says what the parser expected')
  })

  t.test('an empty body is -32700, with or without a Content-Type', async (t) => {
    const typed = await send(app, post(''))
    t.equal(typed.status, 400)
    t.equal(typed.body.error.code, -32700)
    t.match(typed.body.error.message, /request body is empty/)
    t.equal(typed.body.id, null)

    const bare = await send(app, { method: 'POST', url: '/mcp', headers: { accept: 'application/json' } })
    t.equal(bare.status, 400)
    t.equal(bare.body.error.code, -32700)
    t.match(bare.body.error.message, /request body is empty/)
  })

  t.test('prototype-poisoning keys and deep nesting are 400 + -32600 with the id (http/body.ts)', async (t) => {
    const proto = await send(app, post('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"admin":true}}'))
    t.equal(proto.status, 400)
    t.equal(proto.body.error.code, -32600)
    t.equal(proto.body.id, 1, 'the id is readable, so the client gets it back')
    t.match(proto.body.error.message, /^Invalid Request: the message holds a "__proto__" or "constructor.prototype" key/)
    const ctor = await send(app, post('{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"x","arguments":{"constructor":{"prototype":{"admin":true}}}}}'))
    t.equal(ctor.status, 400)
    t.equal(ctor.body.error.code, -32600)
    t.equal(ctor.body.id, 'c')
    const deep = await send(app, post(`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`))
    t.equal(deep.status, 400)
    t.equal(deep.body.error.code, -32600)
    t.equal(deep.body.id, 9)
    t.match(deep.body.error.message, /^Invalid Request: the message nests objects and arrays more than 64 levels deep/)
    t.equal(({} as any).admin, undefined, 'nothing reached Object.prototype')
  })

  t.test('a JSON value that is not a JSON-RPC message is 400 + -32600', async (t) => {
    const cases: Array<[string, unknown, RegExp, unknown]> = [
      ['a string', 'hello', /expected a JSON-RPC object, got a string/, null],
      ['a number', 42, /expected a JSON-RPC object, got a number/, null],
      ['a boolean', true, /expected a JSON-RPC object, got a boolean/, null],
      ['null', null, /expected a JSON-RPC object, got null/, null],
      ['no jsonrpc', { id: 1, method: 'ping' }, /"jsonrpc" must be the string "2\.0"/, 1],
      ['jsonrpc 1.0', { jsonrpc: '1.0', id: 'a', method: 'ping' }, /"jsonrpc" must be the string "2\.0"/, 'a'],
      ['jsonrpc as a number', { jsonrpc: 2, id: 2, method: 'ping' }, /"jsonrpc" must be the string "2\.0"/, 2],
      ['no method', { jsonrpc: '2.0', id: 3 }, /"method" is missing/, 3],
      ['method a number', { jsonrpc: '2.0', id: 4, method: 7 }, /"method" must be a non-empty string/, 4],
      ['method empty', { jsonrpc: '2.0', id: 5, method: '' }, /"method" must be a non-empty string/, 5],
      ['params an array', { jsonrpc: '2.0', id: 6, method: 'tools/list', params: [1] }, /"params" must be an object, got an array/, 6],
      ['params a string', { jsonrpc: '2.0', id: 7, method: 'tools/list', params: 'x' }, /"params" must be an object, got a string/, 7],
      ['params null', { jsonrpc: '2.0', id: 8, method: 'tools/list', params: null }, /"params" must be an object, got null/, 8],
      ['id null', { jsonrpc: '2.0', id: null, method: 'ping' }, /"id" must be a string or an integer, got null/, null],
      ['id an object', { jsonrpc: '2.0', id: { n: 1 }, method: 'ping' }, /"id" must be a string or an integer, got an object/, null],
      ['id a boolean', { jsonrpc: '2.0', id: true, method: 'ping' }, /"id" must be a string or an integer, got a boolean/, null],
      ['id an array', { jsonrpc: '2.0', id: [1], method: 'ping' }, /"id" must be a string or an integer, got an array/, null],
      ['id a fraction', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, /"id" must be a string or an integer, got 1\.5/, null],
      ['a response with an object id', { jsonrpc: '2.0', id: { n: 1 }, result: {} }, /a response "id" must be a string, a number or null/, null]
    ]
    for (const [label, body, message, id] of cases) {
      const res = await send(app, post(JSON.stringify(body)))
      t.equal(res.status, 400, `${label}: HTTP 400`)
      t.equal(res.body.error.code, -32600, `${label}: -32600`)
      t.match(res.body.error.message, /^Invalid Request: /, `${label}: says Invalid Request`)
      t.match(res.body.error.message, message, `${label}: names the problem`)
      t.equal(res.body.id, id, `${label}: id ${JSON.stringify(id)}`)
      t.equal(res.body.jsonrpc, '2.0', `${label}: a JSON-RPC error`)
    }
  })

  t.test('Content-Type must be application/json', async (t) => {
    const text = await send(app, post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'content-type': 'text/plain' }))
    t.equal(text.status, 415)
    t.equal(text.body.error.code, -32600)
    t.match(text.body.error.message, /^Unsupported Media Type: .*application\/json; got 'text\/plain'/)

    const lookalike = await send(app, post('{}', { 'content-type': 'application/json-patch+json' }))
    t.equal(lookalike.status, 415)
    t.match(lookalike.body.error.message, /got 'application\/json-patch\+json'/)

    // no Content-Type but a body: Fastify has no parser for it; the answer says what is missing
    const missing = await send(app, post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'content-type': undefined }))
    t.equal(missing.status, 415)
    t.equal(missing.body.error.code, -32600)
    t.match(missing.body.error.message, /must be application\/json; the request has none/)

    const charset = await send(app, discover({ 'content-type': 'application/json; charset=utf-8' }))
    t.equal(charset.status, 200, 'parameters on application/json are fine')
    t.equal(charset.body.id, 'd1')
  })

  t.test('Content-Length that does not match the body is 400', async (t) => {
    const res = await send(app, post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'content-length': '5' }))
    t.equal(res.status, 400)
    t.equal(res.body.error.code, -32600)
    t.match(res.body.error.message, /Content-Length does not match the body/)
  })

  t.test('a body stream that fails is a 400 naming the failure, not a 500', async (t) => {
    const broken = new Readable({ read () { this.destroy(new Error('connection reset by peer')) } })
    const res = await send(app, { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json' }, payload: broken })
    t.equal(res.status, 400)
    t.equal(res.body.error.code, -32600)
    t.match(res.body.error.message, /^Bad Request: connection reset by peer/)
  })

  t.test('Accept', async (t) => {
    const none = await send(app, discover({ accept: undefined }))
    t.equal(none.status, 200, 'absent Accept means anything (RFC 9110): accepted')
    t.equal(none.body.result.resultType, 'complete')

    const any = await send(app, discover({ accept: '*/*' }))
    t.equal(any.status, 200, '*/* accepted')
    const family = await send(app, discover({ accept: 'application/*' }))
    t.equal(family.status, 200, 'application/* accepted')
    const json = await send(app, discover({ accept: 'application/json' }))
    t.equal(json.status, 200, 'application/json alone accepted')

    const html = await send(app, discover({ accept: 'text/html' }))
    t.equal(html.status, 406)
    t.equal(html.body.error.code, -32600)
    t.equal(html.body.id, 'd1', 'the id is echoed')
    t.match(html.body.error.message, /^Not Acceptable: the Accept header must allow application\/json/)

    // this server answers POSTs with JSON only, so an SSE-only client cannot read its answers
    const sseOnly = await send(app, discover({ accept: 'text/event-stream' }))
    t.equal(sseOnly.status, 406)
    t.equal(sseOnly.body.error.code, -32600)

    // q-values are honoured (RFC 9110 §12.5.1): q=0 refuses, and the more specific range wins over */*
    for (const accept of ['application/json;q=0', 'application/json;q=0, */*', 'application/*;q=0, text/event-stream', 'application/json;charset=iso-8859-1', '', ';;;', 'application/json;q=abc']) {
      const refused = await send(app, discover({ accept }))
      t.equal(refused.status, 406, `Accept: ${JSON.stringify(accept)} is refused`)
      t.match(refused.body.error.message, /^Not Acceptable: the Accept header must allow application\/json/)
    }
    for (const accept of ['*/*;q=0.1', 'application/json;q=0.5, text/event-stream', 'text/event-stream;q=0, application/json', 'application/json; charset=UTF-8', 'garbage, application/json']) {
      t.equal((await send(app, discover({ accept }))).status, 200, `Accept: ${JSON.stringify(accept)} is accepted`)
    }
  })

  t.test('none of the above was logged as an error, and nothing was a 500', async (t) => {
    t.same(log.errors(), [], 'no error-level log lines')
    const completed = log.lines.filter((line) => line.msg === 'request completed')
    t.ok(completed.length > 20, 'the requests above were logged at info')
    t.notOk(completed.some((line) => (line.res as { statusCode: number }).statusCode >= 500), 'no 5xx answers')
  })

  t.test('bodyLimit: a larger body is 413 + -32600 naming the limit', async (t) => {
    const limited = await build({ bodyLimit: 300 }, { logger: log.logger })
    t.teardown(() => limited.close())
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(400) } })

    const declared = await send(limited, post(big))
    t.equal(declared.status, 413, 'refused from Content-Length')
    t.equal(declared.body.error.code, -32600)
    t.match(declared.body.error.message, /^Payload Too Large: the request body exceeds 300 bytes/)

    // chunked: no Content-Length, so the limit is enforced while reading
    const streamed = await send(limited, { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json' }, payload: Readable.from([Buffer.from(big)]) })
    t.equal(streamed.status, 413, 'refused while streaming')
    t.match(streamed.body.error.message, /exceeds 300 bytes/)

    const small = await send(limited, post({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }))
    t.equal(small.status, 200, 'a body under the limit passes')
    t.same(log.errors(), [], 'still nothing logged as an error')
  })
})

t.test('GET, HEAD, DELETE, PUT and PATCH (was http/get-delete)', async (t) => {
  const log = captureLog()
  let app: FastifyInstance

  t.before(async () => {
    app = await build({}, { logger: log.logger })
    await app.ready()
  })
  t.teardown(() => app.close())

  const get = (headers: Record<string, string> = {}) => send(app, { method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', ...headers } })
  const del = (headers: Record<string, string> = {}) => send(app, { method: 'DELETE', url: '/mcp', headers })

  t.test('GET without a session is 405 with Allow', async (t) => {
    const res = await get()
    t.equal(res.status, 405)
    t.equal(res.headers.allow, 'POST, DELETE')
    t.equal(res.body.error.code, -32600)
    t.equal(res.body.id, null)
    t.match(res.body.error.message, /^Method Not Allowed: GET opens the standalone SSE stream of a 2025 session and needs its Mcp-Session-Id; 2026-07-28 clients use subscriptions\/listen/)
  })

  t.test('GET with a live session but no text/event-stream in Accept is 406', async (t) => {
    const session = await openSession(app)
    for (const accept of ['application/json', undefined, 'text/event-stream;q=0, */*', 'text/*;q=0', '']) {
      const res = await send(app, { method: 'GET', url: '/mcp', headers: accept === undefined ? { 'mcp-session-id': session } : { accept, 'mcp-session-id': session } })
      t.equal(res.status, 406, `Accept: ${accept}`)
      t.equal(res.body.error.code, -32600)
      t.match(res.body.error.message, /^Not Acceptable: this request answers with an event stream; the Accept header must allow text\/event-stream/)
    }
  })

  t.test('GET with an unknown session is 404 + -32001', async (t) => {
    const res = await get({ 'mcp-session-id': 'no-such-session' })
    t.equal(res.status, 404)
    t.equal(res.body.error.code, -32001)
    t.match(res.body.error.message, /^Session not found: it ended or expired; send initialize to start a new session/)
  })

  t.test('HEAD is 405 at once, with or without a session (it never opens a session\'s stream)', async (t) => {
    const session = await openSession(app)
    for (const headers of [{}, { 'mcp-session-id': session, accept: 'text/event-stream' }]) {
      const res = await app.inject({ method: 'HEAD', url: '/mcp', headers })
      t.equal(res.statusCode, 405)
      t.equal(res.headers.allow, 'POST, DELETE')
      t.equal(res.body, '', 'no body to a HEAD')
    }
  })

  t.test('DELETE without a session is 405 with Allow', async (t) => {
    const res = await del()
    t.equal(res.status, 405)
    t.equal(res.headers.allow, 'POST, DELETE')
    t.equal(res.body.error.code, -32600)
    t.match(res.body.error.message, /^Method Not Allowed: DELETE ends a 2025 session and needs its Mcp-Session-Id/)
  })

  t.test('DELETE ends a session: 204, then the session is gone for every method', async (t) => {
    const session = await openSession(app)
    const other = await openSession(app)
    const res = await del({ 'mcp-session-id': session })
    t.equal(res.status, 204)
    t.equal(res.raw, '')

    const post = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'ping' }))
    t.equal(post.status, 404, 'a later POST is 404')
    t.equal(post.body.error.code, -32001)
    t.equal(post.body.id, 1)
    t.equal((await get({ 'mcp-session-id': session })).status, 404, 'a later GET is 404')
    const again = await del({ 'mcp-session-id': session })
    t.equal(again.status, 404, 'a second DELETE is 404')
    t.equal(again.body.error.code, -32001)

    const alive = await send(app, sessionPost(other, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'ping' }))
    t.equal(alive.status, 200, 'other sessions live on')
  })

  t.test('DELETE of an unknown session is 404 + -32001', async (t) => {
    const res = await del({ 'mcp-session-id': 'no-such-session' })
    t.equal(res.status, 404)
    t.equal(res.body.error.code, -32001)
    t.equal(res.body.id, null)
    t.match(res.body.error.message, /^Session not found/)
  })

  t.test('PUT and PATCH are 405 naming POST, not the host\'s 404', async (t) => {
    for (const method of ['PUT', 'PATCH'] as const) {
      const res = await send(app, { method, url: '/mcp', headers: { 'content-type': 'application/json' }, payload: '{"jsonrpc":"2.0","id":1,"method":"ping"}' })
      t.equal(res.status, 405, `${method}: 405`)
      t.equal(res.headers.allow, 'POST, DELETE')
      t.equal(res.body.error.code, -32600)
      t.match(res.body.error.message, new RegExp(`^Method Not Allowed: ${method} is not used by MCP; send JSON-RPC messages with POST`))
    }
  })

  t.test('nothing here was logged as an error', async (t) => {
    t.same(log.errors(), [])
  })
})

t.test('a server fault is the one 500 (was http/internal-errors)', async (t) => {
  const SECRET = 'redis: NOAUTH at 10.0.0.7:6379'

  const failing: SessionStore = {
    get () { throw new Error(SECRET) },
    set () { throw new Error(SECRET) },
    delete () { throw new Error(SECRET) }
  }

  t.test('a failing session store is a 500 + -32603 with the error logged, not sent', async (t) => {
    const log = captureLog()
    const app = await build({ sessions: { store: failing } }, { logger: log.logger })
    t.teardown(() => app.close())

    const init = await send(app, post({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }))
    t.equal(init.status, 500)
    t.same(init.body, { jsonrpc: '2.0', id: 'i', error: { code: -32603, message: 'Internal error' } })

    const request = await send(app, sessionPost('s', '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'ping' }))
    t.equal(request.status, 500)
    t.equal(request.body.id, 2)
    t.equal(request.body.error.code, -32603)

    const get = await send(app, { method: 'GET', url: '/mcp', headers: { 'mcp-session-id': 's' } })
    t.equal(get.status, 500)
    t.equal(get.body.error.code, -32603)
    const del = await send(app, { method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': 's' } })
    t.equal(del.status, 500)
    t.equal(del.body.error.code, -32603)

    for (const answer of [init, request, get, del]) t.notOk(answer.raw.includes('NOAUTH'), 'the store\'s error stays in the log')
    const errors = log.errors()
    t.equal(errors.length, 4, 'each failure logged once')
    for (const line of errors) {
      t.equal(line.level, 50)
      t.equal(line.msg, 'fastify-sake: unexpected error on the MCP endpoint')
      t.match((line.err as { message: string }).message, SECRET)
    }
  })
})

t.test('a 4xx raised by a host hook keeps its own status and reason: a 429 from @fastify/rate-limit', async (t) => {
  const { default: rateLimit } = await import('@fastify/rate-limit')
  const app = Fastify({ logger: false })
  await app.register(rateLimit, { max: 1, timeWindow: 60_000 })
  await app.register(sake, { name: 'limited', version: '1.0.0' })
  t.teardown(() => app.close())
  const first = await app.inject(modernRequest('server/discover'))
  t.equal(first.statusCode, 200)
  const limited = await app.inject(modernRequest('server/discover'))
  t.equal(limited.statusCode, 429)
  t.ok(limited.headers['retry-after'], 'retry-after is kept')
  const body = JSON.parse(limited.body)
  t.equal(body.error.code, -32600)
  t.match(body.error.message, /^Too Many Requests: Rate limit exceeded/)
  t.notMatch(body.error.message, /Bad Request/)
  t.equal(body.id, null, 'refused in onRequest: the body was not read yet')
})

t.test('a 429 raised once the body was read carries the request\'s id', async (t) => {
  const { default: rateLimit } = await import('@fastify/rate-limit')
  const app = Fastify({ logger: false })
  await app.register(rateLimit, { max: 1, timeWindow: 60_000, hook: 'preHandler' })
  await app.register(sake, { name: 'limited', version: '1.0.0' })
  t.teardown(() => app.close())
  await app.inject(modernRequest('server/discover'))
  const request = modernRequest('server/discover')
  const limited = await app.inject(request)
  t.equal(limited.statusCode, 429)
  t.equal(JSON.parse(limited.body).id, JSON.parse(request.payload as string).id)
  t.match(JSON.parse(limited.body).error.message, /^Too Many Requests: /)
})

t.test('a 4xx without a reason phrase of its own is a "Client Error"', async (t) => {
  const app = Fastify({ logger: false })
  app.addHook('onRequest', async () => { throw Object.assign(new Error('closed for the night'), { statusCode: 499 }) })
  await app.register(sake, { name: 'odd', version: '1.0.0' })
  t.teardown(() => app.close())
  const res = await app.inject(modernRequest('server/discover'))
  t.equal(res.statusCode, 499)
  t.equal(JSON.parse(res.body).error.message, 'Client Error: closed for the night')
})

t.test('DELETE when the bus fails: the session is still ended (204), and the failure logged', async (t) => {
  const bus = new MemoryBus()
  const log = captureLog()
  const app = await build({ bus }, { logger: log.logger })
  t.teardown(() => app.close())
  const session = await openSession(app)
  bus.publish = () => { throw new Error('bus down') }
  const deleted = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } })
  t.equal(deleted.statusCode, 204)
  t.ok(log.lines.some((line) => line.level === 40 && /a session ended, but its tasks or the other instances' streams could not be told/.test(line.msg ?? '')))
  const after = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }))
  t.equal(after.statusCode, 404, 'gone')
})
