/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): the document that tells a client which
 * authorization servers issue tokens for this MCP server and which scopes exist. Served without
 * authentication, at the path-suffixed well-known URI clients try first and at the root one.
 */
import type { FastifyInstance } from 'fastify'
import type { ResolvedAuth } from './options.js'

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

/**
 * The metadata routes: the suffixed form for the resource's path (what `resource_metadata`
 * names), for the endpoint's path when that differs (a proxy may mount it elsewhere), and the
 * root form unless another server in the app took it first.
 */
export function metadataRoutes (app: FastifyInstance, auth: ResolvedAuth, scopes: ReadonlyMap<string, string>, path: string): void {
  const body = metadataDocument(auth, scopes)
  const paths = new Set([auth.metadataPath, WELL_KNOWN + path])
  if (!app.hasRoute({ method: 'GET', url: WELL_KNOWN })) paths.add(WELL_KNOWN)
  for (const url of paths) {
    app.get(url, async (_request, reply) => reply
      .header('content-type', 'application/json; charset=utf-8')
      // public and the same for everyone: browser-based clients read it across origins
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=3600')
      .send(body))
  }
}
