/**
 * The MCP routes' error handler: every error that reaches it is answered as a JSON-RPC error with
 * its HTTP status. A protocol error as it is (a refusal by scope or step-up with its challenge),
 * Fastify's own errors (body limit, content type) as the JSON-RPC error a client can read, anything
 * else as a logged 500.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES } from 'node:http'
import { ProtocolError, RefusedBodyError } from '../errors.js'
import { INTERNAL_ERROR, INVALID_REQUEST, idOf } from '../spec/jsonrpc.js'
import { invalidToken } from '../auth/challenge.js'
import { bearerToken, missingFor } from '../auth/hook.js'
import { httpError } from './authorize.js'
import type { Endpoint } from './endpoint.js'
import { sendError } from './respond.js'
import { answeredWith } from './request-trace.js'

function contentType (request: FastifyRequest): string {
  const value = request.headers['content-type']
  return value === undefined ? 'the request has none' : `got '${value}'`
}

/**
 * Fastify's own errors on our routes, as the JSON-RPC error a client can read. (Its empty-body
 * error cannot come: it belongs to the default JSON parser, which ours replaces.)
 */
function fromFastify (error: FastifyError, request: FastifyRequest, endpoint: Endpoint, bodyLimit: number): ProtocolError | undefined {
  const { auth } = endpoint
  // a reused auth hook that sent its own 401 error (`reply.send(err)`, as @fastify/jwt's examples
  // do): the client still needs the challenge that tells it where to get a token
  if (auth !== undefined && error.statusCode === 401) {
    request.log.info({ reason: error.message }, 'fastify-sake: access token refused by the authenticate hook')
    return bearerToken(request.headers.authorization) === undefined ? missingFor(auth.metadataUrl, endpoint.server.registry, request) : invalidToken(auth.metadataUrl)
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

/** The error handler of one endpoint's routes (`bodyLimit`: its POST's, for the 413's message). */
export function errorHandler (endpoint: Endpoint, bodyLimit: number) {
  return (error: FastifyError | ProtocolError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    // a refusal by scope or step-up, from authorization or a tool, gets its challenge here
    const known = error instanceof ProtocolError ? httpError(endpoint, error) : fromFastify(error, request, endpoint, bodyLimit)
    if (known !== undefined) {
      answeredWith(request, known)
      return sendError(reply, error instanceof RefusedBodyError ? error.id : idOf(request.body), known)
    }
    request.log.error({ err: error }, 'fastify-sake: unexpected error on the MCP endpoint')
    answeredWith(request, internalError, error)
    return sendError(reply, idOf(request.body), internalError)
  }
}
