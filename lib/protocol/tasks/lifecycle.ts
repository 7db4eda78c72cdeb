/**
 * The task lifecycle (issue 13): the tasks running on this instance, their changes (each a legal
 * transition, `transitions.ts`), their questions to the client and the answers, ttl expiry and
 * server close. Transport-free, like the rest of `protocol/`.
 */
import { setMaxListeners } from 'node:events'
import { TaskEnded, TooManyQuestions } from '../../errors.js'
import { INTERNAL_ERROR, notificationText } from '../../spec/jsonrpc.js'
import { META_RELATED_TASK } from '../../spec/meta-keys.js'
import { isObject } from '../../values.js'
import type { Bus } from '../../state/bus.js'
import type { Liveness } from '../../state/liveness.js'
import { quotaRefusal, type QuotaBounds } from '../../state/quota.js'
import {
  TERMINAL, type TaskAnswer, type TaskPatch, type TaskQuestion, type TaskRecord, type TaskStatus, type TaskStore
} from '../../state/task-store.js'
import type { Logger } from '../../spec/types.js'
import type { Call } from '../call.js'
import { TaskOutlets } from './outlets.js'
import { newRecord, ownerOf } from './records.js'
import { legal, type Change, type Outcome } from './transitions.js'
import { TaskWaiters } from './waiters.js'
import { taskWire } from './wire.js'

/** How long an expired task stays readable after it failed, in ms. */
const EXPIRED_GRACE = 60_000

/** The shortest ttl a client is granted, in ms: `ttl: 0` would fail a task the moment it is made. */
const MIN_TTL = 1000

/**
 * How long past its ttl a live record may be before any instance takes it as orphaned (the one
 * running it died, or restarted, with a shared store) and fails it: its own instance would have.
 */
const ORPHANED_AFTER = 10_000

/** Questions one task may wait on at once: each is a record write, and waiters re-read it. */
export const MAX_PENDING_QUESTIONS = 50

const EXPIRED = 'the task expired (its ttl is over)'
/** Why a task still running when its server closed failed. */
export const CLOSED = 'the server closed before the task finished; call again'

export interface TaskSettings {
  readonly store: TaskStore
  readonly bus: Bus
  /** The ttl of a task whose creator asked none, in ms. */
  readonly ttl: number
  /** The longest ttl granted, in ms. */
  readonly maxTtl: number
  /** Suggested polling interval, in ms. */
  readonly pollInterval: number
  /** Tasks per `tasks/list` page. */
  readonly pageSize: number
  /** How long server close waits for cancelled handlers, in ms. */
  readonly closeTimeout: number
  /** The store's bounds (`tasks.maxPerCaller`, `tasks.maxTasks`), which a refusal names. */
  readonly bounds?: QuotaBounds | undefined
  readonly now?: () => number
  /** Where the failures of work detached from any request go (a task store that fails while settling, say). */
  readonly log?: Logger | undefined
  /** Where a task running here is recorded as this instance's, for a survivor to fail it if the instance dies. */
  readonly liveness?: Liveness | undefined
}

/** What a running task holds on this instance. */
interface Running {
  readonly controller: AbortController
  readonly done: Promise<void>
  readonly expiry: NodeJS.Timeout
}

export class Tasks {
  readonly store: TaskStore
  readonly pollInterval: number
  readonly pageSize: number
  /** The `tasks/result` streams open on this instance, by task: where a 2025 task's progress goes. */
  readonly outlets = new TaskOutlets()
  private readonly now: () => number
  private readonly bounds: QuotaBounds
  private readonly running = new Map<string, Running>()
  private readonly waiters: TaskWaiters
  /** Questions a `tasks/result` stream of this instance is carrying now (`taskId key`): asked once at a time. */
  private readonly carrying = new Set<string>()
  private unsubscribe: (() => void) | undefined
  private closed = false

  constructor (private readonly settings: TaskSettings) {
    this.store = settings.store
    this.pollInterval = settings.pollInterval
    this.pageSize = settings.pageSize
    this.now = settings.now ?? Date.now
    this.bounds = settings.bounds ?? { perCaller: Infinity, total: Infinity }
    this.waiters = new TaskWaiters(this.store)
  }

  /** The ttl granted for a requested one (undefined: none asked). */
  grant (requested: number | undefined): number {
    // a client's ttl is raised to the minimum; the server's own maxTtl stays the cap
    return Math.min(Math.max(MIN_TTL, requested ?? this.settings.ttl), this.settings.maxTtl)
  }

