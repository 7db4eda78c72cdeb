/**
 * The POST side of the MCP endpoint: decides once, from the message itself, which era it belongs
 * to, runs that era's checks in the order the spec fixes, and answers. Both eras share the method
 * tables in `protocol/dispatch.ts`; what differs here is only the envelope around them.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  INVALID_REQUEST, METHOD_NOT_FOUND, SESSION_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION, errorBody, idOf, readMessage, resultText,
  type Message, type RequestId
} from '../protocol/jsonrpc.js'
import { ProtocolError } from '../errors.js'
import { isModern, readModernMeta } from '../protocol/meta.js'
import { SUPPORTED_VERSIONS, isModernVersion, rulesOf } from '../protocol/eras.js'
import { dispatch, hasMethod, type ServerState } from '../protocol/dispatch.js'
import { initialize } from '../protocol/methods/lifecycle.js'
import type { Call } from '../protocol/context.js'
import type { Session, SessionStore } from '../state/session-store.js'
import { checkParamHeaders, checkStandardHeaders, checkVersionHeader } from './headers.js'
import { sendAccepted, sendError, sendJson } from './respond.js'
import { HttpTransport } from './transport.js'

export interface Endpoint {
  readonly state: ServerState
  readonly sessions: SessionStore
}

interface Request { readonly id: RequestId, readonly method: string, readonly params: Record<string, unknown> | undefined }

function header (request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** `Accept` must allow JSON; an absent header accepts anything (RFC 9110). */
function acceptsJson (accept: string | undefined): boolean {
  return accept === undefined || accept.includes('application/json') || accept.includes('*/*') || accept.includes('application/*')
}

const notAcceptable = new ProtocolError(INVALID_REQUEST, 'Not Acceptable: the Accept header must allow application/json (MCP clients send "Accept: application/json, text/event-stream")', 406)

