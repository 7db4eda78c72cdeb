/**
 * The MCP endpoint's routes, registered in their own encapsulated context (not through
 * fastify-plugin) so that the JSON parser and the error handler set here apply to them alone and
 * never to the host's routes.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES } from 'node:http'
import { ProtocolError, RefusedBodyError } from '../errors.js'
import { INTERNAL_ERROR, INVALID_REQUEST, idOf } from '../spec/jsonrpc.js'
import { invalidToken } from '../auth/challenge.js'
import { authHook, bearerToken, missingFor } from '../auth/hook.js'
import { parseBody } from './body.js'
import { sessionNotFound, type Endpoint } from './endpoint.js'
import { headerValue } from './headers.js'
import { originGuard, type OriginPolicy } from './origin.js'
import { authorizePost, checkPost, handlePost, type Checked } from './post.js'
import { httpError } from './access.js'
import { sendError } from './respond.js'
import { findSession } from './sessions.js'
import { routeShape, type ResolvedRouteOptions } from './route-options.js'
import { answeredWith, hasSpan, kTraced } from './tracing.js'

export interface RouteOptions {
  readonly endpoint: Endpoint
  readonly path: string
  readonly bodyLimit: number
  /** The Host/Origin allow-lists (DNS-rebinding protection). */
  readonly origin: OriginPolicy
  /** The user's route options for every MCP route. */
  readonly routeOptions: ResolvedRouteOptions
}

/** In each MCP route's `config`: the registry it serves, which `request.mcp` reads. */
export const kMcpRoute = Symbol('fastify-sake.route')

/** On each request of the POST route: what `checkPost` found it to be, for the steps after it. */
const kChecked = Symbol('fastify-sake.checked')

type CheckedRequest = FastifyRequest & { [kChecked]: Checked | null }

function contentType (request: FastifyRequest): string {
  const value = request.headers['content-type']
  return value === undefined ? 'the request has none' : `got '${value}'`
}

/**
 * Fastify's own errors on our routes, as the JSON-RPC error a client can read. (Its empty-body
 * error cannot come: it belongs to the default JSON parser, which ours replaces.)
 */
function fromFastify (error: FastifyError, request: FastifyRequest, options: RouteOptions): ProtocolError | undefined {
  const { bodyLimit, endpoint: { auth } } = options
  // a reused auth hook that sent its own 401 error (`reply.send(err)`, as @fastify/jwt's examples
  // do): the client still needs the challenge that tells it where to get a token
  if (auth !== undefined && error.statusCode === 401) {
    request.log.info({ reason: error.message }, 'fastify-sake: access token refused by the authenticate hook')
    return bearerToken(request.headers.authorization) === undefined ? missingFor(auth.metadataUrl, options.endpoint.server.registry, request) : invalidToken(auth.metadataUrl)
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProtocolError(INVALID_REQUEST, `Unsupported Media Type: the Content-Type of a POST must be application/json; ${contentType(request)}`, 415)
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProtocolError(INVALID_REQUEST, `Payload Too Large: the request body exceeds ${bodyLimit} bytes`, 413)
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProtocolError(INVALID_REQUEST, 'Bad Request: Content-Length does not match the body', 400)
  }
  // any other 4xx raised before our handler ran (an aborted body; a host hook such as
  // @fastify/rate-limit's 429): its own status, and its own reason phrase, not "Bad Request"
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ProtocolError(INVALID_REQUEST, `${STATUS_CODES[error.statusCode] ?? 'Client Error'}: ${error.message}`, error.statusCode)
  }
  return undefined
}

const internalError = new ProtocolError(INTERNAL_ERROR, 'Internal error', 500)

/** What this endpoint serves, for the `Allow` header of its 405s: GET has no stream to open yet. */
const ALLOW = 'POST, DELETE'

function methodNotAllowed (reply: FastifyReply, message: string): FastifyReply {
  reply.header('allow', ALLOW)
  return sendError(reply, null, new ProtocolError(INVALID_REQUEST, `Method Not Allowed: ${message}`, 405))
}

