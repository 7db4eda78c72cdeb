/**
 * Every error fastify-sake raises on purpose, in three families:
 *
 * - registration and configuration mistakes (`SakeError` subclasses with a `SAKE_ERR_*` code),
 *   thrown from `register`, `registerTool` or `defineTool` so a wrong setup never starts serving;
 * - protocol errors (`ProtocolError`): a JSON-RPC code plus the HTTP status the spec asks for,
 *   shaped into a response at the HTTP edge;
 * - tool errors (`ToolError`): thrown or returned by a tool, sent as a result with `isError: true`.
 *
 * The internal ones (not exported from the package: refusals the edge turns into answers, a task's
 * question that was not asked or not answered) are at the end. The client's errors are in
 * `client/errors.ts`, beside the client (not listed here, where a list went stale); its option
 * error, `SakeClientOptionError`, is here, with the other codes.
 *
 * The codes are API: `docs/errors.md` lists each one, and a test keeps the two in step.
 */

/** Base class of every registration and configuration error; `code` is stable API. */
export class SakeError extends Error {
  readonly code: string

  constructor (code: string, message: string) {
    super(message)
    this.name = new.target.name
    this.code = code
  }
}

/** A plugin option is missing, unknown or of the wrong shape (`SAKE_ERR_INVALID_OPTION`). */
export class SakeOptionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_OPTION', message)
  }
}

/** A tool definition is invalid (`SAKE_ERR_INVALID_TOOL`). */
export class SakeToolDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_TOOL', message)
  }
}

/** An argument's `header` / `x-mcp-header` breaks a rule of SEP-2243 (`SAKE_ERR_INVALID_HEADER`). */
export class SakeHeaderDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_HEADER', message)
  }
}

/** A second tool with a name already registered on this server (`SAKE_ERR_DUPLICATE_TOOL`). */
export class SakeDuplicateToolError extends SakeError {
  constructor (name: string) {
    super('SAKE_ERR_DUPLICATE_TOOL', `a tool named '${name}' is already registered on this MCP server; tool names must be unique`)
  }
}

/** A resource or resource template definition is invalid (`SAKE_ERR_INVALID_RESOURCE`). */
export class SakeResourceDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_RESOURCE', message)
  }
}

/** A prompt definition is invalid (`SAKE_ERR_INVALID_PROMPT`). */
export class SakePromptDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_PROMPT', message)
  }
}

/** A second resource with a URI (or template) already registered (`SAKE_ERR_DUPLICATE_RESOURCE`). */
export class SakeDuplicateResourceError extends SakeError {
  constructor (uri: string) {
    super('SAKE_ERR_DUPLICATE_RESOURCE', `a resource '${uri}' is already registered on this MCP server; resource URIs and URI templates must be unique`)
  }
}

/** A second prompt with a name already registered (`SAKE_ERR_DUPLICATE_PROMPT`). */
export class SakeDuplicatePromptError extends SakeError {
  constructor (name: string) {
    super('SAKE_ERR_DUPLICATE_PROMPT', `a prompt named '${name}' is already registered on this MCP server; prompt names must be unique`)
  }
}

/**
 * A skill cannot be served (`SAKE_ERR_INVALID_SKILL`): its path, a file's path or size, its
 * `SKILL.md` frontmatter (not YAML, no `name` equal to its folder, no `description`), a folder
 * that holds no skill, or a skill already registered at that path. The message names the skill or
 * the file on disk, and what to change.
 */
export class SakeSkillDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_SKILL', message)
  }
}

/** `registerTool` called once the server is ready: lists are frozen then (`SAKE_ERR_REGISTER_AFTER_READY`). */
export class SakeRegisterAfterReadyError extends SakeError {
  constructor (what: string) {
    super('SAKE_ERR_REGISTER_AFTER_READY', `cannot register ${what} after the server is ready; register every tool, resource and prompt before app.ready() or app.listen()`)
  }
}

/**
 * A route's `config.mcp` cannot make it a tool (`SAKE_ERR_INVALID_ROUTE_TOOL`): its schema is one
 * MCP cannot express (a body that is not an object, multipart, required headers), a name comes
 * from two parts of the request, or `config.mcp` itself is wrong. The message names the route.
 */
export class SakeRouteToolError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_ROUTE_TOOL', message)
  }
}

/**
 * An option of `createClient` (`fastify-sake/client`) is missing, unknown or of the wrong shape
 * (`SAKE_ERR_INVALID_CLIENT_OPTION`): thrown by `createClient` itself, before any request.
 */
export class SakeClientOptionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_CLIENT_OPTION', message)
  }
}

