/**
 * The POST route of the MCP endpoint, as three steps of the route, so that the host's hooks of each
 * stage run between them:
 *
 * - `check` (the route's `preValidation`): the body is classified once (`protocol/inbound.ts`: its
 *   era, method, what it names), the classification is kept on the request for every later reader
 *   (`request-info.ts`: `request.mcp`; the log bindings, the traces), and the era's checks run in the spec's order
 *   (`modern.ts`, `legacy.ts`, `batch.ts`);
 * - `authorize` (its `preHandler`, with auth on): what the caller may do with what it targets;
 * - `handle` (the handler): the answer. Both eras share the method tables of
 *   `protocol/dispatch.ts`; what differs is only the envelope around them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { isModernVersion } from '../spec/eras.js'
import { INVALID_REQUEST } from '../spec/jsonrpc.js'
import type { CallOutcome } from '../protocol/call.js'
import { logNames, readModernMeta, type Inbound, type InboundRequest } from '../protocol/inbound.js'
import { authorize } from './authorize.js'
import { answerBatch, authorizeBatch, checkBatch, type BatchChecked } from './batch.js'
import { emptyBody, type Endpoint } from './endpoint.js'
import { checkedCarried, headerValue } from './headers.js'
import { answerLegacy, checkLegacy, handleInitialize, type LegacyChecked } from './legacy.js'
import { answerModern, checkModern, type ModernChecked } from './modern.js'
import { sendAccepted, sendError } from './respond.js'
import { inboundOf } from './request-info.js'
import { answeredWith, kTraced, type Traced } from './request-trace.js'
import { PROTOCOL_VERSION } from '../spec/headers.js'

/** What `check` found a POST to be, for the steps after it. */
type Checked =
  | ModernChecked
  | LegacyChecked
  | BatchChecked
  /** A 2026-07-28 notification: accepted and dropped. */
  | { readonly kind: 'accepted' }
  | { readonly kind: 'initialize', readonly inbound: InboundRequest }
  /** Neither era: a 2025 request without a session, or a 2026-07-28 one without its `_meta`. */
  | { readonly kind: 'sessionless', readonly inbound: Inbound }

/** On each request of the POST route: what `check` found it to be, for the steps after it. */
export const kChecked = Symbol('fastify-sake.checked')

type PostRequest = FastifyRequest & { [kChecked]: Checked | null, [kTraced]: Traced | null }

const ACCEPTED: Checked = Object.freeze({ kind: 'accepted' })

/**
 * The checks of a POST, before the handler; throws the ProtocolError that answers a request that
 * fails one (the routes' error handler sends it). Sync for a 2026-07-28 request (no promise on the
 * hot path), and for a session in a store that answers synchronously.
 */
function checkPost (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply): Checked | Promise<Checked> {
  const carried = checkedCarried(request)
  // a POST with neither Content-Type nor body skips the parser and arrives here as undefined
  if (request.body === undefined) throw emptyBody
  const inbound = inboundOf(request, endpoint.server.registry, carried)
  if (inbound.kind === 'batch') return checkBatch(endpoint, request, carried, inbound)
  if (inbound.refusal !== undefined) throw inbound.refusal // a body that is no message
  if (inbound.kind !== 'response') bindLog(request, reply, inbound)
  if (inbound.era === 'modern') {
    // the revision defines no client notifications over HTTP: accept and drop them
    return inbound.kind === 'notification' ? ACCEPTED : checkModern(request, carried, inbound as InboundRequest)
  }
  if (inbound.kind === 'request' && inbound.facts?.handshake === true) return { kind: 'initialize', inbound: inbound as InboundRequest }
  if (inbound.sessionId !== undefined) return checkLegacy(endpoint, request, carried, inbound)
  return { kind: 'sessionless', inbound }
}

/** Authorization of a checked POST (with auth on): a forbidden call is a 401/403 before any stream opens. */
function authorizePost (endpoint: Endpoint, request: FastifyRequest, checked: Checked): void {
  if (checked.kind === 'modern') authorize(endpoint, request, checked.inbound.target)
  else if (checked.kind === 'legacy' && checked.inbound.kind === 'request') authorize(endpoint, request, checked.inbound.target)
  else if (checked.kind === 'batch') authorizeBatch(endpoint, request, checked.items)
}

/**
 * Answers a checked POST; `outcome`: where its call notes how it ended, when something traces it.
 * Errors it does not catch are ProtocolErrors for the error handler.
 */