export async function routes (app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { endpoint, path, bodyLimit } = options
  // declared on each MCP route, never with app.addHook: the host's routes never see these checks
  const guard = originGuard(options.origin)
  // origin first (a rebinding attack is refused before any token work), then the bearer token;
  // with neither, no hook at all
  const onRequest = [guard, endpoint.auth === undefined ? undefined : authHook(endpoint.auth, endpoint.server.registry)].filter((hook) => hook !== undefined)
  const config = { [kMcpRoute]: endpoint.server.registry }
  const hooks = routeShape(options.routeOptions, { onRequest, config })

  // The POST route's own checks as route hooks, so that the host's hooks of each stage run first
  // and see `request.mcp` (http/request-info.ts): the era's checks in preValidation, authorization
  // in preHandler (only with auth on). Callback hooks: the hot path awaits no promise for them.
  app.decorateRequest(kChecked, null)
  app.decorateRequest(kTraced, null)
  const runCheck = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    let checked: Checked | Promise<Checked>
    try {
      checked = checkPost(endpoint, request, reply)
    } catch (err) {
      done(err as Error)
      return
    }
    if (checked instanceof Promise) {
      checked.then((value) => { (request as CheckedRequest)[kChecked] = value; done() }, done)
    } else {
      (request as CheckedRequest)[kChecked] = checked
      done()
    }
  }
  // traced, the checks run inside the trace, and the rest of the request continues from there
  const check = function mcpCheck (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    if (endpoint.tracing.on()) endpoint.tracing.begin(request, reply, () => { runCheck(request, reply, done) })
    else runCheck(request, reply, done)
  }
  const authorizeHook = function mcpAuthorize (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
    try {
      authorizePost(endpoint, request, (request as CheckedRequest)[kChecked]!)
    } catch (err) {
      done(err as Error)
      return
    }
    done()
  }
  const post = routeShape(options.routeOptions, {
    onRequest,
    preValidation: [check],
    preHandler: endpoint.auth === undefined ? [] : [authorizeHook],
    config
  })

  // our own parser keeps the parse error's message (Fastify's default drops it), and refuses
  // __proto__ / constructor.prototype keys and deep nesting with the body's id (http/body.ts)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    try {
      done(null, parseBody(body as string))
    } catch (err) {
      done(err as ProtocolError, undefined)
    }
  })

  app.setErrorHandler((error: FastifyError | ProtocolError, request: FastifyRequest, reply: FastifyReply) => {
    // a refusal by scope or step-up, from authorization or a tool, gets its challenge here
    const known = error instanceof ProtocolError ? httpError(endpoint, error) : fromFastify(error, request, options)
    if (known !== undefined) {
      answeredWith(request, known)
      return sendError(reply, error instanceof RefusedBodyError ? error.id : idOf(request.body), known)
    }
    request.log.error({ err: error }, 'fastify-sake: unexpected error on the MCP endpoint')
    answeredWith(request, internalError, error)
    return sendError(reply, idOf(request.body), internalError)
  })

  // not async: an answer sent in the handler's turn (a sync tool, a list) returns nothing, and only
  // a real promise is handed on. A sent reply is thenable too, but never returned: Fastify would
  // wait for the response to finish before it counts the handler done (@fastify/otel's handler
  // span then ends late), and a returned reply is sent again
  app.post(path, { bodyLimit, ...post }, (request, reply) => {
    endpoint.streams.calls.received(request)
    const checked = (request as CheckedRequest)[kChecked]!
    const answer = hasSpan(request)
      ? endpoint.tracing.within(request, () => handlePost(endpoint, request, reply, checked))
      : handlePost(endpoint, request, reply, checked)
    return answer instanceof Promise ? answer : undefined
  })

  // a 2025 session's GET opens its standalone stream, or resumes one with Last-Event-ID
  // (lib/http/session-streams.ts); without a session there is none to open: 405, as 2026-07-28 asks
  // no HEAD twin: a HEAD of a session's stream would open it and never end (HEAD is a 405 below)
  app.get(path, { ...hooks, exposeHeadRoute: false }, async (request, reply) => {
    const sessionId = headerValue(request.headers, 'mcp-session-id')
    if (sessionId === undefined) return methodNotAllowed(reply, 'GET opens the standalone SSE stream of a 2025 session and needs its Mcp-Session-Id; 2026-07-28 clients use subscriptions/listen')
    const session = await findSession(endpoint, request, sessionId)
    if (session === undefined) return sendError(reply, null, sessionNotFound)
    return endpoint.streams.sessions.get(request, reply, session)
  })

  app.delete(path, hooks, async (request, reply) => {
    const sessionId = headerValue(request.headers, 'mcp-session-id')
    if (sessionId === undefined) {
      return methodNotAllowed(reply, 'DELETE ends a 2025 session and needs its Mcp-Session-Id; 2026-07-28 clients have no session to end')
    }
    if (await findSession(endpoint, request, sessionId) === undefined) return sendError(reply, null, sessionNotFound)
    await endpoint.sessions.delete(sessionId)
    try {
      await endpoint.server.tasks.endSession(sessionId)
      await endpoint.streams.endSession(sessionId)
    } catch (err) {
      // the session is gone from the store, which is what DELETE promises; its tasks end at their ttl
      request.log.warn({ err }, 'fastify-sake: a session ended, but its tasks or the other instances\' streams could not be told (the task store or the bus failed)')
    }
    return reply.code(204).send()
  })

  // any other method: a 405 naming what the endpoint takes, not the host's 404, which a 2025 client
  // would read as "session gone" (OPTIONS stays free for CORS preflight handlers)
  app.route({
    method: ['HEAD', 'PUT', 'PATCH'],
    url: path,
    ...hooks,
    handler: async (request, reply) => methodNotAllowed(reply, `${request.method} is not used by MCP; send JSON-RPC messages with POST`)
  })
}
