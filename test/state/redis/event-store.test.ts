// Resumable SSE streams in a real Redis, beyond the EventStore contract (test/state/event-store.test.ts):
// ids that name their stream, replay after an id from any instance, ids that are not entry ids,
// an expiry on every stream, trimming.
import t from 'tap'
import { connect } from '../../../lib/state/redis/connection.js'
import { RedisEventStore } from '../../../lib/state/redis/event-store.js'
import { startRedis } from '../../helpers/redis.js'
import { quiet } from '../../helpers/logs.js'

t.test('append, then replay after an id on another connection', async (t) => {
  const redis = await startRedis(t)
  const a = await connect({ url: redis.url, prefix: 'p:', timeout: 1000 }, quiet)
  const b = await connect({ url: redis.url, prefix: 'p:', timeout: 1000 }, quiet)
  t.teardown(async () => { await a.close(); await b.close() })
  const onA = new RedisEventStore(a, 1000, 60_000)
  const onB = new RedisEventStore(b, 1000, 60_000)
  const prime = await onA.append('sess/abc', '')
  const one = await onA.append('sess/abc', '{"n":1}')
  const two = await onA.append('sess/abc', '{"n":2}')
  await onA.append('sess/other', '{"n":99}')
  t.match(prime, /^sess\/abc:\d+-\d+$/, 'an id names its stream')
  t.same(await onB.replay(prime), { streamId: 'sess/abc', events: [{ id: one, message: '{"n":1}' }, { id: two, message: '{"n":2}' }] })
  t.same(await onB.replay(two), { streamId: 'sess/abc', events: [] }, 'caught up')
  for (const bad of ['', 'nocolon', ':1-0', 'sess/abc:notanid', 'sess/abc:1-0-0', 'sess/gone:1-0']) {
    t.equal(await onB.replay(bad), undefined, `unknown: ${JSON.stringify(bad)}`)
  }
  const ttl = Number(redis.cli('PTTL', 'p:events:sess/abc'))
  t.ok(ttl > 0 && ttl <= 60_000, 'every stream expires')
})

t.test('a stream is trimmed to about maxPerStream', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: '', timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  const store = new RedisEventStore(conn, 10, 200)
  for (let i = 0; i < 500; i++) await store.append('s/long', `{"i":${i}}`)
  const length = Number(redis.cli('XLEN', 'events:s/long'))
  t.ok(length < 200, `bounded (${length} entries kept of 500; MAXLEN ~ trims by whole nodes)`)
})
