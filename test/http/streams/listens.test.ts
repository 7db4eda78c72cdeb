// 2026-07-28 streams over a real port: subscriptions/listen, disconnects, host headers, keep-alive.
import t from 'tap'
import { request } from 'node:http'
import { MemoryBus, MemoryTaskStore, Type } from '../../../lib/index.js'
import { captureLog } from '../../helpers/logs.js'
import { build, deferred, listen, until } from '../../helpers/app.js'
import { modernRequest } from '../../helpers/requests.js'
import { streamPost } from '../../helpers/network.js'

const SUB = 'io.modelcontextprotocol/subscriptionId'

t.test('subscriptions/listen: acknowledged first, then only what the filter opted into', async (t) => {
  const bus = new MemoryBus()
  const app = await build({ keepAlive: 0, bus })
  const url = await listen(t, app)
  const plugin = bus.size // the plugin's own listeners: 2025 answers, cancels and ended sessions from other instances
  const stream = await streamPost(url, 'subscriptions/listen', {
    notifications: { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['test://a', 'test://a'], somethingNew: true }
  }, {}, 'sub-1')
  t.equal(stream.status, 200)
  t.equal(stream.headers.get('content-type'), 'text/event-stream')
  t.same(await stream.message(), {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [SUB]: 'sub-1' }, notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] } }
  }, 'the honoured subset: false flags, duplicates and unknown types left out')
  t.equal(bus.size, plugin + 1, 'the listen stream\'s listener')
  await app.mcp.listChanged('prompts')
  await app.mcp.resourceUpdated('test://b')
  await app.mcp.resourceUpdated('test://a')
  await app.mcp.listChanged('tools')
  const first = await stream.next()
  t.equal(first!.id, undefined, 'no event ids in 2026-07-28')
  t.same(JSON.parse(first!.data!), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { _meta: { [SUB]: 'sub-1' }, uri: 'test://a' } })
  t.same(await stream.message(), { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'sub-1' } } })
  stream.close()
  await until(() => bus.size === plugin, { what: 'the closed stream to unsubscribe' })
  t.equal(bus.size, plugin, 'a closed stream unsubscribed from the bus (the plugin\'s own listeners stay)')
})

t.test('subscriptions/listen with taskIds: notifications/tasks for the caller\'s own tasks, with the extension only', async (t) => {
  const gate = deferred()
  const app = await build({
    keepAlive: 0,
    tools: [{
      name: 'job',
      task: 'optional',
      async execute (_args: unknown, ctx: any) {
        const go = await ctx.elicit.form('go', 'Go?', Type.Object({ ok: Type.Boolean() }))
        await gate.promise
        return `went: ${String(go.content.ok)}`
      }
    }] as any
  })
  const url = await listen(t, app)
  const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } }
  const created = await (await streamPost(url, 'tools/call', { name: 'job', arguments: {}, _meta: caps })).json()
  const taskId = created.result.taskId
  const stream = await streamPost(url, 'subscriptions/listen', { notifications: { taskIds: [taskId, 'not-a-task', taskId] }, _meta: caps }, {}, 'sub-t')
  t.same(await stream.message(), {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [SUB]: 'sub-t' }, notifications: { taskIds: [taskId] } }
  }, 'the ack names the tasks it agreed to: the caller\'s own, once')
  let update = await stream.message()
  while (update.params.status !== 'input_required') update = await stream.message()
  t.equal(update.method, 'notifications/tasks')
  t.equal(update.params.taskId, taskId)
  t.same(update.params.inputRequests.go.method, 'elicitation/create', 'a DetailedTask, as tasks/get would answer')
  t.same(update.params._meta, { [SUB]: 'sub-t' })
  await app.inject(modernRequest('tasks/update', { taskId, inputResponses: { go: { action: 'accept', content: { ok: true } } }, _meta: caps }, { 'mcp-name': taskId }))
  gate.resolve()
  update = await stream.message()
  while (update.params.status !== 'completed') update = await stream.message()
  t.same(update.params.result.content, [{ type: 'text', text: 'went: true' }])
  stream.close()

  const undeclared = await streamPost(url, 'subscriptions/listen', { notifications: { taskIds: [taskId] } })
  const refused = await undeclared.json()
  t.equal(undeclared.status, 400)
  t.equal(refused.error.code, -32021)
  t.same(refused.error.data.requiredCapabilities, { extensions: { 'io.modelcontextprotocol/tasks': {} } })
  const bad = await (await streamPost(url, 'subscriptions/listen', { notifications: { taskIds: 'all' }, _meta: caps })).json()
  t.equal(bad.error.code, -32602)
  t.match(bad.error.message, /notifications.taskIds must be an array of task ids/)
  const none = await streamPost(url, 'subscriptions/listen', { notifications: { taskIds: ['nope'] }, _meta: caps }, {}, 'sub-n')
  t.same((await none.message()).params.notifications, {}, 'no task of the caller\'s: none agreed to')
  none.close()
})

