/**
 * The task lifecycle (issue 13): the state machine, the tasks running on this instance, the
 * waiters of `tasks/result`, ttl expiry and server close. The store only compares and sets; which
 * transition is legal is decided here. Transport-free, like the rest of `protocol/`.
 */
import { randomUUID } from 'node:crypto'
import type { Bus } from '../../state/bus.js'
import { TERMINAL, type TaskPatch, type TaskRecord, type TaskStatus, type TaskStore } from '../../state/task-store.js'
import type { Call } from '../call.js'

/** Legal transitions: terminal statuses have none. */
const NEXT: Readonly<Record<TaskStatus, ReadonlySet<TaskStatus>>> = {
  working: new Set(['input_required', 'completed', 'failed', 'cancelled']),
  input_required: new Set(['working', 'completed', 'failed', 'cancelled']),
  completed: new Set(),
  failed: new Set(),
  cancelled: new Set()
}

/** How long an expired task stays readable after it failed, in ms. */
const EXPIRED_GRACE = 60_000

export function legal (from: TaskStatus, to: TaskStatus): boolean {
  return NEXT[from].has(to)
}

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
  readonly now?: () => number
}

/** What a running task holds on this instance. */
interface Running {
  readonly controller: AbortController
  readonly done: Promise<void>
  readonly expiry: NodeJS.Timeout
}

/** The owner a call's tasks are bound to (docs/architecture.md, Tasks: Binding). */
export function ownerOf (call: Call): string {
  if (call.auth !== undefined) return `sub:${call.auth.subject}`
  if (call.sessionId !== undefined) return `session:${call.sessionId}`
  return 'anonymous'
}

/** How a task's work ended: what the store keeps. */
export type Outcome = Pick<TaskPatch, 'status' | 'statusMessage' | 'result' | 'error'> & { status: 'completed' | 'failed' }

export class Tasks {
  readonly store: TaskStore
  readonly pollInterval: number
  readonly pageSize: number
  private readonly bus: Bus
  private readonly ttl: number
  private readonly maxTtl: number
  private readonly closeTimeout: number
  private readonly now: () => number
  private readonly running = new Map<string, Running>()
  private readonly waiters = new Map<string, Set<() => void>>()
  private unsubscribe: (() => void) | undefined
  private closed = false

  constructor (settings: TaskSettings) {
    this.store = settings.store
    this.bus = settings.bus
    this.ttl = settings.ttl
    this.maxTtl = settings.maxTtl
    this.pollInterval = settings.pollInterval
    this.pageSize = settings.pageSize
    this.closeTimeout = settings.closeTimeout
    this.now = settings.now ?? Date.now
  }

  /** The ttl granted for a requested one (undefined: none asked). */
  grant (requested: number | undefined): number {
    return Math.min(requested ?? this.ttl, this.maxTtl)
  }

  /**
   * Creates a task (durably, before the caller answers) and runs `work` detached from the request:
   * its signal aborts on cancel, expiry or server close. Undefined when the store is full.
   */
  async start (call: Call, ttl: number, work: (signal: AbortSignal) => Promise<Outcome>): Promise<TaskRecord | undefined> {
    if (this.closed) return undefined
    const now = this.now()
    const record: TaskRecord = {
      taskId: randomUUID(),
      owner: ownerOf(call),
      protocolVersion: call.protocolVersion,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      pollInterval: this.pollInterval
    }
    if (!await this.store.create(record)) return undefined
    this.listen()
    const controller = new AbortController()
    const expiry = setTimeout(() => { void this.expire(record.taskId) }, ttl)
    expiry.unref()
    const done = (async () => {
      let outcome: Outcome
      try {
        outcome = await work(controller.signal)
      /* c8 ignore start: `work` (methods/tools.ts runTask) turns every error into an outcome; this
         guard is for a logger that throws, so that a task never stays `working` forever */
      } catch {
        outcome = { status: 'failed', statusMessage: 'the task failed with an internal error', error: { code: -32603, message: 'Internal error' } }
      }
      /* c8 ignore stop */
      clearTimeout(expiry)
      this.running.delete(record.taskId)
      await this.settle(record.taskId, outcome)
    })()
    this.running.set(record.taskId, { controller, done, expiry })
    return record
  }

