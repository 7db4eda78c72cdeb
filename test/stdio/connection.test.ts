// The stdio transport on in-memory streams: both eras on one pair of streams, framing and its
// refusals, progress and log messages, questions, cancellation, listens, batches, the caller's
// scopes, and the two ends (the input closing, the app closing). Real hosts spawning a real
// process are test/e2e/stdio.test.ts's.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { PassThrough } from 'node:stream'
import { Type } from '@sinclair/typebox'
import { MemorySessionStore, MemoryTaskStore, type TaskStore, type ToolContext } from '../../lib/index.js'
import { build } from '../helpers/app.js'
import { captureLog } from '../helpers/logs.js'
import { MODERN, initialize, stdioPeer, type StdioPeer } from '../helpers/stdio.js'
import { until } from '../helpers/until.js'
import { TASKS_EXTENSION } from '../../lib/spec/tasks.js'

/** An app with tools that exercise the channel: a sum, a waiter, a question, progress and log messages. */
async function app (options: Record<string, unknown> = {}, fastifyOptions: Record<string, unknown> = {}): Promise<Awaited<ReturnType<typeof build>>> {
  const server = await build({ scopes: { 'notes:write': 'Write notes' }, ...options }, fastifyOptions)
  server.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => a + b })
  server.registerTool({
    name: 'wait',
    execute: async (_args: unknown, ctx: ToolContext) => await new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => { resolve(`stopped: ${String(ctx.signal.reason?.message)}`) }, { once: true })
    })
  })
  server.registerTool({
    name: 'ask',
    execute: async (_args: unknown, ctx: ToolContext) => {
      const answer = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String() }))
      return answer.action === 'accept' ? `hello ${answer.content.name}` : `no: ${answer.action}`
    }
  })
  server.registerTool({
    name: 'chatty',
    execute: async (_args: unknown, ctx: ToolContext) => {
      ctx.progress(1, 2, 'half')
      ctx.notify('info', { step: 'one' })
      ctx.progress(2, 2)
      return 'done'
    }
  })
  server.registerTool({ name: 'guarded', scope: 'notes:write', execute: () => 'written' })
  server.registerTool({
    name: 'late',
    execute: async (_args: unknown, ctx: ToolContext) => {
      await sleep(40)
      return `aborted: ${String(ctx.signal.aborted)}${ctx.signal.aborted ? `, ${String(ctx.signal.reason?.message)}` : ''}`
    }
  })
  server.registerResource({ uri: 'notes://all', name: 'notes', read: () => 'n' })
  server.registerResource({
    uri: 'notes://stuck',
    name: 'stuck',
    read: async (_uri, _vars, ctx) => await new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => { reject(new Error('the read stopped')) }, { once: true })
    })
  })
  return server
}

const call = (id: number | string, name: string, args: Record<string, unknown> = {}, meta: Record<string, unknown> = MODERN): Record<string, unknown> =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: meta } })

t.test('2026-07-28: discover, a call, a list, and the era\'s errors, one line each', async (t) => {
  const peer = await stdioPeer(t, await app())
  const discover = await peer.request(1, 'server/discover', { _meta: MODERN })
  t.ok(discover.result.supportedVersions.includes('2026-07-28'))
  t.same(discover.result._meta['io.modelcontextprotocol/serverInfo'], { name: 'test-server', version: '1.0.0' })
  peer.send(call(2, 'add', { a: 2, b: 3 }))
  t.same((await peer.response(2)).result.content, [{ type: 'text', text: '5' }])
  t.same((await peer.request(3, 'tools/list', { _meta: MODERN })).result.tools.map((tool: any) => tool.name), ['add', 'ask', 'chatty', 'guarded', 'late', 'wait'])
  t.same((await peer.request(4, 'nope/nope', { _meta: MODERN })).error, { code: -32601, message: 'Method not found: nope/nope' })
  const badMeta = await peer.request(5, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } })
  t.equal(badMeta.error.code, -32602)
  t.match(badMeta.error.message, /clientCapabilities/)
  const version = await peer.request(6, 'tools/list', { _meta: { ...MODERN, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } })
  t.same(version.error, { code: -32022, message: 'Unsupported protocol version: 2099-01-01', data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: '2099-01-01' } })
  t.match((await peer.request(7, 'tools/call', { name: 'add', arguments: { a: 'x', b: 1 }, _meta: MODERN })).result, { isError: true, content: [{ text: /a/ }] }, 'validation as over HTTP')
  // a modern notification is taken and answers nothing
  peer.send({ jsonrpc: '2.0', method: 'notifications/whatever', params: { _meta: MODERN } })
  t.same((await peer.request(8, 'ping')).result, {}, 'a ping with no era is answered')
  t.equal(peer.raw.length, 8, 'one line per request, nothing else')
  for (const line of peer.raw) t.notOk(line.includes('\n'))
})

