/**
 * The MCP endpoint's routes, registered in their own encapsulated context (not through
 * fastify-plugin) so that the JSON parser and the error handler set here apply to them alone and
 * never to the host's routes.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import sjson from 'secure-json-parse'
import { INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, SESSION_NOT_FOUND, idOf } from '../protocol/jsonrpc.js'
import { ProtocolError } from '../errors.js'
import { handlePost, type Endpoint } from './endpoint.js'
import { sendError } from './respond.js'

export interface RouteOptions {
  readonly endpoint: Endpoint
  readonly path: string
  readonly bodyLimit: number
}

function sessionHeader (request: FastifyRequest): string | undefined {
  const value = request.headers['mcp-session-id']
  return Array.isArray(value) ? value[0] : value
}

/** Fastify's own errors on our routes, as the JSON-RPC error a client can read. */
function fromFastify (error: FastifyError, bodyLimit: number): ProtocolError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProtocolError(INVALID_REQUEST, 'Unsupported Media Type: the Content-Type of a POST must be application/json', 415)
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProtocolError(INVALID_REQUEST, `Payload Too Large: the request body exceeds ${bodyLimit} bytes`, 413)
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProtocolError(PARSE_ERROR, 'Parse error: the request body is empty', 400)
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProtocolError(INVALID_REQUEST, 'Bad Request: Content-Length does not match the body', 400)
  }
  // any other 4xx Fastify raised before our handler ran (e.g. an aborted body)
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ProtocolError(INVALID_REQUEST, `Bad Request: ${error.message}`, error.statusCode)
  }
  return undefined
}

const methodNotAllowed = (method: string): ProtocolError => new ProtocolError(INVALID_REQUEST,
  `Method Not Allowed: ${method} is only for 2025 sessions (send Mcp-Session-Id); 2026-07-28 clients use POST alone`, 405)

export async function routes (app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { endpoint, path, bodyLimit } = options

  // our own parser keeps the parse error's message (Fastify's default drops it) and still
  // refuses __proto__ / constructor.prototype keys
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    try {
      done(null, sjson.parse(body as string, undefined, { protoAction: 'error', constructorAction: 'error' }))
    } catch (err) {
      const reason = body === '' ? 'the request body is empty' : (err as Error).message
      done(new ProtocolError(PARSE_ERROR, `Parse error: ${reason}`, 400), undefined)
    }
  })

  app.setErrorHandler((error: FastifyError | ProtocolError, request: FastifyRequest, reply: FastifyReply) => {
    const known = error instanceof ProtocolError ? error : fromFastify(error, bodyLimit)
    if (known !== undefined) return sendError(reply, idOf(request.body), known)
    request.log.error({ err: error }, 'fastify-sake: unexpected error on the MCP endpoint')
    return sendError(reply, idOf(request.body), new ProtocolError(INTERNAL_ERROR, 'Internal error', 500))
  })

  app.post(path, { bodyLimit }, async (request, reply) => handlePost(endpoint, request, reply))

  // No standalone stream yet: a 2025 session's GET gets 405, which clients take as "none offered".
  app.get(path, async (request, reply) => {
    const sessionId = sessionHeader(request)
    if (sessionId !== undefined && await endpoint.sessions.get(sessionId) === undefined) {
      return sendError(reply, null, new ProtocolError(SESSION_NOT_FOUND, 'Session not found: it ended or expired; send initialize to start a new session', 404))
    }
    reply.header('allow', 'POST, DELETE')
    return sendError(reply, null, sessionId === undefined
      ? methodNotAllowed('GET')
      : new ProtocolError(INVALID_REQUEST, 'Method Not Allowed: this server offers no standalone SSE stream; responses come on each POST', 405))
  })

  app.delete(path, async (request, reply) => {
    const sessionId = sessionHeader(request)
    if (sessionId === undefined) {
      reply.header('allow', 'POST')
      return sendError(reply, null, methodNotAllowed('DELETE'))
    }
    if (await endpoint.sessions.get(sessionId) === undefined) {
      return sendError(reply, null, new ProtocolError(SESSION_NOT_FOUND, 'Session not found: it ended or expired', 404))
    }
    await endpoint.sessions.delete(sessionId)
    return reply.code(204).send()
  })
}
