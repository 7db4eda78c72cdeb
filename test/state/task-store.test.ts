// The TaskStore contract (lib/state/task-store.ts), run against every implementation: the memory
// store and the Redis store on a real redis-server (bounded per caller and in all, and the Redis one
// unbounded too), both on the real clock.
import t from 'tap'
import { MemoryTaskStore } from '../../lib/state/memory-task-store.js'
import { connect } from '../../lib/state/redis/connection.js'
import { RedisTaskStore } from '../../lib/state/redis/task-store.js'
import { startRedis } from '../helpers/redis.js'
import { taskStoreContract } from '../helpers/store-contracts.js'
import { quiet } from '../helpers/logs.js'

taskStoreContract(t, 'MemoryTaskStore', (t) => {
  const store = new MemoryTaskStore({ maxTasks: 20, maxPerCaller: 5 })
  t.teardown(() => store.close())
  return { store, capacity: 20, perCaller: 5 }
})

const redis = await startRedis(t)
let prefixes = 0
taskStoreContract(t, 'RedisTaskStore', async (t) => {
  const conn = await connect({ url: redis.url, prefix: `contract${++prefixes}:`, timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  return { store: new RedisTaskStore(conn, { maxTtl: 3_600_000, maxTasks: 20, maxPerCaller: 5 }), capacity: 20, perCaller: 5 }
})

taskStoreContract(t, 'RedisTaskStore, unbounded', async (t) => {
  const conn = await connect({ url: redis.url, prefix: `contract${++prefixes}:`, timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  return { store: new RedisTaskStore(conn, { maxTtl: 3_600_000 }) }
})