t.test('framing: malformed lines, blank lines, CRLF, an overlong line, a last line without its newline', async (t) => {
  const log = captureLog()
  const server = await app({ bodyLimit: 300 }, { logger: log.logger })
  const peer = await stdioPeer(t, server)
  peer.send('{not json')
  t.match(await peer.next((line) => line.error !== undefined, 'the parse error'), { jsonrpc: '2.0', id: null, error: { code: -32700, message: /^Parse error: Expected property name or '}' in JSON at position 1/ } })
  peer.send('42')
  t.same((await peer.next((line) => line.error?.code === -32600, 'a refusal', 1)).id, null)
  peer.send('{"jsonrpc":"2.0","id":9,"method":"ping","__proto__":{"admin":true}}')
  const poisoned = await peer.response(9)
  t.equal(poisoned.error.code, -32600)
  t.match(poisoned.error.message, /__proto__/)
  peer.input.write('\n   \n\r\n')
  peer.input.write(JSON.stringify(call(10, 'add', { a: 1, b: 1 })) + '\r\n')
  t.same((await peer.response(10)).result.content[0].text, '2')
  // a line split across chunks, and an overlong one that is dropped as it comes
  const split = JSON.stringify(call(11, 'add', { a: 4, b: 4 }))
  peer.input.write(split.slice(0, 10))
  peer.input.write(split.slice(10) + '\n')
  t.equal((await peer.response(11)).result.content[0].text, '8')
  peer.input.write('{"jsonrpc":"2.0","id":12,"method":"ping","params":{"pad":"' + 'x'.repeat(200))
  peer.input.write('x'.repeat(200) + '"}}\n')
  const overlong = await peer.next((line) => line.error?.message?.includes('bodyLimit') === true, 'the overlong line\'s refusal')
  t.same(overlong, { jsonrpc: '2.0', id: null, error: { code: -32600, message: "Invalid Request: a message of 461 bytes is over this server's limit of 300 bytes (bodyLimit)" } })
  t.same((await peer.request(13, 'ping')).result, {}, 'the connection goes on')
  const before = peer.lines.length
  peer.input.end('{"jsonrpc":"2.0","id":14,"method":"ping"}')
  await peer.handle.closed
  t.same(peer.lines.slice(before), [{ jsonrpc: '2.0', id: 14, result: {} }], 'the last line, without its newline, is a message')
  t.same(log.errors(), [])
})

t.test('2026-07-28: progress and log messages go out before the response; a question is a round trip, never a request line', async (t) => {
  const peer = await stdioPeer(t, await app())
  peer.send(call(1, 'chatty', {}, { ...MODERN, progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'info' }))
  await peer.response(1)
  t.same(peer.lines.map((line) => line.method ?? `response ${String(line.id)}`), ['notifications/progress', 'notifications/message', 'notifications/progress', 'response 1'])
  t.same(peer.lines[0].params, { progressToken: 'p', progress: 1, total: 2, message: 'half' })
  t.same(peer.lines[1].params, { level: 'info', data: { step: 'one' } })
  const from = peer.lines.length
  peer.send(call(2, 'chatty'))
  await peer.response(2)
  t.equal(peer.lines.length, from + 1, 'no progress token, no log level: the response alone')

  const asked = await peer.request(3, 'tools/call', { name: 'ask', arguments: {}, _meta: { ...MODERN, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } } })
  t.equal(asked.result.resultType, 'input_required')
  t.notOk(peer.lines.some((line) => line.method !== undefined && line.id !== undefined), 'the server wrote no request')
  const retry = await peer.request(4, 'tools/call', {
    name: 'ask',
    arguments: {},
    inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } },
    requestState: asked.result.requestState,
    _meta: { ...MODERN, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }
  })
  t.same(retry.result.content, [{ type: 'text', text: 'hello Ada' }])
})

t.test('cancellation: notifications/cancelled stops the call, and nothing more is sent for it, in either era', async (t) => {
  const peer = await stdioPeer(t, await app())
  peer.send(call(1, 'wait'))
  await sleep(20)
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'enough', _meta: MODERN } })
  // the call stopped (its answer would say so), and its answer was not written
  t.same((await peer.request(2, 'ping')).result, {})
  await sleep(20)
  t.notOk(peer.lines.some((line) => line.id === 1), 'no response to a cancelled request')
  // a cancel of nothing known, or with no usable id, is dropped
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nobody' } })
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: { no: 1 } } })

  await initialize(peer)
  peer.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait', arguments: {} } })
  await sleep(20)
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } })
  t.same((await peer.request(4, 'ping')).result, {})
  await sleep(20)
  t.notOk(peer.lines.some((line) => line.id === 3), 'a 2025 session\'s cancelled call is not answered either')
})

t.test('a cancel that comes before the handler first reads ctx.signal still reaches it', async (t) => {
  const server = await app()
  const seen: string[] = []
  server.registerTool({
    name: 'slow-reader',
    execute: async (_args: unknown, ctx: ToolContext) => {
      await sleep(40)
      seen.push(ctx.signal.aborted ? String(ctx.signal.reason?.message) : 'not aborted')
      return 'done'
    }
  })
  const peer = await stdioPeer(t, server)
  peer.send(call(1, 'slow-reader'))
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'enough', _meta: MODERN } })
  await until(() => seen.length > 0, { what: 'the handler to read its signal' })
  t.same(seen, ['cancelled by the client: enough'])
  t.same((await peer.request(2, 'ping')).result, {})
  t.notOk(peer.lines.some((line) => line.id === 1), 'and its answer is not written')
})

t.test('a 2025 session: one per process, its questions as request lines, its notifications on the same channel', async (t) => {
  const server = await app()
  const peer = await stdioPeer(t, server)
  t.same((await peer.request(1, 'ping')).result, {}, 'a ping before the handshake')
  const early = await peer.request(2, 'tools/list')
  t.equal(early.error.code, -32600)
  t.match(early.error.message, /no session\. A 2025 client sends initialize first/)
  const init = await initialize(peer, '2025-11-25', { elicitation: {} })
  t.equal(init.result.protocolVersion, '2025-11-25')
  t.same((await peer.request(3, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } })).result, { content: [{ type: 'text', text: '2' }] }, 'a 2025 result: no resultType')
  const again = await peer.request(4, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } })
  t.match(again.error, { code: -32600, message: /already initialized/ })

  // the question goes out as a request line, its answer comes back as a response line
  peer.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'ask', arguments: {} } })
  const question = await peer.next((line) => line.method === 'elicitation/create', 'the question')
  t.match(question.id, /^sake-/)
  peer.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Grace' } } })
  t.same((await peer.response(5)).result.content, [{ type: 'text', text: 'hello Grace' }])
  peer.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'ask', arguments: {} } })
  const second = await peer.next((line) => line.method === 'elicitation/create' && line.id !== question.id, 'the second question')
  peer.send({ jsonrpc: '2.0', id: second.id, error: { code: -1, message: 'no' } })
  t.match((await peer.response(6)).result, { isError: true })
  // an answer to no question is dropped, and the session goes on
  peer.send({ jsonrpc: '2.0', id: 'sake-nobody-1', result: {} })

  // logging/setLevel lasts for the session; list changes and subscribed updates come on the one channel
  await peer.request(7, 'logging/setLevel', { level: 'info' })
  peer.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'chatty', arguments: {} } })
  await peer.response(8)
  t.ok(peer.lines.some((line) => line.method === 'notifications/message' && line.params.data.step === 'one'), 'the session\'s log level applies')
  await server.mcp.listChanged('tools')
  t.same(await peer.next((line) => line.method === 'notifications/tools/list_changed', 'the list change'), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' })
  await peer.request(9, 'resources/subscribe', { uri: 'notes://all' })
  await server.mcp.resourceUpdated('notes://all')
  t.same((await peer.next((line) => line.method === 'notifications/resources/updated', 'the update')).params, { uri: 'notes://all' })
})

