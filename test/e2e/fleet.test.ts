// A fleet on one real redis-server (issue 16): two instances of the plugin on two ports, the
// official clients sent to either at random by a fetch that alternates between them, as a
// balancer without sticky routing would: sessions, questions, resumed streams, the bus, tasks,
// a Redis that dies and comes back, and prefixes that keep servers apart.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Type } from '../../lib/index.js'
import { build, listen, sleep, until } from '../helpers/app.js'
import { legacyClient, modernClient } from '../helpers/clients.js'
import { startRedis, type RunningRedis } from '../helpers/redis.js'
import { getStream, legacyPost, sessionOn, streamPost } from '../helpers/network.js'
import { captureLog } from '../helpers/logs.js'

const KEY = Buffer.alloc(32, 7).toString('base64')

/** Until every instance on the default prefix has its bus subscriber on the channel. */
async function subscribed (redis: RunningRedis, instances: number): Promise<void> {
  await until(() => redis.cli('PUBSUB', 'NUMSUB', 'sake:bus') === `sake:bus\n${instances}`, { what: `${instances} bus subscribers on sake:bus` })
}

const tools = [
  { name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }: { a: number, b: number }) => String(a + b) },
  {
    name: 'who',
    async execute (_args: unknown, ctx: any) {
      const answer = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String() }))
      return answer.action === 'accept' ? `hello ${String(answer.content.name)}` : answer.action
    }
  },
  {
    name: 'slow',
    async execute (_args: unknown, ctx: any) {
      ctx.progress(1, 2, 'half')
      ctx.closeStream(5) // the client must resume, wherever its GET lands
      await sleep(150) // the point: the result comes after the stream closed, while the client resumes
      return 'slow done'
    }
  },
  // the point of its sleep: a task still working when it is created, finished later
  { name: 'job', task: 'optional', execute: async () => { await sleep(100); return 'job done' } }
] as any

async function instance (
  t: Test, redis: RunningRedis | string, extra: Record<string, unknown> = {}, fastify: Record<string, unknown> = {}
): Promise<{ app: FastifyInstance, url: string }> {
  const url = typeof redis === 'string' ? redis : redis.url
  const app = await build({ keepAlive: 0, redis: url, requestState: { keys: [KEY] }, tools, ...extra }, fastify)
  return { app, url: await listen(t, app) }
}

/** A fetch that sends each request to the next of `urls` (same path and query), in turn. */
function alternating (urls: string[]): { fetch: typeof fetch, hits: string[] } {
  let next = 0
  const hits: string[] = []
  const f = async (_input: any, init?: any): Promise<Response> => {
    const target = urls[next++ % urls.length]!
    hits.push(target)
    return await fetch(target, init)
  }
  return { fetch: f as typeof fetch, hits }
}

t.test('a 2025 session is opened on one instance, used on the other, and ended there for both', async (t) => {
  const redis = await startRedis(t)
  const a = await instance(t, redis)
  const b = await instance(t, redis)
  const route = alternating([a.url, b.url])
  const { client, transport } = await legacyClient(t, new URL(a.url), { name: 'fleet', version: '1' }, {
    options: { capabilities: { elicitation: {} } },
    transport: { fetch: route.fetch, reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 50, reconnectionDelayGrowFactor: 1, maxRetries: 50 } },
    setup: (c) => c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } })),
    close: false
  })
  for (let i = 0; i < 4; i++) {
    const sum = await client.callTool({ name: 'add', arguments: { a: i, b: 1 } })
    t.same(sum.content, [{ type: 'text', text: String(i + 1) }])
  }
  t.ok(route.hits.includes(a.url) && route.hits.includes(b.url), 'both instances served the session')
  const greeted = await client.callTool({ name: 'who', arguments: {} })
  t.same(greeted.content, [{ type: 'text', text: 'hello Ada' }], 'asked on one instance, answered by a POST that may reach the other')
  const progress: number[] = []
  const slow = await client.callTool({ name: 'slow', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress), resetTimeoutOnProgress: true })
  t.same(slow.content, [{ type: 'text', text: 'slow done' }], 'the stream closed on one instance was resumed (Last-Event-ID) wherever the GET went')
  t.same(progress, [1])

  const sessionId = transport.sessionId!
  await transport.terminateSession()
  await client.close()
  for (const url of [a.url, b.url]) {
    const gone = await (await legacyPost(url, sessionId, '2025-11-25', { jsonrpc: '2.0', id: 9, method: 'tools/list' })).json()
    t.equal(gone.error.code, -32001, `deleted on one: not found on ${url === a.url ? 'A' : 'B'}`)
  }
})

