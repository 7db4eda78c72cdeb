/**
 * Protocol errors (`ProtocolError`): a JSON-RPC code plus the HTTP status the spec asks for,
 * shaped into a response at the HTTP edge; and the refusals of a request the server cannot or will
 * not take (a store down, shutting down, a quota, a `requestState`, a body). Authorization's are in
 * `auth.ts`.
 */

/**
 * A protocol-level failure: answered as a JSON-RPC error with `code`, and with `status` as the
 * HTTP status when the message gets a response of its own.
 */
export class ProtocolError extends Error {
  readonly code: number
  readonly status: number
  readonly data: unknown

  constructor (code: number, message: string, status = 200, data?: unknown) {
    super(message)
    this.name = 'ProtocolError'
    this.code = code
    this.status = status
    this.data = data
  }
}

/**
 * A store or bus the request needs (sessions, events, tasks, the bus) cannot be reached: Redis is
 * down, or a command did not answer within its timeout. The request gets `-32603` with HTTP 503
 * and a message naming the store, never a hang; what needs no shared state (a 2026-07-28 call)
 * goes on working. `store` names it ('session', 'event', 'task', 'bus').
 */
export class StoreUnavailableError extends ProtocolError {
  readonly store: string

  constructor (store: string, reason: string) {
    super(-32603, `Service Unavailable: the ${store} store cannot be reached (${reason}); try again later`, 503)
    this.name = 'StoreUnavailableError'
    this.store = store
  }
}

/**
 * The instance is shutting down (`app.close()` began; issue 29): a new MCP request is answered
 * `-32603` with HTTP 503, `Retry-After` (`retryAfter`, seconds) and `Connection: close`, before
 * anything runs, so that a client or a gateway sends it again, to another instance. (Fastify answers
 * its own 503 first unless the server was made with `return503OnClosing: false`.)
 */
export class ShuttingDownError extends ProtocolError {
  readonly retryAfter: number

  constructor (retryAfter: number) {
    super(-32603, 'Service Unavailable: this server instance is shutting down and takes no new requests; ' +
      'send the request again (another instance answers it)', 503)
    this.name = 'ShuttingDownError'
    this.retryAfter = retryAfter
  }
}

/** What a quota bounds (`QuotaExceededError.limit`). */
export type QuotaLimit = 'sessions' | 'streams' | 'tasks' | 'questions'

/** What a quota's names say in messages: what is counted, and the options that set each bound. */
const QUOTAS = {
  sessions: {
    what: '2025 sessions',
    caller: 'sessions.maxPerCaller',
    total: 'sessions.maxSessions',
    free: 'end a session it no longer uses (DELETE) or let one expire',
    retryAfter: 30
  },
  streams: {
    what: 'open event streams',
    caller: 'streams.maxPerCaller',
    total: 'streams.maxStreams',
    free: 'close a stream (a GET stream, a subscriptions/listen, a streamed call)',
    retryAfter: 5
  },
  tasks: {
    what: 'tasks (running, or finished and kept until their ttl)',
    caller: 'tasks.maxPerCaller',
    total: 'tasks.maxTasks',
    free: 'let a task end and its ttl pass (ask a shorter task ttl)',
    retryAfter: 30
  },
  questions: {
    what: 'questions waiting for a client\'s answer',
    caller: 'questions.maxPerCaller',
    total: 'questions.maxQuestions',
    free: 'answer the questions already asked',
    retryAfter: 5
  }
}

/**
 * A quota refused something new (issue 40): a caller (a token's subject, else the client's
 * address) already holds as many 2025 sessions, open streams, tasks or pending questions as its
 * quota allows (`bound: 'caller'`, HTTP 429), or the server (the fleet, for sessions and tasks in
 * Redis) holds as many as it takes in all (`bound: 'total'`, HTTP 503). Nothing anyone holds is
 * taken away to make room: the new request is refused, with `Retry-After` (`retryAfter`, seconds)
 * and a message naming the bound and the option that sets it.
 */
export class QuotaExceededError extends ProtocolError {
  readonly limit: QuotaLimit
  readonly bound: 'caller' | 'total'
  /** The bound's value. */
  readonly max: number
  /** The option that sets it (`sessions.maxPerCaller`). */
  readonly option: string
  readonly retryAfter: number

  constructor (limit: QuotaLimit, bound: 'caller' | 'total', max: number) {
    const quota = QUOTAS[limit]
    const option = quota[bound]
    const message = bound === 'caller'
      ? `Too Many Requests: this caller already holds ${max} ${quota.what}, the most ${option} allows; ` +
        `${quota.free}, then try again`
      : `Service Unavailable: the server already holds ${max} ${quota.what}, the most ${option} allows; try again later`
    super(bound === 'caller' ? -32600 : -32603, message, bound === 'caller' ? 429 : 503, { limit, bound, max, option })
    this.name = 'QuotaExceededError'
    this.limit = limit
    this.bound = bound
    this.max = max
    this.option = option
    this.retryAfter = quota.retryAfter
  }
}

/** A part of {@link RequestStateBinding} that can differ between the minting call and the retry. */
export type RequestStateBindingPart = 'caller' | 'method' | 'name' | 'arguments'

/** Why a `requestState` was refused; the message says the same in words. */
export type RequestStateRejection = 'missing' | 'malformed' | 'unknown-key' | 'tampered' | 'expired' | 'mismatch'

/**
 * A `requestState` refused by `RequestStateSealer.open` (state/request-state.ts): a `ProtocolError` (-32602, HTTP 200)
 * whose message says why, with the reason also as data for code (`reason`, `differs`). Neither the
 * message nor these fields repeat anything from inside the token.
 */
export class RequestStateError extends ProtocolError {
  /** Why the token was refused. */
  readonly reason: RequestStateRejection
  /** For `mismatch`: which parts of the binding differ, in binding order. Empty otherwise. */
  readonly differs: readonly RequestStateBindingPart[]

  constructor (reason: RequestStateRejection, message: string, differs: readonly RequestStateBindingPart[] = []) {
    // INVALID_PARAMS: spec/jsonrpc.ts imports errors.ts
    super(-32602, `Invalid params: ${message}; retry the original request without requestState and inputResponses`, 200)
    this.name = 'RequestStateError'
    this.reason = reason
    this.differs = Object.freeze([...differs])
  }
}

/**
 * A POST body that is valid JSON but refused before it becomes a message: it holds a `__proto__`
 * or `constructor.prototype` key, or nests deeper than the server reads (protocol/parse.ts). It
 * carries the id read from the body so that the client can match the error to its request.
 * Internal.
 */
export class RefusedBodyError extends ProtocolError {
  readonly id: string | number | null

  constructor (message: string, id: string | number | null) {
    super(-32600, message, 400) // INVALID_REQUEST: the JSON is readable, the message is not one we take
    this.name = 'RefusedBodyError'
    this.id = id
  }
}
