// The EventStore contract (lib/state/event-store.ts), run against every implementation: the
// memory store (with delete, on a clock moved by hand) and the Redis store (no delete: its streams
// expire; real time, since its expiry is Redis's own) on a real redis-server.
import t from 'tap'
import { MemoryEventStore } from '../../lib/state/memory-event-store.js'
import { connect } from '../../lib/state/redis/connection.js'
import { RedisEventStore } from '../../lib/state/redis/event-store.js'
import { sleep } from '../helpers/until.js'
import { startRedis } from '../helpers/redis.js'
import { eventStoreContract } from '../helpers/store-contracts.js'
import { quiet } from '../helpers/logs.js'

eventStoreContract(t, 'MemoryEventStore', (t) => {
  const clock = { now: 1_000_000 }
  const store = new MemoryEventStore({ maxPerStream: 100, maxEvents: 1000, idleTimeout: 1000, now: () => clock.now })
  t.teardown(() => store.close())
  return {
    store,
    deletes: true,
    expiry: { idleTimeout: 1000, pass: (ms) => { clock.now += ms } }
  }
})

const redis = await startRedis(t)
let prefixes = 0
eventStoreContract(t, 'RedisEventStore', async (t) => {
  const conn = await connect({ url: redis.url, prefix: `contract${++prefixes}:`, timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  // long enough that a loaded machine's delays between an append and a replay stay well inside it
  const idleTimeout = 1000
  return {
    store: new RedisEventStore(conn, 100, idleTimeout),
    deletes: false,
    expiry: { idleTimeout, pass: sleep }
  }
})
