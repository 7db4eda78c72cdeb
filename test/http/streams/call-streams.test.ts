// A call's answer opens as a stream at the first thing it sends (or after a keep-alive interval of
// silence): an error before that is answered plainly; a protocol error and an unexpected one after it
// both end the stream as the call's JSON-RPC error, after whatever was already sent. A resumable stream its client read
// whole leaves the event store at the client's next request on that connection.
import { Agent, request } from 'node:http'
import t from 'tap'
import { MemoryEventStore, type EventStore } from '../../../lib/index.js'
import { InsufficientScopeError } from '../../../lib/index.js'
import { build, deferred, listen, sleep, until } from '../../helpers/app.js'
import { captureLog } from '../../helpers/logs.js'
import { legacyPost, open, sessionOn, streamPost } from '../../helpers/network.js'
import { MODERN, modernMeta, modernRequest } from '../../helpers/requests.js'
import { sseMessages, takeSseEvents } from '../../helpers/sse.js'

t.test('an error before a streaming call sent anything is answered plainly: the stream never opened', async (t) => {
  const app = await build({ keepAlive: 0 })
  app.registerTool({ name: 'live', stream: true, execute: () => 'x' })
  t.teardown(() => app.close())
  const res = await app.inject(modernRequest('tools/call', { name: 'live', arguments: 'not an object' }))
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  t.match(res.json().error.message, /"arguments" of tool 'live' must be an object/)
  const quick = await app.inject(modernRequest('tools/call', { name: 'live', arguments: {} }))
  t.match(quick.headers['content-type'], /^application\/json/, 'a result before anything was sent is JSON too')
  t.equal(quick.json().result.content[0].text, 'x')
})

t.test('a protocol error after a streaming call sent something is its final event', async (t) => {
  const app = await build({ keepAlive: 0 })
  app.registerTool({ name: 'live', stream: true, execute: (_args, ctx) => { ctx.progress(1); throw new InsufficientScopeError('issues:admin') } })
  t.teardown(() => app.close())
  const res = await app.inject(modernRequest('tools/call', { name: 'live', arguments: {}, _meta: { progressToken: 'p' } }))
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/event-stream')
  t.equal(JSON.parse(takeSseEvents(res.body).events[0]!.data!).method, 'notifications/progress')
  const answer = sseMessages(res.body).at(-1)
  t.equal(answer.error.code, -32600)
  t.same(answer.error.data, { error: 'insufficient_scope', scopes: ['issues:admin'] })
})

t.test('an unexpected failure in a streamed call is -32603, logged, with no detail sent', async (t) => {
  const lines: any[] = []
  const logger = {
    level: 'info',
    stream: {
      write (line: string) {
        // the tool's failure report itself fails: what reaches the endpoint is no ProtocolError
        if (line.includes('cannot be sent as JSON')) throw new Error('log sink down')
        lines.push(JSON.parse(line))
      }
    }
  }
  const app = await build({ keepAlive: 0 }, { logger })
  app.registerTool({ name: 'big', stream: true, execute: (_args, ctx) => { ctx.progress(1); return ({ n: 10n }) as any } })
  t.teardown(() => app.close())
  const res = await app.inject(modernRequest('tools/call', { name: 'big', arguments: {}, _meta: { progressToken: 'p' } }))
  t.equal(res.headers['content-type'], 'text/event-stream')
  const answer = sseMessages(res.body).at(-1)
  t.same(answer.error, { code: -32603, message: 'Internal error' })
  t.notMatch(res.body, /log sink down/)
  t.ok(lines.some((line) => line.msg === 'fastify-sake: unexpected error while streaming a response' && line.err.message === 'log sink down'))
})

