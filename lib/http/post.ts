/**
 * The POST side of the MCP endpoint, as three steps of the route, so that the host's hooks of each
 * stage run between them:
 *
 * - `checkPost` (the route's `preValidation`): decides once, from the message itself, which era it
 *   belongs to, and runs that era's checks in the spec's order (`modern.ts`, `legacy.ts`, `batch.ts`);
 * - `authorizePost` (its `preHandler`, with auth on): what the caller may do with what it targets;
 * - `handlePost` (the handler): the answer. Both eras share the method tables of
 *   `protocol/dispatch.ts`; what differs is only the envelope around them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { isModernVersion } from '../spec/eras.js'
import { INVALID_REQUEST, readMessage, type Message, type RequestId } from '../spec/jsonrpc.js'
import { isModern, readModernMeta } from '../protocol/meta.js'
import { authorize } from './access.js'
import { answerBatch, authorizeBatch, checkBatch, type BatchChecked } from './batch.js'
import { emptyBody, type Endpoint } from './endpoint.js'
import { LOGGED_NAME, headerValue } from './headers.js'
import { answerLegacy, checkLegacy, handleInitialize, type LegacyChecked } from './legacy.js'
import { answerModern, checkModern, type ModernChecked } from './modern.js'
import { sendAccepted, sendError } from './respond.js'
import { answeredWith } from './tracing.js'

/** What `checkPost` found a POST to be, for the steps after it. */
export type Checked =
  | ModernChecked
  | LegacyChecked
  | BatchChecked
  /** A 2026-07-28 notification: accepted and dropped. */
  | { readonly kind: 'accepted' }
  | { readonly kind: 'initialize', readonly message: Message & { kind: 'request' } }
  /** Neither era: a 2025 request without a session, or a 2026-07-28 one without its `_meta`. */
  | { readonly kind: 'sessionless', readonly message: Message }

/** `Accept` must allow JSON; an absent header accepts anything (RFC 9110). */
function acceptsJson (accept: string | undefined): boolean {
  return accept === undefined || accept.includes('application/json') || accept.includes('*/*') || accept.includes('application/*')
}

const notAcceptable = new ProtocolError(INVALID_REQUEST, 'Not Acceptable: the Accept header must allow application/json (MCP clients send "Accept: application/json, text/event-stream")', 406)
const ACCEPTED: Checked = Object.freeze({ kind: 'accepted' })

/**
 * The checks of a POST, before the handler; throws the ProtocolError that answers a request that
 * fails one (the routes' error handler sends it). Sync for a 2026-07-28 request (no promise on the
 * hot path), async where a store is asked (a session).
 */
export function checkPost (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply): Checked | Promise<Checked> {
  const body = request.body
  if (!acceptsJson(headerValue(request.headers, 'accept'))) throw notAcceptable
  // a POST with neither Content-Type nor body skips the parser and arrives here as undefined
  if (body === undefined) throw emptyBody
  if (Array.isArray(body)) return checkBatch(endpoint, request, body)
  const message = readMessage(body)
  if (message.kind !== 'response') bindLog(request, reply, message.method, message.params)
  if (message.kind !== 'response' && isModern(message.params)) {
    // the revision defines no client notifications over HTTP: accept and drop them
    return message.kind === 'notification' ? ACCEPTED : checkModern(endpoint, request, message)
  }
  if (message.kind === 'request' && message.method === 'initialize') return { kind: 'initialize', message }
  const sessionId = headerValue(request.headers, 'mcp-session-id')
  if (sessionId !== undefined) return checkLegacy(endpoint, request, message, sessionId)
  return { kind: 'sessionless', message }
}

/** Authorization of a checked POST (with auth on): a forbidden call is a 401/403 before any stream opens. */
export function authorizePost (endpoint: Endpoint, request: FastifyRequest, checked: Checked): void {
  if (checked.kind === 'modern') authorize(endpoint, request, checked.target)
  else if (checked.kind === 'legacy' && checked.message.kind === 'request') authorize(endpoint, request, checked.target)
  else if (checked.kind === 'batch') authorizeBatch(endpoint, request, checked.batch)
}

/** Answers a checked POST. Errors it does not catch are ProtocolErrors for the error handler. */
export function handlePost (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, checked: Checked): FastifyReply | Promise<FastifyReply> {
  // not async: a 2025 call of a sync tool is answered without a promise
  switch (checked.kind) {
    case 'modern': return answerModern(endpoint, request, reply, checked)
    case 'legacy': return answerLegacy(endpoint, request, reply, checked)
    case 'batch': return answerBatch(endpoint, request, reply, checked)
    case 'accepted': return sendAccepted(reply)
    case 'initialize': return handleInitialize(endpoint, request, reply, checked.message)
    case 'sessionless': return handleSessionless(request, reply, checked.message)
  }
}

/**
 * Names the MCP method and target in every line the request logs from here on, Fastify's own
 * "request completed" included (it logs through `reply.log`), so a call can be found by its tool.
 */
function bindLog (request: FastifyRequest, reply: FastifyReply, method: string, params: Record<string, unknown> | undefined): void {
  const field = LOGGED_NAME[method]
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
  const error = new ProtocolError(INVALID_REQUEST,
    'Bad Request: no session. 2025 clients send initialize first and then the Mcp-Session-Id header; 2026-07-28 clients send params._meta with "io.modelcontextprotocol/protocolVersion"', 400)
  answeredWith(request, error)
  return sendError(reply, id, error)
}
