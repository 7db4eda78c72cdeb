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

t.test('at maxTasks a new record is refused: nothing, live or kept, makes room but what is past its ttl', async (t) => {
  const { store, clock } = storeWith(2)
  store.create({ ...record('a'), caller: 'ip:a' })
  store.create({ ...record('b', { status: 'cancelled', ttl: 500 }), caller: 'ip:b' })
  t.equal(store.create({ ...record('c'), caller: 'ip:c' }), 'total', 'full: refused')
  t.ok(store.get('b'), 'the kept one is still there')
  t.ok(store.get('a'))
  t.equal(store.get('c'), undefined)
  clock.now += 500
  t.equal(store.create({ ...record('c'), caller: 'ip:c' }), true, 'b past its ttl: swept at the bound, room for c')
  t.equal(store.size, 2)
})

t.test('per caller: a caller at maxPerCaller is refused, another is not; what is past its ttl is swept', async (t) => {
  const clock = { now: 1_000_000 }
  const store = new MemoryTaskStore({ maxTasks: 10, maxPerCaller: 2, now: () => clock.now })
  t.teardown(() => store.close())
  const mine = (taskId: string, caller: string, status: TaskStatus = 'working'): TaskRecord => ({ ...record(taskId, { status, ttl: 100 }), caller })
  t.equal(store.create(mine('a1', 'ip:a', 'completed')), true)
  t.equal(store.create(mine('a2', 'ip:a')), true)
  t.equal(store.create(mine('a3', 'ip:a')), 'caller')
  t.equal(store.heldBy('ip:a'), 2)
  t.equal(store.create(mine('b1', 'ip:b')), true, 'b is not a')
  clock.now += 100
  t.equal(store.create(mine('a3', 'ip:a')), true, 'a1 past its ttl: room for a3')
  t.equal(store.heldBy('ip:a'), 2)
  store.delete('a2')
  store.delete('never there')
  t.equal(store.heldBy('ip:a'), 1)
  t.equal(store.create(record('old')), true, 'a record without a caller counts under none')
  t.equal(store.heldBy(''), 1)
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

t.test('at maxTasks a refusal reads no record until the first kept one can have ended', async (t) => {
  const { store, clock } = storeWith(3)
  for (const id of ['a', 'b', 'c']) store.create({ ...record(id, { ttl: 1000 }), caller: `ip:${id}` })
  let sweeps = 0
  const sweep = store.sweep.bind(store)
  store.sweep = () => { sweeps++; sweep() }
  for (let i = 0; i < 100; i++) t.equal(store.create({ ...record(`x${i}`), caller: `ip:x${i}` }), 'total')
  t.equal(sweeps, 0, 'all live: a hundred refusals, no sweep')
  store.transition('b', 0, { status: 'completed' })
  t.equal(store.create({ ...record('y'), caller: 'ip:y' }), 'total', 'b is kept until its ttl')
  t.equal(sweeps, 0, 'and its end has not come: still no sweep')
  clock.now += 1000
  t.equal(store.create({ ...record('y'), caller: 'ip:y' }), true, 'its end came: swept, and room')
  t.equal(sweeps, 1)
})
