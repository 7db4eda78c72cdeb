// tools/call, from the protocol's side, in both eras. Three groups:
// - tools/call itself (was http/tools-call): what is a protocol error (-32602: no such tool, no
//   name, arguments not an object), what is a tool error the model reads (isError: bad arguments,
//   ToolError, toolError()), and what must never become a 500 (a tool that throws, returns the
//   wrong shape, or returns what JSON cannot carry): those are a generic isError text for the
//   client and an error in the log.
// - a tool that needs a client capability the request lacks (was http/missing-capability; Sake's
//   {:error, {:missing_capability, map}}).
// - a tool that finds, from its arguments, that it needs more than its declared scopes throws
//   InsufficientScopeError (was auth/dynamic-scope): a plain answer becomes the 403 challenge; an
//   answer that already streams (a progressToken, stream: true) gets the same error inside the
//   stream, the only place left.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, StringEnum, ToolError, toolError, withMeta, text, MissingCapabilityError, InsufficientScopeError } from '../../../lib/index.js'
import { build } from '../../helpers/app.js'
import { openSession, modernRequest, sessionPost, rpc, modernCall, modernMeta, modernPost, send } from '../../helpers/requests.js'
import { METADATA_URL, authApp, bearer, startIssuer } from '../../helpers/tokens.js'
import { sseMessages } from '../../helpers/sse.js'
import { captureLog } from '../../helpers/logs.js'

