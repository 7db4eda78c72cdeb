/**
 * A task record as each era puts it on the wire: the 2025-11-25 `Task` (tasks/get, tasks/list,
 * notifications/tasks/status) and the 2026-07-28 extension's `Task` and `DetailedTask`
 * (CreateTaskResult, tasks/get, notifications/tasks).
 */
import type { TaskRecord } from '../../state/task-store.js'

/**
 * 2025-11-25 says `ttl` and `pollInterval`, the 2026-07-28 extension `ttlMs` and `pollIntervalMs`,
 * where a poll interval must be a positive integer when present (0 would tell a client to poll
 * without pause).
 */
function wireTask (record: TaskRecord, modern: boolean): Record<string, unknown> {
  const task: Record<string, unknown> = {
    taskId: record.taskId,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    [modern ? 'ttlMs' : 'ttl']: record.ttl
  }
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage
  const poll = record.pollInterval
  if (poll !== undefined && (!modern || poll > 0)) task[modern ? 'pollIntervalMs' : 'pollInterval'] = poll
  return task
}

/** A 2025-11-25 `Task`. */
export function taskWire (record: TaskRecord): Record<string, unknown> {
  return wireTask(record, false)
}

/** A 2026-07-28 `Task` (the extension's field names), as a CreateTaskResult carries it. */
export function modernTask (record: TaskRecord): Record<string, unknown> {
  return wireTask(record, true)
}

/**
 * A 2026-07-28 `DetailedTask`: the `Task` with what its status carries, `inputRequests` while
 * `input_required`, `result` once completed, `error` once failed. What `tasks/get` answers and
 * `notifications/tasks` sends.
 */
export function detailedTask (record: TaskRecord): Record<string, unknown> {
  const task = modernTask(record)
  if (record.status === 'input_required' && record.inputRequests !== undefined) task.inputRequests = record.inputRequests
  if (record.status === 'completed' && record.result !== undefined) task.result = record.result
  if (record.status === 'failed' && record.error !== undefined) task.error = record.error
  return task
}
