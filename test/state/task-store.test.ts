// The TaskStore contract (lib/state/task-store.ts), run against every implementation: the memory
// store (bounded in count) and the Redis store on a real redis-server, both on the real clock.
import t from 'tap'
import { MemoryTaskStore } from '../../lib/state/memory-task-store.js'
import { connect } from '../../lib/state/redis/connection.js'
import { RedisTaskStore } from '../../lib/state/redis/task-store.js'
import { startRedis } from '../helpers/redis.js'
import { taskStoreContract } from '../helpers/store-contracts.js'

const quiet = { warn () {}, info () {}, error () {}, debug () {}, child () { return quiet } } as any

taskStoreContract(t, 'MemoryTaskStore', (t) => {
  const store = new MemoryTaskStore({ maxTasks: 20 })
  t.teardown(() => store.close())
  return {
    store,
    capacity: 20
  }
})

const redis = await startRedis(t)
let prefixes = 0
taskStoreContract(t, 'RedisTaskStore', async (t) => {
  const conn = await connect({ url: redis.url, prefix: `contract${++prefixes}:`, timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  return { store: new RedisTaskStore(conn, { maxTtl: 3_600_000 }) }
})