t.test('each request is logged once answered, as Fastify logs an HTTP request; disableRequestLogging turns it off', async (t) => {
  const log = captureLog({ level: 'info' })
  const peer = await stdioPeer(t, await app({}, { logger: log.logger }))
  await peer.request(1, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 }, _meta: MODERN })
  await peer.request(2, 'ping')
  const completed = log.lines.filter((line) => line.msg === 'fastify-sake: stdio request completed')
  t.match(completed, [
    { level: 30, mcp: { method: 'tools/call', name: 'add' }, mcpRequestId: 1, answered: true, responseTime: Number },
    { mcp: { method: 'ping' }, mcpRequestId: 2 }
  ])
  peer.send({ jsonrpc: '2.0', id: 3, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN } })
  await peer.next((line) => line.method === 'notifications/subscriptions/acknowledged', 'the acknowledgement')
  t.match(log.lines.find((line) => line.mcpRequestId === 3), { msg: 'fastify-sake: stdio listen opened', mcp: { method: 'subscriptions/listen' }, answered: false }, 'a listen is not called completed while it stays open')
  const quiet = captureLog({ level: 'info' })
  const silent = await stdioPeer(t, await app({}, { logger: quiet.logger, disableRequestLogging: true }))
  await silent.request(1, 'ping')
  t.notOk(quiet.lines.some((line) => line.msg === 'fastify-sake: stdio request completed'))
})

t.test('a response line before any session (2026-07-28 clients send none) is logged and dropped', async (t) => {
  const log = captureLog()
  const peer = await stdioPeer(t, await app({}, { logger: log.logger }))
  peer.send({ jsonrpc: '2.0', id: 'x', result: {} })
  t.same((await peer.request(1, 'ping')).result, {})
  t.equal(peer.lines.length, 1, 'nothing answers a response')
  t.match(log.lines.find((line) => line.id === 'x'), { level: 40, msg: /a JSON-RPC response arrived on stdio, but no question was asked/ })
})

t.test('routes as tools over stdio: the route runs, from this host, with the caller as request.mcpAuth and nothing forwarded', async (t) => {
  const server = await app()
  const seen: unknown[] = []
  server.get('/whoami', { config: { mcp: { name: 'whoami' } } }, async (request) => {
    seen.push({ ip: request.ip, auth: request.mcpAuth?.subject, authorization: request.headers.authorization ?? null })
    return { ok: true }
  })
  const peer = await stdioPeer(t, server, { caller: { subject: 'dev', scopes: [] } })
  const answer = await peer.request(1, 'tools/call', { name: 'whoami', arguments: {}, _meta: MODERN })
  t.same(answer.result.structuredContent, { ok: true })
  t.same(seen, [{ ip: '127.0.0.1', auth: 'dev', authorization: null }])
})

t.test('a session the store forgot (it expired while the client was idle) is stored again: it lives as long as the process', async (t) => {
  const store = new MemorySessionStore({ idleTimeout: 60_000, maxSessions: 10 })
  const peer = await stdioPeer(t, await app({ sessions: { store } }))
  await initialize(peer)
  const id = (await peer.request(1, 'ping')).id
  t.equal(id, 1)
  const [sessionId] = [...(store as any).entries.keys()]
  await store.delete(sessionId)
  t.same((await peer.request(2, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).result.content, [{ type: 'text', text: '3' }])
  t.ok(await store.get(sessionId), 'the session is back in the store')
})

t.test('2025-03-26: a batch is answered as one array; elsewhere a batch is refused', async (t) => {
  const peer = await stdioPeer(t, await app())
  peer.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }])
  t.match((await peer.next((line) => line.error !== undefined, 'the refusal')).error.message, /only allowed in 2025-03-26 sessions/)
  await initialize(peer, '2025-03-26')
  peer.send([])
  t.match((await peer.next((line) => line.error?.message === 'Invalid Request: the batch is empty', 'the empty batch')).id, null)
  const before = peer.lines.length
  peer.send([
    { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 'sake-x-1', result: {} },
    { jsonrpc: '1.0', id: 'b', method: 'ping' },
    { jsonrpc: '2.0', id: 'c', method: 'ping' }
  ])
  const batch = await peer.next(Array.isArray, 'the batch\'s answer', before)
  t.same(batch.map((item: any) => item.id), ['a', 'b', 'c'])
  t.equal(batch[0].result.content[0].text, '3')
  t.equal(batch[1].error.code, -32600)
  const notifications = [{ jsonrpc: '2.0', method: 'notifications/initialized' }]
  peer.send(notifications)
  t.same((await peer.request('after', 'ping')).result, {})
  t.notOk(peer.lines.slice(before + 1).some(Array.isArray), 'a batch of notifications answers nothing')
})

