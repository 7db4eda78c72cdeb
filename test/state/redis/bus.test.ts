// The bus over a real Redis, beyond the Bus contract (test/state/bus.test.ts): prefixes keep servers
// apart, a foreign message is ignored, and a Redis that is down still leaves this instance's listeners their events.
import t from 'tap'
import { connect } from '../../../lib/state/redis/connection.js'
import { RedisBus } from '../../../lib/state/redis/bus.js'
import { StoreUnavailableError } from '../../../lib/errors.js'
import type { BusEvent } from '../../../lib/state/bus.js'
import { SLICE_MS } from '../../../lib/state/memory-bus.js'
import { startRedis } from '../../helpers/redis.js'
import { until } from '../../helpers/app.js'

function logger (): { log: any, warnings: string[] } {
  const warnings: string[] = []
  const log = { warn: (_o: unknown, m?: string) => warnings.push(m ?? ''), info () {}, error () {}, debug () {}, child: () => log }
  return { log, warnings }
}

t.test('another prefix is another server: it hears nothing; a message on the channel that is not ours is ignored, with a warning', async (t) => {
  const redis = await startRedis(t)
  const { log, warnings } = logger()
  const conns = await Promise.all(['p:', 'p:', 'q:'].map(async (prefix) => await connect({ url: redis.url, prefix, timeout: 1000 }, log)))
  t.teardown(async () => { for (const conn of conns) await conn.close() })
  const [a, b, other] = conns.map((conn) => new RedisBus(conn, log))
  const got: Record<string, BusEvent[]> = { a: [], b: [], other: [] }
  a!.subscribe((event) => got.a!.push(event))
  b!.subscribe((event) => got.b!.push(event))
  other!.subscribe((event) => got.other!.push(event))
  t.equal(a!.size, 1)
  await until(() => redis.cli('PUBSUB', 'NUMSUB', 'p:bus', 'q:bus') === 'p:bus\n2\nq:bus\n1', { what: 'every instance\'s subscriber on its bus channel' })
  await a!.publish({ type: 'listChanged', list: 'tools' })
  await until(() => got.b!.length === 1, { what: 'the event on the other instance of the prefix' })
  await other!.publish({ type: 'listChanged', list: 'prompts' })
  await until(() => got.other!.length === 1, { what: 'the other prefix\'s own event' })
  t.same(got.other, [{ type: 'listChanged', list: 'prompts' }], 'another prefix is another server')
  t.same(got.a, [{ type: 'listChanged', list: 'tools' }], 'and it does not hear that one')
  redis.cli('PUBLISH', 'p:bus', 'not json')
  redis.cli('PUBLISH', 'p:elsewhere', '{}')
  const warning = 'fastify-sake: a message on the Redis bus channel is not ours (not JSON); ignored'
  await until(() => warnings.length >= 2, { what: 'both instances on p: to warn' })
  // messages on a channel arrive in order: once a later event on p:bus arrived, nothing more is coming before it
  await b!.publish({ type: 'taskStatus', taskId: 'last' })
  await until(() => got.a!.length === 2, { what: 'the last event on p:bus' })
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
  await until(() => (conn.client as any).status !== 'ready', { what: 'the client to see the connection lost' })
  await t.rejects(bus.publish({ type: 'resourceUpdated', uri: 'a://b' }), StoreUnavailableError)
  t.equal(got.length, 1, 'delivered here anyway')
})

t.test('Redis back: each bus subscribes again; a connection closed just as Redis came back leaves no unhandled rejection', async (t) => {
  const redis = await startRedis(t)
  const { log, warnings } = logger()
  const conns = await Promise.all([1, 2, 3].map(async () => await connect({ url: redis.url, prefix: 'r:', timeout: 1000 }, log)))
  t.teardown(async () => { for (const conn of conns) await conn.close() })
  const [a, b, closing] = conns.map((conn) => new RedisBus(conn, log))
  const got: BusEvent[] = []
  b!.subscribe((event) => got.push(event))
  await until(() => redis.cli('PUBSUB', 'NUMSUB', 'r:bus') === 'r:bus\n3', { what: 'the three subscribers' })
  await redis.kill()
  const subscriber = (closing as any).subscriber
  // the moment ioredis's own resubscription used to be sent, with nobody to hear its failure
  subscriber.prependOnceListener('ready', () => { void conns[2]!.close() })
  await redis.restart()
  await until(() => redis.cli('PUBSUB', 'NUMSUB', 'r:bus') === 'r:bus\n2', { what: 'the two open buses subscribed again' })
  await until(() => warnings.some((w) => w.includes('could not subscribe')), { what: 'the closed one to say its subscription failed' })
  // the publisher's own connection reconnects on its own schedule, maybe after the subscribers'
  await until(() => (conns[0]!.client as any).status === 'ready', { what: "the publisher's connection back" })
  await a!.publish({ type: 'listChanged', list: 'tools' })
  await until(() => got.length === 1, { what: 'the event through Redis after it came back' })
  t.same(got, [{ type: 'listChanged', list: 'tools' }])
  t.equal(subscriber.status, 'end', 'the closed one stays closed')
  await new Promise((resolve) => setTimeout(resolve, 100)) // a rejection nobody held would be reported by now (tap fails the test on one)
})

t.test('a listener that throws on another instance\'s event is logged there, whether the fan-out was delivered at once or in slices', async (t) => {
  const redis = await startRedis(t)
  const errors: Array<{ obj: any, msg: string }> = []
  const log: any = { warn () {}, info () {}, debug () {}, error: (obj: any, msg: string) => errors.push({ obj, msg }), child: () => log }
  const [one, two] = await Promise.all([1, 2].map(async () => await connect({ url: redis.url, prefix: 'throw:', timeout: 1000 }, log)))
  t.teardown(async () => { await one!.close(); await two!.close() })
  const a = new RedisBus(one!, log)
  const b = new RedisBus(two!, log)
  t.teardown(() => { a.close(); b.close() })
  let slow = false
  b.subscribe(() => {
    // a listener slower than a slice: the rest of the fan-out goes on after a turn of the event loop
    if (slow) for (const until = performance.now() + SLICE_MS + 1; performance.now() < until;);
  })
  b.subscribe((event) => { if (event.type === 'listChanged') throw new Error(`broke on ${event.list}`) })
  await until(() => redis.cli('PUBSUB', 'NUMSUB', 'throw:bus') === 'throw:bus\n2', { what: 'both instances\' subscribers on the bus channel' })
  await a.publish({ type: 'listChanged', list: 'tools' })
  await until(() => errors.length === 1, { what: 'the error logged on the other instance' })
  slow = true
  await a.publish({ type: 'listChanged', list: 'prompts' })
  await until(() => errors.length === 2, { what: 'the sliced delivery\'s error logged' })
  t.same(errors.map(({ obj, msg }) => [obj.err.message, msg]), [
    ['broke on tools', 'fastify-sake: a bus listener threw while handed another instance\'s event'],
    ['broke on prompts', 'fastify-sake: a bus listener threw while handed another instance\'s event']
  ])
})
