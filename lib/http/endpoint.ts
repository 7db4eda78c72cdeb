/**
 * The POST side of the MCP endpoint: decides once, from the message itself, which era it belongs
 * to, runs that era's checks in the order the spec fixes, and answers. Both eras share the method
 * tables in `protocol/dispatch.ts`; what differs here is only the envelope around them.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, SESSION_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION, errorBody, idOf, readMessage, resultText,
  type Message, type RequestId
} from '../protocol/jsonrpc.js'
import { AuthorizationError, ProtocolError } from '../errors.js'
import { isModern, readModernMeta } from '../protocol/meta.js'
import { LEGACY_VERSIONS, SUPPORTED_VERSIONS, isLegacyVersion, isModernVersion, rulesOf } from '../protocol/eras.js'
import { dispatch, type ServerState } from '../protocol/dispatch.js'
import { initialize } from '../protocol/methods/lifecycle.js'
import type { Call, Logger } from '../protocol/context.js'
import { answerOf } from './client-requests.js'
import type { Session, SessionStore } from '../state/session-store.js'
import { checkParamHeaders, checkStandardHeaders, checkVersionHeader, headerValue } from './headers.js'
import { sendAccepted, sendError, sendJson } from './respond.js'
import { HttpTransport } from './transport.js'
import { Cancellations } from './cancellation.js'
import { acceptsEventStream } from './sse.js'
import type { Streams } from './streams.js'
import type { ResolvedAuth } from '../auth/options.js'
import { authorize } from '../auth/access.js'

export interface Endpoint {
  readonly state: ServerState
  readonly sessions: SessionStore
  /** Milliseconds between SSE keep-alive comments (0: none). */
  readonly keepAlive: number
  /** Every open event stream: streamed answers, GET streams, subscriptions. */
  readonly streams: Streams
  /** Authorization; undefined when it is off (then nothing below checks anything). */
  readonly auth?: ResolvedAuth | undefined
}

interface Request { readonly id: RequestId, readonly method: string, readonly params: Record<string, unknown> | undefined }

/** `Accept` must allow JSON; an absent header accepts anything (RFC 9110). */
function acceptsJson (accept: string | undefined): boolean {
  return accept === undefined || accept.includes('application/json') || accept.includes('*/*') || accept.includes('application/*')
}

const notAcceptable = new ProtocolError(INVALID_REQUEST, 'Not Acceptable: the Accept header must allow application/json (MCP clients send "Accept: application/json, text/event-stream")', 406)

/** A 2025 session id that names no live session; the client must send initialize again (404, any HTTP method). */
export const sessionNotFound = new ProtocolError(SESSION_NOT_FOUND, 'Session not found: it ended or expired; send initialize to start a new session', 404)

/** An empty body, whether the JSON parser saw it or (without a Content-Type) nothing parsed it. */
export const emptyBody = new ProtocolError(PARSE_ERROR, 'Parse error: the request body is empty; send one JSON-RPC message as application/json', 400)

/** Answers one POSTed message (or batch). Errors it does not catch are ProtocolErrors for the error handler. */
export async function handlePost (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const body = request.body
  if (!acceptsJson(request.headers.accept)) return sendError(reply, idOf(body), notAcceptable)
  // a POST with neither Content-Type nor body skips the parser and arrives here as undefined
  if (body === undefined) return sendError(reply, null, emptyBody)
  try {
    if (Array.isArray(body)) return await handleBatch(endpoint, request, reply, body)
    const message = readMessage(body)
    if (message.kind !== 'response' && isModern(message.params)) return await handleModern(endpoint, request, reply, message)
    if (message.kind === 'request' && message.method === 'initialize') return await handleInitialize(endpoint, request, reply, message)
    const sessionId = headerValue(request.headers, 'mcp-session-id')
    if (sessionId !== undefined) return await handleLegacy(endpoint, request, reply, message, sessionId)
    return handleSessionless(request, reply, message)
  } catch (err) {
    if (err instanceof ProtocolError) return sendError(reply, idOf(body), err)
    throw err
  }
}

// ---------------------------------------------------------------- modern (2026-07-28)

