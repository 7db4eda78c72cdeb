/**
 * The POST side of the MCP endpoint: decides once, from the message itself, which era it belongs
 * to, and hands it to that era's path (`modern.ts`, `legacy.ts`, `batch.ts`). Both eras share the
 * method tables of `protocol/dispatch.ts`; what differs is only the envelope around them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { isModernVersion } from '../spec/eras.js'
import { INVALID_REQUEST, idOf, readMessage, type Message, type RequestId } from '../spec/jsonrpc.js'
import { isModern, readModernMeta } from '../protocol/meta.js'
import { httpError } from './access.js'
import { handleBatch } from './batch.js'
import { emptyBody, type Endpoint } from './endpoint.js'
import { NAME_SOURCE, headerValue } from './headers.js'
import { handleInitialize, handleLegacy } from './legacy.js'
import { handleModern } from './modern.js'
import { sendAccepted, sendError } from './respond.js'

/** `Accept` must allow JSON; an absent header accepts anything (RFC 9110). */
function acceptsJson (accept: string | undefined): boolean {
  return accept === undefined || accept.includes('application/json') || accept.includes('*/*') || accept.includes('application/*')
}

const notAcceptable = new ProtocolError(INVALID_REQUEST, 'Not Acceptable: the Accept header must allow application/json (MCP clients send "Accept: application/json, text/event-stream")', 406)

/** Answers one POSTed message (or batch). Errors it does not catch are ProtocolErrors for the error handler. */
export async function handlePost (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const body = request.body
  if (!acceptsJson(request.headers.accept)) return sendError(reply, idOf(body), notAcceptable)
  // a POST with neither Content-Type nor body skips the parser and arrives here as undefined
  if (body === undefined) return sendError(reply, null, emptyBody)
  try {
    if (Array.isArray(body)) return await handleBatch(endpoint, request, reply, body)
    const message = readMessage(body)
    if (message.kind !== 'response') bindLog(request, reply, message.method, message.params)
    if (message.kind !== 'response' && isModern(message.params)) return await handleModern(endpoint, request, reply, message)
    if (message.kind === 'request' && message.method === 'initialize') return await handleInitialize(endpoint, request, reply, message)
    const sessionId = headerValue(request.headers, 'mcp-session-id')
    if (sessionId !== undefined) return await handleLegacy(endpoint, request, reply, message, sessionId)
    return handleSessionless(request, reply, message)
  } catch (err) {
    if (err instanceof ProtocolError) return sendError(reply, idOf(body), httpError(endpoint, err))
    throw err
  }
}

/**
 * Names the MCP method and target in every line the request logs from here on, Fastify's own
 * "request completed" included (it logs through `reply.log`), so a call can be found by its tool.
 */
function bindLog (request: FastifyRequest, reply: FastifyReply, method: string, params: Record<string, unknown> | undefined): void {
  const field = NAME_SOURCE[method]
  const name = field === undefined ? undefined : params?.[field]
  const log = request.log.child({ mcp: typeof name === 'string' ? { method, name } : { method } })
  request.log = log
  reply.log = log
}

/** Neither era: a 2025 request without a session, or a 2026-07-28 one without its `_meta`. */
function handleSessionless (request: FastifyRequest, reply: FastifyReply, message: Message): FastifyReply {
  // only a request's id is echoed: a response's id names a request of ours, not one being answered
  const id: RequestId | null = message.kind === 'request' ? message.id : null
  if (isModernVersion(headerValue(request.headers, 'mcp-protocol-version'))) {
    if (message.kind === 'response') {
      return sendError(reply, id, new ProtocolError(INVALID_REQUEST, 'Invalid Request: 2026-07-28 clients must not send JSON-RPC responses', 400))
    }
    if (message.kind === 'notification') return sendAccepted(reply)
    readModernMeta(message.params) // throws the precise -32602 for the missing _meta
  }
  return sendError(reply, id, new ProtocolError(INVALID_REQUEST,
    'Bad Request: no session. 2025 clients send initialize first and then the Mcp-Session-Id header; 2026-07-28 clients send params._meta with "io.modelcontextprotocol/protocolVersion"', 400))
}
