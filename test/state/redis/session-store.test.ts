// 2025 sessions in a real Redis, beyond the SessionStore contract (test/state/session-store.test.ts):
// stored as JSON under the prefix, seen and deleted by every instance at once, an expiry that
// every read renews in the same command.
import t from 'tap'
import { connect } from '../../../lib/state/redis/connection.js'
import { RedisSessionStore } from '../../../lib/state/redis/session-store.js'
import { startRedis } from '../../helpers/redis.js'
import type { Session } from '../../../lib/state/session-store.js'

const quiet = { warn () {}, info () {}, error () {}, debug () {}, child () { return quiet } } as any
const session = (id: string): Session => ({ id, protocolVersion: '2025-11-25', client: { info: { name: 'c', version: '1' }, capabilities: { elicitation: {} } }, initialized: true, subscriptions: ['a://b'] })

t.test('set, get, delete; two instances see the same sessions; keys under the prefix', async (t) => {
  const redis = await startRedis(t)
  const a = await connect({ url: redis.url, prefix: 'one:', timeout: 1000 }, quiet)
  const b = await connect({ url: redis.url, prefix: 'one:', timeout: 1000 }, quiet)
  const other = await connect({ url: redis.url, prefix: 'two:', timeout: 1000 }, quiet)
  t.teardown(async () => { await a.close(); await b.close(); await other.close() })
  const onA = new RedisSessionStore(a, 60_000)
  const onB = new RedisSessionStore(b, 60_000)
  await onA.set(session('s1'))
  t.same(await onB.get('s1'), session('s1'), 'written on A, read on B')
  t.equal(redis.cli('EXISTS', 'one:session:s1'), '1', 'under the prefix')
  t.equal(await new RedisSessionStore(other, 60_000).get('s1'), undefined, 'another prefix is another server')
  await onB.delete('s1')
  t.equal(await onA.get('s1'), undefined, 'deleted on B: gone on A')
})

t.test('every session has an expiry of idleTimeout, which a read renews (GETEX)', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: '', timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  const store = new RedisSessionStore(conn, 60_000)
  await store.set(session('a'))
  const ttl = Number(redis.cli('PTTL', 'session:a'))
  t.ok(ttl > 50_000 && ttl <= 60_000, `set with an expiry (${ttl} ms)`)
  redis.cli('PEXPIRE', 'session:a', '5000')
  t.ok(await store.get('a'))
  const renewed = Number(redis.cli('PTTL', 'session:a'))
  t.ok(renewed > 50_000, `the read renewed it (${renewed} ms)`)
})
