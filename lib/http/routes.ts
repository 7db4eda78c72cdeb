/**
 * The MCP endpoint's routes, registered in their own encapsulated context (not through
 * fastify-plugin) so that the JSON parser and the error handler set here apply to them alone and
 * never to the host's routes. What each route does lives beside: `post.ts` (POST, in three steps),
 * `session-routes.ts` (GET, DELETE, the 405s), `errors.ts` (the error handler), `body.ts` (the parser).
 */
import type { FastifyInstance } from 'fastify'
import { authHook } from '../auth/hook.js'
import { metadataRoutes } from '../auth/metadata.js'
import { jsonParser } from './body.js'
import type { Endpoint } from './endpoint.js'
import { errorHandler } from './errors.js'
import { originGuard, type OriginPolicy } from './origin.js'
import { kChecked, postRoute } from './post.js'
import { hidden, noValidation, postSchema, type OpenApiDocs } from './openapi.js'
import { kInbound, kView } from './request-info.js'
import { routeShape, type ResolvedRouteOptions } from './route-options.js'
import { deleteRoute, getRoute, methodNotAllowed } from './session-routes.js'
import { kTraced } from './request-trace.js'

export interface RouteOptions {
  readonly endpoint: Endpoint
  readonly path: string
  readonly bodyLimit: number
  /** The Host/Origin allow-lists (DNS-rebinding protection). */
  readonly origin: OriginPolicy
  /** The user's route options for every MCP route. */
  readonly routeOptions: ResolvedRouteOptions
  /** What the OpenAPI document shows of the endpoint (`openapi` option): by default nothing. */
  readonly openapi: OpenApiDocs
  /** The declared scopes, for the metadata document (`scopes_supported`). */
  readonly scopes: ReadonlyMap<string, string>
}

/** In each MCP route's `config`: the registry it serves, which `request.mcp` reads. */
export const kMcpRoute = Symbol('fastify-sake.route')

export async function routes (app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { endpoint, path, bodyLimit } = options
  // declared on each MCP route, never with app.addHook: the host's routes never see these checks.
  // Origin first (a rebinding attack is refused before any token work), then the bearer token;
  // with neither, no hook at all
  const onRequest = [originGuard(options.origin), endpoint.auth === undefined ? undefined : await authHook(endpoint.auth, endpoint.server.registry)].filter((hook) => hook !== undefined)
  const config = { [kMcpRoute]: endpoint.server.registry }
  const hooks = routeShape(options.routeOptions, { onRequest, config })

  // the Protected Resource Metadata (RFC 9728) beside the endpoint, below the same prefix
  if (endpoint.auth !== undefined) metadataRoutes(app, endpoint.auth, options.scopes, path)

  // what a request of ours is, as each step found it (post.ts, request-info.ts, request-trace.ts)
  for (const key of [kInbound, kChecked, kView, kTraced]) app.decorateRequest(key, null)

  // our own parser keeps the parse error's message (Fastify's default drops it), and refuses
  // __proto__ / constructor.prototype keys and deep nesting with the body's id (body.ts)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, jsonParser)
  app.setErrorHandler(errorHandler(endpoint, bodyLimit))

  // The POST route's own checks as route hooks, so that the host's hooks of each stage run first
  // and see `request.mcp` (request-info.ts): the era's checks in preValidation, authorization in
  // preHandler (only with auth on)
  const post = postRoute(endpoint)
  app.post(path, {
    bodyLimit,
    schema: postSchema(options.openapi),
    ...(options.openapi === false ? {} : { validatorCompiler: noValidation }),
    ...routeShape(options.routeOptions, { onRequest, preValidation: [post.check], preHandler: endpoint.auth === undefined ? [] : [post.authorize], config })
  }, post.handle)

  // no HEAD twin: a HEAD of a session's stream would open it and never end (HEAD is a 405 below)
  app.get(path, { ...hooks, schema: hidden(), exposeHeadRoute: false }, getRoute(endpoint))
  app.delete(path, { ...hooks, schema: hidden() }, deleteRoute(endpoint))

  // any other method: a 405 naming what the endpoint takes (OPTIONS stays free for CORS preflight handlers)
  app.route({
    method: ['HEAD', 'PUT', 'PATCH'],
    url: path,
    ...hooks,
    schema: hidden(),
    handler: async (request, reply) => methodNotAllowed(reply, `${request.method} is not used by MCP; send JSON-RPC messages with POST`)
  })
}
