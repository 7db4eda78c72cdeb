/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): the document that tells a client which
 * authorization servers issue tokens for this MCP server and which scopes exist. Each server serves
 * its own, without authentication, at the path-suffixed well-known URI of its resource (what its
 * challenges name, and what clients try first). The root well-known URI is the app's, whichever
 * server's context registers its route: `rootDocument` says whose document it serves.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import { SakeOptionError } from '../errors.js'
import { perApp } from './per-app.js'
import type { ResolvedAuth } from './auth-options.js'

export const WELL_KNOWN = '/.well-known/oauth-protected-resource'

/** The document, serialised once: `scopes_supported` is every declared scope unless `metadata` sets its own (the minimal set). */
export function metadataDocument (auth: ResolvedAuth, scopes: ReadonlyMap<string, string>): string {
  const document: Record<string, unknown> = {
    resource: auth.resource,
    authorization_servers: auth.authorizationServers,
    // tokens only in the Authorization header: the spec forbids them in the query string
    bearer_methods_supported: ['header']
  }
  if (scopes.size > 0) document.scopes_supported = [...scopes.keys()]
  return JSON.stringify({ ...document, ...auth.metadata })
}

function send (reply: FastifyReply, body: string): FastifyReply {
  return reply
    .header('content-type', 'application/json; charset=utf-8')
    // public and the same for everyone: browser-based clients read it across origins
    .header('access-control-allow-origin', '*')
    .header('cache-control', 'public, max-age=3600')
    .send(body)
}

/**
 * The metadata routes of one server: the suffixed form for its resource's path (what
 * `resource_metadata` names), for the endpoint's path when that differs (a proxy may mount it
 * elsewhere), and its claim on the root form.
 */
export function metadataRoutes (app: FastifyInstance, auth: ResolvedAuth, scopes: ReadonlyMap<string, string>, path: string): void {
  const body = metadataDocument(auth, scopes)
  for (const url of new Set([auth.metadataPath, WELL_KNOWN + path])) {
    // a resource whose path is the root has its document at the root form: the app's route serves it
    // hide: not part of the service's API in its OpenAPI document (@fastify/swagger)
    if (url !== WELL_KNOWN) app.get(url, { schema: { hide: true } }, async (_request, reply) => send(reply, body))
  }
  claimRoot(app, { resource: auth.resource, body, own: auth.metadataPath === WELL_KNOWN })
}

/** A server with auth on, as a candidate for the root form of its context's prefix. */
export interface RootClaim {
  readonly resource: string
  readonly body: string
  /** Its resource's path is the root: the root form is its own document's URI (RFC 9728 §3.1), not a fallback. */
  readonly own: boolean
}

/**
 * Whose document the root form serves: the server whose resource is at the root; else the one
 * server with auth on there is (MCP lets a client find `https://host/mcp`'s metadata at the root);
 * else none, a 404. Serving one of two servers' documents there would send a client of the other
 * to the wrong resource (the SDK clients refuse a `resource` that is not their server's): they
 * follow `resource_metadata` from the 401, then try the path-suffixed form, before the root.
 */
export function rootDocument (claims: readonly RootClaim[]): string | null {
  const own = claims.find((claim) => claim.own)
  if (own !== undefined) return own.body
  return claims.length === 1 ? claims[0].body : null
}

/** The claims on each root form of an app, by the URL it answers at (a context's prefix included). */
const rootsOf = perApp(() => new Map<string, RootClaim[]>())

/**
 * Registers the root form once per URL, in the context of the first server that claims it, and
 * adds this server's claim: the servers registered after it are known by the first request, since
 * registration closes when the app is ready.
 */
function claimRoot (app: FastifyInstance, claim: RootClaim): void {
  const url = app.prefix + WELL_KNOWN
  const roots = rootsOf(app)
  let claims = roots.get(url)
  if (claims === undefined) {
    // a route the host declared itself stays the host's
    if (app.hasRoute({ method: 'GET', url })) return
    const all: RootClaim[] = claims = []
    roots.set(url, claims)
    let body: string | null | undefined
    app.get(WELL_KNOWN, { schema: { hide: true } }, async (_request, reply) => {
      if (body === undefined) body = rootDocument(all)
      if (body !== null) return send(reply, body)
      reply.callNotFound()
      return reply
    })
  }
  const rival = claim.own ? claims.find((one) => one.own) : undefined
  if (rival !== undefined) {
    throw new SakeOptionError(`fastify-sake: option 'auth.resource' is ${claim.resource}, whose metadata (RFC 9728) is served at ${url}, as is that of ${rival.resource}, another MCP server of this app: give each server a resource with its own path`)
  }
  claims.push(claim)
}
