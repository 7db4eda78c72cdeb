// The Outbox's stores on the wire: a bus and an event store passed in are used and never closed by us,
// and what happens when a store fails or lags (a resume against a slow store sends nothing twice);
// one POST's answer as an event stream (ResponseStream): once it has finished, a late
// ctx.closeStream (work a tool left running after its answer) writes nothing more.
import t, { type Test } from 'tap'
import { ResponseStream } from '../../../lib/http/streams/outbox.js'
import type { SseConnection } from '../../../lib/http/streams/sse.js'
import { MemoryBus, MemoryEventStore, type EventStore, type Session, type SessionStore } from '../../../lib/index.js'
import { MemorySessionStore } from '../../../lib/state/memory-session-store.js'
import { build, deferred, listen, sleep, until } from '../../helpers/app.js'
import { getStream, legacyPost, sessionOn } from '../../helpers/network.js'
import { captureLog, quiet } from '../../helpers/logs.js'

t.test('a bus and an event store passed in are used and never closed by us', async (t) => {
  const bus = new MemoryBus()
  let closedBus = false
  bus.close = () => { closedBus = true }
  const inner = new MemoryEventStore({ maxPerStream: 10, maxEvents: 10, idleTimeout: 60_000 })
  const appended: string[] = []
  const events: EventStore = {
    append: async (streamId, message) => { appended.push(message); return inner.append(streamId, message) },
    replay: async (id) => inner.replay(id)
  }
  const app = await build({ keepAlive: 0, bus, events: { store: events } })
  // a stream opens at the first thing a call sends: this one reports progress
  app.registerTool({ name: 'echo', stream: true, execute: (_args, ctx) => { ctx.progress(1); return 'echoed' } })
  const url = await listen(t, app)
  const plugin = bus.size
  t.equal(plugin, 3, 'the plugin listens on our bus: client responses, cancels and ended sessions from other instances')
  const sid = await sessionOn(url)
  const post = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: { progressToken: 1 } } })
  const streamed = await post.rest()
  t.equal(appended.length, 3, 'priming, progress and result went through the store (async)')
  t.equal(streamed[2].id, 'sid:2'.replace('sid', streamed[2].id!.split(':')[0]))
  const get = await getStream(url, sid)
  await get.next()
  t.equal(bus.size, plugin + 1, 'the GET stream subscribed to our bus')
  get.close()
  await until(() => bus.size === plugin, { what: 'the closed GET stream to unsubscribe' })
  await app.close()
  t.equal(bus.size, 0, 'every subscription ended with the server')
  t.equal(closedBus, false)
  inner.close()
})

t.test('a failing event store: events still go out, without ids, and the failure is logged', async (t) => {
  const log = captureLog()
  const events: EventStore = { append: () => { throw new Error('store down') }, replay: () => undefined }
  const app = await build({ keepAlive: 0, events: { store: events } }, { logger: log.logger })
  app.registerTool({ name: 'echo', stream: true, execute: (_args, ctx) => { ctx.progress(1); return 'echoed' } })
  const url = await listen(t, app)
  const sid = await sessionOn(url)
  const post = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: { progressToken: 1 } } })
  const streamed = await post.rest()
  t.same(streamed.map((e) => e.id), [undefined, undefined], 'no priming (nothing to resume from), progress and result without an id')
  t.equal(JSON.parse(streamed[1].data!).result.content[0].text, 'echoed')
  t.ok(log.errors().some((line) => line.msg === 'fastify-sake: the event store failed to append an SSE event'))
})

t.test('a session store failing while a resource update is delivered is logged, not thrown', async (t) => {
  const log = captureLog()
  const memory = new MemorySessionStore({ maxSessions: 10, idleTimeout: 60_000 })
  let fail = false
  const sessions: SessionStore = {
    get: async (id) => { if (fail) throw new Error('session store down'); return memory.get(id) },
    // a store of the host's own, with no create: set stores new sessions too
    set: (s: Session) => { if (memory.create(s) !== true) memory.set(s) },
    delete: (id) => memory.delete(id)
  }
  const app = await build({ keepAlive: 0, sessions: { store: sessions } }, { logger: log.logger })
  const url = await listen(t, app)
  const sid = await sessionOn(url)
  const get = await getStream(url, sid)
  await get.next()
  fail = true
  await app.mcp.resourceUpdated('test://x')
  const failed = (): boolean => log.errors().some((line) => line.msg === 'fastify-sake: the session store failed while delivering a resource update')
  await until(failed, { what: 'the session store failure to be logged' })
  t.ok(failed())
  fail = false
  get.close()
  memory.close()
})

