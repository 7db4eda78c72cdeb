// The task lifecycle on its own: legal transitions, compare-and-set retries, waiters, the bus,
// owners, close and its bound.
import t from 'tap'
import { Tasks, legal, ownerOf, type Outcome } from '../../../lib/protocol/tasks/lifecycle.js'
import { MemoryTaskStore } from '../../../lib/state/memory-task-store.js'
import { MemoryBus } from '../../../lib/state/memory-bus.js'
import type { Call } from '../../../lib/protocol/call.js'

const call = { protocolVersion: '2025-11-25', sessionId: 's1' } as unknown as Call

function tasks (options: { closeTimeout?: number, store?: MemoryTaskStore, bus?: MemoryBus } = {}): Tasks {
  const store = options.store ?? new MemoryTaskStore({ maxTasks: 10 })
  t.teardown(() => store.close())
  return new Tasks({ store, bus: options.bus ?? new MemoryBus(), ttl: 10_000, maxTtl: 20_000, pollInterval: 500, pageSize: 10, closeTimeout: options.closeTimeout ?? 1000 })
}

const never = async (): Promise<Outcome> => await new Promise(() => {})

t.test('legal transitions: terminal statuses have none', async (t) => {
  t.ok(legal('working', 'input_required'))
  t.ok(legal('input_required', 'working'))
  t.ok(legal('working', 'cancelled'))
  for (const from of ['completed', 'failed', 'cancelled'] as const) {
    for (const to of ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const) t.notOk(legal(from, to), `${from} → ${to}`)
  }
  t.notOk(legal('working', 'working'))
})

t.test('owners: the subject, else the session, else anonymous', async (t) => {
  t.equal(ownerOf({ auth: { subject: 'alice' }, sessionId: 's' } as unknown as Call), 'sub:alice')
  t.equal(ownerOf({ sessionId: 's' } as unknown as Call), 'session:s')
  t.equal(ownerOf({} as unknown as Call), 'anonymous')
})

t.test('grant caps the ttl and fills in the default', async (t) => {
  const lifecycle = tasks()
  t.equal(lifecycle.grant(undefined), 10_000)
  t.equal(lifecycle.grant(5), 5)
  t.equal(lifecycle.grant(50_000), 20_000)
})

t.test('move retries when another writer won the compare-and-set', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const lifecycle = tasks({ store })
  const record = (await lifecycle.start(call, 1000, never))!
  const transition = store.transition.bind(store)
  let first = true
  store.transition = (id, from, patch) => {
    if (first) {
      first = false
      transition(id, from, { status: 'input_required' }) // someone else moved it meanwhile
      return false
    }
    return transition(id, from, patch)
  }
  t.equal(await lifecycle.move(record.taskId, { status: 'completed' }), true)
  t.equal(store.get(record.taskId)!.status, 'completed', 'applied from the status read again')
  t.equal(await lifecycle.move(record.taskId, { status: 'working' }), false, 'terminal stays terminal')
  t.equal(await lifecycle.move('nope', { status: 'working' }), false)
  await lifecycle.close()
})

t.test('wait: an abort stops it, a vanished record ends it, another instance\'s change wakes it', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const bus = new MemoryBus()
  const lifecycle = tasks({ store, bus })
  const record = (await lifecycle.start(call, 1000, never))!
  const controller = new AbortController()
  const stopped = lifecycle.wait(record.taskId, controller.signal)
  controller.abort()
  t.equal(await stopped, undefined, 'aborted: nothing')
  t.equal(await lifecycle.wait(record.taskId, AbortSignal.abort()), undefined, 'already aborted: nothing either')

  const vanished = lifecycle.wait(record.taskId, new AbortController().signal)
  await new Promise((resolve) => setTimeout(resolve, 5))
  store.delete(record.taskId)
  bus.publish({ type: 'taskStatus', taskId: record.taskId })
  t.equal(await vanished, undefined, 'deleted meanwhile')

  const other = (await lifecycle.start(call, 1000, never))!
  const waiting = lifecycle.wait(other.taskId, new AbortController().signal)
  await new Promise((resolve) => setTimeout(resolve, 5))
  // another instance completed it: only the store and the bus tell us
  store.transition(other.taskId, 'working', { status: 'completed', result: {} })
  bus.publish({ type: 'listChanged', list: 'tools' })
  bus.publish({ type: 'taskStatus', taskId: other.taskId })
  t.equal((await waiting)!.status, 'completed')
  await lifecycle.close()
})

t.test('close cancels, waits within its bound, and refuses new tasks', async (t) => {
  const lifecycle = tasks({ closeTimeout: 20 })
  let reason: unknown
  const record = (await lifecycle.start(call, 1000, async (signal) => {
    signal.addEventListener('abort', () => { reason = signal.reason })
    return await new Promise(() => {}) // ignores the abort: close must not wait forever
  }))!
  const started = Date.now()
  await lifecycle.close()
  t.ok(Date.now() - started < 1000, 'bounded by closeTimeout')
  t.match(String(reason), /the server closed/)
  t.equal((await lifecycle.store.get(record.taskId))!.status, 'cancelled')
  t.equal(await lifecycle.start(call, 1000, never), undefined, 'closed: no new task')
  await lifecycle.close()
})
