// A fleet that survives, tried through the shipped gateway (issue 29's acceptance): Debian's
// haproxy running gateway/haproxy.cfg in front of two example servers (REDIS_URL, one
// MCP_STATE_KEY) on one real redis-server, every one a child process, every request through
// HAProxy. The gateway's X-Served-By says which instance answered.
//
// - An instance killed with SIGKILL while it runs a streamed 2025-11-25 call, two tasks and a
//   question: the client resumes its stream through HAProxy (GET + Last-Event-ID), which sends it
//   to the survivor, and gets the call's -32603 response within 20 s; both tasks are `failed`
//   within 30 s, polled through HAProxy; the answer to the question is refused (410).
// - Redis restarted (kill -9, then SIGTERM) on its append-only file under a steady load of both
//   eras: failures only during the outage, each one clean; the load recovers without restarting an
//   instance; every session whose initialize was answered works after.
import t, { type Test } from 'tap'
import { startExample, type Running } from '../helpers/clients.js'
import { startHaproxy } from '../helpers/gateways.js'
import { sessionCall, startLoad, tally, type Outcome } from '../helpers/load.js'
import { getStream, legacyPost, responseOn, sessionOn, streamPost, type OpenStream } from '../helpers/network.js'
import { startRedis } from '../helpers/redis.js'
import { sleep, until } from '../helpers/until.js'

const V = '2025-11-25'
const TASKS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
const STOPPED = { code: -32603, message: 'Internal error: the instance running the call stopped' }

async function fleet (t: Test, persist: boolean): Promise<{ a: Running, b: Running, gateway: string, redis: Awaited<ReturnType<typeof startRedis>> }> {
  const redis = await startRedis(t, { persist })
  // the load's fresh sessions stand for many clients, all from this process's address
  const env = { REDIS_URL: redis.url, MCP_STATE_KEY: Buffer.alloc(32, 30).toString('base64'), SESSIONS_PER_CALLER: '10000' }
  const [a, b] = await Promise.all([startExample(env), startExample(env)])
  // teardowns run last-in first-out: haproxy, then the instances, then redis
  t.teardown(async () => { await Promise.all([a.stop(), b.stop()]) })
  const haproxy = await startHaproxy(t, { a: a.url.host, b: b.url.host })
  return { a, b, gateway: haproxy.url, redis }
}

