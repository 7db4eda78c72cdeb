/**
 * Tasks (long-running tool calls, issue 13): what a task record holds and the store contract behind
 * it. A record is plain JSON, so a networked store (Redis) keeps it as it is. The store knows no
 * protocol rule: which transition is legal lives in `protocol/tasks/lifecycle.ts`; the store only
 * applies a change when the record is still the one the caller read (compare-and-set on `version`).
 */
import type { Refusal } from './quota.js'

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

export const TERMINAL: ReadonlySet<TaskStatus> = new Set<TaskStatus>(['completed', 'failed', 'cancelled'])

/** The JSON-RPC error a task ended with, as the underlying request would have answered it. */
export interface TaskError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** A question a running task asks the client: `elicitation/create`, `sampling/createMessage` or `roots/list`. */
export interface TaskQuestion {
  readonly method: string
  readonly params: Record<string, unknown>
}

/** The client's answer to a task's question: its result, or (2025 sessions) the JSON-RPC error it answered with. */
export type TaskAnswer =
  | { readonly result: unknown }
  | { readonly error: TaskError }

export interface TaskRecord {
  /** Unguessable (`crypto.randomUUID()`). */
  readonly taskId: string
  /**
   * Bumped by the store on every applied transition (0 at creation): what compare-and-set
   * compares, so that two writers changing the questions of one status never lose each other's.
   */
  readonly version: number
  /** The principal that created it (`sub:…`, `session:…` or `anonymous`); only it may see the task. */
  readonly owner: string
  /**
   * Who created it, as quotas count (`sub:<subject>`, or `ip:<address>` without auth): a store
   * bounds the tasks each caller holds by it (issue 40). Absent on a record stored before.
   */
  readonly caller?: string | undefined
  /**
   * The tool whose call created it: with a caller known, every task method asks of its reader what
   * that call asked (the tool's scopes and step-up). Absent only in records made before it existed.
   */
  readonly tool?: string | undefined
  /** The revision of the request that created it: its result is answered in that revision's shape. */
  readonly protocolVersion: string
  /** The 2025 session that created it: its standalone stream gets the task's notifications. */
  readonly sessionId?: string | undefined
  readonly status: TaskStatus
  readonly statusMessage?: string | undefined
  /** Milliseconds since the epoch (sent as ISO 8601). */
  readonly createdAt: number
  readonly lastUpdatedAt: number
  /** Milliseconds from `createdAt` the task is kept. */
  readonly ttl: number
  readonly pollInterval?: number | undefined
  /** When set, a terminal record is kept until then (ms since the epoch) instead of `createdAt + ttl`. */
  readonly keepUntil?: number | undefined
  /** Once `completed` (or a 2025 tool error): the underlying request's result. */
  readonly result?: Record<string, unknown> | undefined
  /** Once `failed` with a JSON-RPC error: that error. */
  readonly error?: TaskError | undefined
  /** The questions the running task waits on, by key (`input_required` while there is one). */
  readonly inputRequests?: Readonly<Record<string, TaskQuestion>> | undefined
  /** Answers delivered (`tasks/update`, or a 2025 response on a `tasks/result` stream), by key. */
  readonly inputResponses?: Readonly<Record<string, TaskAnswer>> | undefined
}

/** What a transition may change: everything but the identity. */
export type TaskPatch = Partial<Omit<TaskRecord, 'taskId' | 'version' | 'owner' | 'caller' | 'tool' | 'protocolVersion' | 'sessionId' | 'createdAt' | 'ttl'>>

export interface TaskPage {
  readonly tasks: readonly TaskRecord[]
  readonly nextCursor?: string | undefined
}

/**
 * Where tasks live. Methods may return a value or a promise of one (as `SessionStore`).
 *
 * - `create` stores a new record and returns true, unless its bounds refuse it: `'caller'` when
 *   `record.caller` holds as many tasks as it may, `'total'` (or false) when the store is full;
 *   nothing is stored then, and no other task is ever dropped to make room (issue 40);
 * - `get` returns the record, or undefined once it is unknown, deleted, or terminal and past its
 *   ttl (`createdAt + ttl`, or `keepUntil` when set);
 * - `transition` applies `patch` only if the stored `version` is still `version`, stores it with
 *   `version + 1`, and says whether it did (compare-and-set: a Redis store does it in one script
 *   or WATCH/MULTI);
 * - `list` returns one owner's records, oldest first, `limit` at most, after `cursor` (opaque;
 *   undefined from the store means a cursor it does not know);
 * - `delete` forgets a record;
 * - `close` (optional) releases timers and connections when the server closes.
 */
export interface TaskStore {
  create (record: TaskRecord): boolean | Refusal | Promise<boolean | Refusal>
  get (taskId: string): TaskRecord | undefined | Promise<TaskRecord | undefined>
  transition (taskId: string, version: number, patch: TaskPatch): boolean | Promise<boolean>
  list (owner: string, cursor: string | undefined, limit: number): TaskPage | undefined | Promise<TaskPage | undefined>
  delete (taskId: string): void | Promise<void>
  close? (): void | Promise<void>
}

export const TASK_STORE_METHODS = ['create', 'get', 'transition', 'list', 'delete'] as const