t.test('tools/call (was http/tools-call)', async (t) => {
  const SERVER_INFO = { name: 'test-server', version: '1.0.0' }
  const SECRET = 'password=hunter2 at db.internal:5432'

  const log = captureLog()
  let app: FastifyInstance
  let session: string

  t.before(async () => {
    app = await build({}, { logger: log.logger })
    app.registerTool({ name: 'echo', args: { text: Type.String() }, execute: ({ text }) => text })
    app.registerTool({ name: 'nothing', execute: () => undefined })
    app.registerTool({
      name: 'book',
      args: {
        room: Type.String({ pattern: '^[A-Z][0-9]{3}$' }),
        people: Type.Integer({ minimum: 1, maximum: 12 }),
        when: Type.String({ format: 'date-time' }),
        layout: StringEnum(['theatre', 'boardroom']),
        title: Type.Optional(Type.String({ minLength: 3 }))
      },
      execute: (args) => ({ booked: args.room })
    })
    app.registerTool({ name: 'boom', execute: () => { throw new Error(SECRET) } })
    app.registerTool({ name: 'reject', execute: async () => { throw new TypeError(SECRET) } })
    app.registerTool({ name: 'wrong_output', output: { sum: Type.Number() }, execute: () => ({ sum: 'three' }) as any })
    app.registerTool({ name: 'refuse', execute: () => { throw new ToolError('the room is taken', { meta: { 'example.com/room': 'A101' } }) } })
    app.registerTool({ name: 'refuse_return', execute: () => toolError('no rooms left') })
    app.registerTool({ name: 'return_tool_error', execute: () => new ToolError('returned, not thrown') })
    app.registerTool({ name: 'meta', execute: () => withMeta({ id: 7 }, { 'example.com/trace': 'abc' }) })
    app.registerTool({ name: 'bigint', execute: () => ({ n: 10n }) as any })
    app.registerTool({ name: 'cycle', execute: () => { const o: Record<string, unknown> = {}; o.self = o; return o } })
    app.registerTool({ name: 'function', execute: () => (() => SECRET) as any })
    app.registerTool({ name: 'bad_meta', execute: () => withMeta('fine', { big: 1n as any }) })
    app.registerTool({ name: 'bad_error_meta', execute: () => toolError('no', { meta: { big: 1n as any } }) })
    app.registerTool({ name: 'number', execute: () => 42 })
    app.registerTool({ name: 'object', execute: () => ({ a: 1 }) })
    app.registerTool({ name: 'blocks', execute: () => [text('one'), text('two', { annotations: { priority: 1 } })] })
    app.registerTool({ name: 'block', execute: () => text('single') })
    await app.ready()
    session = await openSession(app, '2025-11-25')
  })
  t.teardown(() => app.close())

  const legacyCall = (params: Record<string, unknown>, id: number | string = 'L') =>
    sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id, method: 'tools/call', params })

  t.test('an unknown tool is -32602 "Unknown tool: x", HTTP 200, in both eras', async (t) => {
    const modern = await send(app, modernCall('x', {}, {}, 'm1'))
    t.equal(modern.status, 200)
    t.equal(modern.body.error.code, -32602)
    t.equal(modern.body.id, 'm1')
    t.equal(modern.body.error.message, 'Unknown tool: x')

    const legacy = await send(app, legacyCall({ name: 'x', arguments: {} }, 'l1'))
    t.equal(legacy.status, 200)
    t.equal(legacy.body.error.code, -32602)
    t.equal(legacy.body.id, 'l1')
    t.equal(legacy.body.error.message, 'Unknown tool: x')
  })

  t.test('name missing or not a string is -32602', async (t) => {
    const noName = await send(app, modernPost({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {}, _meta: modernMeta() } }))
    t.equal(noName.status, 200)
    t.equal(noName.body.error.code, -32602)
    t.equal(noName.body.id, 3)
    t.match(noName.body.error.message, /^Invalid params: tools\/call needs "name", the tool to call, as a string/)

    const numeric = await send(app, modernPost({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 5, _meta: modernMeta() } }))
    t.equal(numeric.body.error.code, -32602)
    t.match(numeric.body.error.message, /needs "name"/)

    const legacyNoParams = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 5, method: 'tools/call' }))
    t.equal(legacyNoParams.status, 200)
    t.equal(legacyNoParams.body.error.code, -32602, 'a legacy tools/call without params')
    t.match(legacyNoParams.body.error.message, /needs "name"/)
  })

  t.test('arguments that are not an object are -32602', async (t) => {
    for (const [args, what] of [['hi', 'a string'], [['hi'], 'an array'], [null, 'null'], [3, 'a number']] as const) {
      const res = await send(app, modernCall('echo', args, {}, 'a'))
      t.equal(res.status, 200, `${what}: HTTP 200`)
      t.equal(res.body.error.code, -32602, `${what}: -32602`)
      t.equal(res.body.id, 'a')
      t.equal(res.body.error.message, `Invalid params: "arguments" of tool 'echo' must be an object, got ${what}`)
    }
    const legacy = await send(app, legacyCall({ name: 'echo', arguments: 'hi' }))
    t.equal(legacy.body.error.code, -32602, 'the same in a session')
  })

  t.test('absent arguments mean none', async (t) => {
    const res = await send(app, modernPost({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nothing', _meta: modernMeta() } }))
    t.equal(res.status, 200)
    t.same(res.body.result.content, [])
    const missing = await send(app, modernPost({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: modernMeta() } }))
    t.equal(missing.body.result.isError, true, 'a tool that needs arguments says which are missing')
    t.match(missing.body.result.content[0].text, /missing required argument 'text'/)
  })

  t.test('arguments failing the schema: an isError result naming argument and rule, not a JSON-RPC error', async (t) => {
    const good = { room: 'A101', people: 4, when: '2026-07-28T10:00:00Z', layout: 'theatre' }
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['missing required', { ...good, room: undefined }, /missing required argument 'room'/],
      ['wrong type', { ...good, people: 'four' }, /argument 'people' must be an integer, got "four"/],
      ['not an integer', { ...good, people: 2.5 }, /argument 'people' must be an integer, got 2\.5/],
      ['above maximum', { ...good, people: 13 }, /argument 'people' must be <= 12, got 13/],
      ['below minimum', { ...good, people: 0 }, /argument 'people' must be >= 1, got 0/],
      ['pattern', { ...good, room: 'a101' }, /argument 'room' must match the pattern \^\[A-Z\]\[0-9\]\{3\}\$, got "a101"/],
      ['enum', { ...good, layout: 'banquet' }, /argument 'layout' must be one of "theatre", "boardroom", got "banquet"/],
      ['unknown argument', { ...good, colour: 'red' }, /unknown argument 'colour'/],
      ['format date-time', { ...good, when: 'tomorrow at ten' }, /argument 'when' must be a valid date-time, got "tomorrow at ten"/],
      ['minLength', { ...good, title: 'x' }, /argument 'title' must be at least 3 characters long, got "x"/]
    ]
    for (const [label, args, message] of cases) {
      const res = await send(app, modernCall('book', args, {}, label))
      t.equal(res.status, 200, `${label}: HTTP 200`)
      t.notOk('error' in res.body, `${label}: not a JSON-RPC error`)
      t.equal(res.body.id, label)
      t.equal(res.body.result.isError, true, `${label}: isError`)
      t.equal(res.body.result.resultType, 'complete')
      t.match(res.body.result.content[0].text, /^Invalid arguments for tool 'book': /, `${label}: names the tool`)
      t.match(res.body.result.content[0].text, message, `${label}: names the argument and the rule`)
    }

    const several = await send(app, modernCall('book', { room: 'a', people: 99 }))
    const text = several.body.result.content[0].text as string
    t.match(text, /room/, 'every problem in one message: room')
    t.match(text, /people/, 'people')
    t.match(text, /missing required argument 'when'/, 'when')

    const legacy = await send(app, legacyCall({ name: 'book', arguments: { ...good, people: 13 } }))
    t.equal(legacy.status, 200)
    t.equal(legacy.body.result.isError, true, 'the same in a session')
    t.match(legacy.body.result.content[0].text, /argument 'people' must be <= 12, got 13/)

    const ok = await send(app, modernCall('book', good))
    t.same(ok.body.result.structuredContent, { booked: 'A101' }, 'valid arguments run the tool')
  })

  t.test('a tool that throws: generic isError text, the error in the log at level 50', async (t) => {
    for (const name of ['boom', 'reject']) {
      const before = log.lines.length
      const res = await send(app, modernCall(name, {}, {}, `${name}-1`))
      t.equal(res.status, 200, `${name}: not a 500`)
      t.equal(res.body.id, `${name}-1`)
      t.equal(res.body.result.isError, true)
      t.equal(res.body.result.content[0].text, `Tool '${name}' failed with an internal error`)
      t.notOk(res.raw.includes('hunter2'), `${name}: the error's message stays out of the answer`)
      const logged = log.lines.slice(before).filter((line) => line.level === 50)
      t.equal(logged.length, 1, `${name}: one error line`)
      t.equal(logged[0].msg, `tool '${name}' threw`)
      t.equal(logged[0].tool, name, 'bound to the tool')
      t.equal(logged[0].mcpRequestId, `${name}-1`, 'and to the request')
      t.match((logged[0].err as { message: string }).message, SECRET, 'with the error itself')
    }

    const legacy = await send(app, legacyCall({ name: 'boom', arguments: {} }))
    t.equal(legacy.status, 200)
    t.equal(legacy.body.result.isError, true, 'the same in a session')
    t.notOk(legacy.raw.includes('hunter2'))
  })

  t.test('a tool whose output breaks its output schema: generic isError, logged', async (t) => {
    const before = log.lines.length
    const res = await send(app, modernCall('wrong_output', {}))
    t.equal(res.status, 200)
    t.equal(res.body.result.isError, true)
    t.equal(res.body.result.content[0].text, "Tool 'wrong_output' failed with an internal error")
    t.notOk('structuredContent' in res.body.result, 'the wrong value is not sent')
    const logged = log.lines.slice(before).filter((line) => line.level === 50)
    t.equal(logged.length, 1)
    t.equal(logged[0].msg, "tool 'wrong_output' returned a value that does not match its output schema")
    t.match(logged[0].problems, /property 'sum' must be a number, got "three"/)
  })

  t.test('a tool that returns what JSON cannot carry: generic isError, logged, never a 500', async (t) => {
    for (const name of ['bigint', 'cycle', 'function', 'bad_meta', 'bad_error_meta']) {
      const before = log.lines.length
      const res = await send(app, modernCall(name, {}, {}, name))
      t.equal(res.status, 200, `${name}: HTTP 200`)
      t.equal(res.body.id, name)
      t.equal(res.body.result.isError, true, `${name}: isError`)
      t.equal(res.body.result.content[0].text, `Tool '${name}' failed with an internal error`)
      t.same(res.body.result._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO }, `${name}: still a complete modern result`)
      t.notOk(res.raw.includes('hunter2'))
      const logged = log.lines.slice(before).filter((line) => line.level === 50)
      t.equal(logged.length, 1, `${name}: logged once`)
      t.equal(logged[0].msg, `tool '${name}' returned a value that cannot be sent as JSON`)
      t.equal(logged[0].tool, name)
    }
    const legacy = await send(app, legacyCall({ name: 'cycle', arguments: {} }))
    t.equal(legacy.status, 200, 'in a session too')
    t.same(legacy.body.result, { content: [{ type: 'text', text: "Tool 'cycle' failed with an internal error" }], isError: true })
  })

  t.test('ToolError and toolError(): isError with the tool\'s own text', async (t) => {
    const thrown = await send(app, modernCall('refuse', {}))
    t.equal(thrown.status, 200)
    t.equal(thrown.body.result.isError, true)
    t.same(thrown.body.result.content, [{ type: 'text', text: 'the room is taken' }])
    t.same(thrown.body.result._meta, { 'example.com/room': 'A101', 'io.modelcontextprotocol/serverInfo': SERVER_INFO }, 'its meta, plus serverInfo')

    const returned = await send(app, modernCall('refuse_return', {}))
    t.equal(returned.body.result.isError, true)
    t.same(returned.body.result.content, [{ type: 'text', text: 'no rooms left' }])

    const plain = await send(app, modernCall('return_tool_error', {}))
    t.equal(plain.body.result.isError, true, 'a returned ToolError is a tool error too')
    t.same(plain.body.result.content, [{ type: 'text', text: 'returned, not thrown' }])

    const legacy = await send(app, legacyCall({ name: 'refuse', arguments: {} }))
    t.same(legacy.body.result, { content: [{ type: 'text', text: 'the room is taken' }], isError: true, _meta: { 'example.com/room': 'A101' } })
    t.same(log.lines.filter((line) => line.msg?.includes("'refuse")), [], 'a tool error is not logged as a failure')
  })

  t.test('modern results: resultType complete, serverInfo merged with the tool\'s withMeta', async (t) => {
    const res = await send(app, modernCall('meta', {}, {}, 'w'))
    t.equal(res.status, 200)
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    t.same(res.body, {
      jsonrpc: '2.0',
      id: 'w',
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: '{"id":7}' }],
        structuredContent: { id: 7 },
        _meta: { 'example.com/trace': 'abc', 'io.modelcontextprotocol/serverInfo': SERVER_INFO }
      }
    })
    const bare = await send(app, modernCall('echo', { text: 'hi' }))
    t.same(bare.body.result, { resultType: 'complete', content: [{ type: 'text', text: 'hi' }], _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } })

    const legacy = await send(app, legacyCall({ name: 'meta', arguments: {} }))
    t.same(legacy.body.result, { content: [{ type: 'text', text: '{"id":7}' }], structuredContent: { id: 7 }, _meta: { 'example.com/trace': 'abc' } }, 'legacy: the tool\'s _meta alone')
  })

  t.test('return values: text, content blocks, JSON', async (t) => {
    const blocks = await send(app, modernCall('blocks', {}))
    t.same(blocks.body.result.content, [{ type: 'text', text: 'one' }, { type: 'text', text: 'two', annotations: { priority: 1 } }])
    t.notOk('structuredContent' in blocks.body.result, 'content blocks are not structured content')
    const block = await send(app, modernCall('block', {}))
    t.same(block.body.result.content, [{ type: 'text', text: 'single' }])
    const number = await send(app, modernCall('number', {}))
    t.same(number.body.result.content, [{ type: 'text', text: '42' }])
    t.equal(number.body.result.structuredContent, 42, 'modern structuredContent may be any JSON value')
  })

  t.test('legacy structuredContent: objects only, and not before 2025-06-18', async (t) => {
    const number = await send(app, legacyCall({ name: 'number', arguments: {} }))
    t.same(number.body.result, { content: [{ type: 'text', text: '42' }] }, 'a number goes as text alone')
    const object = await send(app, legacyCall({ name: 'object', arguments: {} }))
    t.same(object.body.result, { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } })

    const old = await openSession(app, '2025-03-26')
    const oldObject = await send(app, sessionPost(old, '2025-03-26', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'object', arguments: {} } }))
    t.same(oldObject.body.result, { content: [{ type: 'text', text: '{"a":1}' }] }, '2025-03-26 has no structuredContent')
  })
})