/**
 * Each code above and its class, as `fastify.errorCodes` keys Fastify's own: `err instanceof
 * errorCodes.SAKE_ERR_DUPLICATE_TOOL`, `err.code in errorCodes`, `Object.keys(errorCodes)`.
 */
export const errorCodes = Object.freeze({
  SAKE_ERR_INVALID_OPTION: SakeOptionError,
  SAKE_ERR_INVALID_TOOL: SakeToolDefinitionError,
  SAKE_ERR_INVALID_HEADER: SakeHeaderDefinitionError,
  SAKE_ERR_DUPLICATE_TOOL: SakeDuplicateToolError,
  SAKE_ERR_INVALID_RESOURCE: SakeResourceDefinitionError,
  SAKE_ERR_INVALID_PROMPT: SakePromptDefinitionError,
  SAKE_ERR_DUPLICATE_RESOURCE: SakeDuplicateResourceError,
  SAKE_ERR_DUPLICATE_PROMPT: SakeDuplicatePromptError,
  SAKE_ERR_INVALID_SKILL: SakeSkillDefinitionError,
  SAKE_ERR_REGISTER_AFTER_READY: SakeRegisterAfterReadyError,
  SAKE_ERR_INVALID_ROUTE_TOOL: SakeRouteToolError,
  SAKE_ERR_INVALID_CLIENT_OPTION: SakeClientOptionError
} as const)

/** A code of `errorCodes`. */
export type SakeErrorCode = keyof typeof errorCodes

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
    super(-32603, 'Service Unavailable: this server instance is shutting down and takes no new requests; send the request again (another instance answers it)', 503)
    this.name = 'ShuttingDownError'
    this.retryAfter = retryAfter
  }
}

/** What a quota bounds (`QuotaExceededError.limit`). */
export type QuotaLimit = 'sessions' | 'streams' | 'tasks' | 'questions'

