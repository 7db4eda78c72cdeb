// Instance liveness on a real redis-server (issue 29): heartbeats from a worker thread, so that a
// busy instance still beats; a dead instance taken over once, with what it owned; a closed one at
// once. Each instance here is a RedisLiveness of its own, as each process of a fleet has one.
import t, { type Test } from 'tap'
import { connect, type RedisConnection } from '../../../lib/state/redis/connection.js'
import { RedisLiveness, workerConnection } from '../../../lib/state/redis/liveness.js'
import type { Owned } from '../../../lib/state/liveness.js'
import { startRedis, type RunningRedis } from '../../helpers/redis.js'
import { sleep, until } from '../../helpers/until.js'

const log: any = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {}, child: () => log }
const SETTINGS = { interval: 100, deadAfter: 400 }

async function member (t: Test, redis: RunningRedis, instance: string): Promise<{ liveness: RedisLiveness, conn: RedisConnection }> {
  const conn = await connect({ url: redis.url, prefix: 'f:', timeout: 1000 }, log)
  const liveness = new RedisLiveness(conn, instance, SETTINGS, workerConnection(redis.url, conn.client))
  t.teardown(async () => {
    await liveness.close()
    await conn.close()
  })
  return { liveness, conn }
}

const beating = (redis: RunningRedis, instance: string): boolean => redis.cli('ZSCORE', 'f:instances', instance) !== ''

t.test('a live instance beats and is never taken over, even while its event loop is busy', async (t) => {
  const redis = await startRedis(t)
  const a = await member(t, redis, 'a')
  const b = await member(t, redis, 'b')
  await until(() => beating(redis, 'a') && beating(redis, 'b'), { what: 'both heartbeats' })
  await a.liveness.own({ kind: 'task', taskId: 't1' })
  // the event loop held for three times deadAfter, as a long synchronous tool would: the worker beats on
  const end = Date.now() + 3 * SETTINGS.deadAfter
  while (Date.now() < end) { /* busy */ }
  t.same(await b.liveness.takeOver(), [], 'nobody is dead')
  t.equal(redis.cli('SMEMBERS', 'f:owns:a'), '["task","t1"]', 'what a owns is still its own')
})

t.test('an instance that stops beating is taken over once, with what it owned; released things are not in it', async (t) => {
  const redis = await startRedis(t)
  const a = await member(t, redis, 'a')
  const b = await member(t, redis, 'b')
  const c = await member(t, redis, 'c')
  await until(() => beating(redis, 'a'), { what: "a's heartbeat" })
  const owned: Owned[] = [{ kind: 'task', taskId: 't1' }, { kind: 'stream', streamId: 's/x0', requestId: 7 }, { kind: 'stream', streamId: 's/x1', requestId: 'r"1' }, { kind: 'task', taskId: 'done' }]
  for (const item of owned) await a.liveness.own(item)
  await a.liveness.release({ kind: 'task', taskId: 'done' })
  // a dies without a word: its heartbeat thread stops, as a SIGKILL would stop it
  await (a.liveness as any).heartbeat.terminate()
  const started = Date.now()
  let taken: Awaited<ReturnType<RedisLiveness['takeOver']>> = []
  await until(async () => {
    // two survivors ask at once: one gets a, the other nothing
    const [fromB, fromC] = await Promise.all([b.liveness.takeOver(), c.liveness.takeOver()])
    taken = [...fromB, ...fromC]
    return taken.length > 0
  }, { what: 'a taken over', timeout: 5000, interval: 50 })
  t.ok(Date.now() - started >= SETTINGS.deadAfter - 2 * SETTINGS.interval, 'not before deadAfter')
  t.equal(taken.length, 1, 'one survivor took a over')
  t.equal(taken[0]!.instance, 'a')
  t.same(new Set(taken[0]!.owned.map((item) => JSON.stringify(item))), new Set(owned.slice(0, 3).map((item) => JSON.stringify(item))))
  t.same(await b.liveness.takeOver(), [], 'and only once')
  t.equal(await b.liveness.alive('a'), false, 'a taken-over instance is dead for good (its tombstone)')
  t.equal(await b.liveness.alive('c'), true)
  t.equal(await b.liveness.alive('never-seen'), true, 'an instance the store does not know is not taken for dead')
  t.equal(await b.liveness.alive('b'), true, 'itself, without asking Redis')
  t.ok(beating(redis, 'b') && beating(redis, 'c'), 'the survivors beat on')
  t.equal(redis.cli('ZRANGE', 'f:claiming', '0', '-1'), 'a', 'a claim until the survivor says it is done')
  await b.liveness.takenOver('a')
  t.equal(redis.cli('EXISTS', 'f:owns:a'), '0', 'then what a owned is forgotten')
  t.equal(redis.cli('EXISTS', 'f:claiming'), '0', 'and its claim')
})

