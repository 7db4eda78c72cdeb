// What a survivor does with a dead instance (issue 29), with the liveness store faked and the task
// and event stores in memory: a task of the dead instance fails with -32603, once; its resumable
// streams end with the call's -32603 response; a failing store is logged and the rest goes on.
// The real heartbeats and takeover are test/state/redis/liveness.test.ts; the whole fleet, with
// kill -9, test/e2e/fleet-survival.test.ts.
import t from 'tap'
import { Fleet, STOPPED } from '../../lib/protocol/fleet.js'
import { Tasks } from '../../lib/protocol/tasks/lifecycle.js'
import type { Outcome } from '../../lib/protocol/tasks/transitions.js'
import { MemoryBus } from '../../lib/state/memory-bus.js'
import { MemoryEventStore } from '../../lib/state/memory-event-store.js'
import { MemoryTaskStore } from '../../lib/state/memory-task-store.js'
import type { Liveness, Owned, TakenOver } from '../../lib/state/liveness.js'
import type { Call } from '../../lib/protocol/call.js'
import { until } from '../helpers/until.js'

const never = async (): Promise<Outcome> => await new Promise(() => {})
const call = { era: 'modern', protocolVersion: '2026-07-28', transport: { caller: 'ip:127.0.0.1' } } as unknown as Call

/** A liveness store that hands out what the test queued, and records what was owned. */
function fakeLiveness (): Liveness & { queue: TakenOver[], owned: Owned[], fail?: Error, releasedFrom: string[], done: string[] } {
  const fake = {
    instance: 'here',
    queue: [] as TakenOver[],
    owned: [] as Owned[],
    fail: undefined as Error | undefined,
    /** `instance kind` of each thing released for a dead instance. */
    releasedFrom: [] as string[],
    /** The instances declared taken over. */
    done: [] as string[],
    alive: () => true,
    own (item: Owned) { fake.owned.push(item) },
    release (item: Owned, instance?: string) {
      if (instance !== undefined) fake.releasedFrom.push(`${instance} ${item.kind}`)
      else fake.owned = fake.owned.filter((o) => JSON.stringify(o) !== JSON.stringify(item))
    },
    takeOver () {
      if (fake.fail !== undefined) throw fake.fail
      return fake.queue.splice(0)
    },
    takenOver (instance: string) { fake.done.push(instance) }
  }
  return fake
}

interface Line { level: 'warn' | 'error', msg: string, [field: string]: any }

/** A logger that keeps what it was told. */
function recording (): { logger: any, lines: Line[] } {
  const lines: Line[] = []
  const logger: any = {
    warn: (fields: object, msg: string) => lines.push({ ...fields, level: 'warn', msg }),
    error: (fields: object, msg: string) => lines.push({ ...fields, level: 'error', msg }),
    info: () => {},
    debug: () => {},
    child: () => logger
  }
  return { logger, lines }
}

function setup (): { fleet: Fleet, tasks: Tasks, events: MemoryEventStore, liveness: ReturnType<typeof fakeLiveness>, log: ReturnType<typeof recording> } {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const events = new MemoryEventStore({ maxPerStream: 10, maxEvents: 100, idleTimeout: 60_000 })
  const liveness = fakeLiveness()
  const tasks = new Tasks({ store, bus: new MemoryBus(), ttl: 10_000, maxTtl: 20_000, pollInterval: 500, pageSize: 10, closeTimeout: 50, liveness })
  const log = recording()
  t.teardown(async () => {
    await tasks.close()
    store.close()
    events.close()
  })
  return { fleet: new Fleet(liveness, tasks, events, log.logger), tasks, events, liveness, log }
}

t.test('a task runs as this instance\'s while it runs, and no longer once it ended', async (t) => {
  const { tasks, liveness } = setup()
  const record = await tasks.start(call, 5000, async () => ({ status: 'completed', result: { content: [] } }))
  t.same(liveness.owned, [{ kind: 'task', taskId: record!.taskId }], 'owned from the start')
  await until(() => liveness.owned.length === 0, { what: 'the task to be released' })
})

t.test('a liveness store failing to forget an ended task is logged; the task stays as it ended', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  t.teardown(() => store.close())
  const liveness = fakeLiveness()
  liveness.release = () => { throw new Error('liveness away') }
  const log = recording()
  const tasks = new Tasks({ store, bus: new MemoryBus(), ttl: 10_000, maxTtl: 20_000, pollInterval: 500, pageSize: 10, closeTimeout: 50, liveness, log: log.logger })
  const record = await tasks.start(call, 5000, async () => ({ status: 'completed', result: { content: [] } }))
  await until(() => log.lines.length > 0, { what: 'the failure to be logged' })
  t.match(log.lines[0], { level: 'error', err: { message: 'liveness away' }, msg: /the liveness store failed while forgetting a task that ended/ })
  t.equal((await store.get(record!.taskId))!.status, 'completed')
})

