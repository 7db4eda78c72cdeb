/**
 * A JSON-RPC batch (an array body): only a 2025-03-26 session may send one, of at most
 * `maxBatchItems` messages. Each request in it is served as a POST of its own through the endpoint
 * (`app.inject`, with the batch's headers and address), so that it passes every hook of the route
 * and the app as a single request does: a host's per-tool rate limit, audit log or quota counts a
 * batch as the calls it contains, never as one request (issue 40: a batch of 9,000 calls ran past a
 * limit of 2 a minute). The client's responses to our questions are taken here: no hook judges them.
 */
import type { FastifyReply, FastifyRequest, InjectOptions, LightMyRequestResponse } from 'fastify'
import { ProtocolError } from '../errors.js'
import { rulesOf } from '../spec/eras.js'
import { INTERNAL_ERROR, INVALID_REQUEST, errorBody, type RequestId } from '../spec/jsonrpc.js'
import type { Session } from '../state/session-store.js'
import { classify, type Inbound } from '../protocol/inbound.js'
import { answerOf } from '../protocol/session/client-requests.js'
import { isObject } from '../values.js'
import { authorize } from './authorize.js'
import type { Endpoint } from './endpoint.js'
import type { Carried } from './headers.js'
import { sendAccepted, sendJson } from './respond.js'
import { METHOD, NAME, PARAM_PREFIX } from '../spec/headers.js'

/** `initialize` inside a batch: a lone one opens a session of its own. */
const initializeNotAlone = new ProtocolError(INVALID_REQUEST, 'Invalid Request: initialize must be sent alone, without Mcp-Session-Id, as the first request')

/** A batch that passed its checks: its session, and its items, each classified once. */
export interface BatchChecked {
  readonly kind: 'batch'
  readonly session: Session
  readonly items: readonly Inbound[]
  /** The items as they came, each served as its own POST's body. */
  readonly messages: readonly unknown[]
}

/**
 * The checks of a batch (the POST route's `preValidation`): a 2025-03-26 session, not empty, and
 * no more messages than `maxBatchItems`.
 */
export async function checkBatch (endpoint: Endpoint, request: FastifyRequest, carried: Carried, batch: Inbound): Promise<BatchChecked> {
  const { sessions } = endpoint
  const session = batch.sessionId === undefined
    ? undefined
    : await sessions.findFitting(batch.sessionId, request.mcpAuth?.subject, carried.version, request.log)
  if (session === undefined || !rulesOf(session.protocolVersion).batches) {
    throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: JSON-RPC batches (array bodies) are only allowed in 2025-03-26 sessions; send one message per POST', 400)
  }
  const items = batch.items!
  if (items.length === 0) throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: the batch is empty', 400)
  if (items.length > endpoint.batch.maxItems) {
    throw new ProtocolError(INVALID_REQUEST, `Invalid Request: the batch holds ${items.length} messages, more than maxBatchItems (${endpoint.batch.maxItems}) allows; send fewer at a time`, 400)
  }
  const { registry } = endpoint.server
  return { kind: 'batch', session, items: items.map((item) => classify(registry, item, session.id, undefined)), messages: items }
}

/** Answers a checked batch, item by item: an array of the requests' responses, or 202 when none has one. */
export async function answerBatch (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, checked: BatchChecked): Promise<FastifyReply> {
  endpoint.streams.calls.received(request)
  // closing began while the batch passed its checks (a host hook that waited): nothing of it runs
  if (endpoint.shutdown.closing) throw endpoint.shutdown.refusal
  const { session, items, messages } = checked
  const forwarded = itemHeaders(request, endpoint.batch.requestIdHeader)
  const answers = await Promise.all(items.map(async (item, i): Promise<string | undefined> => {
    if (item.kind === 'invalid') return JSON.stringify(errorBody(item.id ?? null, item.refusal!))
    if (item.kind === 'response') {
      await answered(endpoint, request, session, item)
      return undefined
    }
    // the handshake opens a session of its own when POSTed alone: inside a batch it is refused
    if (item.facts?.handshake === true && item.kind === 'request') return JSON.stringify(errorBody(item.id!, initializeNotAlone))
    return await served(endpoint, request, item.kind === 'request' ? item.id! : undefined, messages[i], forwarded)
  }))
  const responses = answers.filter((a): a is string => a !== undefined)
  if (responses.length === 0) return sendAccepted(reply)
  return sendJson(reply, 200, '[' + responses.join(',') + ']')
}

/**
 * A client's answer inside a batch: a response has no answer of its own to carry a refusal, and the
 * batch's requests must still be answered, so an answer refused (nobody waits for it, the instance
 * that asked stopped) is logged and dropped; one the store could not keep fails the batch, so
 * that the client sends it again.
 */