  /** The record if `call`'s owner may see it; otherwise undefined, the same as an unknown id. */
  async find (call: Call, taskId: string): Promise<TaskRecord | undefined> {
    const record = await this.store.get(taskId)
    return record === undefined || record.owner !== ownerOf(call) ? undefined : record
  }

  /**
   * Moves a live task to `status` (compare-and-set from whatever live status it has), then wakes
   * its waiters. False when the task is already terminal (or gone): terminal never changes.
   */
  async move (taskId: string, patch: TaskPatch & { status: TaskStatus }): Promise<boolean> {
    for (;;) {
      const record = await this.store.get(taskId)
      if (record === undefined || !legal(record.status, patch.status)) return false
      if (await this.store.transition(taskId, record.status, { ...patch, lastUpdatedAt: this.now() })) break
      // another writer moved it between our read and our write: read again
    }
    this.changed(taskId)
    return true
  }

  /** Cancels a live task: `cancelled` before the answer, then the handler is told (ctx.signal). */
  async cancel (taskId: string, statusMessage = 'cancelled by the client'): Promise<boolean> {
    if (!await this.move(taskId, { status: 'cancelled', statusMessage })) return false
    this.running.get(taskId)?.controller.abort(new Error(statusMessage))
    return true
  }

  /** Resolves with the terminal record (or undefined when it vanished); `signal` stops the wait. */
  async wait (taskId: string, signal: AbortSignal): Promise<TaskRecord | undefined> {
    for (;;) {
      let wake!: () => void
      const woken = new Promise<void>((resolve) => { wake = resolve })
      const set = this.waiters.get(taskId) ?? new Set()
      set.add(wake)
      this.waiters.set(taskId, set)
      const onAbort = (): void => wake()
      signal.addEventListener('abort', onAbort, { once: true })
      try {
        const record = await this.store.get(taskId)
        if (signal.aborted) return undefined
        if (record === undefined || TERMINAL.has(record.status)) return record
        await woken
      } finally {
        signal.removeEventListener('abort', onAbort)
        set.delete(wake)
        if (set.size === 0) this.waiters.delete(taskId)
      }
    }
  }

  /** Server close: every task running here is cancelled, and its handler awaited within a bound. */
  async close (): Promise<void> {
    this.closed = true
    const running = [...this.running.entries()]
    for (const [taskId, { controller }] of running) {
      await this.cancel(taskId, 'the server closed')
      // also when the task was not live any more (its record gone): its handler must stop regardless
      controller.abort(new Error('the server closed'))
    }
    let timer: NodeJS.Timeout | undefined
    const bound = new Promise<void>((resolve) => { timer = setTimeout(resolve, this.closeTimeout) })
    await Promise.race([Promise.all(running.map(([, r]) => r.done)), bound])
    clearTimeout(timer)
    for (const [, r] of running) clearTimeout(r.expiry)
    this.unsubscribe?.()
    this.unsubscribe = undefined
  }

  private async settle (taskId: string, outcome: Outcome): Promise<void> {
    // a task cancelled (or expired) meanwhile stays so: the late outcome is dropped
    await this.move(taskId, outcome)
  }

  private async expire (taskId: string): Promise<void> {
    // kept a little longer once failed, so that a poller or a waiting tasks/result learns why
    if (await this.move(taskId, { status: 'failed', statusMessage: 'the task expired (its ttl is over)', keepUntil: this.now() + EXPIRED_GRACE })) {
      this.running.get(taskId)?.controller.abort(new Error('the task expired'))
    }
  }

  /** Subscribes to status changes on the bus once the first task exists (other instances' too). */
  private listen (): void {
    this.unsubscribe ??= this.bus.subscribe((event) => {
      if (event.type === 'taskStatus') this.wake(event.taskId)
    })
  }

  private changed (taskId: string): void {
    this.wake(taskId)
    void this.bus.publish({ type: 'taskStatus', taskId })
  }

  private wake (taskId: string): void {
    const set = this.waiters.get(taskId)
    if (set !== undefined) for (const wake of [...set]) wake()
  }
}
