/**
 * The `auth` and `scopes` options, checked at registration like every other option: authorization
 * is a security switch, so a typo or a half-configured verifier fails `register` instead of
 * quietly serving without the check the user asked for.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SakeOptionError } from '../errors.js'
import { fail, got, isScopeToken, unknownKeys } from '../checks.js'
import { isObject } from '../values.js'
import { CLOCK_SKEW } from '../protocol/access.js'

/** The verified caller, as a verifier returns it (`verify`, or `caller` after `authenticate`). */
export interface Caller {
  /** Who is calling: the token's `sub`, or whatever the verifier names the caller by. */
  subject: string
  /** The scopes the token grants: an array, or one space-delimited string as in a JWT's `scope`. */
  scopes?: readonly string[] | string | undefined
  /** Authentication context class reference (`acr`), for step-up checks. */
  acr?: string | undefined
  /** When the user authenticated (`auth_time`), in seconds since the epoch, for `maxAge` checks. */
  authTime?: number | undefined
  /** When the token expires (`exp`), in seconds since the epoch; a past value is refused. */
  expiresAt?: number | undefined
  /** Every claim, for handlers (`ctx.auth.claims`). */
  claims?: Record<string, unknown> | undefined
}

/** Verifies a bearer token and returns the caller, or throws (any error: the client gets a 401). */
export type VerifyToken = (token: string, request: FastifyRequest) => Caller | Promise<Caller>

/**
 * A Fastify `onRequest` hook that authenticates the request its own way (e.g. `@fastify/jwt`'s
 * `app.authenticate`): async, or with a `done` callback as its third parameter.
 */
export type AuthenticateHook = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => unknown

export interface AuthOptions {
  /** This server's canonical URI (RFC 8707 / RFC 9728 `resource`), e.g. `https://mcp.example.com/mcp`. */
  resource: string
  /** Issuer URLs of the authorization servers that issue tokens for it (at least one). */
  authorizationServers: string[]
  /** Your own token check: introspection, opaque tokens, an existing JWT setup. */
  verify?: VerifyToken
  /** The built-in JWT verifier: the JWKS URL of the authorization server's signing keys. */
  jwks?: string | URL
  /** `jwks` only: accepted `iss` values. Default: `authorizationServers`. */
  issuer?: string | string[]
  /** `jwks` only: accepted `aud` values. Default: `resource` (tokens meant for another server are refused). */
  audience?: string | string[]
  /** `jwks` only: accepted signature algorithms. Default: the asymmetric JWS algorithms; never `none`. */
  algorithms?: string[]
  /**
   * Seconds of clock skew allowed on the token's times: `exp` and `nbf` (`jwks`), and, with every
   * way, how far `auth_time` may be ahead of this server's clock for a step-up `maxAge`. Default 30.
   */
  clockTolerance?: number
  /** Reuse an existing authentication hook on the MCP routes instead of `verify` or `jwks`. */
  authenticate?: AuthenticateHook
  /** With `authenticate`: reads the caller the hook left on the request. Default: JWT claims in `request.user`. */
  caller?: (request: FastifyRequest) => Caller | null | undefined
  /** Leave out of `tools/list` (and the other lists) what the caller's scopes do not allow. Default false. */
  hideForbidden?: boolean
  /** More Protected Resource Metadata fields (RFC 9728): `resource_name`, `resource_documentation`... */
  metadata?: Record<string, unknown>
}

/** The scopes this server uses, each with the description a consent page shows. */
export type ScopesOption = Record<string, string>

export interface ResolvedAuth {
  readonly resource: string
  readonly authorizationServers: readonly string[]
  /** The absolute URL of the metadata document, for `resource_metadata` in challenges (the context's prefix included: `underPrefix`). */
  readonly metadataUrl: string
  /** The path-suffixed well-known path of `resource`, as the plugin's context registers it (under its prefix, if any). */
  readonly metadataPath: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly hideForbidden: boolean
  /** Seconds of clock skew: on `exp`/`nbf` (the built-in verifier, `jwks.clockTolerance`) and on a future `auth_time`. */
  readonly clockTolerance: number
  readonly verify: VerifyToken | undefined
  readonly jwks: { readonly url: URL, readonly issuer: readonly string[], readonly audience: readonly string[], readonly algorithms: readonly string[], readonly clockTolerance: number } | undefined
  readonly authenticate: { readonly hook: AuthenticateHook, readonly caller: ((request: FastifyRequest) => Caller | null | undefined) | undefined } | undefined
}