t.test('a streaming call silent for longer than the keep-alive interval opens its stream then', async (t) => {
  const app = await build({ keepAlive: 100 })
  // the point of both sleeps: tools slower and quicker than the keep-alive interval
  app.registerTool({ name: 'slow', stream: true, execute: async () => { await sleep(600); return 'late' } })
  app.registerTool({ name: 'quick', stream: true, execute: async () => { await sleep(10); return 'soon' } })
  const url = await listen(t, app)
  const started = Date.now()
  const slow = await streamPost(url, 'tools/call', { name: 'slow', arguments: {} })
  const headersAfter = Date.now() - started
  t.equal(slow.headers.get('content-type'), 'text/event-stream')
  t.ok(headersAfter < 500, `the headers came before the result (${headersAfter} ms)`)
  const events = await slow.rest(3000)
  t.ok(events.some((e) => e.comment === 'keep-alive'), 'kept alive while silent')
  t.equal(JSON.parse(events.find((e) => e.data !== undefined)!.data!).result.content[0].text, 'late')
  const quick = await streamPost(url, 'tools/call', { name: 'quick', arguments: {} })
  t.match(quick.headers.get('content-type'), /^application\/json/, 'quicker than the interval: JSON')
  t.equal((await quick.json()).result.content[0].text, 'soon')
})

t.test('a call that sends something after its client went away writes nothing and goes on', async (t) => {
  const log = captureLog()
  const running = deferred<void>()
  const sent = deferred<boolean>()
  const app = await build({ keepAlive: 0 }, { logger: log.logger })
  app.registerTool({
    name: 'late',
    stream: true,
    execute: async (_args, ctx) => {
      running.resolve()
      await until(() => ctx.signal.aborted, { what: 'the client to go away' })
      await sleep(20) // the point: a tool that runs on a while after the abort, as a slow one does
      ctx.progress(1)
      sent.resolve(true)
      return 'nobody reads this'
    }
  })
  const url = await listen(t, app)
  // the answer has not started (the call sent nothing yet): a raw request, dropped while it waits
  const post = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'late' } })
  post.on('error', () => {})
  post.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'late', arguments: {}, _meta: modernMeta({ progressToken: 'p' }) } }))
  await running.promise
  post.destroy()
  t.equal(await sent.promise, true)
  await sleep(50) // the point: an error writing what it sent would be logged by now
  t.same(log.errors(), [], 'no error: the stream had nowhere to go')
})

t.test('after a call answered as JSON, what it sends late goes nowhere and a late question is refused', async (t) => {
  const late = deferred<unknown>()
  const app = await build({ keepAlive: 0 })
  app.registerTool({
    name: 'early',
    stream: true,
    execute: (_args, ctx) => {
      // work the tool left running after its answer (it should not, but nothing may break)
      setTimeout(() => {
        ctx.progress(1)
        ctx.roots('late').then(late.resolve, late.resolve)
      }, 30)
      return 'answered'
    }
  })
  const url = await listen(t, app)
  const sid = await sessionOn(url, { capabilities: { roots: {} } })
  const post = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'early', _meta: { progressToken: 1 } } })
  t.match(post.headers.get('content-type'), /^application\/json/)
  t.equal((await post.json()).result.content[0].text, 'answered')
  t.match(String(await late.promise), /the call already answered: roots\/list \('late'\) can no longer be asked/)
})

/** POSTs on one kept-alive connection (an agent of one socket): the status and the whole body. */
function keptAlive (url: string, sessionId: string): { post: (body: unknown) => Promise<{ status: number, body: string }>, close: () => void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }
  return {
    post: async (body) => new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', headers, agent }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => { text += chunk })
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      })
      req.on('error', reject)
      req.end(JSON.stringify(body))
    }),
    close: () => agent.destroy()
  }
}

const firstId = (body: string): string => /^id: (.+)$/m.exec(body)![1]!

