/**
 * A new task's record, as its call makes it, and the owner it is bound to (docs/architecture.md,
 * Tasks: Binding).
 */
import { randomUUID } from 'node:crypto'
import type { TaskRecord } from '../../state/task-store.js'
import type { Call } from '../call.js'

/** The owner a call's tasks are bound to. */
export function ownerOf (call: Call): string {
  if (call.auth !== undefined) return `sub:${call.auth.subject}`
  if (call.sessionId !== undefined) return `session:${call.sessionId}`
  return 'anonymous'
}

/** The record of a task `call` creates at `now`, `working`, granted `ttl` ms. */
export function newRecord (call: Call, ttl: number, pollInterval: number, now: number): TaskRecord {
  return {
    taskId: randomUUID(),
    version: 0,
    owner: ownerOf(call),
    caller: call.transport.caller,
    // what the call asked of its caller is asked again of whoever reads the task (methods/tasks.ts)
    tool: call.target?.kind === 'tool' ? call.target.name : undefined,
    protocolVersion: call.protocolVersion,
    sessionId: call.era === 'legacy' ? call.sessionId : undefined,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttl,
    pollInterval
  }
}
