// The bus over a real Redis: an event reaches this instance at once and the others through
// Redis, never twice; prefixes keep servers apart; a foreign message is ignored.
import t from 'tap'
import { connect } from '../../../lib/state/redis/connection.js'
import { RedisBus } from '../../../lib/state/redis/bus.js'
import { StoreUnavailableError } from '../../../lib/errors.js'
import type { BusEvent } from '../../../lib/state/bus.js'
import { startRedis } from '../../helpers/redis.js'
import { sleep, until } from '../../helpers/app.js'

function logger (): { log: any, warnings: string[] } {
  const warnings: string[] = []
  const log = { warn: (_o: unknown, m?: string) => warnings.push(m ?? ''), info () {}, error () {}, debug () {}, child: () => log }
  return { log, warnings }
}

t.test('fan-out across instances, once each; another prefix hears nothing', async (t) => {
  const redis = await startRedis(t)
  const { log, warnings } = logger()
  const conns = await Promise.all(['p:', 'p:', 'q:'].map(async (prefix) => await connect({ url: redis.url, prefix, timeout: 1000 }, log)))
  t.teardown(async () => { for (const conn of conns) await conn.close() })
  const [a, b, other] = conns.map((conn) => new RedisBus(conn, log))
  const got: Record<string, BusEvent[]> = { a: [], b: [], other: [] }
  a!.subscribe((event) => got.a!.push(event))
  const offB = b!.subscribe((event) => got.b!.push(event))
  other!.subscribe((event) => got.other!.push(event))
  t.equal(a!.size, 1)
  await sleep(100) // the subscribers are connected
  await a!.publish({ type: 'listChanged', list: 'tools' })
  t.same(got.a, [{ type: 'listChanged', list: 'tools' }], 'this instance: at once, before Redis')
  t.ok(await until(() => got.b!.length === 1, { what: 'the event on the other instance' }), 'the other instance, through Redis')
  t.same(got.b, [{ type: 'listChanged', list: 'tools' }])
  await sleep(50)
  t.equal(got.a!.length, 1, 'its own message coming back is ignored')
  t.equal(got.other!.length, 0, 'another prefix is another server')
  offB()
  redis.cli('PUBLISH', 'p:bus', 'not json')
  redis.cli('PUBLISH', 'p:elsewhere', '{}')
  await sleep(50)
  const warning = 'fastify-sake: a message on the Redis bus channel is not ours (not JSON); ignored'
  t.same(warnings, [warning, warning], 'once per instance on that prefix; the other channel is not read')
  a!.close()
  t.equal(a!.size, 0)
})

t.test('Redis down: local listeners still get the event; publish rejects naming the bus', async (t) => {
  const redis = await startRedis(t)
  const { log } = logger()
  const conn = await connect({ url: redis.url, prefix: '', timeout: 500 }, log)
  t.teardown(() => conn.close())
  const bus = new RedisBus(conn, log)
  const got: BusEvent[] = []
  bus.subscribe((event) => got.push(event))
  await redis.kill()
  await sleep(100)
  await t.rejects(bus.publish({ type: 'resourceUpdated', uri: 'a://b' }), StoreUnavailableError)
  t.equal(got.length, 1, 'delivered here anyway')
})
