/**
 * The GET and DELETE routes of the MCP endpoint, which only 2025 sessions use: GET opens a
 * session's standalone stream or resumes one with `Last-Event-ID` (`streams/session-streams.ts`);
 * DELETE ends the session. Without a session there is nothing to open or end: 405, as 2026-07-28
 * asks; other methods are 405 too (`methodNotAllowed`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { INVALID_REQUEST } from '../spec/jsonrpc.js'
import { sessionNotFound } from '../protocol/session/sessions.js'
import type { Endpoint } from './endpoint.js'
import { checkOnce, headerValue } from './headers.js'
import { sendError } from './respond.js'
import { SESSION_ID } from '../spec/headers.js'

/** What this endpoint serves, for the `Allow` header of its 405s: GET has no stream to open yet. */
const ALLOW = 'POST, DELETE'

/** A 405 naming what the endpoint takes, not the host's 404, which a 2025 client would read as "session gone". */
export function methodNotAllowed (reply: FastifyReply, message: string): FastifyReply {
  reply.header('allow', ALLOW)
  return sendError(reply, null, new ProtocolError(INVALID_REQUEST, `Method Not Allowed: ${message}`, 405))
}

/** `Mcp-Session-Id`, sent once (a gateway routing on its first line would reach another session than the joined value names). */
function sessionIdOf (request: FastifyRequest): string | undefined {
  const sessionId = headerValue(request.headers, SESSION_ID)
  checkOnce(request.raw.rawHeaders, SESSION_ID, sessionId)
  return sessionId
}

/** GET: a 2025 session's standalone stream, or the resumption of one of its POST streams. */
export function getRoute (endpoint: Endpoint) {
  return async function mcpGet (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    // a stream opened now would hold the close: the client opens it again, elsewhere
    if (endpoint.shutdown.closing) return sendError(reply, null, endpoint.shutdown.refusal)
    const sessionId = sessionIdOf(request)
    if (sessionId === undefined) return methodNotAllowed(reply, 'GET opens the standalone SSE stream of a 2025 session and needs its Mcp-Session-Id; 2026-07-28 clients use subscriptions/listen')
    const session = await endpoint.sessions.find(sessionId, request.mcpAuth?.subject, request.log)
    if (session === undefined) return sendError(reply, null, sessionNotFound)
    return endpoint.streams.sessions.get(request, reply, session)
  }
}

/** DELETE: ends a 2025 session (204), and its GET stream here and on every instance. */
export function deleteRoute (endpoint: Endpoint) {
  return async function mcpDelete (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    if (endpoint.shutdown.closing) return sendError(reply, null, endpoint.shutdown.refusal)
    const sessionId = sessionIdOf(request)
    if (sessionId === undefined) {
      return methodNotAllowed(reply, 'DELETE ends a 2025 session and needs its Mcp-Session-Id; 2026-07-28 clients have no session to end')
    }
    const session = await endpoint.sessions.find(sessionId, request.mcpAuth?.subject, request.log)
    if (session === undefined) return sendError(reply, null, sessionNotFound)
    await endpoint.sessions.end(endpoint.server, sessionId, request.log)
    endpoint.tracing.sessionEnded(request, session)
    endpoint.streams.sessions.end(sessionId)
    return reply.code(204).send()
  }
}