t.test('a batch holds at most maxBatchItems messages over stdio too', async (t) => {
  const peer = await stdioPeer(t, await app({ maxBatchItems: 2 }))
  await initialize(peer, '2025-03-26')
  const ping = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'ping' })
  peer.send([ping(1), ping(2)])
  t.same((await peer.next(Array.isArray, 'at the bound: answered')).map((item: any) => item.id), [1, 2])
  peer.send([ping(3), ping(4), ping(5)])
  const refused = await peer.next((line) => line.error !== undefined, 'one past it: refused')
  t.same(refused, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the batch holds 3 messages, more than maxBatchItems (2) allows; send fewer at a time' } })
})

t.test('listens count as open streams of the caller: at the bound refused, a cancel or a bad filter gives the place back', async (t) => {
  const log = captureLog({ level: 'warn' })
  const server = await app({ streams: { maxStreams: 10, maxPerCaller: 2 } }, { logger: log.logger })
  const peer = await stdioPeer(t, server)
  for (const id of ['s1', 's2']) {
    peer.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN } })
    await peer.next((line) => line.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === id, `listen ${id} acknowledged`)
  }
  const refused = await peer.request('s3', 'subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: MODERN })
  t.same(refused.error, {
    code: -32600,
    message: 'Too Many Requests: this caller already holds 2 open event streams, the most streams.maxPerCaller allows; close a stream (a GET stream, a subscriptions/listen, a streamed call), then try again',
    data: { limit: 'streams', bound: 'caller', max: 2, option: 'streams.maxPerCaller' }
  })
  t.match(log.lines.find((line) => line.msg?.startsWith('fastify-sake: refused:') === true), { caller: 'stdio', limit: 'streams' }, 'the process owner is the caller, logged')
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's1', _meta: MODERN } })
  const bad = await peer.request('s4', 'subscriptions/listen', { notifications: { toolsListChanged: 'yes' }, _meta: MODERN })
  t.equal(bad.error.code, -32602, 'a cancelled listen gave its place back; a bad filter is its own error')
  peer.send({ jsonrpc: '2.0', id: 's5', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN } })
  await peer.next((line) => line.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 's5', 'and so did the refused filter: s5 opens')
})

t.test('2026-07-28 subscriptions/listen: acknowledged, tagged, ended by a cancel or by the app\'s close', async (t) => {
  const server = await app()
  const peer = await stdioPeer(t, server)
  peer.send({ jsonrpc: '2.0', id: 'l1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN } })
  const ack = await peer.next((line) => line.method === 'notifications/subscriptions/acknowledged', 'the acknowledgement')
  t.same(ack.params, { _meta: { 'io.modelcontextprotocol/subscriptionId': 'l1' }, notifications: { toolsListChanged: true } })
  await server.mcp.listChanged('tools')
  const changed = await peer.next((line) => line.method === 'notifications/tools/list_changed', 'the tagged change')
  t.same(changed.params._meta, { 'io.modelcontextprotocol/subscriptionId': 'l1' })
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'l1', _meta: MODERN } })
  t.same((await peer.request('p', 'ping')).result, {})
  const count = peer.lines.length
  await server.mcp.listChanged('tools')
  t.same((await peer.request('q', 'ping')).result, {})
  t.equal(peer.lines.length, count + 1, 'a cancelled listen hears nothing more, and is not answered')

  const bad = await peer.request('l2', 'subscriptions/listen', { notifications: { toolsListChanged: 'yes' }, _meta: MODERN })
  t.match(bad.error, { code: -32602, message: /toolsListChanged must be a boolean/ })
  peer.send({ jsonrpc: '2.0', id: 'l3', method: 'subscriptions/listen', params: { notifications: { promptsListChanged: true }, _meta: MODERN } })
  await peer.next((line) => line.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 'l3', 'the second acknowledgement')
  await server.close()
  t.same(peer.lines.at(-1), { jsonrpc: '2.0', id: 'l3', result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'l3' } } }, 'the server\'s close ends a listen with its final response')
})

t.test('a caller: every call is checked against its scopes; without one, nothing is', async (t) => {
  const log = captureLog({ level: 'info' })
  const peer = await stdioPeer(t, await app({}, { logger: log.logger }), { caller: { subject: 'dev', scopes: [] } })
  const refused = await peer.request(1, 'tools/call', { name: 'guarded', arguments: {}, _meta: MODERN })
  t.equal(refused.error.code, -32600)
  t.match(refused.error.message, /notes:write/)
  t.ok(log.lines.some((line) => line.msg?.startsWith('fastify-sake: refused:') === true && line.subject === 'dev'))
  await initialize(peer)
  t.match((await peer.request(2, 'tools/call', { name: 'guarded', arguments: {} })).error.message, /notes:write/, 'in a 2025 session too')

  const allowed = await stdioPeer(t, await app(), { caller: { subject: 'dev', scopes: 'notes:write' } })
  t.same((await allowed.request(1, 'tools/call', { name: 'guarded', arguments: {}, _meta: MODERN })).result.content, [{ type: 'text', text: 'written' }])
  const open = await stdioPeer(t, await app())
  t.same((await open.request(1, 'tools/call', { name: 'guarded', arguments: {}, _meta: MODERN })).result.content, [{ type: 'text', text: 'written' }], 'no caller: the process owner may call anything')
})