async function answered (endpoint: Endpoint, request: FastifyRequest, session: Session, item: Inbound): Promise<void> {
  try {
    await endpoint.sessions.answered(session.id, item.responseId, answerOf(item.result, item.error), request.log)
  } catch (err) {
    // `answered` refuses with a ProtocolError only: 400 or 410 (dropped here), or 503 (the store)
    const refusal = err as ProtocolError
    if (refusal.status >= 500) throw err
    request.log.info({ id: item.responseId, reason: refusal.message }, 'fastify-sake: an answer inside a batch was refused, and dropped')
  }
}

/**
 * Headers a batch's request does not pass on to its items: each item is a body of its own (length,
 * type, encoding), asks for JSON (a batch answers JSON), and names no `Mcp-*` method, tool or
 * argument (the batch's headers cannot mirror each item's body; a 2025 session's are checked only
 * when sent). Hop-by-hop headers belong to the batch's connection.
 */
const NOT_FORWARDED = new Set(['content-length', 'content-type', 'transfer-encoding', 'accept', 'accept-encoding', 'connection', 'keep-alive', 'expect', 'te', 'trailer', 'upgrade', METHOD, NAME])

/**
 * The batch request's headers for each of its items: credentials, session, version, `Host`,
 * `Origin` and forwarding headers stay, so that the item meets the same checks (and, with
 * `trustProxy`, the same `request.ip`) as the batch; with Fastify's `requestIdHeader`, the batch's
 * request id, so that the items' log lines carry it.
 */
function itemHeaders (request: FastifyRequest, requestIdHeader: string | undefined): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'content-type': 'application/json', accept: 'application/json' }
  for (const [name, value] of Object.entries(request.headers)) {
    // HTTP/2's pseudo-headers (`:path`) are the connection's too
    if (value === undefined || NOT_FORWARDED.has(name) || name.startsWith(PARAM_PREFIX) || name.startsWith(':')) continue
    headers[name] = value
  }
  // HTTP/2 carries the host in `:authority`: the item needs it as `Host` (the Host check, a host's own routing)
  headers.host ??= request.host
  if (requestIdHeader !== undefined) headers[requestIdHeader] = request.id
  return headers
}

/**
 * One request or notification of a batch, served as a POST of its own through the endpoint: a
 * request's JSON-RPC response, whatever the hooks and the handler answered it with (a host's 429
 * keeps its error and its id); nothing for a notification (`id` undefined), which has no response.
 */
async function served (endpoint: Endpoint, request: FastifyRequest, id: RequestId | undefined, message: unknown, headers: Record<string, string | string[]>): Promise<string | undefined> {
  const options: InjectOptions = { method: 'POST', url: request.url, headers, payload: JSON.stringify(message), remoteAddress: request.socket.remoteAddress }
  let response: LightMyRequestResponse
  try {
    response = await endpoint.batch.inject(options)
  } catch (err) {
    // Fastify's inject refuses once app.close() began, which it marks a moment before our own
    // preClose hook does: every item of the batch is refused alike, and so is the batch, as closing
    request.log.warn({ err }, 'fastify-sake: a batch arrived as the server began to close; refused whole')
    throw endpoint.shutdown.refusal
  }
  return id === undefined ? undefined : responseOf(response, id, request)
}

/**
 * The JSON-RPC response an item's POST was answered with. A host hook that answered with a body
 * of its own (not a JSON-RPC response to this id) gets the item an error naming the HTTP status.
 */
function responseOf (response: LightMyRequestResponse, id: RequestId, request: FastifyRequest): string {
  const text = response.body
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {}
  if (isObject(parsed) && parsed.jsonrpc === '2.0') {
    if (parsed.id === id) return text
    // refused before its body was read (a Host or Origin check, the token): the error, with the item's id
    if (parsed.id === null && isObject(parsed.error)) return JSON.stringify({ ...parsed, id })
  }
  request.log.warn({ statusCode: response.statusCode }, 'fastify-sake: a batch item was answered with something other than its JSON-RPC response (a host hook\'s own reply?)')
  const status = response.statusCode
  const code = status >= 400 && status < 500 ? INVALID_REQUEST : INTERNAL_ERROR
  return JSON.stringify(errorBody(id, new ProtocolError(code, `${code === INVALID_REQUEST ? 'Invalid Request' : 'Internal error'}: this message was answered with HTTP ${status} and no JSON-RPC response`)))
}

/**
 * Authorization of a batch (the POST route's `preHandler`, with auth on): a batch answers 200 item
 * by item, which cannot carry a challenge, so one forbidden item refuses the whole batch.
 */
export function authorizeBatch (endpoint: Endpoint, request: FastifyRequest, items: readonly Inbound[]): void {
  // an item that is not a message gets its own error in the batch's answer; what it names is still checked
  for (const item of items) authorize(endpoint, request, item.target)
}