async function handleModern (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, message: Exclude<Message, { kind: 'response' }>): Promise<FastifyReply> {
  // the revision defines no client notifications over HTTP: accept and drop them
  if (message.kind === 'notification') return sendAccepted(reply)
  const { headers } = request
  const meta = readModernMeta(message.params)
  checkVersionHeader(headers, meta.protocolVersion)
  if (!isModernVersion(meta.protocolVersion)) {
    throw new ProtocolError(UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${meta.protocolVersion}`, 400, {
      supported: SUPPORTED_VERSIONS,
      requested: meta.protocolVersion
    })
  }
  const params = message.params!
  checkStandardHeaders(headers, message.method, params, true)
  // an unknown method falls through to dispatch, which answers 404 + -32601 after these checks
  if (message.method === 'tools/call') checkToolHeaders(endpoint, request, params, true)
  // before any stream opens: a forbidden call is a plain 401/403 the client can act on
  if (endpoint.auth !== undefined) authorize(endpoint.state.registry, endpoint.auth.metadataUrl, message.method, params, request.mcpAuth!)
  const call: Call = {
    era: 'modern',
    protocolVersion: meta.protocolVersion,
    id: message.id,
    method: message.method,
    params,
    client: meta.client,
    sessionId: undefined,
    transport: new HttpTransport(request, reply),
    logLevel: meta.logLevel,
    auth: request.mcpAuth ?? undefined
  }
  if (streams(endpoint, request, call)) return answerStreaming(endpoint, request, reply, call)
  if (call.method === 'subscriptions/listen') return endpoint.streams.listen(request, reply, call)
  return sendJson(reply, 200, resultText(call.id, await dispatch(endpoint.state, call)))
}

/**
 * Whether a call answers as Server-Sent Events: a tool declared `stream: true`, or a call that
 * asked for progress (a progressToken) or log messages (a log level), from a client that accepts
 * an event stream. Anything else is one JSON answer, the fast path.
 */
function streams (endpoint: Endpoint, request: FastifyRequest, call: Call): boolean {
  if (call.method !== 'tools/call' || !acceptsEventStream(request.headers.accept)) return false
  const name = call.params.name
  const tool = typeof name === 'string' ? endpoint.state.registry.tools.get(name) : undefined
  if (tool === undefined) return false // an unknown tool is a plain -32602
  if (tool.stream || call.logLevel !== undefined) return true
  const meta = call.params._meta as Record<string, unknown> | undefined
  return meta?.progressToken !== undefined
}

/** Runs a call with its response open as an event stream: notifications first, then the answer. */
async function answerStreaming (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  return endpoint.streams.respond(request, reply, call, async (streaming) => runToText(endpoint, request, streaming))
}

/** Runs a call and returns its whole response, result or error, as JSON text (for a stream, or deferred JSON). */
async function runToText (endpoint: Endpoint, request: FastifyRequest, call: Call): Promise<string> {
  try {
    return resultText(call.id, await dispatch(endpoint.state, call))
  } catch (err) {
    const error = err instanceof ProtocolError ? err : internalError(request, err)
    return JSON.stringify(errorBody(call.id, error))
  }
}

function internalError (request: FastifyRequest, err: unknown): ProtocolError {
  request.log.error({ err }, 'fastify-sake: unexpected error while streaming a response')
  return new ProtocolError(INTERNAL_ERROR, 'Internal error', 500)
}

/** The called tool's `Mcp-Param-*` headers. An unknown tool has none: dispatch answers -32602 for it. */
function checkToolHeaders (endpoint: Endpoint, request: FastifyRequest, params: Record<string, unknown> | undefined, required: boolean): void {
  const name = params?.name
  const tool = typeof name === 'string' ? endpoint.state.registry.tools.get(name) : undefined
  if (tool !== undefined && tool.headers.length > 0) checkParamHeaders(request.headers, tool, params!.arguments, required)
}

// ---------------------------------------------------------------- legacy (2025 sessions)

async function handleInitialize (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, message: Message & { kind: 'request' }): Promise<FastifyReply> {
  const { state, sessions } = endpoint
  const init = initialize(state.registry, state.instructions, message.params)
  const session: Session = { id: randomUUID(), protocolVersion: init.version, client: init.client, initialized: false }
  // bound to whoever opened it: another subject's token on this session finds no session
  if (request.mcpAuth !== null) session.subject = request.mcpAuth.subject
  await sessions.set(session)
  reply.header('mcp-session-id', session.id)
  return sendJson(reply, 200, resultText(message.id, init.result))
}

/**
 * The live session `sessionId` names, if the caller may use it: a session opened by another
 * subject answers as not found, as if sessions were keyed by subject and id (the spec's advice
 * against hijacking), so it neither exists for them nor ends for its owner.
 */
export async function findSession (endpoint: Endpoint, request: FastifyRequest, sessionId: string): Promise<Session | undefined> {
  const session = await endpoint.sessions.get(sessionId)
  if (session === undefined || session.subject === (request.mcpAuth?.subject)) return session
  request.log.warn({ sessionId, subject: request.mcpAuth?.subject }, 'fastify-sake: a 2025 session was used with the token of another subject than the one that opened it; answered as not found')
  return undefined
}

async function sessionOf (endpoint: Endpoint, request: FastifyRequest, sessionId: string): Promise<Session> {
  const session = await findSession(endpoint, request, sessionId)
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

async function handleLegacy (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, message: Message, sessionId: string): Promise<FastifyReply> {
  const session = await sessionOf(endpoint, request, sessionId)
  if (message.kind === 'response') {
    await endpoint.streams.answered(session.id, message.id, answerOf(message.result, message.error), request.log as unknown as Logger)
    return sendAccepted(reply)
  }
  if (message.kind === 'notification') {
    await notify(endpoint, session, message.method, message.params)
    return sendAccepted(reply)
  }
  // 2025 clients predate the Mcp-* headers: each is checked only when sent, and a mismatch is
  // refused with the same 400 + -32020 as in the modern era
  checkStandardHeaders(request.headers, message.method, message.params, false)
  if (message.method === 'tools/call') checkToolHeaders(endpoint, request, message.params, false)
  if (endpoint.auth !== undefined) authorize(endpoint.state.registry, endpoint.auth.metadataUrl, message.method, message.params, request.mcpAuth!)
  if (message.method !== 'initialize') {
    const call = legacyCall(request, reply, session, message)
    if (streams(endpoint, request, call)) return answerStreaming(endpoint, request, reply, call)
    if (mayAsk(request, call)) return answerDeferred(endpoint, request, reply, call)
  }
  return sendJson(reply, 200, await legacyAnswer(endpoint, request, reply, session, message, true))
}

/** Methods whose handler may ask the client something (`ctx.elicit`, `ctx.sample`, `ctx.roots`). */
const ASKING = new Set(['tools/call', 'prompts/get', 'resources/read'])

/**
 * Whether a 2025 call could need an event stream to ask its client something: a method that may
 * ask, from a client that declared something to ask about and accepts a stream.
 */
function mayAsk (request: FastifyRequest, call: Call): boolean {
  if (!ASKING.has(call.method) || request.headers.accept === undefined || !acceptsEventStream(request.headers.accept)) return false
  const caps = call.client.capabilities
  return caps.elicitation !== undefined || caps.sampling !== undefined || caps.roots !== undefined
}

/** Answers a 2025 call as JSON, or as an event stream if its handler asked the client something. */
async function answerDeferred (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  const deferred = endpoint.streams.deferred(request, reply, call)
  let answer: string
  try {
    answer = resultText(call.id, await dispatch(endpoint.state, deferred.call))
  } catch (err) {
    // a refusal by authorization keeps its status and challenge while the answer is still plain JSON
    if (err instanceof AuthorizationError && !deferred.opened()) throw err
    /* c8 ignore next -- dispatch throws only ProtocolErrors (see legacyAnswer); the fallback keeps an opened stream answerable */
    answer = JSON.stringify(errorBody(call.id, err instanceof ProtocolError ? err : internalError(request, err)))
  }
  if (deferred.end(answer)) return reply
  return sendJson(reply, 200, answer)
}

/** 2025 calls that `notifications/cancelled` can stop (per process: see `cancellation.ts`). */
const cancellations = new Cancellations()

function legacyCall (request: FastifyRequest, reply: FastifyReply, session: Session, message: Request): Call {
  return {
    era: 'legacy',
    protocolVersion: session.protocolVersion,
    id: message.id,
    method: message.method,
    params: message.params ?? {},
    client: session.client,
    sessionId: session.id,
    session,
    transport: new HttpTransport(request, reply, { cancellations, sessionId: session.id, requestId: message.id }),
    logLevel: session.logLevel,
    auth: request.mcpAuth ?? undefined
  }
}

async function notify (endpoint: Endpoint, session: Session, method: string, params?: Record<string, unknown>): Promise<void> {
  if (method === 'notifications/cancelled') {
    cancellations.cancel(session.id, params?.requestId, params?.reason)
    return
  }
  if (method === 'notifications/initialized' && !session.initialized) {
    session.initialized = true
    await endpoint.sessions.set(session)
  }
}

/**
 * Runs one legacy request and returns its whole JSON-RPC response, result or error (in a batch
 * each item has its own; none of them can set the HTTP status).
 */
async function legacyAnswer (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, session: Session, message: Request, alone = false): Promise<string> {
  try {
    if (message.method === 'initialize') {
      throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: initialize must be sent alone, without Mcp-Session-Id, as the first request')
    }
    const json = await dispatch(endpoint.state, legacyCall(request, reply, session, message))
    return resultText(message.id, json)
  } catch (err) {
    /* c8 ignore next -- dispatch turns every failure into a ProtocolError or an isError result; anything else is our bug, for the route's error handler (500) */
    if (!(err instanceof ProtocolError)) throw err
    // a refusal by authorization needs its status and challenge, which a message alone can have
    if (alone && err instanceof AuthorizationError) throw err
    return JSON.stringify(errorBody(message.id, err))
  }
}

/** A JSON-RPC batch: only a 2025-03-26 session may send one. */
async function handleBatch (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, batch: unknown[]): Promise<FastifyReply> {
  const sessionId = headerValue(request.headers, 'mcp-session-id')
  const session = sessionId === undefined ? undefined : await sessionOf(endpoint, request, sessionId)
  if (session === undefined || !rulesOf(session.protocolVersion).batches) {
    throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: JSON-RPC batches (array bodies) are only allowed in 2025-03-26 sessions; send one message per POST', 400)
  }
  if (batch.length === 0) throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: the batch is empty', 400)
  // a batch answers 200 item by item, which cannot carry a challenge: one forbidden item refuses the whole batch
  if (endpoint.auth !== undefined) authorizeBatch(endpoint, request, batch)
  const answers = await Promise.all(batch.map(async (item): Promise<string | undefined> => {
    let message: Message
    try {
      message = readMessage(item)
    } catch (err) {
      return JSON.stringify(errorBody(idOf(item), err as ProtocolError))
    }
    if (message.kind === 'response') {
      await endpoint.streams.answered(session.id, message.id, answerOf(message.result, message.error), request.log as unknown as Logger)
      return undefined
    }
    if (message.kind === 'notification') {
      await notify(endpoint, session, message.method, message.params)
      return undefined
    }
    // the batch's headers cannot mirror each item's body, so Mcp-* headers are not checked here
    return legacyAnswer(endpoint, request, reply, session, message)
  }))
  const responses = answers.filter((a): a is string => a !== undefined)
  if (responses.length === 0) return sendAccepted(reply)
  return sendJson(reply, 200, '[' + responses.join(',') + ']')
}

function authorizeBatch (endpoint: Endpoint, request: FastifyRequest, batch: unknown[]): void {
  for (const item of batch) {
    // an item that is not a message gets its own error in the batch's answer
    const { method, params } = (typeof item === 'object' && item !== null ? item : {}) as { method?: unknown, params?: unknown }
    if (typeof method === 'string' && typeof params === 'object' && params !== null) {
      authorize(endpoint.state.registry, endpoint.auth!.metadataUrl, method, params as Record<string, unknown>, request.mcpAuth!)
    }
  }
}

// ---------------------------------------------------------------- neither

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
