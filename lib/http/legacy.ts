/**
 * 2025 sessions: `initialize` opens one (its id in `Mcp-Session-Id`), and every later POST names
 * it. A POST on a session is a request, a notification, or a response to one of our questions;
 * the `Mcp-*` headers, which 2025 clients predate, are checked only when sent.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AccessRefusal, ProtocolError } from '../errors.js'
import { INVALID_REQUEST, errorBody, resultText, type Message, type RequestId } from '../spec/jsonrpc.js'
import type { Logger } from '../spec/types.js'
import type { Session } from '../state/session-store.js'
import type { Call, CallOutcome } from '../protocol/call.js'
import { dispatch } from '../protocol/dispatch.js'
import { initialize } from '../protocol/methods/lifecycle.js'
import { targetOf, type Target } from '../protocol/target.js'
import { answerDeferred, answerStreaming, answersAsStream, mayAsk } from './answer.js'
import { answerOf } from './client-requests.js'
import type { Endpoint } from './endpoint.js'
import { checkStandardHeaders, checkToolHeaders } from './headers.js'
import { sendAccepted, sendJson } from './respond.js'
import { sessionOf } from './sessions.js'
import { answeredWithError, inSession, outcomeOf } from './tracing.js'
import { HttpTransport } from './transport.js'
import { isThenable } from '../values.js'

/** A request of a session, as `readMessage` sorted it. */
export interface LegacyRequest { readonly id: RequestId, readonly method: string, readonly params: Record<string, unknown> | undefined }

export async function handleInitialize (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, message: Message & { kind: 'request' }): Promise<FastifyReply> {
  const init = initialize(endpoint.server, message.params)
  const session: Session = { id: randomUUID(), protocolVersion: init.version, client: init.client, initialized: false }
  inSession(request, session)
  // bound to whoever opened it: another subject's token on this session finds no session
  if (request.mcpAuth !== null) session.subject = request.mcpAuth.subject
  await endpoint.sessions.set(session)
  reply.header('mcp-session-id', session.id)
  return sendJson(reply, 200, resultText(message.id, init.result))
}

/** A message of a 2025 session that passed its checks: what `answerLegacy` answers. */
export interface LegacyChecked {
  readonly kind: 'legacy'
  readonly session: Session
  readonly message: Message
  readonly target: Target | undefined
}

/**
 * The checks of a message on a 2025 session (the POST route's `preValidation`): the session and
 * its version header; for a request, the `Mcp-*` headers it sends. 2025 clients predate those
 * headers: each is checked only when sent, and a mismatch is refused with the same 400 + -32020 as
 * in the modern era.
 */
export function checkLegacy (endpoint: Endpoint, request: FastifyRequest, message: Message, sessionId: string): LegacyChecked | Promise<LegacyChecked> {
  const session = sessionOf(endpoint, request, sessionId)
  // sync with a store that answers synchronously (checkPost's caller takes either)
  if (isThenable(session)) return Promise.resolve(session).then((found) => checkInSession(endpoint, request, message, found))
  return checkInSession(endpoint, request, message, session)
}

function checkInSession (endpoint: Endpoint, request: FastifyRequest, message: Message, session: Session): LegacyChecked {
  inSession(request, session)
  if (message.kind !== 'request') return { kind: 'legacy', session, message, target: undefined }
  checkStandardHeaders(request.headers, message.method, message.params, false)
  const target = targetOf(endpoint.server.registry, message.method, message.params)
  if (message.method === 'tools/call') checkToolHeaders(request.headers, target, message.params, false)
  return { kind: 'legacy', session, message, target }
}

/** Answers a checked message of a 2025 session: 202 for a notification or a response, else the request's answer. */
export function answerLegacy (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, checked: LegacyChecked): FastifyReply | Promise<FastifyReply> {
  const { session, message, target } = checked
  if (message.kind === 'response') return answered(endpoint, request, reply, session, message)
  if (message.kind === 'notification') return notified(endpoint, reply, session, message)
  const call = legacyCall(endpoint, request, reply, session, message, target, outcomeOf(request))
  if (answersAsStream(request, call)) return answerStreaming(endpoint, request, reply, call)
  if (mayAsk(request, call)) return answerDeferred(endpoint, request, reply, call)
  const answer = legacyAnswer(endpoint, call, true)
  // a sync tool's answer is sent in the same turn: no promise on the hot path
  if (isThenable(answer)) return Promise.resolve(answer).then((json) => sendJson(reply, 200, json))
  return sendJson(reply, 200, answer)
}

async function answered (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, session: Session, message: Message & { kind: 'response' }): Promise<FastifyReply> {
  await endpoint.streams.calls.answered(session.id, message.id, answerOf(message.result, message.error), request.log as unknown as Logger)
  return sendAccepted(reply)
}

async function notified (endpoint: Endpoint, reply: FastifyReply, session: Session, message: Message & { kind: 'notification' }): Promise<FastifyReply> {
  await notify(endpoint, session, message.method, message.params)
  return sendAccepted(reply)
}

export function legacyCall (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, session: Session, message: LegacyRequest, target: Target | undefined, outcome: CallOutcome | undefined): Call {
  return {
    era: 'legacy',
    protocolVersion: session.protocolVersion,
    id: message.id,
    method: message.method,
    params: message.params ?? {},
    client: session.client,
    sessionId: session.id,
    session,
    transport: new HttpTransport(request, reply, { cancellations: endpoint.cancellations, sessionId: session.id, requestId: message.id }),
    channel: undefined,
    logLevel: session.logLevel,
    openStream: undefined,
    auth: request.mcpAuth ?? undefined,
    target,
    outcome
  }
}

/** A client notification on a session: a cancel, or the end of the handshake; others are dropped. */
export async function notify (endpoint: Endpoint, session: Session, method: string, params?: Record<string, unknown>): Promise<void> {
  if (method === 'notifications/cancelled') {
    endpoint.cancellations.cancel(session.id, params?.requestId, params?.reason)
    return
  }
  if (method === 'notifications/initialized' && !session.initialized) {
    session.initialized = true
    await endpoint.sessions.set(session)
  }
}

/**
 * Runs one legacy request and returns its whole JSON-RPC response, result or error (in a batch
 * each item has its own; none of them can set the HTTP status). `alone`: the only message of its
 * POST, whose refusal by authorization keeps its HTTP status and challenge.
 */
export function legacyAnswer (endpoint: Endpoint, call: Call, alone = false): string | Promise<string> {
  let answer: string | Promise<string>
  try {
    if (call.method === 'initialize') {
      throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: initialize must be sent alone, without Mcp-Session-Id, as the first request')
    }
    answer = dispatch(endpoint.server, call)
  } catch (err) {
    return refused(call, err, alone)
  }
  // sync when the method is (a sync tool): the answer in the same turn
  if (isThenable(answer)) return Promise.resolve(answer).then((result) => resultText(call.id, result), (err: unknown) => refused(call, err, alone))
  return resultText(call.id, answer)
}

/** A request's failure as its JSON-RPC error; an authorization refusal of a message alone is thrown, to keep its status and challenge. */
function refused (call: Call, err: unknown, alone: boolean): string {
  /* c8 ignore next -- dispatch turns every failure into a ProtocolError or an isError result; anything else is our bug, for the route's error handler (500) */
  if (!(err instanceof ProtocolError)) throw err
  // a refusal by authorization needs its status and challenge, which a message alone can have
  if (alone && err instanceof AccessRefusal) throw err
  answeredWithError(call, err)
  return JSON.stringify(errorBody(call.id, err))
}
