/**
 * The refusals of authorization, each with its `WWW-Authenticate` challenge: RFC 6750 for bearer
 * tokens and scopes, RFC 9470 for step-up, RFC 9728 for `resource_metadata`. Messages and
 * descriptions are fixed: they never say which claim of a token failed (the log does).
 */
import { AuthorizationError } from '../errors.js'

/** What a step-up check asks for: accepted `acr` values and the oldest sign-in accepted (seconds). */
export interface StepUp {
  readonly acr?: readonly string[] | undefined
  readonly maxAge?: number | undefined
}

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

/** 403 naming every scope the operation needs, in one challenge (the spec asks not to challenge one scope at a time). */
export function insufficientScope (metadataUrl: string | undefined, scopes: readonly string[], what: string): AuthorizationError {
  return new AuthorizationError(403,
    `Forbidden: ${what} needs the scope${scopes.length === 1 ? '' : 's'} ${scopes.join(', ')}, which the access token does not grant`,
    challenge([['error', 'insufficient_scope'], ['scope', scopes.join(' ')], ['resource_metadata', metadataUrl], ['error_description', 'The access token lacks a scope this operation needs']]),
    { error: 'insufficient_scope', scopes })
}

/** RFC 9470: the token is fine, the sign-in behind it is not strong or recent enough. */
export function insufficientAuthentication (metadataUrl: string, stepUp: StepUp, what: string): AuthorizationError {
  const needs: string[] = []
  if (stepUp.acr !== undefined) needs.push(`an authentication context of ${stepUp.acr.join(' or ')}`)
  if (stepUp.maxAge !== undefined) needs.push(`a sign-in at most ${stepUp.maxAge} seconds old`)
  const data: Record<string, unknown> = { error: 'insufficient_user_authentication' }
  if (stepUp.acr !== undefined) data.acrValues = stepUp.acr
  if (stepUp.maxAge !== undefined) data.maxAge = stepUp.maxAge
  return new AuthorizationError(401,
    `Unauthorized: ${what} needs ${needs.join(' and ')}; sign in again as the WWW-Authenticate header asks`,
    challenge([
      ['error', 'insufficient_user_authentication'],
      ['acr_values', stepUp.acr?.join(' ')],
      ['max_age', stepUp.maxAge],
      ['resource_metadata', metadataUrl],
      ['error_description', 'A stronger or more recent authentication is required']
    ]),
    data)
}