t.test('a GET stream on one instance gets the session\'s notifications from the other; DELETE elsewhere ends it', async (t) => {
  const redis = await startRedis(t)
  const a = await instance(t, redis)
  const b = await instance(t, redis)
  const session = await sessionOn(a.url)
  const stream = await getStream(b.url, session)
  await stream.next() // the priming event
  await subscribed(redis, 2)
  await a.app.mcp.listChanged('tools')
  t.same(await stream.message(2000), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, 'published on A, written by B')
  const deleted = await fetch(a.url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } })
  t.equal(deleted.status, 204)
  t.same(await stream.rest(2000), [], 'B ended the session\'s GET stream')
})

t.test('2026-07-28: a question asked on A is answered on B; listChanged on A reaches a listen on B; a task made on A is read on B', async (t) => {
  const redis = await startRedis(t)
  const a = await instance(t, redis)
  const b = await instance(t, redis)
  const route = alternating([a.url, b.url])
  const { client } = await modernClient(t, new URL(a.url), { name: 'fleet', version: '1' }, {
    options: { capabilities: { elicitation: {} } },
    transport: { fetch: route.fetch },
    setup: (c) => c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }))
  })
  const greeted = await client.callTool({ name: 'who', arguments: {} })
  t.same(greeted.content, [{ type: 'text', text: 'hello Grace' }])

  const listen = await streamPost(b.url, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, {}, 'l')
  await listen.message()
  await subscribed(redis, 2)
  await a.app.mcp.listChanged('tools')
  t.match(await listen.message(2000), { method: 'notifications/tools/list_changed' })
  listen.close()

  const caps = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
  const created = (await (await streamPost(a.url, 'tools/call', { name: 'job', arguments: {}, _meta: caps })).json()).result
  t.equal(created.resultType, 'task')
  const task = await until(async () => {
    const got = (await (await streamPost(b.url, 'tasks/get', { taskId: created.taskId, _meta: caps }, { 'mcp-name': created.taskId })).json()).result
    return got.status === 'completed' ? got : undefined
  }, { what: 'the job to complete, read on B' })
  t.same(task.result.content, [{ type: 'text', text: 'job done' }], 'run on A, read on B')
})

t.test('Redis killed: a session request is a clear 503 within seconds, a stateless call still works, nothing crashes; persisted data survives the restart', async (t) => {
  const redis = await startRedis(t, { persist: true })
  // no copies of the session (redis.sessionCache): every request reads the store, as after a second without one
  const log = captureLog()
  const redisOptions = { url: redis.url, timeout: 500, sessionCache: 0 }
  const a = await instance(t, redis, { redis: redisOptions }, { logger: log.logger })
  const session = await sessionOn(a.url)
  t.same((await (await legacyPost(a.url, session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } })).json()).result.content, [{ type: 'text', text: '2' }])
  await redis.kill()
  const lost = /^fastify-sake: the Redis connection failed/
  await until(() => log.lines.some((line) => lost.test(line.msg ?? '')), { what: 'the instance to see Redis gone' })
  const started = Date.now()
  const down = await legacyPost(a.url, session, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } })
  const body = await down.json()
  t.ok(Date.now() - started < 3000, `answered in ${Date.now() - started} ms`)
  t.equal(down.status, 503)
  t.equal(body.error.code, -32603)
  t.match(body.error.message, /^Service Unavailable: the session store cannot be reached \(.+\); try again later$/)
  const fresh = await fetch(a.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) })
  t.equal(fresh.status, 503, 'no new session either')
  const stateless = await (await streamPost(a.url, 'tools/call', { name: 'add', arguments: { a: 2, b: 2 } })).json()
  t.same(stateless.result.content, [{ type: 'text', text: '4' }], 'a 2026-07-28 call needs no shared state')

  await redis.restart()
  const back = await until(async () => {
    const got = await (await legacyPost(a.url, session, '2025-11-25', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'add', arguments: { a: 3, b: 3 } } })).json()
    return got.result !== undefined ? got : undefined
  }, { what: 'the session to answer again once Redis is back', interval: 50 })
  t.same(back.result.content, [{ type: 'text', text: '6' }], 'the session, acknowledged before the crash, is still there (append-only file, fsync always)')
})

