/**
 * 2025 sessions over HTTP: `initialize` opens one (its id in `Mcp-Session-Id`), and every later POST
 * names it. A POST on a session is a request, a notification, or a response to one of our
 * questions; the `Mcp-*` headers, which 2025 clients predate, are checked only when sent. The
 * session protocol itself (the handshake, lookups, notifications, answers) is the protocol core's
 * (`protocol/session/sessions.ts`); this file carries it on Fastify's request and reply.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { resultText } from '../spec/jsonrpc.js'
import type { Session } from '../state/session-store.js'
import { sessionCall, type CallOutcome } from '../protocol/call.js'
import type { Inbound, InboundRequest } from '../protocol/inbound.js'
import { answerOf } from '../protocol/session/client-requests.js'
import { answerCall } from './answer.js'
import { callerOf } from './caller.js'
import type { Endpoint } from './endpoint.js'
import { checkSessionHeaders, type Carried } from './headers.js'
import { sendAccepted, sendJson } from './respond.js'
import { inSession } from './request-trace.js'
import { HttpTransport } from './transport.js'
import { isThenable } from '../values.js'
import { SESSION_ID } from '../spec/headers.js'

/** `initialize`: a new session, its id in the `Mcp-Session-Id` header of the answer. */
export async function handleInitialize (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, inbound: InboundRequest): Promise<FastifyReply> {
  endpoint.streams.calls.received(request)
  const { session, result } = endpoint.sessions.open(endpoint.server, inbound.params, request.mcpAuth?.subject, callerOf(request))
  inSession(request, session)
  await endpoint.sessions.create(session, request.log)
  reply.header(SESSION_ID, session.id)
  return sendJson(reply, 200, resultText(inbound.id, result))
}

/** A message of a 2025 session that passed its checks: what `answerLegacy` answers. */
export interface LegacyChecked {
  readonly kind: 'legacy'
  readonly session: Session
  readonly inbound: Inbound
  readonly carried: Carried
}

/**
 * The checks of a message on a 2025 session (the POST route's `preValidation`): the session and
 * its version header; for a request, the `Mcp-*` headers it sends. 2025 clients predate those
 * headers: each is checked only when sent, and a mismatch is refused with the same 400 + -32020 as
 * in the modern era. Sync with a store that answers synchronously.
 */
export function checkLegacy (endpoint: Endpoint, request: FastifyRequest, carried: Carried, inbound: Inbound): LegacyChecked | Promise<LegacyChecked> {
  const found = endpoint.sessions.findFitting(inbound.sessionId!, request.mcpAuth?.subject, carried.version, request.log)
  if (isThenable(found)) return Promise.resolve(found).then((session) => checkInSession(request, carried, inbound, session))
  return checkInSession(request, carried, inbound, found)
}

function checkInSession (request: FastifyRequest, carried: Carried, inbound: Inbound, session: Session): LegacyChecked {
  inSession(request, session)
  if (inbound.kind === 'request') checkSessionHeaders(request.headers, carried, inbound as InboundRequest)
  return { kind: 'legacy', session, inbound, carried }
}

/** Answers a checked message of a 2025 session: 202 for a notification or a response, else the request's answer. */
export function answerLegacy (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, checked: LegacyChecked, outcome: CallOutcome | undefined): FastifyReply | Promise<FastifyReply> {
  endpoint.streams.calls.received(request)
  const { session, inbound } = checked
  if (inbound.kind === 'response') return answered(endpoint, request, reply, session, inbound)
  if (inbound.kind === 'notification') return notified(endpoint, reply, session, inbound)
  const asked = inbound as InboundRequest
  // on this request's connection, cancellable by `notifications/cancelled`
  const cancellable = { cancellations: endpoint.sessions.cancellations, sessionId: session.id, requestId: asked.id }
  const call = sessionCall(session, asked, new HttpTransport(request, reply, endpoint.shutdown, cancellable), request.mcpAuth ?? undefined, outcome)
  return answerCall(endpoint, request, reply, call, checked.carried, inbound.facts)
}

async function answered (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, session: Session, inbound: Inbound): Promise<FastifyReply> {
  await endpoint.sessions.answered(session.id, inbound.responseId, answerOf(inbound.result, inbound.error), request.log)
  return sendAccepted(reply)
}

async function notified (endpoint: Endpoint, reply: FastifyReply, session: Session, inbound: Inbound): Promise<FastifyReply> {
  await endpoint.sessions.notified(session, inbound.method!, inbound.params)
  return sendAccepted(reply)
}
