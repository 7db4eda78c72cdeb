/**
 * Turning a bearer token into the caller: the built-in JWT verifier (jose, against a JWKS URL),
 * the user's `verify`, and the checks on what either returns. Every refusal says why in the log
 * only; the client gets the RFC's error code and nothing more.
 */
import type { JWTPayload } from 'jose'
import { BadCaller, TokenRefused, VerifierUnavailable } from '../errors.js'
import type { AuthInfo } from '../spec/types.js'
import { isObject } from '../values.js'
import type { Caller, ResolvedAuth } from './auth-options.js'

function optionalNumber (caller: Record<string, unknown>, key: string): number | undefined {
  const value = caller[key]
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) throw new BadCaller(`'${key}' must be a number of seconds since the epoch, got ${typeof value}`)
  return value as number | undefined
}

function scopesOf (value: unknown): readonly string[] {
  if (value === undefined) return []
  if (typeof value === 'string') return value.split(' ').filter((scope) => scope.length > 0)
  if (Array.isArray(value) && value.every((scope) => typeof scope === 'string')) return value
  throw new BadCaller(`'scopes' must be an array of strings or a space-delimited string, got ${Array.isArray(value) ? 'an array with a non-string' : typeof value}`)
}

/** Checks a caller and freezes it into the `AuthInfo` handlers see; a past `expiresAt` is refused. */
export function toAuthInfo (caller: unknown, now = Date.now() / 1000): AuthInfo {
  if (!isObject(caller)) throw new BadCaller(`got ${caller === null ? 'null' : Array.isArray(caller) ? 'an array' : typeof caller}`)
  const { subject, acr, claims } = caller
  if (typeof subject !== 'string' || subject.length === 0) throw new BadCaller("'subject' must be a non-empty string")
  if (acr !== undefined && typeof acr !== 'string') throw new BadCaller(`'acr' must be a string, got ${typeof acr}`)
  if (claims !== undefined && !isObject(claims)) throw new BadCaller("'claims' must be an object")
  const authTime = optionalNumber(caller, 'authTime')
  const expiresAt = optionalNumber(caller, 'expiresAt')
  if (expiresAt !== undefined && expiresAt <= now) throw new TokenRefused('the verifier returned a caller whose expiresAt has passed')
  return Object.freeze({
    subject,
    scopes: Object.freeze([...scopesOf(caller.scopes)]),
    acr,
    authTime,
    expiresAt,
    claims: Object.freeze({ ...(claims ?? {}) })
  })
}

/**
 * A JWT access token's claims as a caller (RFC 9068 names; `scp`, an array or string, is what
 * some servers use instead of `scope`). A token without `sub` names nobody, so it is refused.
 */
export function callerFromClaims (claims: unknown): Caller {
  if (!isObject(claims)) throw new TokenRefused('no claims on the request')
  if (typeof claims.sub !== 'string' || claims.sub.length === 0) throw new TokenRefused('the token has no "sub" claim')
  const scope = claims.scope ?? claims.scp
  return {
    subject: claims.sub,
    scopes: typeof scope === 'string' || Array.isArray(scope) ? scope as string | string[] : undefined,
    acr: typeof claims.acr === 'string' ? claims.acr : undefined,
    authTime: typeof claims.auth_time === 'number' ? claims.auth_time : undefined,
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    claims
  }
}

/** jose's codes for a JWKS we could not get or read: the server's trouble, not the token's. */
const UNAVAILABLE = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC'])

/**
 * The built-in verifier: signature by a key of the JWKS (fetched on first use, cached, refetched
 * when an unknown `kid` arrives, as jose does), `exp`/`nbf` within the clock tolerance, issuer,
 * audience and algorithm from the options. `exp` and `sub` are required.
 */
export async function jwksVerifier (options: NonNullable<ResolvedAuth['jwks']>): Promise<(token: string) => Promise<AuthInfo>> {
  // jose loads here, at registration, with `auth.jwks`: a server that verifies tokens otherwise, or not at all, never loads it
  const { createRemoteJWKSet, errors, jwtVerify } = await import('jose')
  const keys = createRemoteJWKSet(options.url)
  const verifyOptions = {
    issuer: [...options.issuer],
    audience: [...options.audience],
    algorithms: [...options.algorithms],
    clockTolerance: options.clockTolerance,
    requiredClaims: ['exp', 'sub']
  }
  return async (token) => {
    let payload: JWTPayload
    try {
      ({ payload } = await jwtVerify(token, keys, verifyOptions))
    } catch (err) {
      if (err instanceof errors.JOSEError && !UNAVAILABLE.has(err.code)) throw new TokenRefused(`${err.code}: ${err.message}`)
      throw new VerifierUnavailable(`the JWKS at ${options.url.href} could not be used: ${(err as Error).message}`, { cause: err })
    }
    // jose already allowed the clock tolerance on exp: the same tolerance here
    return toAuthInfo(callerFromClaims(payload), Date.now() / 1000 - options.clockTolerance)
  }
}