t.test("a caller: a task asks what its tool's call asked of every caller that reads it; an authTime ahead is no recent sign-in", async (t) => {
  const server = await app()
  server.registerTool({ name: 'guarded_task', scope: 'notes:write', task: 'optional', execute: () => 'the notes' })
  server.registerTool({ name: 'fresh', authentication: { maxAge: 60 }, execute: () => 'fresh' })
  const now = Math.floor(Date.now() / 1000)
  const writer = await stdioPeer(t, server, { caller: { subject: 'dev', scopes: 'notes:write', authTime: now } })
  const reader = await stdioPeer(t, server, { caller: { subject: 'dev', scopes: [], authTime: now + 3600 } })
  const meta = { ...MODERN, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } } }
  const { taskId } = (await writer.request(1, 'tools/call', { name: 'guarded_task', arguments: {}, _meta: meta })).result
  const refused = await reader.request(1, 'tasks/get', { taskId, _meta: meta })
  t.equal(refused.error.code, -32600, 'the same subject, without the scope: the call\'s own refusal')
  t.equal(refused.error.message, "Forbidden: tool 'guarded_task' needs the scope notes:write, which the access token does not grant")
  t.equal((await writer.request(2, 'tasks/get', { taskId, _meta: meta })).result.taskId, taskId)
  t.match((await reader.request(2, 'tools/call', { name: 'fresh', arguments: {}, _meta: MODERN })).error, { code: -32600, data: { error: 'insufficient_user_authentication', maxAge: 60 } }, 'an authTime an hour ahead')
  t.same((await writer.request(3, 'tools/call', { name: 'fresh', arguments: {}, _meta: MODERN })).result.content, [{ type: 'text', text: 'fresh' }])
})

t.test('the input ends: the calls in flight stop and answer, the session ends, and (closeOnEnd) the app closes', async (t) => {
  const server = await app()
  let closed = false
  server.addHook('onClose', async () => { closed = true })
  const peer = await stdioPeer(t, server, { closeOnEnd: true })
  await initialize(peer)
  peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait', arguments: {} } })
  peer.send(call(2, 'wait'))
  await sleep(20)
  peer.input.end()
  await peer.handle.closed
  t.same((await peer.response(1)).result.content, [{ type: 'text', text: 'stopped: the client closed its input (stdin)' }])
  t.same((await peer.response(2)).result.content, [{ type: 'text', text: 'stopped: the client closed its input (stdin)' }])
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.ok(closed, 'the app closed')
  t.ok(peer.input.destroyed, 'nothing more is read')
})

t.test('the app closes: calls in flight get closeTimeout, then their signal aborts; a handle closes alone too', async (t) => {
  const server = await app({ closeTimeout: 100 })
  const peer = await stdioPeer(t, server)
  peer.send(call(1, 'wait'))
  await sleep(20)
  const started = Date.now()
  await server.close()
  t.ok(Date.now() - started >= 90, 'the close waited for the call')
  t.same((await peer.response(1)).result.content, [{ type: 'text', text: 'stopped: the server closed before the call finished' }])
  await peer.handle.closed
  peer.send({ jsonrpc: '2.0', id: 2, method: 'ping' })
  await sleep(20)
  t.notOk(peer.lines.some((line) => line.id === 2), 'nothing is read once closed')

  const other = await app()
  const alone = await stdioPeer(t, other)
  await alone.handle.close()
  await alone.handle.closed
  t.ok(alone.input.destroyed)
  t.equal(other.mcp.draining, false, 'closing a handle leaves the app be')
})

t.test('a stream that fails is a client gone; a second input end is nothing new', async (t) => {
  const log = captureLog()
  const server = await app({}, { logger: log.logger })
  const peer = await stdioPeer(t, server)
  peer.output.emit('error', new Error('EPIPE'))
  await peer.handle.closed
  t.ok(log.lines.some((line) => line.msg === 'fastify-sake: the stdio stream failed; the client is taken to be gone'))
  peer.input.emit('end')
  peer.input.write(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'))
  await sleep(20)
  t.same(peer.lines, [])
})

t.test('a session store that fails to end the session at the end: logged, and the connection still closes', async (t) => {
  const log = captureLog()
  const store = new MemorySessionStore({ idleTimeout: 60_000, maxSessions: 10 })
  const peer = await stdioPeer(t, await app({ sessions: { store } }, { logger: log.logger }))
  await initialize(peer)
  store.delete = async () => { throw new Error('store down') }
  peer.input.end()
  await peer.handle.closed
  t.ok(log.lines.some((line) => line.msg?.startsWith('fastify-sake: the session store failed to end the stdio session') === true))
})

t.test('hostile lines (seeded): every line out is a JSON-RPC response or notification, nothing unexpected is logged, and the connection goes on', async (t) => {
  const fc = await import('fast-check')
  const log = captureLog()
  const peer = await stdioPeer(t, await app({ bodyLimit: 4096 }, { logger: log.logger }))
  const methods = ['tools/call', 'tools/list', 'initialize', 'ping', 'resources/read', 'subscriptions/listen', 'server/discover', 'notifications/cancelled', 'nope', '__proto__']
  const message = fc.record({
    jsonrpc: fc.constantFrom('2.0', '2.0', '1.0', 2),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.object()),
    method: fc.oneof(fc.constantFrom(...methods), fc.string({ maxLength: 12 })),
    params: fc.oneof(fc.constant(undefined), fc.object(), fc.record({ name: fc.constantFrom('add', 'wait', 'nope'), arguments: fc.anything(), _meta: fc.oneof(fc.constant(MODERN), fc.object()) }))
  }, { requiredKeys: [] })
  const line = fc.oneof(message.map((value) => JSON.stringify(value)), fc.json(), fc.string({ maxLength: 64 }), fc.array(message, { maxLength: 3 }).map((value) => JSON.stringify(value)))
  const lines = fc.sample(line, { numRuns: 400, seed: 32 })
  for (const text of lines) peer.send(text.replaceAll('\n', ' '))
  t.same((await peer.request('last', 'ping')).result, {}, 'still answering')
  for (const text of peer.raw) {
    const value = JSON.parse(text)
    for (const item of Array.isArray(value) ? value : [value]) {
      t.equal(item.jsonrpc, '2.0')
      t.ok(('result' in item) !== ('error' in item) || typeof item.method === 'string', 'a response or a notification')
      if (item.error !== undefined) t.ok(Number.isInteger(item.error.code) && typeof item.error.message === 'string' && item.error.message.length > 0)
    }
  }
  t.ok(peer.lines.length > 100, `${peer.lines.length} lines answered`)
  t.same(log.errors(), [], 'nothing the transport did not expect')
})

