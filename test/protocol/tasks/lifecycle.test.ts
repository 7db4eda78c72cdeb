// The task lifecycle on its own: legal transitions, compare-and-set retries, waiters, the bus,
// owners, close and its bound.
import t from 'tap'
import { TaskEnded } from '../../../lib/errors.js'
import { Tasks } from '../../../lib/protocol/tasks/lifecycle.js'
import { ownerOf } from '../../../lib/protocol/tasks/records.js'
import { legal, type Outcome } from '../../../lib/protocol/tasks/transitions.js'
import type { BusEvent } from '../../../lib/state/bus.js'
import { MemoryTaskStore } from '../../../lib/state/memory-task-store.js'
import { MemoryBus } from '../../../lib/state/memory-bus.js'
import type { Call } from '../../../lib/protocol/call.js'
import { until } from '../../helpers/until.js'

const call = { protocolVersion: '2025-11-25', sessionId: 's1', transport: { caller: 'ip:127.0.0.1' } } as unknown as Call

function tasks (options: { closeTimeout?: number, store?: MemoryTaskStore, bus?: MemoryBus } = {}): Tasks {
  const store = options.store ?? new MemoryTaskStore({ maxTasks: 10 })
  t.teardown(() => store.close())
  return new Tasks({ store, bus: options.bus ?? new MemoryBus(), ttl: 10_000, maxTtl: 20_000, pollInterval: 500, pageSize: 10, closeTimeout: options.closeTimeout ?? 50 })
}

const never = async (): Promise<Outcome> => await new Promise(() => {})

/** A few milliseconds: for a waiter to reach its wait, which nothing outside the lifecycle shows. */
const tick = async (): Promise<void> => await new Promise((resolve) => setTimeout(resolve, 5))

t.test('legal transitions: terminal statuses have none', async (t) => {
  t.ok(legal('working', 'input_required'))
  t.ok(legal('input_required', 'working'))
  t.ok(legal('working', 'cancelled'))
  for (const from of ['completed', 'failed', 'cancelled'] as const) {
    for (const to of ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const) t.notOk(legal(from, to), `${from} → ${to}`)
  }
  t.ok(legal('working', 'working'), 'a live status may stay while its questions change')
  t.ok(legal('input_required', 'input_required'))
})

t.test('owners: the subject, else the session, else anonymous', async (t) => {
  t.equal(ownerOf({ auth: { subject: 'alice' }, sessionId: 's' } as unknown as Call), 'sub:alice')
  t.equal(ownerOf({ sessionId: 's' } as unknown as Call), 'session:s')
  t.equal(ownerOf({} as unknown as Call), 'anonymous')
})

t.test('a task records the tool whose call made it, for its readers to be asked what that call asked', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const lifecycle = tasks({ store })
  const made = (await lifecycle.start({ ...call, target: { kind: 'tool', name: 'export_report' } } as unknown as Call, 1000, never))!
  t.equal(made.tool, 'export_report')
  t.equal(store.get(made.taskId)!.tool, 'export_report', 'stored')
  t.equal((await lifecycle.start(call, 1000, never))!.tool, undefined, 'a call that names no tool: none')
  await lifecycle.close()
})

t.test('grant caps the ttl and fills in the default', async (t) => {
  const lifecycle = tasks()
  t.equal(lifecycle.grant(undefined), 10_000)
  t.equal(lifecycle.grant(5), 1000, 'raised to a second')
  t.equal(lifecycle.grant(5000), 5000)
  t.equal(lifecycle.grant(50_000), 20_000)
})

t.test('move retries when another writer won the compare-and-set', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const lifecycle = tasks({ store })
  const record = (await lifecycle.start(call, 1000, never))!
  const transition = store.transition.bind(store)
  let first = true
  store.transition = (id, version, patch) => {
    if (first) {
      first = false
      transition(id, version, { status: 'input_required' }) // someone else moved it meanwhile
      return false
    }
    return transition(id, version, patch)
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
  await tick() // the waiter reads the record and parks: nothing to watch from outside
  store.delete(record.taskId)
  bus.publish({ type: 'taskStatus', taskId: record.taskId })
  t.equal(await vanished, undefined, 'deleted meanwhile')

  const other = (await lifecycle.start(call, 1000, never))!
  const waiting = lifecycle.wait(other.taskId, new AbortController().signal)
  await tick() // parked, as above
  // another instance completed it: only the store and the bus tell us
  store.transition(other.taskId, 0, { status: 'completed', result: {} })
  bus.publish({ type: 'listChanged', list: 'tools' })
  bus.publish({ type: 'taskStatus', taskId: other.taskId })
  t.equal((await waiting)!.status, 'completed')
  await lifecycle.close()
})

t.test('close fails what runs, waits within its bound, and refuses new tasks', async (t) => {
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
  t.match(await lifecycle.store.get(record.taskId), {
    status: 'failed',
    statusMessage: 'the server closed before the task finished; call again',
    error: { code: -32603, message: 'Internal error: the server closed before the task finished; call again' }
  })
  t.equal(await lifecycle.start(call, 1000, never), undefined, 'closed: no new task')
  await lifecycle.close()
})

