/** The options every method of the client takes last, by what the method may do. */
import type { LogLevel, LogMessage, OnInput, Progress, Unanswered } from './types.js'

/** What every method takes last. */
export interface RequestOptions {
  /**
   * Aborts the request (a 2026-07-28 stream closed is its cancellation; a 2025 session gets
   * `notifications/cancelled`).
   */
  signal?: AbortSignal
  /** Milliseconds each round may take; default the client's `timeout`. */
  timeout?: number
  /** Headers for this request only. */
  headers?: Record<string, string>
  /** Merged into `params._meta`. */
  meta?: Record<string, unknown>
}

/** A list's options. */
export interface ListOptions extends RequestOptions {
  /** Ask the server even when the cached list is still fresh. */
  fresh?: boolean
}

/** The options of a request that may ask questions and report progress (`callTool`, `getPrompt`, `readResource`). */
export interface CallOptions extends RequestOptions {
  /** Answers for this call; they win over the client's `onInput`, which still answers the rest. */
  onInput?: OnInput
  /** What a question neither `onInput` answers gets, for this call. */
  unanswered?: Unanswered
  /** `notifications/progress` of this call (a `progressToken` is sent when given). */
  onProgress?: (progress: Progress) => void
  /** `notifications/message` of this call. */
  onLog?: (message: LogMessage) => void
  /** The log level asked for this call (default the client's, else `'debug'` when `onLog` is given). */
  logLevel?: LogLevel
}

/** `callTool`'s options. */
export interface ToolCallOptions extends CallOptions {
  /**
   * Run the call as a task when the tool offers it: declares the tasks extension (2026-07-28) or
   * sends `params.task` (2025-11-25), then waits for the task's result (polling `tasks/get`, or
   * `tasks/result` in 2025), answering its questions from `onInput` on the way.
   */
  task?: boolean | { ttl?: number }
}