t.test('notifications/tasks: only the followed tasks, a version once, a vanished task skipped, a store failure logged', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const get = store.get.bind(store)
  let broken = false
  store.get = (taskId: string) => {
    if (broken) throw new Error('store down')
    return get(taskId)
  }
  const bus = new MemoryBus()
  const log = captureLog()
  const gates = [deferred(), deferred()]
  const app = await build({
    keepAlive: 0,
    bus,
    tasks: { store },
    tools: [{ name: 'wait', task: 'optional', args: { n: Type.Integer() }, execute: async ({ n }: { n: number }) => { await gates[n]!.promise; return `done ${n}` } }] as any
  }, { logger: log.logger })
  const url = await listen(t, app)
  const caps = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
  const followed = (await (await streamPost(url, 'tools/call', { name: 'wait', arguments: { n: 0 }, _meta: caps })).json()).result.taskId
  const other = (await (await streamPost(url, 'tools/call', { name: 'wait', arguments: { n: 1 }, _meta: caps })).json()).result.taskId
  const stream = await streamPost(url, 'subscriptions/listen', { notifications: { taskIds: [followed] }, _meta: caps }, {}, 's')
  await stream.message() // the ack
  t.equal((await stream.message()).params.status, 'working', 'the state when the listen opened')
  bus.publish({ type: 'taskStatus', taskId: followed }) // no change since: not sent again
  gates[1]!.resolve() // the other task completes: nothing for this listen
  await until(() => get(other)?.status === 'completed', { what: 'the other task to complete' })
  gates[0]!.resolve()
  const completed = await stream.message()
  t.equal(completed.params.taskId, followed, 'the next message is the followed task\'s change, nothing in between')
  t.equal(completed.params.status, 'completed')
  store.delete(followed)
  bus.publish({ type: 'taskStatus', taskId: followed }) // vanished: nothing to send
  broken = true
  bus.publish({ type: 'taskStatus', taskId: followed })
  await until(() => log.errors().length > 0, { what: 'the store failure to be logged' })
  broken = false
  t.match(log.errors(), [{ msg: 'fastify-sake: the task store failed while sending notifications/tasks', err: { message: 'store down' } }])
  await app.mcp.listChanged('tools') // not asked for: the stream stays quiet
  stream.close()
  t.same(await stream.rest(1000), [], 'nothing more was sent')
})

t.test('the server closing ends a listen with its complete response', async (t) => {
  const app = await build({ keepAlive: 0 })
  const url = await listen(t, app)
  const stream = await streamPost(url, 'subscriptions/listen', { notifications: { resourcesListChanged: true } }, {}, 42)
  await stream.message()
  await app.mcp.listChanged('resources')
  t.same(await stream.message(), { jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: { [SUB]: 42 } } })
  const closed = app.close()
  t.same(await stream.message(), { jsonrpc: '2.0', id: 42, result: { resultType: 'complete', _meta: { [SUB]: 42 } } })
  t.same(await stream.rest(), [], 'then the stream ends')
  await closed
})

t.test('a bad listen filter is -32602; an Accept without event streams is 406', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const cases: Array<[unknown, RegExp]> = [
    [undefined, /needs "notifications", an object/],
    [[], /needs "notifications", an object/],
    [{ toolsListChanged: 'yes' }, /notifications\.toolsListChanged must be a boolean, got "yes"/],
    [{ resourceSubscriptions: 'test://a' }, /resourceSubscriptions must be an array of resource URIs/],
    [{ resourceSubscriptions: [''] }, /resourceSubscriptions must be an array of resource URIs/]
  ]
  for (const [notifications, message] of cases) {
    const res = await app.inject(modernRequest('subscriptions/listen', notifications === undefined ? {} : { notifications }))
    const body = JSON.parse(res.body)
    t.equal(body.error.code, -32602)
    t.match(body.error.message, message)
  }
  for (const accept of ['application/json', 'text/event-stream;q=0, application/json', 'application/json, */*;q=0']) {
    const json = await app.inject(modernRequest('subscriptions/listen', { notifications: {} }, { accept }))
    t.equal(json.statusCode, 406, `Accept: ${accept}`)
    t.match(JSON.parse(json.body).error.message, /^Not Acceptable: this request answers with an event stream/)
  }
})

t.test('a client that disconnects mid-stream aborts ctx.signal, and nothing more is written', async (t) => {
  const app = await build({ keepAlive: 0 })
  let writes = 0
  const aborted = deferred()
  let after: boolean | undefined
  app.addHook('onRequest', async (_request, reply) => {
    const write = reply.raw.write.bind(reply.raw) as (...args: any[]) => boolean
    reply.raw.write = ((...args: any[]) => { writes++; return write(...args) }) as typeof reply.raw.write
  })
  app.registerTool({
    name: 'slow',
    async execute (_args, ctx) {
      ctx.progress(1, 2)
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
      aborted.resolve()
      const before = writes
      ctx.progress(2, 2)
      ctx.notify('error', 'late')
      after = writes === before
      return 'never seen'
    }
  })
  const url = await listen(t, app)
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: 1, 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/logLevel': 'debug' } } })
  await new Promise<void>((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'slow' } }, (res) => {
      res.once('data', (chunk: Buffer) => {
        t.match(chunk.toString(), /notifications\/progress/)
        req.destroy() // the socket goes away mid-stream
        resolve()
      })
    })
    req.on('error', reject)
    req.end(body)
  })
  await aborted.promise
  await until(() => after !== undefined, { what: 'the handler to write after the disconnect' })
  t.equal(after, true, 'progress and log calls after the disconnect wrote nothing')
})

