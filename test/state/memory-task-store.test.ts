// The default task store, beyond the TaskStore contract (test/state/task-store.test.ts): ttl
// expiry to the millisecond and its sweep, on an injected clock, and the count bound.
import t from 'tap'
import { until } from '../helpers/until.js'
import { MemoryTaskStore } from '../../lib/state/memory-task-store.js'
import type { TaskRecord, TaskStatus } from '../../lib/state/task-store.js'

function record (taskId: string, options: { owner?: string, status?: TaskStatus, createdAt?: number, ttl?: number } = {}): TaskRecord {
  const createdAt = options.createdAt ?? 1_000_000
  return { taskId, version: 0, owner: options.owner ?? 'sub:alice', protocolVersion: '2025-11-25', status: options.status ?? 'working', createdAt, lastUpdatedAt: createdAt, ttl: options.ttl ?? 1000 }
}

function storeWith (maxTasks = 100): { store: MemoryTaskStore, clock: { now: number } } {
  const clock = { now: 1_000_000 }
  const store = new MemoryTaskStore({ maxTasks, now: () => clock.now })
  t.teardown(() => store.close())
  return { store, clock }
}

t.test('a terminal record past its ttl is gone; a live one stays for the lifecycle to fail', async (t) => {
  const { store, clock } = storeWith()
  store.create(record('live', { ttl: 100 }))
  store.create(record('done', { ttl: 100, status: 'completed' }))
  clock.now += 99
  t.ok(store.get('done'), 'readable until its ttl is over')
  clock.now += 1
  t.equal(store.get('done'), undefined)
  t.ok(store.get('live'), 'a running task is never dropped by the store')
  t.same(store.list('sub:alice', undefined, 10)!.tasks.map((r) => r.taskId), ['live'])
  store.transition('live', 0, { status: 'failed', statusMessage: 'expired' })
  store.sweep()
  t.equal(store.size, 0, 'the sweep drops it once terminal')
})

t.test('at maxTasks the oldest terminal record makes room, and a store of live tasks refuses', async (t) => {
  const { store } = storeWith(2)
  store.create(record('a'))
  store.create(record('b', { status: 'cancelled' }))
  t.equal(store.create(record('c')), true)
  t.equal(store.get('b'), undefined, 'the terminal one went')
  t.ok(store.get('a'))
  t.equal(store.create(record('d')), false, 'full of live tasks')
  t.equal(store.get('d'), undefined)
  t.equal(store.size, 2)
})

t.test('the sweep timer runs and close stops it', async (t) => {
  const clock = { now: 0 }
  const store = new MemoryTaskStore({ maxTasks: 10, now: () => clock.now, sweepInterval: 5 })
  store.create(record('a', { createdAt: 0, ttl: 1, status: 'failed' }))
  clock.now = 10
  await until(() => store.size === 0, { what: 'the timer to sweep' })
  t.equal(store.size, 0, 'swept without a read')
  store.create(record('b'))
  store.close()
  t.equal(store.size, 0, 'close forgets everything')
})