t.test('a call that first reads its signal after the calls were told to stop finds it aborted, with the reason; during closeTimeout it is not', async (t) => {
  const peer = await stdioPeer(t, await app())
  peer.send(call(1, 'late'))
  peer.input.end()
  await peer.handle.closed
  t.same((await peer.response(1)).result.content, [{ type: 'text', text: 'aborted: true, the client closed its input (stdin)' }])

  const server = await app({ closeTimeout: 2000 })
  const closing = await stdioPeer(t, server)
  closing.send(call(1, 'late'))
  await sleep(5)
  const started = Date.now()
  await server.close()
  t.ok(Date.now() - started < 1500, 'the close waited for the call alone, not closeTimeout')
  t.same((await closing.response(1)).result.content, [{ type: 'text', text: 'aborted: false' }], 'closeTimeout is the call\'s to finish in')
})

/** What refuses a request that reuses the id of one in flight. */
const inFlightMessage = (id: string | number): string => `Invalid Request: request id ${JSON.stringify(id)} is still in flight (an earlier request with this id has not finished); give each request an id of its own`
const inFlight = (id: string | number): Record<string, unknown> => ({ jsonrpc: '2.0', id, error: { code: -32600, message: inFlightMessage(id) } })

/** Each line from `from` on as [id, its error's message or its result's text]. */
const told = (peer: StdioPeer, from = 0): unknown[] => peer.lines.slice(from).map((line) => [line.id, line.error?.message ?? line.result?.content?.[0]?.text ?? line.result])

/** Sends a request and waits for the first answer to its id written after now. */
async function answerTo (peer: StdioPeer, id: string | number, method: string, params: Record<string, unknown>): Promise<any> {
  const from = peer.lines.length
  peer.send({ jsonrpc: '2.0', id, method, params })
  return await peer.next((line) => line.id === id && !('method' in line), `the answer to ${JSON.stringify(id)}`, from)
}

t.test('a request that reuses the id of one in flight is refused and does not run; the first answers once, as ever; then the id is free', async (t) => {
  let runs = 0
  const server = await app()
  server.registerTool({ name: 'count', execute: async () => { runs++; await sleep(40); return `run ${runs}` } })
  const peer = await stdioPeer(t, server)
  peer.send(call(7, 'count'))
  peer.send(call(7, 'count'))
  peer.send(call('7', 'add', { a: 1, b: 1 })) // "7" is another id than 7
  await peer.next((line) => line.result?.content?.[0]?.text === 'run 1', 'the first one\'s answer')
  t.same(peer.lines[0], inFlight(7))
  t.same(told(peer), [[7, inFlightMessage(7)], ['7', '2'], [7, 'run 1']], 'the second refused at once, the first answered once')
  t.equal(runs, 1, 'the second never ran')
  t.same((await answerTo(peer, 7, 'tools/call', { name: 'count', arguments: {}, _meta: MODERN })).result.content, [{ type: 'text', text: 'run 2' }], 'answered: the id may name a new request')

  // 2025: the same in a session, and a cancelled call keeps its id until its handler returns
  await initialize(peer)
  const from = peer.lines.length
  peer.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'late', arguments: {} } })
  peer.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'count', arguments: {} } })
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8 } })
  peer.send({ jsonrpc: '2.0', id: 8, method: 'ping' })
  await answerTo(peer, 'after', 'ping', {})
  t.same(peer.lines.slice(from), [inFlight(8), inFlight(8), { jsonrpc: '2.0', id: 'after', result: {} }], 'refused while the first runs, cancelled or not; the cancelled one answers nothing')
  t.equal(runs, 2, 'the refused count never ran')
  await sleep(60)
  t.same((await answerTo(peer, 8, 'ping', {})).result, {}, 'free once its handler returned')
})

t.test('a listen holds its id while it is open, and while its filter is checked; a batch item that repeats an id is refused beside the first', async (t) => {
  // a task store that answers when told: the listen's filter (its taskIds) waits for it
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  const memory = new MemoryTaskStore({ maxTasks: 10 })
  const slow: TaskStore = {
    create: (record) => memory.create(record),
    get: async (taskId) => { await gate; return memory.get(taskId) },
    transition: (taskId, version, patch) => memory.transition(taskId, version, patch),
    list: (owner, cursor, limit) => memory.list(owner, cursor, limit),
    delete: (taskId) => { memory.delete(taskId) }
  }
  const server = await app({ tasks: { store: slow } })
  const peer = await stdioPeer(t, server)
  const withTasks = { ...MODERN, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } } }
  peer.send({ jsonrpc: '2.0', id: 'l1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, taskIds: ['t1'] }, _meta: withTasks } })
  t.same(await answerTo(peer, 'l1', 'ping', {}), inFlight('l1'), 'while its filter is checked')
  release()
  await peer.next((line) => line.method === 'notifications/subscriptions/acknowledged', 'the acknowledgement')
  t.same(await answerTo(peer, 'l1', 'tools/call', { name: 'add', arguments: { a: 1, b: 1 }, _meta: MODERN }), inFlight('l1'), 'while it is open')
  await server.mcp.listChanged('tools')
  await peer.next((line) => line.method === 'notifications/tools/list_changed', 'the open listen still hears its changes')
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'l1', _meta: MODERN } })
  t.same((await answerTo(peer, 'l1', 'ping', {})).result, {}, 'free once it ended')

  await initialize(peer, '2025-03-26')
  peer.send([{ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 2 } } }, { jsonrpc: '2.0', id: 'b', method: 'ping' }])
  const batch = await peer.next(Array.isArray, 'the batch\'s answer')
  t.same([batch[0].result.content, batch[1]], [[{ type: 'text', text: '4' }], inFlight('b')], 'the first item answered, the second refused')
})