t.test('kill -9 of the instance running a streamed call, two tasks and a question, all through HAProxy: the survivor ends them, and the client learns it through HAProxy', async (t) => {
  const { a, b, gateway } = await fleet(t, false)
  const instance = (headers: Headers): Running => {
    const served = headers.get('x-served-by')
    if (served === a.url.host) return a
    if (served === b.url.host) return b
    throw new Error(`X-Served-By ${String(served)} is neither instance`)
  }

  const session = await sessionOn(gateway, { capabilities: { elicitation: {} } })
  const streamed = await legacyPost(gateway, session, V, { jsonrpc: '2.0', id: 'long-call', method: 'tools/call', params: { name: 'count', arguments: { to: 100, delayMs: 200 }, _meta: { progressToken: 'p' } } })
  t.equal(streamed.headers.get('content-type'), 'text/event-stream')
  const victim = instance(streamed.headers)
  const survivor = victim === a ? b : a
  let lastId: string | undefined
  for (;;) {
    const event = await streamed.next(5000)
    lastId = event?.id ?? lastId
    if (event?.data?.includes('notifications/progress') === true) break
  }
  t.ok(lastId, 'the stream carries event ids')

  /**
   * `send` through HAProxy until the victim serves it (round-robin: the second try at most);
   * what landed on the survivor is undone with `undo`, straight on the survivor (through HAProxy
   * the undo would take the victim's turn, and the next try would land on the survivor again).
   */
  const onVictim = async <T extends { headers: Headers }>(what: string, send: () => Promise<T>, undo: (sent: T) => Promise<void>): Promise<T> => {
    for (let i = 0; i < 4; i++) {
      const sent = await send()
      if (instance(sent.headers) === victim) return sent
      await undo(sent)
    }
    throw new Error(`${what} never reached the instance running the streamed call`)
  }
  const modern = async (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}, url = gateway): Promise<OpenStream> =>
    await streamPost(url, method, { ...params, _meta: TASKS }, headers)
  const legacy = async (id: number | string, method: string, params: Record<string, unknown>, url = gateway): Promise<OpenStream> =>
    await legacyPost(url, session, V, { jsonrpc: '2.0', id, method, params })
  const direct = survivor.url.href

  let modernTask: any
  await onVictim('the 2026-07-28 task', async () => {
    const created = await modern('tools/call', { name: 'count', arguments: { to: 100, delayMs: 1000 } })
    modernTask = (await created.json()).result
    return created
  }, async () => { await (await modern('tasks/cancel', { taskId: modernTask.taskId }, { 'mcp-name': modernTask.taskId }, direct)).json() })
  t.equal(modernTask.status, 'working')

  let legacyTask: any
  await onVictim('the 2025 task', async () => {
    const created = await legacy(2, 'tools/call', { name: 'count', arguments: { to: 100, delayMs: 1000 }, task: {} })
    legacyTask = (await created.json()).result.task
    return created
  }, async () => { await (await legacy(3, 'tasks/cancel', { taskId: legacyTask.taskId }, direct)).json() })
  t.equal(legacyTask.status, 'working')

  // greet asks who to greet, on the call's stream
  let question: any
  await onVictim('the question', async () => {
    const asking = await legacy(4, 'tools/call', { name: 'greet', arguments: {} })
    question = await asking.message(5000)
    return asking
  }, async (asking) => {
    await (await legacyPost(direct, session, V, { jsonrpc: '2.0', id: question.id, result: { action: 'decline' } })).rest()
    await asking.rest(5000)
  })
  t.equal(question.method, 'elicitation/create')

  victim.child.kill('SIGKILL')
  const killed = Date.now()
  streamed.close()

  // the client resumes through HAProxy, which finds the victim's port closed and sends it to the survivor
  const resumed = await getStream(gateway, session, lastId)
  t.equal(resumed.status, 200)
  t.equal(instance(resumed.headers), survivor, 'HAProxy sent the GET to the survivor')
  const answer = await responseOn(resumed, 20_000)
  const streamEnded = Date.now() - killed
  t.ok(streamEnded < 20_000, `the stream resumed through HAProxy ended with the call's response within 20 s (${streamEnded} ms after the kill)`)
  t.same(answer, { jsonrpc: '2.0', id: 'long-call', error: STOPPED })
  t.equal(await resumed.next(1000), undefined, 'and the stream ended')

  const answered = await legacyPost(gateway, session, V, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } })
  t.equal(answered.status, 410, 'the answer to the dead instance\'s question is refused')
  t.match((await answered.json()).error, { code: -32600, message: /^Gone: the server instance that asked/ })

  // polled through HAProxy, as a client would
  const failed = await until(async () => {
    const modernNow = (await (await modern('tasks/get', { taskId: modernTask.taskId }, { 'mcp-name': modernTask.taskId })).json()).result
    const legacyNow = (await (await legacy(9, 'tasks/get', { taskId: legacyTask.taskId })).json()).result
    return modernNow.status === 'failed' && legacyNow.status === 'failed' ? { modern: modernNow, legacy: legacyNow } : undefined
  }, { what: 'both tasks of the dead instance to fail', timeout: 30_000, interval: 250 })
  const tasksEnded = Date.now() - killed
  t.ok(tasksEnded < 30_000, `the 2026-07-28 and the 2025 task, polled through HAProxy, failed within 30 s (${tasksEnded} ms after the kill)`)
  t.equal(failed.modern.statusMessage, 'the instance running the call stopped')
  t.equal(failed.legacy.statusMessage, 'the instance running the call stopped')

  // the survivor goes on serving the session, and was not taken for dead
  const after = await legacy(10, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } })
  t.equal(instance(after.headers), survivor)
  t.same((await after.json()).result.structuredContent, { sum: 5 })
  t.equal(survivor.child.exitCode, null, 'the survivor still runs')
})

/** What happened around one Redis outage: when it went down and came back (Date.now()). */
interface Outage { how: string, down: number, up: number }

