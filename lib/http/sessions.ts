/** Finding the 2025 session a request names, and checking the request fits it. */
import type { FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { LEGACY_VERSIONS, isLegacyVersion, rulesOf } from '../spec/eras.js'
import { INVALID_REQUEST } from '../spec/jsonrpc.js'
import type { Session } from '../state/session-store.js'
import { sessionNotFound, type Endpoint } from './endpoint.js'
import { headerValue } from './headers.js'
import { isThenable } from '../values.js'

/**
 * The live session `sessionId` names, if the caller may use it: a session opened by another
 * subject answers as not found, as if sessions were keyed by subject and id (the spec's advice
 * against hijacking), so it neither exists for them nor ends for its owner.
 */
export async function findSession (endpoint: Endpoint, request: FastifyRequest, sessionId: string): Promise<Session | undefined> {
  return ownSession(request, sessionId, await endpoint.sessions.get(sessionId))
}

function ownSession (request: FastifyRequest, sessionId: string, session: Session | undefined): Session | undefined {
  if (session === undefined || session.subject === (request.mcpAuth?.subject)) return session
  request.log.warn({ sessionId, subject: request.mcpAuth?.subject }, 'fastify-sake: a 2025 session was used with the token of another subject than the one that opened it; answered as not found')
  return undefined
}

/**
 * The session of a POST, with its `MCP-Protocol-Version` checked; 404 or 400 otherwise. Sync
 * when the store answers synchronously (the in-memory one): no promise on a session's hot path.
 */
export function sessionOf (endpoint: Endpoint, request: FastifyRequest, sessionId: string): Session | Promise<Session> {
  const found = endpoint.sessions.get(sessionId)
  if (isThenable(found)) return Promise.resolve(found).then((session) => fitSession(request, ownSession(request, sessionId, session)))
  return fitSession(request, ownSession(request, sessionId, found))
}

function fitSession (request: FastifyRequest, session: Session | undefined): Session {
  if (session === undefined) throw sessionNotFound
  const version = headerValue(request.headers, 'mcp-protocol-version')
  if (version === undefined) {
    if (rulesOf(session.protocolVersion).versionHeader) {
      throw new ProtocolError(INVALID_REQUEST, `Bad Request: the MCP-Protocol-Version header is required on every request of a ${session.protocolVersion} session`, 400)
    }
  } else if (!isLegacyVersion(version)) {
    // the transport asks for 400 on an invalid or unsupported value only: a supported version other
    // than the negotiated one is served at the negotiated one (older clients and suites send 2025-03-26)
    throw new ProtocolError(INVALID_REQUEST, `Bad Request: MCP-Protocol-Version header '${version}' is not a version of this session's protocol era; this session negotiated '${session.protocolVersion}'`, 400, {
      supported: LEGACY_VERSIONS,
      requested: version
    })
  }
  return session
}