  /**
   * Creates a task (durably, before the caller answers) and runs `work` detached from the request:
   * its signal aborts on cancel, expiry or server close. Undefined when the server is closing;
   * throws the quota's error (429 or 503) when the store's bounds refuse the task.
   */
  async start (
    call: Call, ttl: number, work: (signal: AbortSignal, taskId: string) => Promise<Outcome>
  ): Promise<TaskRecord | undefined> {
    if (this.closed) return undefined
    const record = newRecord(call, ttl, this.pollInterval, this.now())
    const caller = call.transport.caller
    const owned = { kind: 'task', taskId: record.taskId } as const
    // recorded as this instance's before it exists: a task nobody could end if this instance died
    // would be polled until its ttl
    await this.settings.liveness?.own(owned)
    const created = await this.store.create(record)
    if (created !== true) {
      await this.settings.liveness?.release(owned)
      // a store that only says no (false) is full
      const bound = created === 'caller' ? 'caller' : 'total'
      const limit = this.bounds[bound === 'caller' ? 'perCaller' : 'total']
      throw quotaRefusal('tasks', bound, limit, caller, call.transport.log)
    }
    this.listen()
    const controller = new AbortController()
    // each question waiting (up to MAX_PENDING_QUESTIONS) listens to the task's signal
    setMaxListeners(MAX_PENDING_QUESTIONS + 10, controller.signal)
    const expiry = setTimeout(() => { this.detached(this.expire(record.taskId), 'expiring a task') }, ttl)
    expiry.unref()
    const done = (async () => {
      let outcome: Outcome
      try {
        outcome = await work(controller.signal, record.taskId)
      /* c8 ignore start: `work` (methods/tools.ts runTask) turns every error into an outcome; this
         guard is for a logger that throws, so that a task never stays `working` forever */
      } catch {
        outcome = { status: 'failed', statusMessage: 'the task failed with an internal error', error: { code: -32603, message: 'Internal error' } }
      }
      /* c8 ignore stop */
      clearTimeout(expiry)
      this.running.delete(record.taskId)
      await this.settle(record.taskId, outcome).catch((err: unknown) => { this.failed(err, 'storing how a task ended') })
      await (async () => { await this.settings.liveness?.release(owned) })().catch((err: unknown) => {
        this.settings.log?.error({ err }, 'fastify-sake: the liveness store failed while forgetting a task that ended ' +
          '(harmless: a survivor that takes this instance over finds the task ended)')
      })
    })()
    this.running.set(record.taskId, { controller, done, expiry })
    return record
  }

  /** The record if `call`'s owner may see it; otherwise undefined, the same as an unknown id. */
  async find (call: Call, taskId: string): Promise<TaskRecord | undefined> {
    const record = await this.store.get(taskId)
    if (record === undefined || record.owner !== ownerOf(call)) return undefined
    if (!TERMINAL.has(record.status) && !this.running.has(taskId) && this.now() > record.createdAt + record.ttl + ORPHANED_AFTER) {
      // orphaned: nobody will end it; this instance does, and answers with what it wrote
      await this.expire(taskId)
      return await this.store.get(taskId)
    }
    return record
  }

  /**
   * Applies `change` to a live task (compare-and-set on its version, read again when another
   * writer won), then wakes its waiters. Returns the record as changed, or undefined when the task
   * is gone, `change` has nothing to do, or the status it asks is not legal (terminal never changes).
   */
  async update (taskId: string, change: Change): Promise<TaskRecord | undefined> {
    for (;;) {
      const record = await this.store.get(taskId)
      if (record === undefined) return undefined
      const patch = change(record)
      if (patch === undefined || !legal(record.status, patch.status)) return undefined
      const stamped = { ...patch, lastUpdatedAt: this.now() }
      if (await this.store.transition(taskId, record.version, stamped)) {
        const changed: TaskRecord = { ...record, ...stamped, version: record.version + 1 }
        this.changed(changed, record.status)
        return changed
      }
      // another writer changed it between our read and our write: read again
    }
  }

  /** Moves a live task to `patch.status`; false when it is already terminal (or gone). */
  async move (taskId: string, patch: TaskPatch & { status: TaskStatus }): Promise<boolean> {
    return await this.update(taskId, () => patch) !== undefined
  }