t.test('idle sessions expire in Redis; two servers with their own prefixes share one Redis and nothing else', async (t) => {
  const redis = await startRedis(t)
  const a = await instance(t, redis, { sessions: { idleTimeout: 200 } })
  const other = await instance(t, redis, { redis: { url: redis.url, prefix: 'billing:' } })
  const session = await sessionOn(a.url)
  const elsewhere = await (await legacyPost(other.url, session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' })).json()
  t.equal(elsewhere.error.code, -32001, 'another prefix: another server\'s sessions')
  t.match(redis.cli('KEYS', 'sake:session:*'), session, 'the default prefix')
  await sleep(300) // the point: idle past sessions.idleTimeout (200 ms)
  const expired = await (await legacyPost(a.url, session, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tools/list' })).json()
  t.equal(expired.error.code, -32001, 'idle past sessions.idleTimeout: gone')
})

t.test('@fastify/redis: the service\'s own client serves the stores; closing the app leaves it to its plugin; a URL connection closes with the app', async (t) => {
  const redis = await startRedis(t)
  const { default: fastifyRedis } = await import('@fastify/redis')
  const Fastify = (await import('fastify')).default
  const { sake } = await import('../../lib/index.js')
  const app = Fastify()
  await app.register(fastifyRedis, { url: redis.url })
  await app.register(sake, { name: 'shared', version: '1', redis: app.redis as any, tools })
  const url = await listen(t, app, { teardown: false })
  const session = await sessionOn(url)
  t.equal(redis.cli('EXISTS', `sake:session:${session}`), '1', 'the session is in the service\'s Redis')
  const clients = (): number => redis.cli('CLIENT', 'LIST').split('\n').filter((line) => line.includes('cmd=')).length
  // the heartbeat's thread connects on its own, a moment after the server started
  await until(() => clients() === 4, { what: "the service's client, the bus subscriber, the heartbeat's connection and redis-cli" })
  t.equal(clients(), 4, 'the service\'s client, the bus subscriber, the heartbeat\'s connection, and redis-cli')
  await app.close()
  await until(() => clients() === 1, { what: 'Redis to see the connections closed' })
  t.equal(clients(), 1, 'all closed: the subscriber by us, the client by @fastify/redis')

  const own = await instance(t, redis)
  await sessionOn(own.url)
  await own.app.close()
  await until(() => clients() === 1, { what: 'Redis to see the connections closed' })
  t.equal(clients(), 1, 'a connection made from a URL is closed with the app')
})

t.test('a task running on A, cancelled through B: A stops its handler', async (t) => {
  const redis = await startRedis(t)
  let stopped: unknown
  const hangs = { name: 'hangs', task: 'optional', execute: async (_args: unknown, ctx: any) => await new Promise((resolve) => ctx.signal.addEventListener('abort', () => { stopped = ctx.signal.reason; resolve('stopped') })) }
  const a = await instance(t, redis, { tools: [...tools, hangs] })
  const b = await instance(t, redis, { tools: [...tools, hangs] })
  const caps = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
  const created = (await (await streamPost(a.url, 'tools/call', { name: 'hangs', arguments: {}, _meta: caps })).json()).result
  await subscribed(redis, 2)
  const ack = (await (await streamPost(b.url, 'tasks/cancel', { taskId: created.taskId, _meta: caps }, { 'mcp-name': created.taskId })).json()).result
  t.equal(ack.resultType, 'complete')
  await until(() => stopped !== undefined, { what: 'A to stop the handler' })
  t.match(String(stopped), /cancelled by the client/, 'the bus told A, which aborted ctx.signal')
  const task = (await (await streamPost(a.url, 'tasks/get', { taskId: created.taskId, _meta: caps }, { 'mcp-name': created.taskId })).json()).result
  t.equal(task.status, 'cancelled', 'and it stays cancelled')
})

t.test('the cost of Redis on the hot path: none for a 2026-07-28 call; no round trip while the instance holds a copy of the session, one read (GETEX) a second after', async (t) => {
  const redis = await startRedis(t)
  // the heartbeat's thread beats once at the start, then once a minute: not within the requests
  const a = await instance(t, redis, { redis: { url: redis.url, heartbeat: 60_000, deadAfter: 120_000, sessionCache: 500 } })
  await until(() => redis.cli('ZCARD', 'sake:instances') === '1', { what: 'the first heartbeat' })
  const session = await sessionOn(a.url)
  const stats = (): Record<string, number> => Object.fromEntries(redis.cli('INFO', 'commandstats').split('\n')
    .map((line) => /^cmdstat_([a-z|]+):calls=(\d+)/.exec(line.trim())).filter((m) => m !== null).map((m) => [m[1], Number(m[2])]))
  const calls = async (first: number): Promise<Record<string, number>> => {
    const before = stats()
    for (let i = first; i < first + 10; i++) {
      const answer = await (await legacyPost(a.url, session, '2025-11-25', { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'add', arguments: { a: i, b: 1 } } })).json()
      t.same(answer.result.content, [{ type: 'text', text: String(i + 1) }])
    }
    const after = stats()
    return Object.fromEntries(Object.entries(after).map(([name, calls]) => [name, calls - (before[name] ?? 0)]).filter(([name, calls]) => calls !== 0 && name !== 'info'))
  }
  t.same(await calls(0), {}, 'ten requests right after the handshake, no command: the copy the handshake kept')
  // a 2026-07-28 call needs no shared state: the quotas (issue 40) are counters of this process or the stores', never a round trip
  const before = stats()
  for (let i = 0; i < 10; i++) t.same((await (await streamPost(a.url, 'tools/call', { name: 'add', arguments: { a: i, b: 2 } })).json()).result.content, [{ type: 'text', text: String(i + 2) }])
  const after = stats()
  t.same(Object.entries(after).filter(([name, n]) => name !== 'info' && n !== (before[name] ?? 0)), [], 'ten 2026-07-28 calls: no Redis command')
  await sleep(600) // the point: past redis.sessionCache (500 ms)
  t.same(await calls(10), { getex: 1 }, 'the copy too old: one read (which renews the expiry), then the copy again')
})

t.test('a session changed or ended on one instance: the other drops its copy at once (the bus), or within redis.sessionCache when the bus missed it', async (t) => {
  const redis = await startRedis(t)
  const a = await instance(t, redis, { redis: { url: redis.url, sessionCache: 60_000 } })
  const b = await instance(t, redis, { redis: { url: redis.url, sessionCache: 60_000 } })
  await subscribed(redis, 2)
  const session = await sessionOn(a.url)
  const call = async (url: string, id: number, method: string, params: Record<string, unknown>): Promise<any> =>
    await (await legacyPost(url, session, '2025-11-25', { jsonrpc: '2.0', id, method, params })).json()
  t.same((await call(b.url, 1, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } })).result.content, [{ type: 'text', text: '2' }], 'B read the session, and keeps a copy for a minute')
  t.same((await call(a.url, 2, 'logging/setLevel', { level: 'debug' })).result, {}, 'changed on A')
  await until(() => JSON.parse(redis.cli('GET', `sake:session:${session}`)).logLevel === 'debug', { what: 'the change in Redis' })
  // the change reaches B through the bus (its message travels beside our next request, hence until):
  // B reads the session again, within seconds where its copy had a minute left
  const reads = (): number => Number(/cmdstat_getex:calls=(\d+)/.exec(redis.cli('INFO', 'commandstats'))?.[1] ?? 0)
  const before = reads()
  let id = 10
  await until(async () => {
    t.ok((await call(b.url, id++, 'tools/call', { name: 'add', arguments: { a: 2, b: 2 } })).result)
    return reads() > before
  }, { what: 'B to read the session again after A changed it' })
  t.equal(reads() - before, 1, 'one read, then the new copy')

  const deleted = await fetch(a.url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } })
  t.equal(deleted.status, 204)
  const ended = await until(async () => {
    const answer = await call(b.url, id++, 'tools/list', {})
    return answer.error === undefined ? undefined : answer
  }, { what: 'B to answer not found after the DELETE on A' })
  t.equal(ended.error.code, -32001, 'ended on A: B answers not found within seconds, though its copy had a minute left')

  // a bus that missed the end: the copy serves until it is too old, then the store says it is gone
  const short = await instance(t, redis, { redis: { url: redis.url, sessionCache: 300 } })
  const other = await sessionOn(short.url)
  redis.cli('DEL', `sake:session:${other}`) // gone from the store, and no instance told
  const stale = await (await legacyPost(short.url, other, '2025-11-25', { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} })).json()
  t.ok(stale.result, 'within redis.sessionCache the copy still serves (the documented bound)')
  await sleep(350) // the point: past redis.sessionCache (300 ms)
  const gone = await (await legacyPost(short.url, other, '2025-11-25', { jsonrpc: '2.0', id: 6, method: 'tools/list', params: {} })).json()
  t.equal(gone.error.code, -32001, 'past it: not found')
})

t.test('on a fleet without requestState.keys, the warning is said at start: every instance seals with its own key', async (t) => {
  const redis = await startRedis(t)
  const log = captureLog()
  const app = await build({ redis: redis.url }, { logger: log.logger })
  t.teardown(() => app.close())
  await app.ready()
  t.match(log.lines.filter((line) => line.level === 40).map((line) => line.msg), [/requestState is sealed with a random key of this process/])
})
