/**
 * The `auth` and `scopes` options, checked at registration like every other option: authorization
 * is a security switch, so a typo or a half-configured verifier fails `register` instead of
 * quietly serving without the check the user asked for.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SakeOptionError } from '../errors.js'
import { fail, got, isScopeToken } from '../checks.js'
import { custom, readGroup, type InputOf, type Option } from '../option-spec.js'
import { isObject } from '../values.js'
import { CLOCK_SKEW } from '../protocol/access-check.js'

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

/** The scopes this server uses, each with the description a consent page shows. */
export type ScopesOption = Record<string, string>

/** Asymmetric JWS algorithms: a JWKS publishes public keys, so HMAC (a shared secret) and `none` never fit. */
export const ASYMMETRIC_ALGORITHMS = Object.freeze(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'])

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

type Way = 'verify' | 'jwks' | 'authenticate'

/** The one way the options check tokens (or the error saying there must be exactly one). */
function wayOf (given: Readonly<Record<string, unknown>>): Way {
  const ways = (['verify', 'jwks', 'authenticate'] as const).filter((key) => given[key] !== undefined)
  if (ways.length !== 1) {
    throw new SakeOptionError(`fastify-sake: option 'auth' needs exactly one way to check tokens: 'verify' (your function), 'jwks' (the built-in JWT verifier) or 'authenticate' (an existing auth hook); got ${ways.length === 0 ? 'none' : ways.join(' and ')}`)
  }
  return ways[0]!
}

/** An option of the built-in JWT verifier, read only with it (with another way, your code checks the token). */
function jwksOnly<T> (read: (value: unknown, name: string, group: Readonly<Record<string, unknown>>) => T): Option<string | string[], T | undefined> {
  // given with another way, it was refused when 'verify' was read (the first of the three ways)
  return custom(undefined, (value, { name, given, group }) => wayOf(given) === 'jwks' ? read(value, name, group) : undefined)
}

/** The `auth` option's members, in the order they are read (and listed when a key is unknown). */
export const AUTH = {
  /** This server's canonical URI (RFC 8707 / RFC 9728 `resource`), e.g. `https://mcp.example.com/mcp`. */
  resource: custom<string, string>('required', (value, { name }) => {
    httpUrl(name, value, "this server's canonical URI, such as 'https://mcp.example.com/mcp'")
    return value as string
  }),
  /** Issuer URLs of the authorization servers that issue tokens for it (at least one). */
  authorizationServers: custom<string[], readonly string[]>('required', (servers, { name }) => {
    if (!Array.isArray(servers) || servers.length === 0) fail(name, "a non-empty array of authorization server issuer URLs, such as ['https://auth.example.com']", servers)
    servers.forEach((server, i) => httpUrl(`${name}[${i}]`, server, 'an issuer URL'))
    return Object.freeze([...servers] as string[])
  }),
  /** Your own token check: introspection, opaque tokens, an existing JWT setup. */
  verify: custom<VerifyToken, VerifyToken | undefined>(undefined, (value, { name, given }) => {
    const way = wayOf(given)
    // the checks of the other ways, before any of their values is read
    const stray = way === 'jwks' ? undefined : JWKS_ONLY.find((key) => given[key] !== undefined)
    if (stray !== undefined) throw new SakeOptionError(`fastify-sake: option 'auth.${stray}' configures the built-in JWT verifier ('auth.jwks'); with 'auth.${way}' your code checks the token, so it is never used: remove it, or check it in your code`)
    if (given.caller !== undefined && way !== 'authenticate') throw new SakeOptionError(`fastify-sake: option 'auth.caller' reads what 'auth.authenticate' left on the request; with 'auth.${way}' the verifier returns the caller: remove it`)
    if (value !== undefined && typeof value !== 'function') fail(name, 'a function (token, request) => caller (or a promise of one)', value)
    return value as VerifyToken | undefined
  }),
  /** The built-in JWT verifier: the JWKS URL of the authorization server's signing keys. */
  jwks: custom<string | URL, URL | undefined>(undefined, (jwks, { name }) => {
    if (jwks === undefined) return undefined
    return httpUrl(name, jwks instanceof URL ? jwks.href : jwks, 'the URL of the JSON Web Key Set')
  }),
  /** `jwks` only: accepted `iss` values. Default: `authorizationServers`. */
  issuer: jwksOnly((value, name, group) => value === undefined ? group.authorizationServers as readonly string[] : stringList(name, value, 'the accepted token issuer: a non-empty string or array of strings')),
  /** `jwks` only: accepted `aud` values. Default: `resource` (tokens meant for another server are refused). */
  audience: jwksOnly((value, name, group) => value === undefined ? Object.freeze([group.resource as string]) : stringList(name, value, 'the accepted token audience: a non-empty string or array of strings')),
  /** `jwks` only: accepted signature algorithms. Default: the asymmetric JWS algorithms; never `none`. */
  algorithms: jwksOnly((value, name) => {
    if (value === undefined) return ASYMMETRIC_ALGORITHMS
    const algorithms = stringList(name, value, `a non-empty array of JWS algorithms among ${ASYMMETRIC_ALGORITHMS.join(', ')}`)
    for (const alg of algorithms) {
      if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
        throw new SakeOptionError(`fastify-sake: option 'auth.algorithms' may only list asymmetric JWS algorithms (${ASYMMETRIC_ALGORITHMS.join(', ')}): a JWKS holds public keys, and 'none' is never accepted; got ${got(alg)}`)
      }
    }
    return algorithms
  }),
  /**
   * Seconds of clock skew allowed on the token's times: `exp` and `nbf` (`jwks`), and, with every
   * way, how far `auth_time` may be ahead of this server's clock for a step-up `maxAge`. Default 30
   * (enough for clocks that drift, small enough that an expired token stays expired).
   */
  clockTolerance: custom<number, number>(`\`${CLOCK_SKEW}\``, (value, { name }) => {
    const clockTolerance = value ?? CLOCK_SKEW
    if (typeof clockTolerance !== 'number' || !Number.isInteger(clockTolerance) || clockTolerance < 0 || clockTolerance > 300) {
      fail(name, 'an integer from 0 to 300 (seconds of clock skew allowed on exp, nbf and a future auth_time)', clockTolerance)
    }
    return clockTolerance
  }),
  /** Reuse an existing authentication hook on the MCP routes instead of `verify` or `jwks`. */
  authenticate: custom<AuthenticateHook, AuthenticateHook | undefined>(undefined, (value, { name }) => {
    if (value !== undefined && typeof value !== 'function') fail(name, 'a Fastify onRequest hook such as app.authenticate', value)
    return value as AuthenticateHook | undefined
  }),
  /** With `authenticate`: reads the caller the hook left on the request. Default: JWT claims in `request.user`. */
  caller: custom<(request: FastifyRequest) => Caller | null | undefined, ((request: FastifyRequest) => Caller | null | undefined) | undefined>(undefined, (value, { name }) => {
    if (value !== undefined && typeof value !== 'function') fail(name, 'a function (request) => caller | undefined', value)
    return value as ((request: FastifyRequest) => Caller | null | undefined) | undefined
  }),
  /** Leave out of `tools/list` (and the other lists) what the caller's scopes do not allow. Default false. */
  hideForbidden: custom<boolean, boolean>('`false`', (value, { name }) => {
    const hide = value ?? false
    if (typeof hide !== 'boolean') fail(name, 'a boolean', hide)
    return hide
  }),
  /** More Protected Resource Metadata fields (RFC 9728): `resource_name`, `resource_documentation`... */
  metadata: custom<Record<string, unknown>, Readonly<Record<string, unknown>>>('`{}`', (value, { name }) => {
    const metadata = value ?? {}
    if (!isObject(metadata)) fail(name, 'an object of Protected Resource Metadata fields (RFC 9728), such as { resource_name: "Issues" }', metadata)
    const own = OWN_METADATA.find((key) => key in metadata)
    if (own !== undefined) throw new SakeOptionError(`fastify-sake: option 'auth.metadata' must not set '${own}': it comes from auth.resource, auth.authorizationServers and the header-only bearer method`)
    try {
      return Object.freeze(JSON.parse(JSON.stringify(metadata)))
    } catch (err) {
      throw new SakeOptionError(`fastify-sake: option 'auth.metadata' must be JSON (it is served as it is): ${(err as Error).message}`)
    }
  })
}

const JWKS_ONLY = ['issuer', 'audience', 'algorithms']

export interface AuthOptions extends InputOf<typeof AUTH> {
  /** This server's canonical URI (RFC 8707 / RFC 9728 `resource`), e.g. `https://mcp.example.com/mcp`. */
  resource: string
  /** Issuer URLs of the authorization servers that issue tokens for it (at least one). */
  authorizationServers: string[]
}

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
  const read = readGroup(AUTH, value, 'auth', 'false, or an object { resource, authorizationServers, verify | jwks | authenticate, ... }')
  const location = metadataLocation(new URL(read.resource))
  return Object.freeze({
    resource: read.resource,
    authorizationServers: read.authorizationServers,
    metadataUrl: location.url,
    metadataPath: location.path,
    metadata: read.metadata,
    hideForbidden: read.hideForbidden,
    clockTolerance: read.clockTolerance,
    verify: read.verify,
    jwks: read.jwks === undefined ? undefined : Object.freeze({ url: read.jwks, issuer: read.issuer!, audience: read.audience!, algorithms: read.algorithms!, clockTolerance: read.clockTolerance }),
    authenticate: read.authenticate === undefined ? undefined : Object.freeze({ hook: read.authenticate, caller: read.caller })
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