t.test('a survivor that stops midway: after deadAfter another takes the instance over again, with what was not ended yet', async (t) => {
  const redis = await startRedis(t)
  const a = await member(t, redis, 'a')
  const b = await member(t, redis, 'b')
  const c = await member(t, redis, 'c')
  await until(() => beating(redis, 'a'), { what: "a's heartbeat" })
  await a.liveness.own({ kind: 'task', taskId: 't1' })
  await a.liveness.own({ kind: 'task', taskId: 't2' })
  await a.liveness.close()
  const first = await until(async () => (await b.liveness.takeOver())[0], { what: 'a taken over', interval: 50 })
  t.equal(first.instance, 'a')
  t.equal(first.owned.length, 2)
  // b ends t1 and stops before t2 (a crash): it never says the takeover is done
  await b.liveness.release({ kind: 'task', taskId: 't1' }, 'a')
  t.same(await c.liveness.takeOver(), [], 'a fresh claim is left to its survivor')
  const again = await until(async () => (await c.liveness.takeOver())[0], { what: 'the claim handed out again', timeout: 5 * SETTINGS.deadAfter, interval: 50 })
  t.same(again, { instance: 'a', owned: [{ kind: 'task', taskId: 't2' }] }, 'what b had not ended')
  await c.liveness.takenOver('a')
  await sleep(SETTINGS.deadAfter + SETTINGS.interval) // the point: past the claim's deadline, nobody gets it
  t.same(await c.liveness.takeOver(), [], 'done: nobody gets it again')
})

t.test('a closed instance has left: taken over at once, without waiting for deadAfter', async (t) => {
  const redis = await startRedis(t)
  const a = await member(t, redis, 'a')
  const b = await member(t, redis, 'b')
  await until(() => beating(redis, 'a'), { what: "a's heartbeat" })
  await a.liveness.own({ kind: 'task', taskId: 'left behind' })
  await a.liveness.close()
  t.equal(redis.cli('ZSCORE', 'f:instances', 'a'), '0')
  t.same(await b.liveness.takeOver(), [{ instance: 'a', owned: [{ kind: 'task', taskId: 'left behind' }] }])
  await sleep(3 * SETTINGS.interval) // the point: three beats' time, and none came
  t.notOk(beating(redis, 'a'), 'no heartbeat after close')
})

t.test('an ioredis client of the user, with a keyPrefix: the worker connects with its options, and every key is prefixed', async (t) => {
  const redis = await startRedis(t)
  const { Redis } = await import('ioredis')
  const port = Number(new URL(redis.url).port)
  const member = async (instance: string): Promise<RedisLiveness> => {
    const client = new Redis({ host: '127.0.0.1', port, keyPrefix: 'kp:', retryStrategy: () => 100 })
    const conn = await connect({ client: client as any, prefix: 'f:', timeout: 1000 }, log)
    const connection = workerConnection(undefined, conn.client)
    t.equal(connection.url, undefined)
    t.equal(connection.options!.port, port)
    t.equal(connection.options!.retryStrategy, undefined, 'a function cannot cross to the thread')
    const liveness = new RedisLiveness(conn, instance, SETTINGS, connection)
    t.teardown(async () => {
      await liveness.close()
      client.disconnect()
    })
    return liveness
  }
  const u = await member('u')
  const v = await member('v')
  await until(() => redis.cli('ZSCORE', 'kp:f:instances', 'u') !== '', { what: 'the heartbeat over the options, under the keyPrefix' })
  await u.own({ kind: 'task', taskId: 'prefixed' })
  t.equal(redis.cli('SMEMBERS', 'kp:f:owns:u'), '["task","prefixed"]')
  await u.close()
  t.same(await v.takeOver(), [{ instance: 'u', owned: [{ kind: 'task', taskId: 'prefixed' }] }])
  t.equal(redis.cli('EXISTS', 'kp:f:dead:u'), '1', 'the tombstone under the keyPrefix too')
  t.equal(await v.alive('u'), false)
})