/** Ms after Redis is back in which a request may still fail: ioredis's reconnection backoff (50 ms more per try, so about 400 ms after a 1.5 s outage) with room to spare. */
const GRACE = 2000

t.test('Redis restarted on its append-only file (kill -9, then SIGTERM) under a mixed load of both eras through HAProxy: failures only during the outage and clean, recovery without restarting an instance, no acknowledged session lost', async (t) => {
  const { a, b, gateway, redis } = await fleet(t, true)
  // an acknowledged session must be on disk before the client has its id: fsync before every reply
  t.equal(redis.cli('CONFIG', 'GET', 'appendfsync'), 'appendfsync\nalways')
  const pids = [a.child.pid, b.child.pid]

  const load = await startLoad(gateway, { sessions: 3, stateless: 2, initializing: 1, timeout: 5000 })
  // first of the teardowns (last in, first out): a test that failed midway leaves no loop running
  t.teardown(load.stop)
  await sleep(1500) // the point: a stretch of steady load before the first outage
  const outages: Outage[] = []
  for (const how of ['kill -9', 'SIGTERM'] as const) {
    const down = Date.now()
    await (how === 'kill -9' ? redis.kill() : redis.terminate())
    // away long enough for every loop to meet it, well short of the heartbeat's deadAfter (8 s)
    await sleep(1500)
    await redis.restart()
    const up = Date.now()
    outages.push({ how, down, up })
    // steady again: a session call answered that was sent once the grace had passed
    await until(() => load.outcomes.some((o) => o.kind === 'session call' && o.ok && o.sent > up + GRACE), { what: `session calls answered again after the ${how} restart`, timeout: 10_000 })
  }
  await load.stop()

  const failures = load.outcomes.filter((o) => !o.ok)
  const during = (o: Outcome, outage: Outage): boolean => o.done >= outage.down && o.sent <= outage.up + GRACE
  for (const outage of outages) {
    const seen = failures.filter((o) => during(o, outage))
    const before = load.acknowledged.filter((s) => s.at < outage.down).map((s) => outage.down - s.at)
    t.ok(seen.length > 0, `${outage.how}: Redis away ${outage.up - outage.down} ms; ${seen.length} failed requests, the last answered ${Math.max(...seen.map((o) => o.done)) - outage.up} ms after Redis was back; the last session acknowledged ${Math.min(...before)} ms before the outage`)
  }
  const counts = tally(load.outcomes)
  t.comment(`requests: ${JSON.stringify(counts)}`)
  t.same(failures.filter((o) => !outages.some((outage) => during(o, outage))), [], 'no request failed outside the outages')
  t.same(failures.filter((o) => !o.clean), [], 'every failure clean: an error status with a JSON-RPC error, never a hang or a broken answer')
  t.same([...new Set(failures.map((o) => o.failure?.replace(/\(.*\)/, '(…)')))], ['503 {"code":-32603,"message":"Service Unavailable: the session store cannot be reached (…); try again later"}'], 'each one the store\'s 503')
  t.equal(counts['stateless call'].failed, 0, 'the 2026-07-28 calls need no shared state: none failed')
  t.ok(counts['session call'].ok > 0 && counts.initialize.ok > 0 && counts['stateless call'].ok > 0, 'every kind of request was answered')
  const last = outages.at(-1)!
  t.ok(load.outcomes.filter((o) => o.sent > last.up + GRACE).every((o) => o.ok), 'after the last restart, every request answered')

  t.same([a.child.pid, b.child.pid], pids, 'the same two instances')
  t.same([a.child.exitCode, b.child.exitCode], [null, null], 'both still running: nobody restarted them')

  // every session the clients were told about, the last ones before each outage included
  const lost: string[] = []
  for (let i = 0; i < load.acknowledged.length; i += 10) {
    await Promise.all(load.acknowledged.slice(i, i + 10).map(async ({ id }, j) => {
      const answer = await sessionCall(gateway, id, i + j, 5000)
      if (answer.status !== 200 || answer.message?.result?.structuredContent?.sum !== i + j + 1) lost.push(`${id}: ${answer.status} ${JSON.stringify(answer.message)}`)
    }))
  }
  t.same(lost, [], `all ${load.acknowledged.length} acknowledged sessions answer after both restarts`)
})