t.test('headers set by host hooks survive onto SSE answers; keep-alive comments are written', async (t) => {
  // the keep-alive timers (every `keepAlive` ms, 10 here) are captured and fired by the test;
  // every other interval (Node's own) runs as usual
  const realSetInterval = globalThis.setInterval
  const keepAlives: Array<() => void> = []
  t.capture(globalThis, 'setInterval', ((fn: () => void, ms: number, ...args: unknown[]) => {
    if (ms !== 10) return Reflect.apply(realSetInterval, globalThis, [fn, ms, ...args])
    keepAlives.push(fn)
    return realSetInterval(() => {}, 60_000).unref()
  }) as typeof setInterval)
  const app = await build({ keepAlive: 10 })
  let later: { progress: (n: number) => void, notify: (level: 'error', data: unknown) => void, closeStream: () => void } | undefined
  const working = deferred()
  app.addHook('onRequest', async (_request, reply) => { reply.header('access-control-allow-origin', 'https://app.example') })
  app.registerTool({
    name: 'wait',
    stream: true,
    async execute (_args, ctx) {
      ctx.closeStream(1) // not resumable in 2026-07-28: does nothing
      await working.promise
      later = ctx
      return 'ok'
    }
  })
  const url = await listen(t, app)
  const stream = await streamPost(url, 'tools/call', { name: 'wait', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'error' } })
  t.equal(stream.headers.get('access-control-allow-origin'), 'https://app.example')
  t.equal(stream.headers.get('x-accel-buffering'), 'no')
  t.equal(stream.headers.get('cache-control'), 'no-cache')
  // while the tool works, its stream's timer fires twice
  keepAlives[0]()
  keepAlives[0]()
  working.resolve()
  const events = await stream.rest()
  t.ok(events.filter((e) => e.comment === 'keep-alive').length >= 2, 'keep-alive comments while the tool works')
  t.equal(JSON.parse(events.at(-1)!.data!).result.content[0].text, 'ok')
  t.equal(events.filter((e) => e.retry !== undefined).length, 0, 'no retry: closeStream did nothing')
  later!.progress(5)
  later!.notify('error', 'too late')
  later!.closeStream()
  const listenStream = await streamPost(url, 'subscriptions/listen', { notifications: { toolsListChanged: true } })
  t.equal(listenStream.headers.get('access-control-allow-origin'), 'https://app.example', 'listen streams too')
  await listenStream.message()
  keepAlives[1]()
  t.equal((await listenStream.next())!.comment, 'keep-alive')
  listenStream.close()
})

t.test('app.mcp.listChanged and resourceUpdated check their argument', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  await t.rejects(app.mcp.listChanged('widgets' as any), { name: 'TypeError', message: /takes 'tools', 'resources' or 'prompts', got "widgets"/ })
  await t.rejects(app.mcp.resourceUpdated(''), { name: 'TypeError', message: /the resource's URI, a non-empty string, got ""/ })
})

t.test('a stream that cannot open (a host hook set a header Node refuses) gives its place back, and the client is not left waiting', async (t) => {
  const app = await build({ keepAlive: 0, streams: { maxStreams: 10, maxPerCaller: 1 } })
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers['x-break'] !== undefined) reply.header('x-broken', 'a\nb')
  })
  const url = await listen(t, app)
  for (let i = 0; i < 2; i++) {
    const failed = await streamPost(url, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, { 'x-break': '1' }).then(() => 'answered', (err: Error) => err.message)
    t.not(failed, 'answered', `attempt ${i + 1}: the connection is closed, not left open`)
  }
  const ok = await streamPost(url, 'subscriptions/listen', { notifications: { toolsListChanged: true } })
  t.teardown(() => ok.close())
  t.equal(ok.status, 200, 'the caller still has its one place: the failed ones gave theirs back')
})

t.test('listens count against the caller\'s stream quota: one past the bound is 429, and a closed one gives its place back', async (t) => {
  const app = await build({ keepAlive: 0, streams: { maxStreams: 10, maxPerCaller: 1 } })
  const url = await listen(t, app)
  const first = await streamPost(url, 'subscriptions/listen', { notifications: { toolsListChanged: true } })
  t.equal(first.status, 200)
  const second = await app.inject(modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }))
  t.equal(second.statusCode, 429)
  t.match(second.json().error, { code: -32600, data: { limit: 'streams', bound: 'caller', max: 1 } })
  first.close()
  await until(async () => {
    const again = await streamPost(url, 'subscriptions/listen', { notifications: { toolsListChanged: true } })
    again.close()
    return again.status === 200 || undefined
  }, { what: 'the closed listen to give its place back' })
})