  /**
   * A running task asks the client `question` under `key`: the task is `input_required` until
   * every question it waits on is answered. Resolves with the answer (`answer`, below), or rejects
   * with `TaskEnded` when the task ends (or its signal aborts) first.
   */
  async ask (taskId: string, key: string, question: TaskQuestion, signal: AbortSignal): Promise<TaskAnswer> {
    const answered = (record: TaskRecord | undefined): boolean =>
      record === undefined || TERMINAL.has(record.status) || (record.inputResponses !== undefined && Object.hasOwn(record.inputResponses, key))
    // a key answered already is not asked again (keys are unique over a task's life)
    let full = false
    await this.update(taskId, (record) => {
      if (answered(record)) return undefined
      const pending = record.inputRequests ?? {}
      full = !Object.hasOwn(pending, key) && Object.keys(pending).length >= MAX_PENDING_QUESTIONS
      return full ? undefined : { status: 'input_required', inputRequests: { ...pending, [key]: question } }
    })
    if (full) throw new TooManyQuestions(taskId, MAX_PENDING_QUESTIONS)
    const record = await this.waiters.until(taskId, signal, answered)
    const answer = record?.inputResponses?.[key]
    // the task's signal aborts when it is cancelled, expires or the server closes: ended, all the same
    if (answer === undefined || signal.aborted) throw new TaskEnded(taskId)
    return answer
  }

  /**
   * Delivers the client's answers (`tasks/update`, or 2025 responses on a `tasks/result` stream):
   * each one for a question the task still waits on is taken, the others are ignored, as the
   * extension says. The task is `working` again once nothing is left unanswered.
   */
  async answer (taskId: string, answers: Readonly<Record<string, TaskAnswer>>): Promise<void> {
    await this.update(taskId, (record) => {
      const pending = record.inputRequests
      if (pending === undefined) return undefined
      const keys = Object.keys(answers).filter((key) => Object.hasOwn(pending, key))
      if (keys.length === 0) return undefined
      const left: Record<string, TaskQuestion> = { ...pending }
      const responses: Record<string, TaskAnswer> = { ...record.inputResponses }
      for (const key of keys) {
        delete left[key]
        responses[key] = answers[key]!
      }
      const waiting = Object.keys(left).length > 0
      return { status: waiting ? 'input_required' : 'working', inputRequests: waiting ? left : undefined, inputResponses: responses }
    })
  }

  /** Cancels a live task: `cancelled` before the answer, then the handler is told (ctx.signal). */
  async cancel (taskId: string, statusMessage = 'cancelled by the client'): Promise<boolean> {
    if (!await this.move(taskId, { status: 'cancelled', statusMessage })) return false
    this.running.get(taskId)?.controller.abort(new Error(statusMessage))
    return true
  }

  /** Claims the carrying of a question by one stream; false when another stream here carries it. */
  claim (taskId: string, key: string): boolean {
    const id = `${taskId} ${key}`
    if (this.carrying.has(id)) return false
    this.carrying.add(id)
    return true
  }

  release (taskId: string, key: string): void {
    this.carrying.delete(`${taskId} ${key}`)
  }

  /**
   * A running 2025 task's notification (progress, a log message), tagged with its task: on a
   * `tasks/result` stream waiting on it here, else on its session's standalone stream, wherever
   * that is open. False when there is neither.
   */
  notify (taskId: string, sessionId: string | undefined, method: string, params: Record<string, unknown>): boolean {
    const meta = isObject(params._meta) ? params._meta : {}
    const tagged = { ...params, _meta: { ...meta, [META_RELATED_TASK]: { taskId } } }
    if (this.outlets.notify(taskId, method, tagged)) return true
    if (sessionId === undefined) return false
    this.publish({ type: 'sessionNotification', sessionId, message: notificationText(method, tagged) })
    return true
  }

  /**
   * A 2025 session ended (DELETE): the tasks it owns (with auth off the session is the owner) are
   * cancelled, since nobody can reach them any more. With auth on they belong to the subject and
   * go on.
   */
  async endSession (sessionId: string): Promise<void> {
    const owner = `session:${sessionId}`
    let cursor: string | undefined
    do {
      const page = await this.store.list(owner, cursor, this.pageSize)
      // a networked store may forget a cursor between two pages (its record expired meanwhile); the
      // memory store keeps every record until its ttl, so no test reaches this: what is left expires on its own
      /* c8 ignore next */
      if (page === undefined) return
      for (const record of page.tasks) if (!TERMINAL.has(record.status)) await this.cancel(record.taskId, 'the session ended')
      cursor = page.nextCursor
    } while (cursor !== undefined)
  }

  /** Resolves with the terminal record (or undefined when it vanished, or `signal` stopped the wait). */
  async wait (taskId: string, signal: AbortSignal): Promise<TaskRecord | undefined> {
    return await this.waiters.until(taskId, signal, (record) => record === undefined || TERMINAL.has(record.status))
  }

  /** Resolves with the record once it changed from `version` (undefined: vanished, or `signal` stopped the wait). */
  async next (taskId: string, version: number, signal: AbortSignal): Promise<TaskRecord | undefined> {
    return await this.waiters.until(taskId, signal, (record) => record === undefined || record.version !== version)
  }