t.test('the dead instance\'s task fails with -32603; its waiter sees it; a second takeover changes nothing', async (t) => {
  const { fleet, tasks, liveness, log } = setup()
  // a task as the dead instance left it: working, run by nobody here
  const record = await tasks.start(call, 5000, never)
  const waiting = tasks.wait(record!.taskId, new AbortController().signal)
  liveness.queue.push({ instance: 'dead', owned: [{ kind: 'task', taskId: record!.taskId }] })
  await fleet.sweep()
  const ended = await waiting
  t.equal(ended!.status, 'failed')
  t.equal(ended!.statusMessage, STOPPED)
  t.same(ended!.error, { code: -32603, message: `Internal error: ${STOPPED}` })
  t.match(log.lines.find((line) => line.msg.startsWith('fastify-sake: instance dead stopped')), { level: 'warn', instance: 'dead', owned: 1 })
  t.same(liveness.releasedFrom, ['dead task'], 'the task forgotten once ended, under the dead instance')
  t.same(liveness.done, ['dead'], 'and the takeover declared done')
  liveness.queue.push({ instance: 'dead', owned: [{ kind: 'task', taskId: record!.taskId }] })
  await fleet.sweep()
  t.equal((await tasks.store.get(record!.taskId))!.version, ended!.version, 'a task that ended stays as it ended')
})

t.test('the dead instance\'s resumable stream ends with the call\'s -32603 response', async (t) => {
  const { fleet, events, liveness } = setup()
  const priming = events.append('s1/abc0', '')
  events.append('s1/abc0', '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}')
  liveness.queue.push({ instance: 'dead', owned: [{ kind: 'stream', streamId: 's1/abc0', requestId: 'call-7' }] })
  await fleet.sweep()
  const replay = events.replay(priming)!
  t.same(JSON.parse(replay.events.at(-1)!.message), { jsonrpc: '2.0', id: 'call-7', error: { code: -32603, message: `Internal error: ${STOPPED}` } })
})

t.test('a failing store: the takeover is tried again later; one item failing leaves the others', async (t) => {
  const { fleet, tasks, events, liveness, log } = setup()
  liveness.fail = new Error('redis away')
  await fleet.sweep()
  t.match(log.lines.at(-1), { level: 'warn', msg: /the liveness store failed while looking for dead instances/ })
  liveness.fail = undefined
  const record = await tasks.start(call, 5000, never)
  events.append = () => { throw new Error('events away') }
  liveness.queue.push({ instance: 'dead', owned: [{ kind: 'stream', streamId: 's/x', requestId: 1 }, { kind: 'task', taskId: record!.taskId }] })
  await fleet.sweep()
  t.ok(log.lines.some((line) => line.level === 'error' && line.msg === 'fastify-sake: a store failed while ending the work of a dead instance; another survivor tries again' && line.err.message === 'events away'))
  t.equal((await tasks.store.get(record!.taskId))!.status, 'failed', 'the task after the failing stream still ended')
  t.same(liveness.releasedFrom, ['dead task'], 'only what ended is forgotten')
  t.same(liveness.done, [], 'the takeover is not declared done: the stream is left for the next survivor')
})

t.test('a liveness store failing to forget a dead instance taken over is a warning', async (t) => {
  const { fleet, liveness, log } = setup()
  liveness.takenOver = () => { throw new Error('liveness away') }
  liveness.queue.push({ instance: 'dead', owned: [] })
  await fleet.sweep()
  t.match(log.lines.at(-1), { level: 'warn', instance: 'dead', err: { message: 'liveness away' }, msg: /the liveness store failed while forgetting a dead instance taken over/ })
})

t.test('start sweeps on a timer, one sweep at a time; stop waits for the one running', async (t) => {
  const { fleet, liveness } = setup()
  let sweeps = 0
  let release!: () => void
  liveness.takeOver = async () => {
    sweeps++
    await new Promise<void>((resolve) => { release = resolve })
    return []
  }
  fleet.start(5)
  await until(() => sweeps === 1, { what: 'the first sweep' })
  await new Promise((resolve) => setTimeout(resolve, 40)) // the point: eight intervals pass, and no second sweep starts
  t.equal(sweeps, 1, 'no second sweep while the first runs')
  const stopped = fleet.stop()
  release()
  await stopped
  await new Promise((resolve) => setTimeout(resolve, 30)) // the point: six intervals pass, and no sweep starts
  t.equal(sweeps, 1, 'none after stop')
})
