// The Bus contract (lib/state/bus.ts), run against every implementation: the memory bus, and the
// Redis bus on a real redis-server with a second instance on the same prefix.
import t from 'tap'
import { MemoryBus } from '../../lib/state/memory-bus.js'
import { RedisBus } from '../../lib/state/redis/bus.js'
import { connect } from '../../lib/state/redis/connection.js'
import { until } from '../helpers/until.js'
import { startRedis } from '../helpers/redis.js'
import { busContract } from '../helpers/store-contracts.js'
import { quiet } from '../helpers/logs.js'

busContract(t, 'MemoryBus', (t) => {
  const bus = new MemoryBus()
  t.teardown(() => bus.close())
  return { bus }
})

const redis = await startRedis(t)
let prefixes = 0
busContract(t, 'RedisBus', async (t) => {
  const prefix = `contract${++prefixes}:`
  const [one, two] = await Promise.all([1, 2].map(async () => await connect({ url: redis.url, prefix, timeout: 1000 }, quiet)))
  t.teardown(async () => { await one!.close(); await two!.close() })
  const bus = new RedisBus(one!, quiet)
  const peer = new RedisBus(two!, quiet)
  t.teardown(() => { bus.close(); peer.close() })
  await until(() => redis.cli('PUBSUB', 'NUMSUB', `${prefix}bus`).endsWith('\n2'), { what: 'both instances\' subscribers to be on the bus channel' })
  return { bus, peer }
})
