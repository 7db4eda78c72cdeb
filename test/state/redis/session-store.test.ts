// 2025 sessions in a real Redis, beyond the SessionStore contract (test/state/session-store.test.ts):
// stored as JSON under the prefix, seen and deleted by every instance at once, an expiry that
// every read renews in the same command; bounded per caller and in all across the fleet (issue 40),
// counted in sorted sets that a bound, a delete and the sweep keep true.
import t from 'tap'
import { captureIntervals } from '../../helpers/timers.js'
import { connect } from '../../../lib/state/redis/connection.js'
import { RedisSessionStore } from '../../../lib/state/redis/session-store.js'
import { startRedis } from '../../helpers/redis.js'
import { until } from '../../helpers/until.js'
import type { Session } from '../../../lib/state/session-store.js'
import { quiet } from '../../helpers/logs.js'

const session = (id: string, caller?: string): Session => ({
  id, protocolVersion: '2025-11-25', client: { info: { name: 'c', version: '1' }, capabilities: { elicitation: {} } }, initialized: true, subscriptions: ['a://b'], ...(caller === undefined ? {} : { caller })
})

t.test('set, get, delete; two instances see the same sessions; keys under the prefix', async (t) => {
  const redis = await startRedis(t)
  const a = await connect({ url: redis.url, prefix: 'one:', timeout: 1000 }, quiet)
  const b = await connect({ url: redis.url, prefix: 'one:', timeout: 1000 }, quiet)
  const other = await connect({ url: redis.url, prefix: 'two:', timeout: 1000 }, quiet)
  t.teardown(async () => { await a.close(); await b.close(); await other.close() })
  const onA = new RedisSessionStore(a, { idleTimeout: 60_000, maxSessions: 10_000, maxPerCaller: 10_000 })
  const onB = new RedisSessionStore(b, { idleTimeout: 60_000, maxSessions: 10_000, maxPerCaller: 10_000 })
  await onA.create(session('s1'))
  t.same(await onB.get('s1'), session('s1'), 'written on A, read on B')
  t.equal(redis.cli('EXISTS', 'one:session:s1'), '1', 'under the prefix')
  t.equal(await new RedisSessionStore(other, { idleTimeout: 60_000, maxSessions: 10_000, maxPerCaller: 10_000 }).get('s1'), undefined, 'another prefix is another server')
  await onB.delete('s1')
  t.equal(await onA.get('s1'), undefined, 'deleted on B: gone on A')
})

t.test('every session has an expiry of idleTimeout, which a read renews (GETEX)', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: '', timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  const store = new RedisSessionStore(conn, { idleTimeout: 60_000, maxSessions: 10_000, maxPerCaller: 10_000 })
  await store.create(session('a'))
  const ttl = Number(redis.cli('PTTL', 'session:a'))
  t.ok(ttl > 50_000 && ttl <= 60_000, `set with an expiry (${ttl} ms)`)
  redis.cli('PEXPIRE', 'session:a', '5000')
  t.ok(await store.get('a'))
  const renewed = Number(redis.cli('PTTL', 'session:a'))
  t.ok(renewed > 50_000, `the read renewed it (${renewed} ms)`)
})

t.test('bounds across the fleet: two instances share the counts, per caller and in all', async (t) => {
  const redis = await startRedis(t)
  const a = await connect({ url: redis.url, prefix: 'q:', timeout: 1000 }, quiet)
  const b = await connect({ url: redis.url, prefix: 'q:', timeout: 1000 }, quiet)
  const bounds = { idleTimeout: 60_000, maxSessions: 4, maxPerCaller: 2 }
  const onA = new RedisSessionStore(a, bounds)
  const onB = new RedisSessionStore(b, bounds)
  t.teardown(async () => { onA.close(); onB.close(); await a.close(); await b.close() })
  t.equal(await onA.create(session('m1', 'sub:mallory')), true)
  t.equal(await onB.create(session('m2', 'sub:mallory')), true)
  t.equal(await onA.create(session('m3', 'sub:mallory')), 'caller', 'the second instance counted the first one\'s session')
  t.equal(redis.cli('EXISTS', 'q:session:m3'), '0', 'nothing stored')
  t.equal(await onB.create(session('c1', 'ip:10.0.0.1')), true)
  t.equal(await onA.create(session('c2', 'ip:10.0.0.2')), true)
  t.equal(await onB.create(session('c3', 'ip:10.0.0.3')), 'total', 'the fleet is full')
  t.equal(redis.cli('ZCARD', 'q:sessions'), '4')
  t.equal(redis.cli('ZCARD', 'q:caller-sessions:sub:mallory'), '2')
  for (const id of ['m1', 'm2', 'c1', 'c2']) t.ok(await onA.get(id), `${id} is still there`)

  await onB.delete('m1')
  t.equal(redis.cli('ZCARD', 'q:caller-sessions:sub:mallory'), '1', 'a delete leaves the counts at once')
  t.equal(redis.cli('ZSCORE', 'q:sessions', 'm1 sub:mallory'), '', 'from both sets')
  t.equal(await onA.create(session('m3', 'sub:mallory')), true)
  await onA.delete('never there')
})