t.test('alive: false once an instance is past its deadline, before anyone took it over; true while Redis is away', async (t) => {
  const redis = await startRedis(t)
  const a = await member(t, redis, 'a')
  const b = await member(t, redis, 'b')
  await until(() => beating(redis, 'a'), { what: "a's heartbeat" })
  t.equal(await b.liveness.alive('a'), true)
  await (a.liveness as any).heartbeat.terminate()
  await until(async () => !(await b.liveness.alive('a')), { what: 'a past its deadline', timeout: 3000, interval: 50 })
  t.equal(redis.cli('ZSCORE', 'f:instances', 'a') !== '', true, 'not taken over yet')
  await redis.kill()
  t.equal(await b.liveness.alive('a'), true, 'Redis away: nobody is taken for dead on a guess')
})

t.test('a client that shows no options: the worker gets none, and connects with ioredis\'s defaults', async (t) => {
  const connection = workerConnection(undefined, {} as any)
  t.same(connection.options, {})
  t.match(connection.ioredis, /ioredis/)
})

t.test('Redis back after an outage longer than deadAfter: every score is stale, yet no live instance is taken over; a dead one still is', async (t) => {
  const redis = await startRedis(t, { persist: true })
  const a = await member(t, redis, 'a')
  const b = await member(t, redis, 'b')
  const c = await member(t, redis, 'c')
  await until(() => beating(redis, 'a') && beating(redis, 'b') && beating(redis, 'c'), { what: 'three heartbeats' })
  await a.liveness.own({ kind: 'task', taskId: 'a1' })
  await b.liveness.own({ kind: 'task', taskId: 'b1' })
  await sleep(SETTINGS.deadAfter) // the point: a whole deadAfter of beating, and nobody is taken for dead
  t.same(await c.liveness.takeOver(), [], 'settled: nobody is dead')
  // c dies while Redis is away; a and b live on
  await (c.liveness as any).heartbeat.terminate()
  await redis.kill()
  await sleep(2.5 * SETTINGS.deadAfter) // the point: an outage longer than deadAfter
  await redis.restart()
  t.ok(redis.cli('ZSCORE', 'f:instances', 'a') !== '', 'the old scores came back from the append-only file')
  // a and b ask at once and often, from the moment they are back: neither takes the other (nor itself) over
  const taken: string[] = []
  const started = Date.now()
  await until(async () => {
    for (const one of [a, b]) for (const { instance } of await one.liveness.takeOver().catch(() => [])) taken.push(instance)
    return taken.length > 0
  }, { what: 'c taken over', timeout: 10 * SETTINGS.deadAfter, interval: 20 })
  t.same(taken, ['c'], 'only the dead one')
  t.ok(Date.now() - started >= SETTINGS.deadAfter - 2 * SETTINGS.interval, 'once the live ones had deadAfter to beat again')
  t.equal(redis.cli('SMEMBERS', 'f:owns:a'), '["task","a1"]', "a's work is still a's")
  t.equal(redis.cli('SMEMBERS', 'f:owns:b'), '["task","b1"]', "b's still b's")
  t.ok(beating(redis, 'a') && beating(redis, 'b'))
})

t.test('an instance whose own heartbeat is stale never takes itself over', async (t) => {
  const redis = await startRedis(t)
  const a = await member(t, redis, 'a')
  await until(() => beating(redis, 'a'), { what: "a's heartbeat" })
  await (a.liveness as any).heartbeat.terminate()
  await sleep(2 * SETTINGS.deadAfter) // the point: its score goes stale with time, nothing else
  t.same(await a.liveness.takeOver(), [], 'its score is past the deadline, but it is the one asking')
  t.ok(beating(redis, 'a'), 'and it is still listed')
})