  /**
   * Server close, within `closeTimeout`: with `grace` (a store that outlives this process), running
   * tasks may finish within it first; whatever still runs then becomes `failed` with a -32603 error
   * saying the server closed, and its handler is told to stop (without grace, at once, and the
   * handlers are awaited within the bound). New tasks are refused from now on.
   */
  async close (grace = false): Promise<void> {
    this.closed = true
    const running = [...this.running.entries()]
    let timer: NodeJS.Timeout | undefined
    const bound = new Promise<void>((resolve) => { timer = setTimeout(resolve, this.settings.closeTimeout) })
    // with a store that outlives this process (a fleet's), a task that ends within the bound is
    // simply done: its client reads the result on another instance
    if (grace) await Promise.race([Promise.all(running.map(([, r]) => r.done)), bound])
    for (const [taskId, { controller }] of running) {
      if (!this.running.has(taskId)) continue
      await this.fail(taskId, CLOSED, {}).catch((err: unknown) => { this.failed(err, 'failing a task at close') })
      // also when the task was not live any more (its record gone): its handler must stop regardless
      controller.abort(new Error(CLOSED))
    }
    if (!grace) await Promise.race([Promise.all(running.map(([, r]) => r.done)), bound])
    clearTimeout(timer)
    for (const [, r] of running) clearTimeout(r.expiry)
    this.unsubscribe?.()
    this.unsubscribe = undefined
  }

  private async settle (taskId: string, outcome: Outcome): Promise<void> {
    // a task cancelled (or expired) meanwhile stays so: the late outcome is dropped
    await this.move(taskId, outcome)
  }

  /**
   * A task whose instance died (`protocol/fleet.ts`): failed with a -32603 error saying why. One
   * that ended meanwhile stays as it ended.
   */
  async orphaned (taskId: string, why: string): Promise<void> {
    await this.fail(taskId, why, {})
  }

  private async expire (taskId: string): Promise<void> {
    // kept a little longer once failed, so that a poller or a waiting tasks/result learns why
    if (await this.fail(taskId, EXPIRED, { keepUntil: this.now() + EXPIRED_GRACE })) {
      this.running.get(taskId)?.controller.abort(new Error('the task expired'))
    }
  }

  /** Fails a live task with a -32603 error saying `why`; false when it had ended already. */
  private async fail (taskId: string, why: string, extra: TaskPatch): Promise<boolean> {
    const error = { code: INTERNAL_ERROR, message: `Internal error: ${why}` }
    return await this.move(taskId, { ...extra, status: 'failed', statusMessage: why, error })
  }

  /** Subscribes to status changes on the bus once the first task exists (other instances' too). */
  private listen (): void {
    this.unsubscribe ??= this.settings.bus.subscribe((event) => {
      if (event.type !== 'taskStatus') return
      this.waiters.wake(event.taskId)
      // a task running here, cancelled on another instance (tasks/cancel reached that one): stop its handler too
      if (this.running.has(event.taskId)) this.detached(this.stopIfEnded(event.taskId), 'reading a task another instance changed')
    })
  }

  private async stopIfEnded (taskId: string): Promise<void> {
    const record = await this.store.get(taskId)
    // the reason the other instance gave (tasks/cancel: 'cancelled by the client'), as a local cancel gives it
    if (record === undefined || TERMINAL.has(record.status)) this.running.get(taskId)?.controller.abort(new Error(record?.statusMessage ?? 'the task is gone'))
  }

  /**
   * After a change: the waiters here, the bus for the others (and for `notifications/tasks` on
   * listen streams), and the creating 2025-11-25 session's `notifications/tasks/status` when the
   * status itself changed.
   */
  private changed (record: TaskRecord, from: TaskStatus): void {
    this.waiters.wake(record.taskId)
    this.publish({ type: 'taskStatus', taskId: record.taskId })
    if (record.sessionId !== undefined && record.status !== from) {
      this.publish({ type: 'sessionNotification', sessionId: record.sessionId, message: notificationText('notifications/tasks/status', taskWire(record)) })
    }
  }

  /** Runs work no request waits for: a failure (a store that is down) is logged, never an unhandled rejection. */
  private detached (work: Promise<unknown>, what: string): void {
    work.catch((err: unknown) => { this.failed(err, what) })
  }

  private failed (err: unknown, what: string): void {
    this.settings.log?.error({ err }, `fastify-sake: the task store failed while ${what}`)
  }

  /** A bus that fails must not fail the task: its pollers still read the store. */
  private publish (event: Parameters<Bus['publish']>[0]): void {
    // a bus that throws at once, or later, alike
    ;(async () => { await this.settings.bus.publish(event) })().catch(noop)
  }
}

function noop (): void {}
