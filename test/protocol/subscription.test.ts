// One subscriptions/listen on its own, whatever carries it: the acknowledgement, what the bus brings
// that the filter asks for, tagged; the tasks it follows, in order; and nothing once it stopped.
import t from 'tap'
import { MemoryBus } from '../../lib/state/memory-bus.js'
import { MemoryTaskStore } from '../../lib/state/memory-task-store.js'
import type { TaskRecord, TaskStore } from '../../lib/state/task-store.js'
import { subscribe } from '../../lib/protocol/subscription.js'
import type { Logger } from '../../lib/spec/types.js'
import { quiet } from '../helpers/logs.js'

const now = Date.now()
const task = (taskId: string): TaskRecord => ({ taskId, version: 0, owner: 'anonymous', protocolVersion: '2026-07-28', status: 'working', createdAt: now, lastUpdatedAt: now, ttl: 60_000 })
const flush = async (): Promise<void> => await new Promise((resolve) => setImmediate(resolve))

t.test('acknowledged, then what the filter asks for, tagged with the subscription id; nothing after stop', async (t) => {
  const bus = new MemoryBus()
  const tasks = new MemoryTaskStore({ maxTasks: 10 })
  tasks.create(task('t1'))
  const sent: any[] = []
  const sub = subscribe(bus, 7, { toolsListChanged: true, resourceSubscriptions: ['a://x'], taskIds: ['t1'] }, tasks, (text) => sent.push(JSON.parse(text)), quiet)
  await flush()
  await bus.publish({ type: 'listChanged', list: 'tools' })
  await bus.publish({ type: 'listChanged', list: 'prompts' })
  await bus.publish({ type: 'resourceUpdated', uri: 'a://x' })
  await bus.publish({ type: 'resourceUpdated', uri: 'a://y' })
  tasks.transition('t1', 0, { status: 'completed' })
  await bus.publish({ type: 'taskStatus', taskId: 't1' })
  await bus.publish({ type: 'taskStatus', taskId: 'other' })
  await flush()
  t.same(sent.map((m) => m.method), ['notifications/subscriptions/acknowledged', 'notifications/tasks', 'notifications/tools/list_changed', 'notifications/resources/updated', 'notifications/tasks'])
  for (const message of sent) t.same(message.params._meta['io.modelcontextprotocol/subscriptionId'], 7)
  t.same(sent.filter((m) => m.method === 'notifications/tasks').map((m) => m.params.status), ['working', 'completed'])
  t.same(JSON.parse(sub.finalResponse()), { jsonrpc: '2.0', id: 7, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } } })
  sub.stop()
  await bus.publish({ type: 'listChanged', list: 'tools' })
  t.equal(sent.length, 5, 'nothing after stop')

  const plain: any[] = []
  const noTasks = subscribe(bus, 8, { promptsListChanged: true }, tasks, (text) => plain.push(JSON.parse(text)), quiet)
  await bus.publish({ type: 'taskStatus', taskId: 't1' })
  await bus.publish({ type: 'listChanged', list: 'prompts' })
  await flush()
  t.same(plain.map((m) => m.method), ['notifications/subscriptions/acknowledged', 'notifications/prompts/list_changed'], 'no tasks followed: no task notifications')
  noTasks.stop()
})

t.test('a task read that ends after the listen stopped sends nothing; a store that fails is logged', async (t) => {
  const bus = new MemoryBus()
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  const slow = { get: async (id: string) => { await gate; return task(id) } } as unknown as TaskStore
  const sent: string[] = []
  const sub = subscribe(bus, 'l', { taskIds: ['t1'] }, slow, (text) => sent.push(text), quiet)
  sub.stop()
  release()
  await flush()
  t.equal(sent.length, 1, 'the acknowledgement alone')

  const errors: unknown[] = []
  const log: Logger = { ...quiet, error: (obj) => { errors.push(obj) } }
  const failing = { get: async () => { throw new Error('down') } } as unknown as TaskStore
  subscribe(bus, 'm', { taskIds: ['t1'] }, failing, () => {}, log)
  await flush()
  t.match(errors, [{ err: { message: 'down' } }])
})
