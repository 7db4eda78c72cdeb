/**
 * The default task store: a Map in creation order, bounded in count, each record dropped once past
 * its ttl (checked on read, and swept on an unref'd timer).
 */
import { TERMINAL, type TaskPage, type TaskPatch, type TaskRecord, type TaskStore } from './task-store.js'

export interface MemoryTaskStoreOptions {
  /** Most records kept; the oldest terminal one makes room, and a store full of live tasks refuses. */
  maxTasks: number
  /** Clock, for tests. */
  now?: () => number
  /** Sweep interval in ms (default 60000). */
  sweepInterval?: number
}

export class MemoryTaskStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>()
  private readonly maxTasks: number
  private readonly now: () => number
  private readonly timer: NodeJS.Timeout

  constructor (options: MemoryTaskStoreOptions) {
    this.maxTasks = options.maxTasks
    this.now = options.now ?? Date.now
    this.timer = setInterval(() => this.sweep(), options.sweepInterval ?? 60_000)
    this.timer.unref()
  }

  get size (): number {
    return this.records.size
  }

  create (record: TaskRecord): boolean {
    if (this.records.size >= this.maxTasks && !this.makeRoom()) return false
    this.records.set(record.taskId, record)
    return true
  }

  get (taskId: string): TaskRecord | undefined {
    const record = this.records.get(taskId)
    if (record === undefined) return undefined
    if (this.expired(record)) {
      this.records.delete(taskId)
      return undefined
    }
    return record
  }

  transition (taskId: string, version: number, patch: TaskPatch): boolean {
    const record = this.get(taskId)
    if (record === undefined || record.version !== version) return false
    this.records.set(taskId, { ...record, ...patch, version: version + 1 })
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
    this.records.delete(taskId)
  }

  close (): void {
    clearInterval(this.timer)
    this.records.clear()
  }

  /** A record is kept until `createdAt + ttl`; a live one past it is the lifecycle's to fail first. */
  private expired (record: TaskRecord): boolean {
    return TERMINAL.has(record.status) && this.now() >= (record.keepUntil ?? record.createdAt + record.ttl)
  }

  /** Drops the oldest terminal record; false when every record is a live task. */
  private makeRoom (): boolean {
    for (const [id, record] of this.records) {
      if (TERMINAL.has(record.status)) {
        this.records.delete(id)
        return true
      }
    }
    return false
  }

  sweep (): void {
    for (const [id, record] of this.records) {
      if (this.expired(record)) this.records.delete(id)
    }
  }
}
