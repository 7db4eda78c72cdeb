/**
 * The refusals of authorization, each with its `WWW-Authenticate` challenge: RFC 6750 for bearer
 * tokens and scopes, RFC 9470 for step-up, RFC 9728 for `resource_metadata`. Messages and
 * descriptions are fixed: they never say which claim of a token failed (the log does). A refused
 * call comes from the protocol core as an `AccessRefusal`; `challengeFor` gives it its header.
 */
import { AuthorizationError, type AccessRefusal } from '../errors.js'

/**
 * `Bearer k="v", ...`: numbers bare (`max_age=300`, as RFC 9470 shows it), strings quoted. Every
 * value is ours (scope tokens, URLs, fixed text), none can hold `"` or `\`.
 */
function challenge (params: ReadonlyArray<readonly [string, string | number | undefined]>): string {
  const parts: string[] = []
  for (const [key, value] of params) {
    if (value !== undefined) parts.push(typeof value === 'number' ? `${key}=${value}` : `${key}="${value}"`)
  }
  return 'Bearer ' + parts.join(', ')
}

/** No token (or another scheme): 401 without an error code (RFC 6750 §3.1), with the scopes that would do. */
export function missingToken (metadataUrl: string, scopes: readonly string[] | undefined): AuthorizationError {
  const scope = scopes === undefined || scopes.length === 0 ? undefined : scopes.join(' ')
  return new AuthorizationError(401,
    'Unauthorized: this MCP server needs an OAuth access token (Authorization: Bearer <token>); the WWW-Authenticate header names the metadata that says where to get one',
    challenge([['resource_metadata', metadataUrl], ['scope', scope]]))
}

/** A token we do not accept, whatever the reason: malformed, expired, not yet valid, badly signed, for another audience. */
export function invalidToken (metadataUrl: string): AuthorizationError {
  return new AuthorizationError(401,
    'Unauthorized: the access token is invalid, expired or not issued for this server',
    challenge([['error', 'invalid_token'], ['error_description', 'The access token is invalid'], ['resource_metadata', metadataUrl]]),
    { error: 'invalid_token' })
}

/**
 * The HTTP form of a refused call: the same status, message and data, with the challenge an OAuth
 * client acts on (RFC 6750 `insufficient_scope` naming every scope needed, RFC 9470 step-up).
 * `metadataUrl` is undefined with auth off (a tool may still refuse by scope): no `resource_metadata` then.
 */
export function challengeFor (metadataUrl: string | undefined, refusal: AccessRefusal): AuthorizationError {
  const status = refusal.status as 401 | 403
  const data = refusal.data as Record<string, unknown>
  if (refusal.reason === 'insufficient_scope') {
    return new AuthorizationError(status, refusal.message,
      challenge([['error', 'insufficient_scope'], ['scope', refusal.scopes.join(' ')], ['resource_metadata', metadataUrl], ['error_description', 'The access token lacks a scope this operation needs']]),
      data)
  }
  return new AuthorizationError(status, refusal.message,
    challenge([
      ['error', 'insufficient_user_authentication'],
      ['acr_values', refusal.acr?.join(' ')],
      ['max_age', refusal.maxAge],
      ['resource_metadata', metadataUrl],
      ['error_description', 'A stronger or more recent authentication is required']
    ]),
    data)
}
