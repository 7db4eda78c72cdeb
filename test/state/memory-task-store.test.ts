// The default task store: compare-and-set transitions on the version, owner-scoped pages, the count bound and
// ttl expiry, on an injected clock.
import t from 'tap'
import { MemoryTaskStore } from '../../lib/state/memory-task-store.js'
import { TASK_STORE_METHODS, type TaskRecord, type TaskStatus } from '../../lib/state/task-store.js'

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

t.test('the store implements every method of the contract', async (t) => {
  const { store } = storeWith()
  for (const method of TASK_STORE_METHODS) t.type((store as any)[method], 'function', method)
})

t.test('create, get and delete', async (t) => {
  const { store } = storeWith()
  t.equal(store.get('a'), undefined)
  const a = record('a')
  t.equal(store.create(a), true)
  t.equal(store.get('a'), a)
  t.equal(store.size, 1)
  store.delete('a')
  t.equal(store.get('a'), undefined)
  store.delete('never-there')
  t.equal(store.size, 0)
})

t.test('transition is compare-and-set on the version, which it bumps', async (t) => {
  const { store } = storeWith()
  store.create(record('a'))
  t.equal(store.transition('a', 1, { status: 'completed' }), false, 'a stale version changes nothing')
  t.equal(store.get('a')!.status, 'working')
  t.equal(store.transition('a', 0, { status: 'input_required', inputRequests: { k: { method: 'roots/list', params: {} } } }), true)
  t.equal(store.get('a')!.version, 1)
  t.equal(store.transition('a', 0, { status: 'working', inputRequests: undefined }), false, 'a writer that read version 0 lost the race')
  t.same(store.get('a')!.inputRequests, { k: { method: 'roots/list', params: {} } }, 'and the winner\'s question is kept')
  t.equal(store.transition('a', 1, { status: 'completed', result: { content: [] }, lastUpdatedAt: 1_000_500 }), true)
  const done = store.get('a')!
  t.equal(done.status, 'completed')
  t.equal(done.version, 2)
  t.same(done.result, { content: [] })
  t.equal(done.lastUpdatedAt, 1_000_500)
  t.equal(done.owner, 'sub:alice', 'the rest of the record is kept')
  t.equal(store.transition('nope', 0, { status: 'cancelled' }), false, 'an unknown id')
})

t.test('list pages one owner\'s records, oldest first', async (t) => {
  const { store } = storeWith()
  for (const id of ['a1', 'b1', 'a2', 'a3', 'b2']) store.create(record(id, { owner: id.startsWith('a') ? 'sub:alice' : 'sub:bob' }))
  const first = store.list('sub:alice', undefined, 2)!
  t.same(first.tasks.map((r) => r.taskId), ['a1', 'a2'])
  t.equal(first.nextCursor, 'a2')
  const second = store.list('sub:alice', first.nextCursor, 2)!
  t.same(second.tasks.map((r) => r.taskId), ['a3'])
  t.equal(second.nextCursor, undefined, 'the last page has no cursor')
  t.same(store.list('sub:bob', undefined, 10)!.tasks.map((r) => r.taskId), ['b1', 'b2'])
  t.same(store.list('sub:carol', undefined, 10), { tasks: [] })
  t.equal(store.list('sub:alice', 'unknown', 2), undefined, 'an unknown cursor')
  const exact = store.list('sub:bob', undefined, 2)!
  t.same(exact.tasks.map((r) => r.taskId), ['b1', 'b2'])
  t.equal(exact.nextCursor, undefined, 'a page that ends exactly at the last record has no cursor')
})

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

t.test('keepUntil keeps a terminal record past its ttl', async (t) => {
  const { store, clock } = storeWith()
  store.create(record('a', { ttl: 100 }))
  clock.now += 100
  store.transition('a', 0, { status: 'failed', keepUntil: clock.now + 50 })
  t.ok(store.get('a'), 'still there after createdAt + ttl')
  clock.now += 50
  t.equal(store.get('a'), undefined)
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
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(store.size, 0, 'swept without a read')
  store.create(record('b'))
  store.close()
  t.equal(store.size, 0, 'close forgets everything')
})

t.test('the default clock is Date.now', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  t.teardown(() => store.close())
  store.create(record('a', { createdAt: Date.now() - 2000, ttl: 1000, status: 'completed' }))
  t.equal(store.get('a'), undefined)
})
