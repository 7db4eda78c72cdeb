// Every stream of one server, closed together (issue 29, item 3): with Redis, a 2025-11-25 call's
// resumable stream is handed over when the server closes (`retry:`, then its connection closes)
// while the call goes on; its answer lands in the shared store, and a GET with Last-Event-ID on
// another instance of the fleet reads it. Two apps on one real redis-server.
import t, { type Test } from 'tap'
import { MemoryEventStore, type EventStore } from '../../../lib/index.js'
import { build, deferred, listen, type Deferred } from '../../helpers/app.js'
import { getStream, legacyPost, sessionOn } from '../../helpers/network.js'
import { startRedis } from '../../helpers/redis.js'

t.test('closing with Redis: a running call\'s resumable stream is handed over, and resumed on another instance to its answer', async (t) => {
  const redis = await startRedis(t)
  const gate = deferred<void>()
  const running = deferred<void>()
  const instance = async (): Promise<{ app: Awaited<ReturnType<typeof build>>, url: string }> => {
    const app = await build({ keepAlive: 0, redis: redis.url, requestState: { keys: [Buffer.alloc(32, 3).toString('base64')] } }, { return503OnClosing: false })
    app.registerTool({
      name: 'steps',
      description: 'reports a step, waits, reports another, answers',
      args: {},
      execute: async (_args, ctx) => {
        ctx.progress(1, 2)
        running.resolve()
        await gate.promise
        ctx.progress(2, 2)
        return 'handed over'
      }
    })
    return { app, url: await listen(t, app, { teardown: false }) }
  }
  const a = await instance()
  const b = await instance()
  t.teardown(() => b.app.close())
  const session = await sessionOn(a.url)
  const stream = await legacyPost(a.url, session, '2025-11-25', { jsonrpc: '2.0', id: 'h', method: 'tools/call', params: { name: 'steps', arguments: {}, _meta: { progressToken: 'p' } } })
  await running.promise
  const seen = [await stream.next(), await stream.next()]
  t.equal(seen[0]!.data, '', 'the priming event')
  t.match(JSON.parse(seen[1]!.data!), { method: 'notifications/progress', params: { progress: 1 } })

  const closed = a.app.close()
  const rest = await stream.rest()
  t.same(rest.map((event) => event.retry), [1000], 'retry: 1000, then the connection closed, before the call answered')
  gate.resolve()
  await closed

  const resumed = await getStream(b.url, session, seen[1]!.id)
  const messages = (await resumed.rest(5000)).filter((event) => event.data !== undefined && event.data !== '').map((event) => JSON.parse(event.data!))
  t.match(messages, [
    { method: 'notifications/progress', params: { progress: 2 } },
    { id: 'h', result: { content: [{ type: 'text', text: 'handed over' }] } }
  ], 'the rest of the call, its answer last, from the other instance')
})

/** A store whose appends of a call's answer wait for `hold` (a promise), counted as written when they land. */
class SlowStore implements EventStore {
  readonly answers: string[] = []
  private readonly inner = new MemoryEventStore({ maxPerStream: 100, maxEvents: 1000, idleTimeout: 60_000 })
  constructor (private readonly hold: () => Promise<void>) {}
  async append (streamId: string, message: string): Promise<string> {
    if (message.includes('"result"')) {
      await this.hold()
      this.answers.push(message)
    }
    return this.inner.append(streamId, message)
  }

  replay (eventId: string): ReturnType<EventStore['replay']> {
    return this.inner.replay(eventId)
  }
}

/** A 2025-11-25 call whose stream the tool closes (SEP-1699), then answers once `gate` opens. */
async function closedCall (t: Test, store: SlowStore, closeTimeout: number): Promise<{ app: Awaited<ReturnType<typeof build>>, gate: Deferred<void> }> {
  const gate = deferred<void>()
  const app = await build({ closeTimeout, events: { store } }, { return503OnClosing: false })
  app.registerTool({
    name: 'later',
    args: {},
    execute: async (_args, ctx) => {
      ctx.progress(1, 2)
      ctx.closeStream(1000)
      await gate.promise
      return 'answered'
    }
  })
  const url = await listen(t, app, { teardown: false })
  const session = await sessionOn(url)
  const stream = await legacyPost(url, session, '2025-11-25', { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'later', arguments: {}, _meta: { progressToken: 'p' } } })
  t.same((await stream.rest()).map((event) => event.retry).filter((retry) => retry !== undefined), [1000], 'the tool closed its stream: retry, then the connection closed')
  return { app, gate }
}

t.test('closing: a call whose stream was closed writes its answer to the store before the stores close', async (t) => {
  let release!: () => void
  const writing = new Promise<void>((resolve) => { release = resolve })
  const store = new SlowStore(async () => await writing)
  const { app, gate } = await closedCall(t, store, 5000)
  const closed = app.close()
  gate.resolve()
  setTimeout(release, 150) // the answer's write lands 150 ms after the call returned
  const started = Date.now()
  await closed
  t.ok(Date.now() - started >= 100, `the close waited for the write (${Date.now() - started} ms)`)
  t.equal(store.answers.length, 1, 'the answer is in the store')
  t.match(store.answers[0], /"id":"c".*"answered"/)
})

t.test('closing: a store that never writes holds the close no longer than closeTimeout', async (t) => {
  const store = new SlowStore(async () => await new Promise(() => {}))
  const { app, gate } = await closedCall(t, store, 300)
  const closed = app.close()
  gate.resolve()
  const started = Date.now()
  await closed
  const took = Date.now() - started
  t.ok(took >= 250 && took < 3000, `the close waited closeTimeout for the write, then went on (${took} ms)`)
  t.equal(store.answers.length, 0)
})
