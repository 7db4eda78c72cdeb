/** Writing JSON-RPC answers on a Fastify reply. */
import type { FastifyReply } from 'fastify'
import { AuthorizationError, QuotaExceededError, ShuttingDownError, type ProtocolError } from '../errors.js'
import { errorBody, type RequestId } from '../spec/jsonrpc.js'
import { RETRY_AFTER, WWW_AUTHENTICATE } from '../spec/headers.js'

const JSON_TYPE = 'application/json; charset=utf-8'

/** Sends JSON text as it is: results are serialised once, never re-serialised by Fastify. */
export function sendJson (reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply.code(status).header('content-type', JSON_TYPE).send(json)
}

/** Sends a JSON-RPC error, with the HTTP status the error carries. */
export function sendError (reply: FastifyReply, id: RequestId | null, error: ProtocolError): FastifyReply {
  if (error instanceof AuthorizationError) reply.header(WWW_AUTHENTICATE, error.challenge)
  else if (error instanceof ShuttingDownError) reply.header(RETRY_AFTER, String(error.retryAfter)).header('connection', 'close')
  else if (error instanceof QuotaExceededError) reply.header(RETRY_AFTER, String(error.retryAfter))
  return sendJson(reply, error.status, JSON.stringify(errorBody(id, error)))
}

/** 202 Accepted with no body: the answer to notifications and client responses. */
export function sendAccepted (reply: FastifyReply): FastifyReply {
  return reply.code(202).send()
}