t.test('resuming a running call against a slow store: replayed again until caught up, nothing twice', async (t) => {
  const inner = new MemoryEventStore({ maxPerStream: 100, maxEvents: 100, idleTimeout: 60_000 })
  t.teardown(() => inner.close())
  // appends land in the store at once; while `lag` is on, their acknowledgements wait in `acks`
  // until the test lets them go: a resume can see an event that the stream has not yet been told about
  // and, with `forget`, a store that loses the stream after the first replay of a resume
  let forget = false
  let replays = 0
  let lag = false
  const acks: Array<() => void> = []
  let held = deferred()
  const events: EventStore = {
    append: async (streamId, message) => {
      const id = inner.append(streamId, message)
      if (lag) {
        const ack = deferred()
        acks.push(ack.resolve)
        held.resolve()
        await ack.promise
      }
      return id
    },
    replay: (id) => (forget && replays++ > 0) ? undefined : inner.replay(id)
  }
  const app = await build({ keepAlive: 0, events: { store: events } })
  let gate = deferred()
  app.registerTool({
    name: 'poll',
    async execute (_args, ctx) {
      ctx.progress(1, 2)
      ctx.closeStream(5)
      await gate.promise
      ctx.progress(2, 2)
      return 'done'
    }
  })
  const url = await listen(t, app)
  const sid = await sessionOn(url)
  for (const lose of [false, true]) {
    forget = lose
    gate = deferred()
    held = deferred()
    const post = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'poll', _meta: { progressToken: 'p' } } })
    const before = await post.rest()
    t.same(before.map((e) => e.retry ?? (e.data === '' ? 'prime' : JSON.parse(e.data!).method)), ['prime', 'notifications/progress', 5])
    lag = true
    gate.resolve()
    await held.promise // progress 2 is in the store, not yet acknowledged
    replays = 0
    const resumed = await getStream(url, sid, before[1].id)
    // the resume has replayed progress 2 and taken the stream over: now the store acknowledges
    lag = false
    for (const ack of acks.splice(0)) ack()
    const after = await resumed.rest()
    t.same(after.map((e) => JSON.parse(e.data!).method ?? JSON.parse(e.data!).id), ['notifications/progress', 5], `progress 2 once, then the result (store forgets: ${lose})`)
  }
})

t.test('resuming, on an instance that does not run the call, a stream the store then forgets: followed, then ended', async (t) => {
  let replays = 0
  const events: EventStore = {
    append: () => 'unused:0',
    // the first replay finds the stream (no answer in it yet: its call runs elsewhere), the next one does not
    replay: (id) => replays++ === 0 ? { streamId: id.slice(0, id.lastIndexOf(':')), events: [] } : undefined
  }
  const app = await build({ keepAlive: 0, events: { store: events } })
  const url = await listen(t, app)
  const sid = await sessionOn(url)
  const started = Date.now()
  const resumed = await getStream(url, sid, `${sid}/elsewhere:1`)
  t.same(await resumed.rest(2000), [], 'nothing to send, and the stream ends once the store has nothing more')
  t.equal(replays, 2, 'read once more after a pause, not in a busy loop')
  t.ok(Date.now() - started >= 90, 'after the follow interval')
})

/** An event store slower than a tool: each append is acknowledged a turn of the event loop later. */
function slowStore (t: Test): EventStore {
  const inner = new MemoryEventStore({ maxPerStream: 10_000, maxEvents: 10_000, idleTimeout: 60_000 })
  t.teardown(() => inner.close())
  return {
    append: async (streamId, message) => await new Promise((resolve) => setImmediate(() => resolve(inner.append(streamId, message)))),
    replay: (id) => inner.replay(id)
  }
}

