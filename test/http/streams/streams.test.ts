// Every stream of one server, closed together (issue 29, item 3): with Redis, a 2025-11-25 call's
// resumable stream is handed over when the server closes (`retry:`, then its connection closes)
// while the call goes on; its answer lands in the shared store, and a GET with Last-Event-ID on
// another instance of the fleet reads it. Two apps on one real redis-server.
import t from 'tap'
import { build, deferred, listen } from '../../helpers/app.js'
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