t.test('a missing client capability (was http/missing-capability)', async (t) => {
  t.test('missing capability: -32021 in 2026-07-28, a tool error in a 2025 session', async (t) => {
    const app = await build()
    app.registerTool({
      name: 'needs_sampling',
      execute (args, ctx) {
        if (ctx.client.capabilities.sampling === undefined) throw new MissingCapabilityError({ sampling: {} })
        return 'sampled'
      }
    })
    app.registerTool({ name: 'returns_it', execute: () => new MissingCapabilityError({ elicitation: { form: {} } }, 'I must ask the user') })
    await app.ready()
    t.teardown(() => app.close())

    const modern = await app.inject(modernRequest('tools/call', { name: 'needs_sampling', arguments: {} }))
    t.equal(modern.statusCode, 400)
    const body = rpc(modern)
    t.equal(body.error!.code, -32021)
    t.same(body.error!.data, { requiredCapabilities: { sampling: {} } })
    t.match(body.error!.message, /^Tool 'needs_sampling': this call needs the client capabilities sampling, which the request did not declare$/)
    t.equal(typeof body.id, 'number', 'the request id is echoed')

    const returned = await app.inject(modernRequest('tools/call', { name: 'returns_it', arguments: {} }))
    t.equal(returned.statusCode, 400)
    t.same(rpc(returned).error, { code: -32021, message: "Tool 'returns_it': I must ask the user", data: { requiredCapabilities: { elicitation: { form: {} } } } })

    const withIt = await app.inject(modernRequest('tools/call', { name: 'needs_sampling', arguments: {}, _meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } } }))
    t.equal(withIt.statusCode, 200)
    t.same(rpc(withIt).result.content, [{ type: 'text', text: 'sampled' }])

    const session = await openSession(app)
    const legacy = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'needs_sampling', arguments: {} } }))
    t.equal(legacy.statusCode, 200)
    t.same(rpc(legacy).result, { content: [{ type: 'text', text: "Tool 'needs_sampling': this call needs the client capabilities sampling, which the request did not declare" }], isError: true })
  })
})

