/**
 * The task state machine: which status may follow which. The store only compares and sets; which
 * transition is legal is decided here, never in a store.
 */
import type { TaskPatch, TaskRecord, TaskStatus } from '../../state/task-store.js'

/**
 * Legal transitions: terminal statuses have none. A live status may stay what it is while its
 * questions change (a second question, a partial answer).
 */
const NEXT: Readonly<Record<TaskStatus, ReadonlySet<TaskStatus>>> = {
  working: new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  input_required: new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  completed: new Set(),
  failed: new Set(),
  cancelled: new Set()
}

export function legal (from: TaskStatus, to: TaskStatus): boolean {
  return NEXT[from].has(to)
}

/** A change of a live task, computed from the record as read; undefined: nothing to change. */
export type Change = (record: TaskRecord) => (TaskPatch & { status: TaskStatus }) | undefined

/** How a task's work ended: what the store keeps. */
export type Outcome = Pick<TaskPatch, 'status' | 'statusMessage' | 'result' | 'error'>
  & { status: 'completed' | 'failed' }