t.test('a cancelled request that then fails is not answered either', async (t) => {
  const log = captureLog()
  const peer = await stdioPeer(t, await app({}, { logger: log.logger }))
  peer.send({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'notes://stuck', _meta: MODERN } })
  await sleep(20)
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: MODERN } })
  t.same((await peer.request(2, 'ping')).result, {})
  await sleep(20)
  t.same(peer.lines.map((line) => line.id), [2], 'nothing for the cancelled read, its error included')
  t.ok(log.lines.some((line) => (line.err as { message?: string } | undefined)?.message === 'the read stopped'), 'the read\'s failure is still logged')
})

t.test('a listen cancelled, or whose connection ended, before its filter was checked never opens', async (t) => {
  const server = await app()
  const peer = await stdioPeer(t, server)
  // one chunk: the cancel is read before the listen's filter is checked
  peer.input.write(JSON.stringify({ jsonrpc: '2.0', id: 'l1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN } }) + '\n' + JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'l1', _meta: MODERN } }) + '\n')
  t.same((await peer.request('p', 'ping')).result, {})
  await server.mcp.listChanged('tools')
  t.same((await peer.request('q', 'ping')).result, {})
  t.same(peer.lines.map((line) => line.id), ['p', 'q'], 'no acknowledgement, no change, no answer')

  // a task store that answers when told: the listen's filter (its taskIds) is checked after the input ended
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  let asked = false
  const memory = new MemoryTaskStore({ maxTasks: 10 })
  const slow: TaskStore = {
    create: (record) => memory.create(record),
    get: async (taskId) => {
      asked = true
      await gate
      return memory.get(taskId)
    },
    transition: (taskId, version, patch) => memory.transition(taskId, version, patch),
    list: (owner, cursor, limit) => memory.list(owner, cursor, limit),
    delete: (taskId) => { memory.delete(taskId) }
  }
  const other = await app({ tasks: { store: slow } })
  const ending = await stdioPeer(t, other)
  ending.send({ jsonrpc: '2.0', id: 'l2', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, taskIds: ['t1'] }, _meta: { ...MODERN, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } } } } })
  await until(() => asked, { what: 'the filter\'s task lookup' })
  ending.input.end()
  await sleep(10)
  release()
  await ending.handle.closed
  await other.mcp.listChanged('tools')
  await sleep(20)
  t.same(ending.lines, [], 'a listen whose connection ended first is not opened')
})

t.test('2025-03-26: a batch item that is no message is refused with id null, its neighbours answered', async (t) => {
  const peer = await stdioPeer(t, await app())
  await initialize(peer, '2025-03-26')
  const before = peer.lines.length
  peer.send([42, { jsonrpc: '2.0', id: 1, method: 'ping' }])
  const answers = await peer.next(Array.isArray, 'the batch\'s answers', before)
  t.equal(answers.length, 2)
  t.match(answers[0], { id: null, error: { code: -32600 } })
  t.same(answers[1], { jsonrpc: '2.0', id: 1, result: {} })
})

t.test('2025-11-25 tasks over stdio: the task\'s question travels on the channel while tasks/result waits, and its answer finishes the task', async (t) => {
  const server = await app()
  server.registerTool({
    name: 'report',
    task: true,
    execute: async (_args: unknown, ctx: ToolContext) => {
      const answer = await ctx.elicit.form('format', 'Which format?', Type.Object({ format: Type.String() }))
      return answer.action === 'accept' ? `report as ${answer.content.format}` : `no: ${answer.action}`
    }
  })
  const peer = await stdioPeer(t, server)
  await initialize(peer, '2025-11-25', { elicitation: {}, tasks: { requests: { elicitation: { create: {} } } } })
  const created = await peer.request(1, 'tools/call', { name: 'report', arguments: {}, task: { ttl: 60_000 } })
  const { taskId } = created.result.task
  t.ok(typeof taskId === 'string')
  peer.send({ jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId } })
  const question = await peer.next((line) => line.method === 'elicitation/create', 'the task\'s question')
  t.same(question.params._meta['io.modelcontextprotocol/related-task'], { taskId })
  peer.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { format: 'csv' } } })
  const result = await peer.response(2)
  t.same(result.result.content, [{ type: 'text', text: 'report as csv' }])
  t.same(result.result._meta['io.modelcontextprotocol/related-task'], { taskId })
})

t.test('a call that answers after the connection closed (it ignored its signal) writes nothing', async (t) => {
  const server = await app({ closeTimeout: 10 })
  let answered = false
  server.registerTool({
    name: 'stubborn',
    execute: async () => {
      await sleep(1300)
      answered = true
      return 'too late'
    }
  })
  const peer = await stdioPeer(t, server)
  peer.send(call(1, 'stubborn'))
  await sleep(20)
  await server.close()
  await peer.handle.closed
  await until(() => answered, { what: 'the stubborn call to finish' })
  await sleep(10)
  t.same(peer.lines, [], 'closed means closed: no line after it')
})