const AUTH_KEYS = ['resource', 'authorizationServers', 'verify', 'jwks', 'issuer', 'audience', 'algorithms', 'clockTolerance', 'authenticate', 'caller', 'hideForbidden', 'metadata']
const JWKS_ONLY = ['issuer', 'audience', 'algorithms']

/** Asymmetric JWS algorithms: a JWKS publishes public keys, so HMAC (a shared secret) and `none` never fit. */
export const ASYMMETRIC_ALGORITHMS = Object.freeze(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'])

export const authDefaults = Object.freeze({
  clockTolerance: CLOCK_SKEW // 30 seconds: enough for clocks that drift, small enough that an expired token stays expired
})

/** Metadata fields the plugin writes from other options; setting them in `metadata` would contradict those. */
const OWN_METADATA = ['resource', 'authorization_servers', 'bearer_methods_supported']

/** An absolute http(s) URL without a fragment (RFC 9728 / RFC 8707 identifiers). */
function httpUrl (option: string, value: unknown, what: string): URL {
  let url: URL | undefined
  try {
    url = typeof value === 'string' ? new URL(value) : undefined
  } catch {}
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash !== '') {
    fail(option, `${what}: an absolute http(s) URL without a fragment`, value)
  }
  return url
}

function stringList (option: string, value: unknown, accepts: string): readonly string[] {
  const list = typeof value === 'string' ? [value] : value
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string' && item.length > 0)) {
    fail(option, accepts, value)
  }
  return Object.freeze([...list] as string[])
}

function jwksOptions (auth: Record<string, unknown>, authorizationServers: readonly string[], resource: string, clockTolerance: number): ResolvedAuth['jwks'] {
  const jwks = auth.jwks
  const url = httpUrl('auth.jwks', jwks instanceof URL ? jwks.href : jwks, 'the URL of the JSON Web Key Set')
  const algorithms = auth.algorithms === undefined
    ? ASYMMETRIC_ALGORITHMS
    : stringList('auth.algorithms', auth.algorithms, `a non-empty array of JWS algorithms among ${ASYMMETRIC_ALGORITHMS.join(', ')}`)
  for (const alg of algorithms) {
    if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
      throw new SakeOptionError(`fastify-sake: option 'auth.algorithms' may only list asymmetric JWS algorithms (${ASYMMETRIC_ALGORITHMS.join(', ')}): a JWKS holds public keys, and 'none' is never accepted; got ${got(alg)}`)
    }
  }
  return Object.freeze({
    url,
    issuer: auth.issuer === undefined ? authorizationServers : stringList('auth.issuer', auth.issuer, 'the accepted token issuer: a non-empty string or array of strings'),
    audience: auth.audience === undefined ? Object.freeze([resource]) : stringList('auth.audience', auth.audience, 'the accepted token audience: a non-empty string or array of strings'),
    algorithms,
    clockTolerance
  })
}

/**
 * Where the metadata document lives (RFC 9728 §3.1): `/.well-known/oauth-protected-resource`
 * inserted between the resource's origin and its path.
 */
export function metadataLocation (resource: URL): { url: string, path: string } {
  const suffix = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '')
  const path = `/.well-known/oauth-protected-resource${suffix}`
  return { url: resource.origin + path, path }
}

/**
 * The settings as served from a Fastify context with a `prefix`: the metadata routes are registered
 * in that context, so they answer under the prefix, and the challenges must name that URL (a
 * client follows `resource_metadata` as it is). The document's `resource` does not change.
 */
export function underPrefix (auth: ResolvedAuth, prefix: string): ResolvedAuth {
  if (prefix === '') return auth
  return Object.freeze({ ...auth, metadataUrl: new URL(auth.resource).origin + prefix + auth.metadataPath })
}

