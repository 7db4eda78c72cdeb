/**
 * Errors of a handler's work: thrown or returned by a tool (`ToolError`: sent as a result with
 * `isError: true`; `MissingCapabilityError`), or thrown into a handler whose question to the client
 * got no answer (`ClientInputError`; the internal `TaskEnded` and `TooManyQuestions` of a task).
 */

/**
 * Thrown (or returned) by a tool that cannot do its work without a client capability the request
 * did not declare (Sake's `{:error, {:missing_capability, map}}`). A 2026-07-28 call is answered
 * with HTTP 400 and -32021, `data.requiredCapabilities` set to this map, so the client can retry
 * with the capability; a 2025 session has no such error, so its call gets an `isError` result
 * naming the capabilities.
 * @example
 * if (ctx.client.capabilities.sampling === undefined) throw new MissingCapabilityError({ sampling: {} })
 */
export class MissingCapabilityError extends Error {
  readonly requiredCapabilities: Record<string, unknown>

  constructor (requiredCapabilities: Record<string, unknown>, message?: string) {
    const names = Object.keys(requiredCapabilities).join(', ')
    super(message ?? `this call needs the client capabilities ${names}, which the request did not declare`)
    this.name = 'MissingCapabilityError'
    this.requiredCapabilities = requiredCapabilities
  }
}

/**
 * Thrown (or returned through `toolError()`) by a tool whose work failed in a way the model should
 * see: the call succeeds at the protocol level and its result has `isError: true`.
 */
export class ToolError extends Error {
  readonly meta: Record<string, unknown> | undefined

  constructor (message: string, options?: { meta?: Record<string, unknown> }) {
    super(message)
    this.name = 'ToolError'
    this.meta = options?.meta
  }
}

/**
 * A question a handler asked a 2025 client (`ctx.elicit`, `ctx.sample`, `ctx.roots`) got no usable
 * answer: the client answered with an error (`error`), the answer was not what the question asks
 * for (`invalid`), none came in time (`timeout`), or the call ended first (`cancelled`). Thrown into
 * the handler; a tool that lets it through answers a tool error with its message.
 */
export class ClientInputError extends Error {
  readonly key: string
  readonly method: string
  readonly reason: 'error' | 'invalid' | 'timeout' | 'cancelled'

  constructor (key: string, method: string, reason: ClientInputError['reason'], message: string) {
    super(message)
    this.name = 'ClientInputError'
    this.key = key
    this.method = method
    this.reason = reason
  }
}

/**
 * Thrown to a task's handler awaiting an answer to its question (`Tasks.ask`,
 * protocol/tasks/lifecycle.ts) when the task ended first: cancelled, expired, or the server
 * closed. The task's asker turns it into a `ClientInputError` (`cancelled`) for the handler.
 * Internal.
 */
export class TaskEnded extends Error {
  constructor (readonly taskId: string) {
    super(`the task ${taskId} ended before the client answered`)
    this.name = 'TaskEnded'
  }
}

/**
 * Thrown to a task's handler that asks more questions at once than a task may wait on (`limit`,
 * `MAX_PENDING_QUESTIONS` of protocol/tasks/lifecycle.ts: each is a record write, and waiters
 * re-read it). The task's asker turns it into a `ClientInputError` (`error`). Internal.
 */
export class TooManyQuestions extends Error {
  constructor (readonly taskId: string, limit: number) {
    super(`a task may wait on at most ${limit} questions at once; await some answers before asking more`)
    this.name = 'TooManyQuestions'
  }
}
