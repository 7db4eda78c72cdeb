/**
 * Where a running 2025-11-25 task's notifications go (its `progressToken` stays valid for the
 * task's life, and `ctx.notify` messages belong to it too): a `tasks/result` stream waiting on the
 * task on this instance, when one is open; otherwise the caller falls back to the session's
 * standalone stream (the spec: clients expect task messages on any stream, the GET one included).
 */
export interface Outlet {
  /** Sends one notification; false once the stream is gone. */
  notify (method: string, params: Record<string, unknown>): boolean
}

export class TaskOutlets {
  private readonly open = new Map<string, Set<Outlet>>()

  /** Registers a stream waiting on `taskId`; returns the function that removes it. */
  add (taskId: string, outlet: Outlet): () => void {
    let set = this.open.get(taskId)
    if (set === undefined) {
      set = new Set()
      this.open.set(taskId, set)
    }
    set.add(outlet)
    return () => {
      set.delete(outlet)
      if (set.size === 0 && this.open.get(taskId) === set) this.open.delete(taskId)
    }
  }

  /** Sends on the first open stream of `taskId` that takes it; false when none did. */
  notify (taskId: string, method: string, params: Record<string, unknown>): boolean {
    const set = this.open.get(taskId)
    if (set === undefined) return false
    for (const outlet of set) if (outlet.notify(method, params)) return true
    return false
  }
}
