/**
 * Authorization's errors: the public ones (a 401/403 refusal with its challenge, a scope a tool
 * finds it needs at run time) and the internal ones the edge turns into answers (a refusal of the
 * protocol core, a verifier's outcomes).
 */
import { ProtocolError } from './protocol.js'

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
    const token = /^[\x21\x23-\x5B\x5D-\x7E]+$/
    if (list.length === 0 || !list.every((scope) => typeof scope === 'string' && token.test(scope))) {
      throw new TypeError('InsufficientScopeError takes one scope or a non-empty array of scopes ' +
        `(printable ASCII without spaces, '"' or '\\'), got ${JSON.stringify(scopes)}`)
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
    super(-32600, message, status, data) // INVALID_REQUEST: spec/jsonrpc.ts imports errors.ts
    this.name = 'AuthorizationError'
    this.challenge = challenge
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

  private constructor (reason: AccessRefusal['reason'], status: 401 | 403, message: string,
    data: Record<string, unknown>, scopes: readonly string[], acr?: readonly string[], maxAge?: number) {
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
      `Forbidden: ${what} needs the scope${scopes.length === 1 ? '' : 's'} ${scopes.join(', ')}, ` +
      'which the access token does not grant',
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
    super('fastify-sake: the auth verifier must return { subject, scopes?, acr?, authTime?, expiresAt?, claims? }: ' +
      problem)
    this.name = 'BadCaller'
    this.problem = problem
  }
}
