/**
 * Who waits on a task on this instance (a `tasks/result`, a question waiting for its answer): each
 * waits until the record read from the store holds what it waits for, and is woken by every change
 * of the task, here or on another instance (the bus).
 */
import type { TaskRecord, TaskStore } from '../../state/task-store.js'

export class TaskWaiters {
  private readonly waiters = new Map<string, Set<() => void>>()

  constructor (private readonly store: TaskStore) {}

  /** Waits until `done` holds for the record (undefined: vanished, or `signal` stopped the wait). */
  async until (
    taskId: string, signal: AbortSignal, done: (record: TaskRecord | undefined) => boolean
  ): Promise<TaskRecord | undefined> {
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
        if (done(record)) return record
        await woken
      } finally {
        signal.removeEventListener('abort', onAbort)
        set.delete(wake)
        if (set.size === 0) this.waiters.delete(taskId)
      }
    }
  }

  /** A change of the task: every wait on it reads the record again. */
  wake (taskId: string): void {
    const set = this.waiters.get(taskId)
    if (set !== undefined) for (const wake of [...set]) wake()
  }
}