/** What a quota's names say in messages: what is counted, and the options that set each bound. */
const QUOTAS: Readonly<Record<QuotaLimit, { readonly what: string, readonly caller: string, readonly total: string, readonly free: string, readonly retryAfter: number }>> = {
  sessions: { what: '2025 sessions', caller: 'sessions.maxPerCaller', total: 'sessions.maxSessions', free: 'end a session it no longer uses (DELETE) or let one expire', retryAfter: 30 },
  streams: { what: 'open event streams', caller: 'streams.maxPerCaller', total: 'streams.maxStreams', free: 'close a stream (a GET stream, a subscriptions/listen, a streamed call)', retryAfter: 5 },
  tasks: { what: 'tasks (running, or finished and kept until their ttl)', caller: 'tasks.maxPerCaller', total: 'tasks.maxTasks', free: 'let a task end and its ttl pass (ask a shorter task ttl)', retryAfter: 30 },
  questions: { what: 'questions waiting for a client\'s answer', caller: 'questions.maxPerCaller', total: 'questions.maxQuestions', free: 'answer the questions already asked', retryAfter: 5 }
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
      ? `Too Many Requests: this caller already holds ${max} ${quota.what}, the most ${option} allows; ${quota.free}, then try again`
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
    super(message ?? `this call needs the client capabilities ${Object.keys(requiredCapabilities).join(', ')}, which the request did not declare`)
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
 * Thrown by a tool whose needs depend on the call, beyond its declared `scope` (closing another
 * person's issue needs `issues:admin`): the call is refused like one missing a declared scope,
 * with 403 and an `insufficient_scope` challenge naming `scopes`, or, when its answer already
 * streams, with the same JSON-RPC error inside the stream. The spec lets required scopes depend
 * on the request's arguments, as long as they are named together in one challenge.
 * @example
 * if (issue.owner !== ctx.auth?.subject) throw new InsufficientScopeError('issues:admin')
 */
export class InsufficientScopeError extends Error {
  readonly scopes: readonly string[]

  constructor (scopes: string | readonly string[], message?: string) {
    const list = typeof scopes === 'string' ? [scopes] : [...scopes]
    // they go into a header: only OAuth scope tokens (RFC 6749 §3.3) fit there
    if (list.length === 0 || !list.every((scope) => typeof scope === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope))) {
      throw new TypeError(`InsufficientScopeError takes one scope or a non-empty array of scopes (printable ASCII without spaces, '"' or '\\'), got ${JSON.stringify(scopes)}`)
    }
    super(message ?? `this call needs the scopes ${list.join(', ')}`)
    this.name = 'InsufficientScopeError'
    this.scopes = Object.freeze(list)
  }
}

/**
 * A request refused by authorization: 401 (no token, a token we do not accept, or a sign-in that
 * is too weak or too old for the tool) or 403 (a scope the token lacks). `challenge` is the
 * `WWW-Authenticate` value sent with it (RFC 6750, RFC 9470), which is what OAuth clients act on;
 * the body is a JSON-RPC error (`-32600`, the code the endpoint's other HTTP-level refusals use)
 * with `data.error` set to the RFC's error code when there is one.
 */
export class AuthorizationError extends ProtocolError {
  readonly challenge: string

  constructor (status: 401 | 403, message: string, challenge: string, data?: Record<string, unknown>) {
    super(-32600, message, status, data) // INVALID_REQUEST: spec/jsonrpc.ts imports this file
    this.name = 'AuthorizationError'
    this.challenge = challenge
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
    super(-32602, `Invalid params: ${message}; retry the original request without requestState and inputResponses`, 200) // INVALID_PARAMS: spec/jsonrpc.ts imports this file
    this.name = 'RequestStateError'
    this.reason = reason
    this.differs = Object.freeze([...differs])
  }
}

/**
 * A call the caller may not make: a scope the token lacks (403 `insufficient_scope`) or a sign-in
 * too weak or too old (401 `insufficient_user_authentication`, RFC 9470). The protocol core raises
 * it without knowing where the metadata document lives; the HTTP edge answers it as an
 * `AuthorizationError` with its challenge, and a streamed answer carries it as it is. Internal.
 */
export class AccessRefusal extends ProtocolError {
  readonly reason: 'insufficient_scope' | 'insufficient_user_authentication'
  /** The scopes the operation needs, held or not (`insufficient_scope`). */
  readonly scopes: readonly string[]
  /** The accepted `acr` values and the oldest sign-in accepted, in seconds (step-up). */
  readonly acr: readonly string[] | undefined
  readonly maxAge: number | undefined

  private constructor (reason: AccessRefusal['reason'], status: 401 | 403, message: string, data: Record<string, unknown>, scopes: readonly string[], acr?: readonly string[], maxAge?: number) {
    super(-32600, message, status, data) // INVALID_REQUEST, as every HTTP-level refusal of the endpoint
    this.name = 'AccessRefusal'
    this.reason = reason
    this.scopes = scopes
    this.acr = acr
    this.maxAge = maxAge
  }

  /** 403 naming every scope `what` needs, in one refusal (the spec asks not to refuse one scope at a time). */
  static scope (scopes: readonly string[], what: string): AccessRefusal {
    return new AccessRefusal('insufficient_scope', 403,
      `Forbidden: ${what} needs the scope${scopes.length === 1 ? '' : 's'} ${scopes.join(', ')}, which the access token does not grant`,
      { error: 'insufficient_scope', scopes }, scopes)
  }

  /** 401: the token is fine, the sign-in behind it is not strong or recent enough for `what`. */
  static stepUp (acr: readonly string[] | undefined, maxAge: number | undefined, what: string): AccessRefusal {
    const needs: string[] = []
    if (acr !== undefined) needs.push(`an authentication context of ${acr.join(' or ')}`)
    if (maxAge !== undefined) needs.push(`a sign-in at most ${maxAge} seconds old`)
    const data: Record<string, unknown> = { error: 'insufficient_user_authentication' }
    if (acr !== undefined) data.acrValues = acr
    if (maxAge !== undefined) data.maxAge = maxAge
    return new AccessRefusal('insufficient_user_authentication', 401,
      `Unauthorized: ${what} needs ${needs.join(' and ')}; sign in again as the WWW-Authenticate header asks`,
      data, [], acr, maxAge)
  }
}

/** A bearer token is not accepted: the client gets 401 invalid_token, the log gets `reason`. Internal. */
export class TokenRefused extends Error {
  constructor (readonly reason: string) {
    super(reason)
    this.name = 'TokenRefused'
  }
}

/** Tokens cannot be checked right now (the JWKS is unreachable): not the client's fault, so 503. Internal. */
export class VerifierUnavailable extends Error {
  constructor (readonly reason: string, options?: { cause: unknown }) {
    super(reason, options)
    this.name = 'VerifierUnavailable'
  }
}

/** A verifier returned something that is not a caller: our user's bug, answered 500 and logged. Internal. */
export class BadCaller extends Error {
  /** What is wrong with the caller, for a message of another origin (`stdio.caller`). */
  readonly problem: string
  constructor (problem: string) {
    super(`fastify-sake: the auth verifier must return { subject, scopes?, acr?, authTime?, expiresAt?, claims? }: ${problem}`)
    this.name = 'BadCaller'
    this.problem = problem
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