t.test('a 2025-11-25 stream its client read whole leaves the event store at the next request on that connection', async (t) => {
  const store = new MemoryEventStore({ maxPerStream: 100, maxEvents: 1000, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  const deleted: string[] = []
  const events: EventStore = {
    append: (streamId, message) => store.append(streamId, message),
    replay: (id) => store.replay(id),
    delete: (streamId) => { deleted.push(streamId); store.delete(streamId) }
  }
  const app = await build({ keepAlive: 0, events: { store: events } })
  app.registerTool({ name: 'steps', stream: true, execute: (_args, ctx) => { ctx.progress(1); return 'done' } })
  const url = await listen(t, app)
  const sid = await sessionOn(url)
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'steps', _meta: { progressToken: 1 } } }
  const conn = keptAlive(url, sid)
  t.teardown(conn.close)
  const first = await conn.post(call)
  const id = firstId(first.body)
  t.ok(store.replay(id), 'answered, and kept: the client may not have read it all yet')
  const second = await conn.post({ ...call, id: 2 })
  t.equal(store.replay(id), undefined, 'the next request on the connection says the client read it whole: gone')
  t.same(deleted, [id.slice(0, id.lastIndexOf(':'))])
  await conn.post({ jsonrpc: '2.0', id: 3, method: 'ping' })
  t.equal(store.replay(firstId(second.body)), undefined, 'any request on the connection says so, a ping too')
  t.equal(store.size, 0)
  // a connection that closes after the answer says nothing: the stream stays for Last-Event-ID
  const alone = await legacyPost(url, sid, '2025-11-25', { ...call, id: 4 })
  const kept = (await alone.rest())[0]!.id!
  await conn.post({ jsonrpc: '2.0', id: 5, method: 'ping' })
  t.ok(store.replay(kept), 'kept')
  t.equal(deleted.length, 2)
})

t.test('an event store failing to delete a read stream is logged; the request goes on', async (t) => {
  const log = captureLog({ level: 'error' })
  const store = new MemoryEventStore({ maxPerStream: 100, maxEvents: 1000, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  let calls = 0
  const events: EventStore = {
    append: (streamId, message) => store.append(streamId, message),
    replay: (id) => store.replay(id),
    delete: (): Promise<void> => {
      // the first failure is thrown at once, the second comes later
      if (++calls === 1) throw new Error('store down now')
      return Promise.reject(new Error('store down later'))
    }
  }
  const app = await build({ keepAlive: 0, events: { store: events } }, { logger: log.logger })
  app.registerTool({ name: 'steps', stream: true, execute: (_args, ctx) => { ctx.progress(1); return 'done' } })
  const url = await listen(t, app)
  const sid = await sessionOn(url)
  const conn = keptAlive(url, sid)
  t.teardown(conn.close)
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'steps', _meta: { progressToken: 1 } } }
  await conn.post(call)
  t.match((await conn.post({ ...call, id: 2 })).body, /"result"/)
  t.equal((await conn.post({ jsonrpc: '2.0', id: 3, method: 'ping' })).status, 200)
  await until(() => log.errors().length === 2, { what: 'both failed deletes to be logged' })
  t.same(log.errors().map((line) => [line.msg, (line.err as any).message]), [
    ['fastify-sake: the event store failed to delete a stream its client had read', 'store down now'],
    ['fastify-sake: the event store failed to delete a stream its client had read', 'store down later']
  ])
})

t.test('the stream quota: a streaming call holds a place from its start and is refused plainly past the bound; the place comes back when it ends', async (t) => {
  const app = await build({ keepAlive: 0, streams: { maxStreams: 10, maxPerCaller: 1 } })
  const gate = deferred()
  app.registerTool({ name: 'live', stream: true, execute: async (_args, ctx) => { ctx.progress(1); await gate.promise; return 'done' } })
  const url = await listen(t, app)
  const first = await streamPost(url, 'tools/call', { name: 'live', arguments: {}, _meta: { progressToken: 'p' } })
  t.equal(first.status, 200)
  t.match(await first.message(), { method: 'notifications/progress' })
  const second = await app.inject(modernRequest('tools/call', { name: 'live', arguments: {} }))
  t.equal(second.statusCode, 429, 'refused before it ran: a plain answer')
  t.equal(second.headers['retry-after'], '5')
  t.match(second.json().error, { code: -32600, data: { limit: 'streams', bound: 'caller', option: 'streams.maxPerCaller' } })
  gate.resolve()
  t.match(await first.message(), { result: { content: [{ type: 'text', text: 'done' }] } })
  const third = await app.inject(modernRequest('tools/call', { name: 'live', arguments: {} }))
  t.equal(third.statusCode, 200, 'the first ended: its place is free')
})