function handlePost (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, checked: Checked, outcome: CallOutcome | undefined): FastifyReply | Promise<FastifyReply> {
  // not async: a 2025 call of a sync tool is answered without a promise
  switch (checked.kind) {
    case 'modern': return answerModern(endpoint, request, reply, checked, outcome)
    case 'legacy': return answerLegacy(endpoint, request, reply, checked, outcome)
    case 'batch': return answerBatch(endpoint, request, reply, checked)
    case 'accepted': return sendAccepted(reply)
    case 'initialize': return handleInitialize(endpoint, request, reply, checked.inbound)
    case 'sessionless': return handleSessionless(request, reply, checked.inbound)
  }
}

/** The POST route's own hooks and handler, as Fastify calls them. */
export interface PostRoute {
  /** `preValidation`: the checks (inside the message's trace, when something traces). */
  readonly check: (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void
  /** `preHandler`, with auth on: authorization. */
  readonly authorize: (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void
  readonly handle: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined
}

/** The POST route's steps for one endpoint. Callback hooks: the hot path awaits no promise for them. */
export function postRoute (endpoint: Endpoint): PostRoute {
  const runCheck = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    let checked: Checked | Promise<Checked>
    try {
      checked = checkPost(endpoint, request, reply)
    } catch (err) {
      done(err as Error)
      return
    }
    if (checked instanceof Promise) {
      checked.then((value) => { (request as PostRequest)[kChecked] = value; done() }, done)
    } else {
      (request as PostRequest)[kChecked] = checked
      done()
    }
  }
  return {
    // traced, the checks run inside the trace, and the rest of the request continues from there
    check: function mcpCheck (request, reply, done) {
      // closing (app.close() began): nothing new runs here; the client sends it again, elsewhere
      if (endpoint.shutdown.closing) {
        done(endpoint.shutdown.refusal)
        return
      }
      if (endpoint.tracing.on() && request.body !== undefined) endpoint.tracing.begin(request, reply, inboundOf(request, endpoint.server.registry), () => { runCheck(request, reply, done) })
      else runCheck(request, reply, done)
    },
    authorize: function mcpAuthorize (request, _reply, done) {
      try {
        authorizePost(endpoint, request, (request as PostRequest)[kChecked]!)
      } catch (err) {
        done(err as Error)
        return
      }
      done()
    },
    // not async: an answer sent in the handler's turn (a sync tool, a list) returns nothing, and only
    // a real promise is handed on. A sent reply is thenable too, but never returned: Fastify would
    // wait for the response to finish before it counts the handler done (@fastify/otel's handler
    // span then ends late), and a returned reply is sent again
    handle: function mcpPost (request, reply) {
      const checked = (request as PostRequest)[kChecked]!
      // traced: the call notes its outcome on the trace, and runs inside its span when it has one
      const traced = (request as PostRequest)[kTraced]
      const span = traced?.span
      const answer = span !== undefined
        ? endpoint.tracing.within(span, () => handlePost(endpoint, request, reply, checked, traced!.trace))
        : handlePost(endpoint, request, reply, checked, traced?.trace)
      // an answer still to come is a call in flight, which app.close() lets finish within closeTimeout
      return answer instanceof Promise ? endpoint.shutdown.track(answer) : undefined
    }
  }
}

/**
 * Names the MCP method and target in every line the request logs from here on, Fastify's own
 * "request completed" included (it logs through `reply.log`), so a call can be found by its tool.
 */
function bindLog (request: FastifyRequest, reply: FastifyReply, inbound: Inbound): void {
  const log = request.log.child({ mcp: logNames(inbound) })
  request.log = log
  reply.log = log
}

/** Neither era: a 2025 request without a session, or a 2026-07-28 one without its `_meta`. */
function handleSessionless (request: FastifyRequest, reply: FastifyReply, inbound: Inbound): FastifyReply {
  // only a request's id is echoed: a response's id names a request of ours, not one being answered
  const id = inbound.kind === 'request' ? inbound.id! : null
  if (isModernVersion(headerValue(request.headers, PROTOCOL_VERSION))) {
    if (inbound.kind === 'response') {
      return sendError(reply, id, new ProtocolError(INVALID_REQUEST, 'Invalid Request: 2026-07-28 clients must not send JSON-RPC responses', 400))
    }
    if (inbound.kind === 'notification') return sendAccepted(reply)
    readModernMeta(inbound.params) // throws the precise -32602 for the missing _meta
  }
  const error = new ProtocolError(INVALID_REQUEST,
    'Bad Request: no session. 2025 clients send initialize first and then the Mcp-Session-Id header; 2026-07-28 clients send params._meta with "io.modelcontextprotocol/protocolVersion"', 400)
  answeredWith(request, error)
  return sendError(reply, id, error)
}
