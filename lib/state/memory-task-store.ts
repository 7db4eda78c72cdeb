/**
 * The default task store: a Map in creation order, each record dropped once past its ttl (checked
 * on read, and swept on an unref'd timer), and bounded in count per caller and in all (issue 40):
 * at a bound a new task is refused, and no task, running or kept, is dropped to make room.
 */
import { NO_CALLER, type QuotaBounds, type Refusal } from './quota.js'
import { TERMINAL, type TaskPage, type TaskPatch, type TaskRecord, type TaskStore } from './task-store.js'

export interface MemoryTaskStoreOptions {
  /** Most records kept, running or kept until their ttl; a new one beyond it is refused. */
  maxTasks: number
  /** Most records one caller (`record.caller`) holds; a new one beyond it is refused. Default: `maxTasks`. */
  maxPerCaller?: number
  /** Clock, for tests. */
  now?: () => number
  /** Sweep interval in ms (default 60000). */
  sweepInterval?: number
}

export class MemoryTaskStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>()
  /** Each caller's task ids: what its bound counts, and what a sweep at that bound looks at. */
  private readonly byCaller = new Map<string, Set<string>>()
  private readonly bounds: QuotaBounds
  /**
   * When the first kept (finished) record ends, as the last sweep left it or a later one finished:
   * before then nothing can be swept, and a store at its bound refuses without looking at each
   * record (a flood of refusals costs nothing per record).
   */
  private nextEnd = Infinity
  private readonly now: () => number
  private readonly timer: NodeJS.Timeout

  constructor (options: MemoryTaskStoreOptions) {
    this.bounds = { perCaller: options.maxPerCaller ?? options.maxTasks, total: options.maxTasks }
    this.now = options.now ?? Date.now
    this.timer = setInterval(() => this.sweep(), options.sweepInterval ?? 60_000)
    this.timer.unref()
  }

  get size (): number {
    return this.records.size
  }

  /** How many records `caller` holds now. */
  heldBy (caller: string): number {
    return this.byCaller.get(caller)?.size ?? 0
  }

  create (record: TaskRecord): true | Refusal {
    const caller = record.caller ?? NO_CALLER
    // at a bound, what is past its ttl goes first (once one can be): only live and kept records count
    if (this.heldBy(caller) >= this.bounds.perCaller) {
      if (this.now() >= this.nextEnd) for (const taskId of [...this.byCaller.get(caller)!]) this.get(taskId)
      if (this.heldBy(caller) >= this.bounds.perCaller) return 'caller'
    }
    if (this.records.size >= this.bounds.total) {
      if (this.now() >= this.nextEnd) this.sweep()
      if (this.records.size >= this.bounds.total) return 'total'
    }
    this.records.set(record.taskId, record)
    this.ending(record)
    const mine = this.byCaller.get(caller)
    if (mine === undefined) this.byCaller.set(caller, new Set([record.taskId]))
    else mine.add(record.taskId)
    return true
  }

  get (taskId: string): TaskRecord | undefined {
    const record = this.records.get(taskId)
    if (record === undefined) return undefined
    if (this.expired(record)) {
      this.delete(taskId)
      return undefined
    }
    return record
  }

  transition (taskId: string, version: number, patch: TaskPatch): boolean {
    const record = this.get(taskId)
    if (record === undefined || record.version !== version) return false
    const changed = { ...record, ...patch, version: version + 1 }
    this.records.set(taskId, changed)
    this.ending(changed)
    return true
  }

  list (owner: string, cursor: string | undefined, limit: number): TaskPage | undefined {
    let started = cursor === undefined
    // a cursor is one of the owner's own task ids: another owner's is as unknown as a made-up one,
    // so a page never tells a caller that someone else's task exists
    if (!started && this.records.get(cursor!)?.owner !== owner) return undefined
    const tasks: TaskRecord[] = []
    for (const record of this.records.values()) {
      if (!started) {
        started = record.taskId === cursor
        continue
      }
      if (record.owner !== owner || this.expired(record)) continue
      if (tasks.length === limit) return { tasks, nextCursor: tasks[tasks.length - 1]!.taskId }
      tasks.push(record)
    }
    return { tasks }
  }

  delete (taskId: string): void {
    const record = this.records.get(taskId)
    if (record === undefined) return
    this.records.delete(taskId)
    const caller = record.caller ?? NO_CALLER
    const mine = this.byCaller.get(caller)!
    mine.delete(taskId)
    if (mine.size === 0) this.byCaller.delete(caller)
  }

  close (): void {
    clearInterval(this.timer)
    this.records.clear()
    this.byCaller.clear()
  }

  /** A record is kept until `createdAt + ttl`; a live one past it is the lifecycle's to fail first. */
  private expired (record: TaskRecord): boolean {
    return TERMINAL.has(record.status) && this.now() >= endOf(record)
  }

  /** A record that finished: the first end to come may now be its. */
  private ending (record: TaskRecord): void {
    if (TERMINAL.has(record.status)) this.nextEnd = Math.min(this.nextEnd, endOf(record))
  }

  sweep (): void {
    this.nextEnd = Infinity
    for (const [id, record] of this.records) {
      if (this.expired(record)) this.delete(id)
      else this.ending(record)
    }
  }
}

/** When a finished record ends: its `keepUntil`, else `createdAt + ttl`. */
function endOf (record: TaskRecord): number {
  return record.keepUntil ?? record.createdAt + record.ttl
}