/** `auth`: false or absent (no authorization), or the resource server's settings. */
export function resolveAuth (value: unknown): ResolvedAuth | undefined {
  if (value === undefined || value === false) return undefined
  if (!isObject(value)) fail('auth', 'false, or an object { resource, authorizationServers, verify | jwks | authenticate, ... }', value)
  unknownKeys(value, AUTH_KEYS, 'auth.')
  const resourceUrl = httpUrl('auth.resource', value.resource, "this server's canonical URI, such as 'https://mcp.example.com/mcp'")
  const resource = value.resource as string
  const servers = value.authorizationServers
  if (!Array.isArray(servers) || servers.length === 0) fail('auth.authorizationServers', "a non-empty array of authorization server issuer URLs, such as ['https://auth.example.com']", servers)
  servers.forEach((server, i) => httpUrl(`auth.authorizationServers[${i}]`, server, 'an issuer URL'))
  const authorizationServers = Object.freeze([...servers] as string[])

  const ways = (['verify', 'jwks', 'authenticate'] as const).filter((key) => value[key] !== undefined)
  if (ways.length !== 1) {
    throw new SakeOptionError(`fastify-sake: option 'auth' needs exactly one way to check tokens: 'verify' (your function), 'jwks' (the built-in JWT verifier) or 'authenticate' (an existing auth hook); got ${ways.length === 0 ? 'none' : ways.join(' and ')}`)
  }
  const way = ways[0]
  if (way !== 'jwks') {
    const stray = JWKS_ONLY.find((key) => value[key] !== undefined)
    if (stray !== undefined) throw new SakeOptionError(`fastify-sake: option 'auth.${stray}' configures the built-in JWT verifier ('auth.jwks'); with 'auth.${way}' your code checks the token, so it is never used: remove it, or check it in your code`)
  }
  if (value.caller !== undefined && way !== 'authenticate') throw new SakeOptionError(`fastify-sake: option 'auth.caller' reads what 'auth.authenticate' left on the request; with 'auth.${way}' the verifier returns the caller: remove it`)
  if (way === 'verify' && typeof value.verify !== 'function') fail('auth.verify', 'a function (token, request) => caller (or a promise of one)', value.verify)
  if (way === 'authenticate' && typeof value.authenticate !== 'function') fail('auth.authenticate', 'a Fastify onRequest hook such as app.authenticate', value.authenticate)
  if (value.caller !== undefined && typeof value.caller !== 'function') fail('auth.caller', 'a function (request) => caller | undefined', value.caller)
  const clockTolerance = value.clockTolerance ?? authDefaults.clockTolerance
  if (typeof clockTolerance !== 'number' || !Number.isInteger(clockTolerance) || clockTolerance < 0 || clockTolerance > 300) {
    fail('auth.clockTolerance', 'an integer from 0 to 300 (seconds of clock skew allowed on exp, nbf and a future auth_time)', clockTolerance)
  }

  const hideForbidden = value.hideForbidden ?? false
  if (typeof hideForbidden !== 'boolean') fail('auth.hideForbidden', 'a boolean', hideForbidden)
  const metadata = value.metadata ?? {}
  if (!isObject(metadata)) fail('auth.metadata', 'an object of Protected Resource Metadata fields (RFC 9728), such as { resource_name: "Issues" }', metadata)
  const own = OWN_METADATA.find((key) => key in metadata)
  if (own !== undefined) throw new SakeOptionError(`fastify-sake: option 'auth.metadata' must not set '${own}': it comes from auth.resource, auth.authorizationServers and the header-only bearer method`)
  let copy: Record<string, unknown>
  try {
    copy = JSON.parse(JSON.stringify(metadata))
  } catch (err) {
    throw new SakeOptionError(`fastify-sake: option 'auth.metadata' must be JSON (it is served as it is): ${(err as Error).message}`)
  }

  const location = metadataLocation(resourceUrl)
  return Object.freeze({
    resource,
    authorizationServers,
    metadataUrl: location.url,
    metadataPath: location.path,
    metadata: Object.freeze(copy),
    hideForbidden,
    clockTolerance,
    verify: way === 'verify' ? value.verify as VerifyToken : undefined,
    jwks: way === 'jwks' ? jwksOptions(value, authorizationServers, resource, clockTolerance) : undefined,
    authenticate: way === 'authenticate'
      ? Object.freeze({ hook: value.authenticate as AuthenticateHook, caller: value.caller as ((request: FastifyRequest) => Caller | null | undefined) | undefined })
      : undefined
  })
}

/** `scopes`: scope → description; the declared scopes tools, resources and prompts may name. */
export function resolveScopes (value: unknown): ReadonlyMap<string, string> {
  if (value === undefined) return new Map()
  if (!isObject(value)) fail('scopes', "an object of scope → description, such as { 'issues:read': 'Read issues' }", value)
  const scopes = new Map<string, string>()
  for (const [scope, description] of Object.entries(value)) {
    if (!isScopeToken(scope)) throw new SakeOptionError(`fastify-sake: option 'scopes' has the scope ${JSON.stringify(scope)}, which is not an OAuth scope token (printable ASCII without spaces, '"' or '\\')`)
    if (typeof description !== 'string' || description.length === 0) fail(`scopes['${scope}']`, 'a non-empty description (a consent page shows it)', description)
    scopes.set(scope, description)
  }
  return scopes
}