t.test('with grace (a shared store), close lets a task finish within its bound, and fails the one that would not', async (t) => {
  const lifecycle = tasks({ closeTimeout: 300 })
  let aborted: unknown
  const quick = (await lifecycle.start(call, 5000, async (signal) => {
    await new Promise((resolve) => setTimeout(resolve, 100)) // the point: work that ends within the bound (300 ms)
    aborted = signal.aborted
    return { status: 'completed', result: { content: [] } }
  }))!
  let reason: unknown
  const slow = (await lifecycle.start(call, 5000, async (signal) => {
    signal.addEventListener('abort', () => { reason = signal.reason })
    return await new Promise(() => {})
  }))!
  const started = Date.now()
  await lifecycle.close(true)
  const took = Date.now() - started
  t.ok(took >= 290 && took < 2000, `the bound was given in full (${took} ms)`)
  t.equal(aborted, false, 'the quick task was not told to stop')
  t.equal((await lifecycle.store.get(quick.taskId))!.status, 'completed', 'and it finished')
  t.match(await lifecycle.store.get(slow.taskId), { status: 'failed', statusMessage: 'the server closed before the task finished; call again' })
  t.match(String(reason), /the server closed before the task finished/)
})

const question = (n: number): { method: string, params: Record<string, unknown> } => ({ method: 'elicitation/create', params: { message: `question ${n}` } })

/** Until the task's record holds `count` questions (asked: written into the record). */
async function asked (lifecycle: Tasks, taskId: string, count = 1): Promise<void> {
  await until(async () => Object.keys((await lifecycle.store.get(taskId))?.inputRequests ?? {}).length >= count, { what: `${count} question(s) in task ${taskId}` })
}

t.test('ask and answer: input_required while a question waits, partial answers, unknown keys ignored', async (t) => {
  const lifecycle = tasks()
  const record = (await lifecycle.start(call, 1000, never))!
  const signal = new AbortController().signal
  // two questions at once: both writers read version 1 or so; compare-and-set keeps both
  const first = lifecycle.ask(record.taskId, 'a', question(1), signal)
  const second = lifecycle.ask(record.taskId, 'b', question(2), signal)
  await asked(lifecycle, record.taskId, 2)
  let current = (await lifecycle.store.get(record.taskId))!
  t.equal(current.status, 'input_required')
  t.same(Object.keys(current.inputRequests!).sort(), ['a', 'b'], 'neither question lost')
  await lifecycle.answer(record.taskId, { a: { result: { action: 'accept', content: { x: 1 } } }, zzz: { result: {} } })
  t.same(await first, { result: { action: 'accept', content: { x: 1 } } })
  current = (await lifecycle.store.get(record.taskId))!
  t.equal(current.status, 'input_required', 'one question is still open')
  t.same(Object.keys(current.inputRequests!), ['b'])
  t.notOk('zzz' in current.inputResponses!, 'an answer to no question is dropped')
  const before = current.version
  await lifecycle.answer(record.taskId, { a: { result: { action: 'decline' } } })
  t.equal((await lifecycle.store.get(record.taskId))!.version, before, 'a second answer to a key changes nothing')
  await lifecycle.answer(record.taskId, { b: { error: { code: -1, message: 'no' } } })
  t.same(await second, { error: { code: -1, message: 'no' } })
  current = (await lifecycle.store.get(record.taskId))!
  t.equal(current.status, 'working', 'every question answered: working again')
  t.equal(current.inputRequests, undefined)
  t.same(await lifecycle.ask(record.taskId, 'a', question(1), signal), { result: { action: 'accept', content: { x: 1 } } }, 'a key answered already: its answer, no new question')
  t.equal((await lifecycle.store.get(record.taskId))!.status, 'working')
  await lifecycle.answer(record.taskId, { a: { result: {} } })
  await lifecycle.close()
})

t.test('ask: a task that ends (or aborts) first rejects with TaskEnded', async (t) => {
  const lifecycle = tasks()
  const record = (await lifecycle.start(call, 1000, never))!
  const waiting = lifecycle.ask(record.taskId, 'a', question(1), new AbortController().signal)
  await asked(lifecycle, record.taskId)
  await lifecycle.cancel(record.taskId)
  await t.rejects(waiting, TaskEnded)
  await t.rejects(lifecycle.ask(record.taskId, 'b', question(2), new AbortController().signal), /ended before the client answered/, 'a terminal task asks nothing')
  await t.rejects(lifecycle.ask('gone', 'b', question(2), new AbortController().signal), TaskEnded, 'nor an unknown one')

  const other = (await lifecycle.start(call, 1000, never))!
  const controller = new AbortController()
  const aborted = lifecycle.ask(other.taskId, 'a', question(1), controller.signal)
  await asked(lifecycle, other.taskId)
  controller.abort(new Error('stop'))
  await t.rejects(aborted, TaskEnded, 'an abort (cancel, expiry, close) ends the wait as the end of the task does')
  await lifecycle.close()
})