t.test('a store slower than the tool: past streams.maxBuffered waiting, notifications are dropped (logged once), never the answer; what goes out keeps its order', async (t) => {
  const log = captureLog({ level: 'warn' })
  const app = await build({ keepAlive: 0, events: { store: slowStore(t) }, streams: { maxBuffered: 4096 } }, { logger: log.logger })
  const drained = deferred()
  app.registerTool({
    name: 'burst',
    async execute (_args, ctx) {
      for (let i = 1; i <= 3000; i++) ctx.progress(i, 3001, 'x'.repeat(50))
      // once nothing waits for the store, the next notification goes out again, and says how many did not
      await drained.promise
      ctx.progress(3001, 3001)
      return 'done'
    }
  })
  const url = await listen(t, app)
  const sid = await sessionOn(url)
  const post = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'burst', _meta: { progressToken: 'b' } } })
  const warned = (): boolean => log.lines.some((line) => line.msg?.startsWith('fastify-sake: the event store is slower') === true)
  await until(warned, { what: 'the warning' })
  await sleep(100) // the 4 KiB waiting are appended, one a turn
  drained.resolve()
  const events = await post.rest(10_000)
  const messages = events.filter((event) => event.data !== undefined && event.data !== '').map((event) => ({ id: event.id!, message: JSON.parse(event.data!) }))
  const progress = messages.filter(({ message }) => message.method === 'notifications/progress').map(({ message }) => message.params.progress as number)
  t.same(messages.at(-1)!.message, { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'done' }] } }, 'the answer is never dropped')
  t.ok(progress.length > 10 && progress.length < 200, `${progress.length} of 3,001 notifications went out: what 4 KiB could hold while the store lagged`)
  t.equal(progress.at(-1), 3001, 'the one sent after the store caught up')
  t.ok(progress.every((n, i) => i === 0 || n > progress[i - 1]!), 'in the order sent')
  const seq = messages.map(({ id }) => Number(id.slice(id.lastIndexOf(':') + 1)))
  t.ok(seq.every((n, i) => i === 0 || n === seq[i - 1]! + 1), 'every one kept by the store, with consecutive ids')
  const lines = log.lines.filter((line) => line.msg?.includes('event store') === true)
  t.equal(lines.length, 2, 'one line when dropping starts, one when the store caught up')
  t.match(lines[0], { level: 40, maxBuffered: 4096, streamId: new RegExp(`^${sid}/`), msg: /: \d+ bytes wait to be appended, over streams\.maxBuffered \(4096\); its notifications are dropped until the store catches up \(responses are not\)$/ })
  t.ok((lines[0]!.waiting as number) > 4096)
  t.match(lines[1], { level: 40, dropped: 3000 - (progress.length - 1), msg: `fastify-sake: the event store caught up with this stream; ${3000 - (progress.length - 1)} notifications were dropped` })
})

t.test('a store slower than a tool that keeps sending, under the bound: everything goes out in order, however long the queue is kept busy', async (t) => {
  const app = await build({ keepAlive: 0, events: { store: slowStore(t) }, streams: { maxBuffered: 1024 * 1024 } })
  app.registerTool({
    name: 'steady',
    async execute (_args, ctx) {
      // two a turn, against one append a turn: the queue stays busy for 1,500 turns, and is taken from all along
      for (let i = 1; i <= 3000; i += 2) {
        ctx.progress(i)
        ctx.progress(i + 1)
        await new Promise((resolve) => setImmediate(resolve))
      }
      return 'done'
    }
  })
  const url = await listen(t, app)
  const sid = await sessionOn(url)
  const post = await legacyPost(url, sid, '2025-11-25', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'steady', _meta: { progressToken: 's' } } })
  const messages = (await post.rest(20_000)).filter((event) => event.data !== undefined && event.data !== '').map((event) => JSON.parse(event.data!))
  t.same(messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress), Array.from({ length: 3000 }, (_, i) => i + 1))
  t.same(messages.at(-1).result.content, [{ type: 'text', text: 'done' }])
})

/** A call's stream without a store, on a connection that notes what reached it. */
function responseStream (): { stream: ResponseStream, wrote: string[] } {
  const wrote: string[] = []
  const conn = {
    send: (message: string) => { wrote.push(message); return true },
    retry: (ms: number) => { wrote.push(`retry ${ms}`); return true },
    end: () => { wrote.push('end') },
    onClose: () => {}
  }
  const stream = new ResponseStream('', undefined, conn as unknown as SseConnection, quiet, Infinity, undefined)
  return { stream, wrote }
}

t.test('closeConnection: retry then end while the call runs; nothing once it has finished', async (t) => {
  const running = responseStream()
  running.stream.closeConnection(5)
  t.same(running.wrote, ['retry 5', 'end'], 'SEP-1699 polling: the client reconnects in 5 ms')

  const done = responseStream()
  let delivered: unknown
  done.stream.finish('answer', (conn) => { delivered = conn })
  t.ok(delivered !== undefined, 'the answer went out on the connection')
  done.stream.closeConnection(5)
  t.same(done.wrote, ['answer', 'end'], 'the late close wrote nothing')
})