t.test('at a bound, sessions that expired make room; one still in use is counted, however old', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: '', timeout: 1000 }, quiet)
  let now = Date.now()
  const store = new RedisSessionStore(conn, { idleTimeout: 60_000, maxSessions: 3, maxPerCaller: 2 }, () => now)
  t.teardown(async () => { store.close(); await conn.close() })
  t.equal(await store.create(session('old', 'ip:1')), true)
  t.equal(await store.create(session('used', 'ip:1')), true)
  t.equal(await store.create(session('third', 'ip:2')), true)
  // an hour later: 'old' expired in Redis, 'used' was read meanwhile (its expiry renewed)
  now += 3_600_000
  redis.cli('PEXPIRE', 'session:old', '1')
  redis.cli('PEXPIRE', 'session:used', '50000')
  await redis.expired('session:old')
  t.equal(await store.create(session('new', 'ip:1')), true, 'the caller\'s expired session made room')
  t.equal(redis.cli('ZSCORE', 'caller-sessions:ip:1', 'old'), '', 'and left the counts')
  const score = Number(redis.cli('ZSCORE', 'caller-sessions:ip:1', 'used'))
  const lastUsed = now - 60_000 + Number(redis.cli('PTTL', 'session:used'))
  t.ok(Math.abs(score - lastUsed) < 1000, `the live one scored again by when it was last in use (${score} ≈ ${lastUsed})`)
  t.equal(await store.create(session('newer', 'ip:1')), 'caller', 'used and new: the caller is at its bound')
  redis.cli('PEXPIRE', 'session:third', '1')
  await redis.expired('session:third')
  t.equal(await store.create(session('late', 'ip:3')), true, 'the store at its bound: the expired one of another caller made room')
  t.equal(await store.create(session('later', 'ip:4')), 'total')
})

t.test('the sweep forgets what expired, and scores again what lives on; a session without a caller counts under none', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: '', timeout: 1000 }, quiet)
  let now = Date.now()
  const store = new RedisSessionStore(conn, { idleTimeout: 60_000, maxSessions: 10, maxPerCaller: 10 }, () => now)
  t.teardown(async () => { store.close(); await conn.close() })
  await store.create(session('gone', 'ip:1'))
  await store.create(session('lives', 'ip:1'))
  await store.create(session('anonymous'))
  t.equal(redis.cli('ZSCORE', 'caller-sessions:', 'anonymous') !== '', true, 'counted under the empty caller')
  await store.sweep()
  t.equal(redis.cli('ZCARD', 'sessions'), '3', 'nothing idle yet: nothing checked')
  now += 120_000
  redis.cli('DEL', 'session:gone')
  await store.sweep()
  t.equal(redis.cli('ZCARD', 'sessions'), '2')
  t.equal(redis.cli('ZCARD', 'caller-sessions:ip:1'), '1')
  t.ok(Number(redis.cli('ZSCORE', 'sessions', 'lives ip:1')) > now - 60_000, 'scored again: it lives')
  redis.cli('SET', 'session:broken', 'not json')
  await store.delete('broken')
  t.equal(redis.cli('EXISTS', 'session:broken'), '0', 'a session that is not ours is deleted all the same')
})

t.test('the sweep runs on its own, every minute, unref\'d; a failing one is harmless; close stops it', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: '', timeout: 300 }, quiet)
  const { timers, cleared } = captureIntervals(t)
  let now = Date.now()
  const store = new RedisSessionStore(conn, { idleTimeout: 1000, maxSessions: 10, maxPerCaller: 10 }, () => now)
  t.same(timers.map((timer) => [timer.ms, timer.unref]), [[60_000, true]])
  await store.create(session('gone', 'ip:1'))
  redis.cli('DEL', 'session:gone')
  now += 2000
  timers[0]!.fn()
  await until(() => redis.cli('ZCARD', 'sessions') === '0', { what: 'the timer\'s sweep' })
  await conn.close()
  timers[0]!.fn() // Redis gone: the sweep fails, and nothing is thrown
  store.close()
  t.equal(cleared().length, 1)
})