t.test('backpressure: a host that does not read gets no more notifications past streams.maxBuffered (logged once), its responses still; caught up, they flow again', async (t) => {
  const log = captureLog({ level: 'warn' })
  const server = await app({ streams: { maxBuffered: 1024 } }, { logger: log.logger })
  const note = 'x'.repeat(100)
  server.registerTool({
    name: 'flood',
    execute: (_args: unknown, ctx: ToolContext) => {
      for (let i = 1; i <= 2000; i++) ctx.progress(i, 2000, note)
      return 'flooded'
    }
  })
  const input = new PassThrough()
  // the host's end: nothing reads it until the test says so
  const output = new PassThrough()
  t.teardown(async () => { await server.close() })
  await server.mcp.stdio({ input, output, closeOnEnd: false })
  input.write(JSON.stringify(call(1, 'flood', {}, { ...MODERN, progressToken: 'f' })) + '\n')
  await until(() => log.lines.find((line) => line.msg?.includes('the stdio client reads too slowly') === true), { what: 'the warning' })
  await sleep(20)
  t.ok(output.writableLength < 64 * 1024, `what waits for the host stays bounded (${output.writableLength} bytes unsent)`)
  const lines: any[] = []
  let rest = ''
  output.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8')
    for (let at = rest.indexOf('\n'); at !== -1; at = rest.indexOf('\n')) {
      lines.push(JSON.parse(rest.slice(0, at)))
      rest = rest.slice(at + 1)
    }
  })
  await until(() => lines.find((line) => line.id === 1), { what: 'the response' })
  const progress = lines.filter((line) => line.method === 'notifications/progress')
  t.same(lines.at(-1).result.content, [{ type: 'text', text: 'flooded' }], 'the response is never dropped')
  t.ok(progress.length > 0 && progress.length < 2000, `notifications past the bound were dropped (${progress.length} of 2000 sent)`)
  const warned = log.lines.filter((line) => line.msg?.includes('the stdio client reads too slowly') === true)
  t.equal(warned.length, 1, 'one line when dropping starts')
  t.match(warned[0], { level: 40, maxBuffered: 1024, msg: /: \d+ bytes unsent, over streams\.maxBuffered \(1024\); notifications are dropped until it catches up \(responses are not\)$/ })
  t.ok((warned[0]!.buffered as number) > 1024)
  input.write(JSON.stringify(call(2, 'chatty', {}, { ...MODERN, progressToken: 'c' })) + '\n')
  await until(() => lines.find((line) => line.id === 2), { what: 'the second response' })
  t.same(lines.filter((line) => line.params?.progressToken === 'c').length, 2, 'caught up: notifications go out again')
  t.match(log.lines.at(-1), { level: 40, dropped: 2000 - progress.length, msg: `fastify-sake: the stdio client caught up; ${2000 - progress.length} notifications were dropped` })
})

t.test('backpressure: dropping ends only once the host read everything, not each time it dips under the bound', async (t) => {
  const log = captureLog({ level: 'warn' })
  const server = await app({ streams: { maxBuffered: 1024 } }, { logger: log.logger })
  let step!: () => void
  server.registerTool({
    name: 'paced',
    execute: async (_args: unknown, ctx: ToolContext) => {
      for (let i = 1; i <= 3; i++) {
        await new Promise<void>((resolve) => { step = resolve })
        ctx.progress(i, 3)
      }
      return 'paced'
    }
  })
  const input = new PassThrough()
  const output = new PassThrough()
  // what the host has not read, as the test says
  let unsent = 0
  Object.defineProperty(output, 'writableLength', { get: () => unsent })
  const lines: any[] = []
  output.on('data', (chunk: Buffer) => { for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line)) })
  t.teardown(async () => { await server.close() })
  await server.mcp.stdio({ input, output, closeOnEnd: false })
  input.write(JSON.stringify(call(1, 'paced', {}, { ...MODERN, progressToken: 'q' })) + '\n')
  const progressed = (): number[] => lines.filter((line) => line.method === 'notifications/progress').map((line) => line.params.progress)
  const stepped = async (n: number, what: string): Promise<void> => {
    await until(() => step !== undefined, { what: 'the tool' })
    const next = step
    step = undefined as any
    next()
    await until(() => progressed().length >= n || log.lines.length > 0, { what })
    await sleep(10)
  }
  unsent = 2000
  await stepped(0, 'the first progress to be dropped')
  t.same(progressed(), [], 'over the bound: dropped')
  unsent = 500
  await stepped(1, 'the second progress')
  t.same(progressed(), [2], 'under it again: sent')
  t.equal(log.lines.filter((line) => line.msg?.includes('caught up') === true).length, 0, 'but not yet said to have caught up: the host has not read everything')
  unsent = 0
  await stepped(2, 'the third progress')
  t.same(progressed(), [2, 3])
  await until(() => lines.find((line) => line.id === 1), { what: 'the response' })
  t.match(log.lines.map((line) => line.msg), [/reads too slowly: 2000 bytes unsent/, 'fastify-sake: the stdio client caught up; 1 notifications were dropped'])
})

t.test('an initialize the session store refuses (too large for sessions.maxSize) leaves no session: a later one opens it', async (t) => {
  const peer = await stdioPeer(t, await app({ sessions: { maxSize: 1024 } }))
  const big = await peer.request('big', 'initialize', { protocolVersion: '2025-11-25', capabilities: { experimental: { blob: 'x'.repeat(2000) } }, clientInfo: { name: 'x', version: '1' } })
  t.equal(big.error.code, -32602)
  t.match(big.error.message, /more than sessions\.maxSize \(1024\) allows/)
  const noSession = await peer.request('after', 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })
  t.match(noSession.error.message, /no session/, 'the refused one was never the process\'s session')
  const init = await initialize(peer)
  t.equal(init.result.protocolVersion, '2025-11-25', 'a small one opens it')
})

t.test('questions over stdio count against the caller\'s quota: one past the bound refuses its call', async (t) => {
  const peer = await stdioPeer(t, await app({ questions: { maxQuestions: 10, maxPerCaller: 1 } }))
  await initialize(peer, '2025-11-25', { elicitation: {} })
  peer.send({ jsonrpc: '2.0', id: 'q1', method: 'tools/call', params: { name: 'ask', arguments: {} } })
  const question = await peer.next((line) => line.method === 'elicitation/create', 'the first question')
  const refused = await peer.request('q2', 'tools/call', { name: 'ask', arguments: {} })
  t.match(refused.error, { code: -32600, message: /^Too Many Requests: this caller already holds 1 questions waiting/, data: { limit: 'questions', bound: 'caller', option: 'questions.maxPerCaller' } })
  peer.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } })
  const first = await peer.next((line) => line.id === 'q1', 'the first call\'s answer')
  t.ok(first.result, 'the first question, answered, let its call finish')
})
