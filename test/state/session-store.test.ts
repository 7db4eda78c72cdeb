// The SessionStore contract (lib/state/session-store.ts), run against every implementation: the
// memory store on a clock moved by hand, and the Redis store on a real redis-server (real time:
// its expiry is Redis's own).
import t from 'tap'
import { MemorySessionStore } from '../../lib/state/memory-session-store.js'
import { connect } from '../../lib/state/redis/connection.js'
import { RedisSessionStore } from '../../lib/state/redis/session-store.js'
import { sleep } from '../helpers/until.js'
import { startRedis } from '../helpers/redis.js'
import { sessionStoreContract } from '../helpers/store-contracts.js'
import { quiet } from '../helpers/logs.js'

sessionStoreContract(t, 'MemorySessionStore', (t) => {
  const clock = { now: 1_000_000 }
  const store = new MemorySessionStore({ maxSessions: 10, maxPerCaller: 3, idleTimeout: 1000, now: () => clock.now })
  t.teardown(() => store.close())
  return { store, idleTimeout: 1000, pass: (ms) => { clock.now += ms }, capacity: 10, perCaller: 3 }
})

const redis = await startRedis(t)
let prefixes = 0
sessionStoreContract(t, 'RedisSessionStore', async (t) => {
  const conn = await connect({ url: redis.url, prefix: `contract${++prefixes}:`, timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  // long enough that a loaded machine's delays between two reads stay well inside it
  const idleTimeout = 1000
  const store = new RedisSessionStore(conn, { idleTimeout, maxSessions: 10, maxPerCaller: 3 })
  t.teardown(() => store.close())
  return { store, idleTimeout, pass: sleep, capacity: 10, perCaller: 3 }
})