/** Answers one POSTed message (or batch). Errors it does not catch are ProtocolErrors for the error handler. */
export async function handlePost (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const body = request.body
  if (!acceptsJson(request.headers.accept)) return sendError(reply, idOf(body), notAcceptable)
  try {
    if (Array.isArray(body)) return await handleBatch(endpoint, request, reply, body)
    const message = readMessage(body)
    if (message.kind !== 'response' && isModern(message.params)) return await handleModern(endpoint, request, reply, message)
    if (message.kind === 'request' && message.method === 'initialize') return await handleInitialize(endpoint, reply, message)
    const sessionId = header(request, 'mcp-session-id')
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
  if (!hasMethod('modern', message.method)) {
    // unknown methods are a 404 in this revision (a legacy session keeps 200: there 404 means "session gone")
    return sendError(reply, message.id, new ProtocolError(METHOD_NOT_FOUND, `Method not found: ${message.method}`, 404))
  }
  if (message.method === 'tools/call') {
    const tool = typeof params.name === 'string' ? endpoint.state.registry.tools.get(params.name) : undefined
    if (tool !== undefined && tool.headers.length > 0) checkParamHeaders(headers, tool, params.arguments, true)
  }
  return answer(endpoint, reply, {
    era: 'modern',
    protocolVersion: meta.protocolVersion,
    id: message.id,
    method: message.method,
    params,
    client: meta.client,
    sessionId: undefined,
    transport: new HttpTransport(request, reply)
  })
}

async function answer (endpoint: Endpoint, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  const json = await dispatch(endpoint.state, call)
  return sendJson(reply, 200, resultText(call.id, json))
}

// ---------------------------------------------------------------- legacy (2025 sessions)

async function handleInitialize (endpoint: Endpoint, reply: FastifyReply, message: Message & { kind: 'request' }): Promise<FastifyReply> {
  const { state, sessions } = endpoint
  const init = initialize(state.registry, state.instructions, message.params)
  const session: Session = { id: randomUUID(), protocolVersion: init.version, client: init.client, initialized: false }
  await sessions.set(session)
  reply.header('mcp-session-id', session.id)
  return sendJson(reply, 200, resultText(message.id, init.result))
}

async function sessionOf (endpoint: Endpoint, request: FastifyRequest, sessionId: string): Promise<Session> {
  const session = await endpoint.sessions.get(sessionId)
  if (session === undefined) {
    throw new ProtocolError(SESSION_NOT_FOUND, 'Session not found: it ended or expired; send initialize to start a new session', 404)
  }
  const version = header(request, 'mcp-protocol-version')
  if (version === undefined) {
    if (rulesOf(session.protocolVersion).versionHeader) {
      throw new ProtocolError(INVALID_REQUEST, `Bad Request: the MCP-Protocol-Version header is required on every request of a ${session.protocolVersion} session`, 400)
    }
  } else if (version !== session.protocolVersion) {
    throw new ProtocolError(INVALID_REQUEST, `Bad Request: MCP-Protocol-Version header '${version}' does not match the version this session negotiated, '${session.protocolVersion}'`, 400, {
      supported: [session.protocolVersion],
      requested: version
    })
  }
  return session
}

async function handleLegacy (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, message: Message, sessionId: string): Promise<FastifyReply> {
  const session = await sessionOf(endpoint, request, sessionId)
  if (message.kind === 'response') return sendAccepted(reply) // answers to server requests: none are pending yet
  if (message.kind === 'notification') {
    await notify(endpoint, session, message.method)
    return sendAccepted(reply)
  }
  checkStandardHeaders(request.headers, message.method, message.params, false)
  return sendJson(reply, 200, await legacyAnswer(endpoint, request, reply, session, message, true))
}

async function notify (endpoint: Endpoint, session: Session, method: string): Promise<void> {
  if (method === 'notifications/initialized' && !session.initialized) {
    session.initialized = true
    await endpoint.sessions.set(session)
  }
}

/** Runs one legacy request and returns its whole JSON-RPC response, result or error. */
async function legacyAnswer (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, session: Session, message: Request, checkHeaders: boolean): Promise<string> {
  try {
    if (message.method === 'initialize') {
      throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: initialize must be sent alone, without Mcp-Session-Id, as the first request')
    }
    if (checkHeaders && message.method === 'tools/call' && message.params !== undefined) {
      const tool = typeof message.params.name === 'string' ? endpoint.state.registry.tools.get(message.params.name) : undefined
      // 2025 clients do not know Mcp-Param-*: check only the ones sent
      if (tool !== undefined && tool.headers.length > 0) checkParamHeaders(request.headers, tool, message.params.arguments, false)
    }
    const json = await dispatch(endpoint.state, {
      era: 'legacy',
      protocolVersion: session.protocolVersion,
      id: message.id,
      method: message.method,
      params: message.params ?? {},
      client: session.client,
      sessionId: session.id,
      transport: new HttpTransport(request, reply)
    })
    return resultText(message.id, json)
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw err
    return JSON.stringify(errorBody(message.id, err))
  }
}

/** A JSON-RPC batch: only a 2025-03-26 session may send one. */
async function handleBatch (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, batch: unknown[]): Promise<FastifyReply> {
  const sessionId = header(request, 'mcp-session-id')
  const session = sessionId === undefined ? undefined : await sessionOf(endpoint, request, sessionId)
  if (session === undefined || !rulesOf(session.protocolVersion).batches) {
    throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: JSON-RPC batches (array bodies) are only allowed in 2025-03-26 sessions; send one message per POST', 400)
  }
  if (batch.length === 0) throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: the batch is empty', 400)
  const answers = await Promise.all(batch.map(async (item): Promise<string | undefined> => {
    let message: Message
    try {
      message = readMessage(item)
    } catch (err) {
      return JSON.stringify(errorBody(idOf(item), err as ProtocolError))
    }
    if (message.kind === 'response') return undefined
    if (message.kind === 'notification') {
      await notify(endpoint, session, message.method)
      return undefined
    }
    return legacyAnswer(endpoint, request, reply, session, message, false)
  }))
  const responses = answers.filter((a): a is string => a !== undefined)
  if (responses.length === 0) return sendAccepted(reply)
  return sendJson(reply, 200, '[' + responses.join(',') + ']')
}

// ---------------------------------------------------------------- neither

function handleSessionless (request: FastifyRequest, reply: FastifyReply, message: Message): FastifyReply {
  const id: RequestId | null = message.kind === 'notification' ? null : message.id
  if (isModernVersion(header(request, 'mcp-protocol-version'))) {
    if (message.kind === 'response') {
      return sendError(reply, id, new ProtocolError(INVALID_REQUEST, 'Invalid Request: 2026-07-28 clients must not send JSON-RPC responses', 400))
    }
    if (message.kind === 'notification') return sendAccepted(reply)
    readModernMeta(message.params) // throws the precise -32602 for the missing _meta
  }
  return sendError(reply, id, new ProtocolError(INVALID_REQUEST,
    'Bad Request: no session. 2025 clients send initialize first and then the Mcp-Session-Id header; 2026-07-28 clients send params._meta with "io.modelcontextprotocol/protocolVersion"', 400))
}