t.test('next resolves on any change; answer of a task with no questions does nothing', async (t) => {
  const lifecycle = tasks()
  const record = (await lifecycle.start(call, 1000, never))!
  await lifecycle.answer(record.taskId, { a: { result: {} } })
  t.equal((await lifecycle.store.get(record.taskId))!.version, 0)
  const changed = lifecycle.next(record.taskId, 0, new AbortController().signal)
  await tick() // the waiter reads version 0 and parks: nothing to watch from outside
  lifecycle.ask(record.taskId, 'a', question(1), new AbortController().signal).catch(() => {}) // rejected by close
  t.equal((await changed)!.version, 1)
  t.equal(await lifecycle.next(record.taskId, 1, AbortSignal.abort()), undefined, 'aborted')
  await lifecycle.close()
})

t.test('claims: one stream carries a question at a time', async (t) => {
  const lifecycle = tasks()
  t.equal(lifecycle.claim('t', 'k'), true)
  t.equal(lifecycle.claim('t', 'k'), false)
  t.equal(lifecycle.claim('t', 'other'), true)
  lifecycle.release('t', 'k')
  t.equal(lifecycle.claim('t', 'k'), true)
})

t.test('notify: a tasks/result outlet first, else the session stream over the bus, tagged with the task', async (t) => {
  const bus = new MemoryBus()
  const events: BusEvent[] = []
  bus.subscribe((event) => { if (event.type === 'sessionNotification') events.push(event) })
  const lifecycle = tasks({ bus })
  const sent: Array<[string, Record<string, unknown>]> = []
  let open = true
  const remove = lifecycle.outlets.add('t1', { notify: (method, params) => { if (open) sent.push([method, params]); return open } })
  t.equal(lifecycle.notify('t1', 's1', 'notifications/progress', { progress: 1, _meta: { x: 1 } }), true)
  t.same(sent, [['notifications/progress', { progress: 1, _meta: { x: 1, 'io.modelcontextprotocol/related-task': { taskId: 't1' } } }]])
  t.equal(events.length, 0, 'the outlet took it')
  open = false // the stream went away: the session's GET stream gets it
  t.equal(lifecycle.notify('t1', 's1', 'notifications/message', { level: 'info', data: 'hi' }), true)
  t.equal(events.length, 1)
  t.same(JSON.parse((events[0] as { message: string }).message), {
    jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } }
  })
  remove()
  t.equal(lifecycle.notify('t1', undefined, 'notifications/progress', { progress: 2 }), false, 'no outlet, no session: nowhere')
  const second = lifecycle.outlets.add('t2', { notify: () => true })
  const third = lifecycle.outlets.add('t2', { notify: () => true })
  second()
  t.equal(lifecycle.notify('t2', undefined, 'm', {}), true, 'one of two outlets removed: the other stays')
  third()
})

t.test('a session-bound task\'s status changes reach its session as notifications/tasks/status', async (t) => {
  const bus = new MemoryBus()
  const events: BusEvent[] = []
  bus.subscribe((event) => { events.push(event) })
  const lifecycle = tasks({ bus })
  const legacy = { era: 'legacy', protocolVersion: '2025-11-25', sessionId: 's9', transport: call.transport } as unknown as Call
  const record = (await lifecycle.start(legacy, 1000, never))!
  t.equal(record.sessionId, 's9')
  lifecycle.ask(record.taskId, 'a', question(1), new AbortController().signal).catch(() => {}) // rejected by close
  await until(() => events.some((e) => e.type === 'sessionNotification'), { what: 'the status change to reach the session' })
  lifecycle.ask(record.taskId, 'b', question(2), new AbortController().signal).catch(() => {}) // rejected by close
  // both changes published (a status notification would go out with the second, in the same tick)
  await until(() => events.filter((e) => e.type === 'taskStatus').length === 2, { what: 'the second question\'s change on the bus' })
  const statuses = events.filter((e) => e.type === 'sessionNotification').map((e) => JSON.parse((e as { message: string }).message))
  t.equal(statuses.length, 1, 'a second question is no status change')
  t.equal(statuses[0].method, 'notifications/tasks/status')
  t.equal(statuses[0].params.status, 'input_required')
  t.equal(statuses[0].params.taskId, record.taskId)
  t.equal(events.filter((e) => e.type === 'taskStatus').length, 2, 'every change is on the bus for waiters')
  const modern = (await lifecycle.start({ era: 'modern', protocolVersion: '2026-07-28', sessionId: undefined, transport: call.transport } as unknown as Call, 1000, never))!
  t.equal(modern.sessionId, undefined, 'no session in 2026-07-28')
  await lifecycle.close()
})

t.test('a bus that fails does not fail the task', async (t) => {
  const bus = new MemoryBus()
  bus.publish = async () => { throw new Error('bus down') }
  const lifecycle = tasks({ bus })
  const record = (await lifecycle.start({ era: 'legacy', protocolVersion: '2025-11-25', sessionId: 's', transport: call.transport } as unknown as Call, 1000, never))!
  t.equal(await lifecycle.cancel(record.taskId), true)
  t.equal((await lifecycle.store.get(record.taskId))!.status, 'cancelled')
  await lifecycle.close()
})