t.test('InsufficientScopeError thrown by a tool (was auth/dynamic-scope)', async (t) => {
  const CHALLENGE = `Bearer error="insufficient_scope", scope="issues:admin", resource_metadata="${METADATA_URL}", error_description="The access token lacks a scope this operation needs"`

  t.test('thrown from a tool: 403 with the challenge, or an in-stream error once streaming', async (t) => {
    const issuer = await startIssuer(t)
    const app = await authApp(issuer)
    app.registerTool({
      name: 'close_any',
      scope: 'issues:write',
      args: { owner: Type.String() },
      execute ({ owner }, ctx) {
        ctx.progress(1, 2, 'looking')
        if (owner !== ctx.auth?.subject && !ctx.auth!.scopes.includes('issues:admin')) throw new InsufficientScopeError('issues:admin')
        return 'closed'
      }
    })
    const writer = bearer(await issuer.sign({ scope: 'issues:write' }))
    t.equal(rpc(await app.inject(modernRequest('tools/call', { name: 'close_any', arguments: { owner: 'alice' } }, writer))).result.content[0].text, 'closed')

    const plain = await app.inject(modernRequest('tools/call', { name: 'close_any', arguments: { owner: 'bob' } }, writer))
    t.equal(plain.statusCode, 403)
    t.equal(plain.headers['www-authenticate'], CHALLENGE)
    t.same(rpc(plain).error, { code: -32600, message: "Forbidden: tool 'close_any' needs the scope issues:admin, which the access token does not grant", data: { error: 'insufficient_scope', scopes: ['issues:admin'] } })

    const streamed = await app.inject(modernRequest('tools/call', { name: 'close_any', arguments: { owner: 'bob' }, _meta: { progressToken: 'p' } }, writer))
    t.equal(streamed.statusCode, 200, 'the stream was already open')
    t.match(streamed.headers['content-type'], /^text\/event-stream/)
    const [progress, answer] = sseMessages(streamed.body, { space: 'required' })
    t.equal(progress.method, 'notifications/progress')
    t.same(answer.error, { code: -32600, message: "Forbidden: tool 'close_any' needs the scope issues:admin, which the access token does not grant", data: { error: 'insufficient_scope', scopes: ['issues:admin'] } })

    // 2025 session: a lone message gets the 403; inside a batch the refusal is that item's error
    const reader = bearer(await issuer.sign({ scope: 'issues:write' }))
    const session = await openSession(app, '2025-03-26', { headers: { accept: undefined, ...reader }, clientInfo: { name: 'c', version: '1' }, initialized: false })
    const call = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'close_any', arguments: { owner: 'bob' } } }
    const alone = await app.inject(sessionPost(session, '2025-03-26', call, reader))
    t.equal(alone.statusCode, 403)
    t.equal(alone.headers['www-authenticate'], CHALLENGE)
    const batch = await app.inject(sessionPost(session, '2025-03-26', [call, { jsonrpc: '2.0', id: 5, method: 'ping' }], reader))
    t.equal(batch.statusCode, 200)
    t.same(JSON.parse(batch.body).map((item: { id: number, error?: { data: unknown } }) => [item.id, item.error?.data]), [[4, { error: 'insufficient_scope', scopes: ['issues:admin'] }], [5, undefined]])
  })

  t.test('with auth off, a thrown InsufficientScopeError is still a 403, without metadata to name', async (t) => {
    const app = await build()
    app.registerTool({ name: 'strict', execute: () => { throw new InsufficientScopeError(['a', 'b'], 'custom') } })
    const res = await app.inject(modernRequest('tools/call', { name: 'strict', arguments: {} }))
    t.equal(res.statusCode, 403)
    t.equal(res.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="a b", error_description="The access token lacks a scope this operation needs"')
  })

  t.test('InsufficientScopeError takes scope tokens only', async (t) => {
    t.same(new InsufficientScopeError('x').scopes, ['x'])
    t.equal(new InsufficientScopeError('x').message, 'this call needs the scopes x')
    t.equal(new InsufficientScopeError('x').name, 'InsufficientScopeError')
    for (const bad of [[], 'a b', ['ok', 'bad"quote'], [5]]) {
      t.throws(() => new InsufficientScopeError(bad as never), { name: 'TypeError', message: /^InsufficientScopeError takes one scope or a non-empty array of scopes/ })
    }
  })
})