t.test('a 2025 call that may ask: its question is refused before any stream opens, by the question quota or the stream quota; the tool that lets it through is refused with it', async (t) => {
  const app = await build({ keepAlive: 0, streams: { maxStreams: 10, maxPerCaller: 2 }, questions: { maxQuestions: 10, maxPerCaller: 1 } })
  app.registerTool({
    name: 'ask',
    execute: async (_args, ctx) => (await ctx.elicit.form('who', 'Who?', { type: 'object', properties: { name: { type: 'string' } } })).action
  })
  app.registerTool({ name: 'quiet', execute: () => 'no question' })
  app.registerTool({ name: 'hold', execute: async (_args, ctx) => { ctx.progress(1); return await new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))) } })
  const url = await listen(t, app)
  const sid = await sessionOn(url, { capabilities: { elicitation: {} } })
  const asking = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {} } })
  t.teardown(() => asking.close())
  t.match(await asking.message(), { method: 'elicitation/create' }, 'the first question opened its stream')
  const refused = await (await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } })).json()
  t.match(refused.error, { code: -32600, data: { limit: 'questions', bound: 'caller' } }, 'one question waiting already: refused, as JSON')
  t.same((await (await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'quiet', arguments: {} } })).json()).result.content, [{ type: 'text', text: 'no question' }], 'a call that asks nothing holds no place')
  // the stream quota: once the question no longer waits (its client went away), a GET stream and
  // a streamed call hold the caller's two places: the next question is refused by that quota
  asking.close()
  const get = await open(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } })
  t.teardown(() => get.close())
  const holding = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'hold', arguments: {}, _meta: { progressToken: 'h' } } })
  t.teardown(() => holding.close())
  t.match(await holding.message(), { method: 'notifications/progress' })
  const byStreams = await until(async () => {
    const answer = await (await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'ask', arguments: {} } })).json()
    return answer.error?.data?.limit === 'streams' ? answer : undefined
  }, { what: 'the question waits no more (its stream closed); the next is refused by the stream quota' })
  t.match(byStreams.error, { code: -32600, data: { limit: 'streams', bound: 'caller', max: 2 } })
})

t.test("a task's progress for a tasks/result that holds no stream, at the caller's stream bound: dropped, and the result comes as JSON", async (t) => {
  const app = await build({ keepAlive: 0, streams: { maxStreams: 10, maxPerCaller: 1 } })
  const gate = deferred()
  let sent = 0
  app.registerTool({
    name: 'slow',
    task: 'optional',
    async execute (_args, ctx) {
      const ticking = setInterval(() => { ctx.progress(++sent) }, 10)
      await gate.promise
      clearInterval(ticking)
      return 'finished'
    }
  })
  const url = await listen(t, app)
  const sid = await sessionOn(url, { capabilities: { elicitation: {} } })
  const created = (await (await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {}, task: {}, _meta: { progressToken: 'p' } } })).json()).result.task
  // then the GET stream holds the caller's one place (the call that made the task gave its own back)
  const get = await open(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } })
  t.teardown(() => get.close())
  t.equal(get.status, 200)
  const result = legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId: created.taskId } })
  const before = sent
  await until(() => sent >= before + 5, { what: 'the task to report progress while tasks/result waits' })
  gate.resolve()
  const answer = await result
  t.match(answer.headers.get('content-type'), /^application\/json/, 'no stream opened for the progress')
  t.same((await answer.json()).result.content, [{ type: 'text', text: 'finished' }])
})
