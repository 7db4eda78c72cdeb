/**
 * What a call is (`Call`) and what carries it (`Transport`, `Channel`), whatever the transport, and
 * how a call is made from plain values: a classified request (`inbound.ts`), its era's envelope (a
 * 2026-07-28 `_meta`, or a 2025 session), the transport's side of it, the verified caller. A
 * transport builds calls here and hands them to `dispatch`; the methods read them.
 */
import { MODERN_RULES, rulesOf, type Era, type Rules } from '../spec/eras.js'
import type { RequestId } from '../spec/jsonrpc.js'
import type { AuthInfo, ClientAnswer, ClientInfo, Logger } from '../spec/types.js'
import type { Session } from '../state/session-store.js'
import type { InboundRequest, ModernMeta } from './inbound.js'
import type { Target } from './target.js'

/** What the transport provides for a call. */
export interface Transport {
  /** The transport's own request object (a FastifyRequest over HTTP). */
  readonly request: unknown
  /**
   * Who calls, as quotas count it (issue 40): `sub:<subject>` with a verified caller, else what
   * the transport knows of it (`ip:<address>` over HTTP). Read only where a quota is checked.
   */
  readonly caller: string
  readonly log: Logger
  /** An AbortSignal that aborts when the caller goes away; called at most once per call. */
  signal (): AbortSignal
}

/** Where a call's notifications go while it runs: the SSE stream of its response. */
export interface Channel {
  /** Sends one JSON-RPC notification; false once the caller is gone. */
  notify (method: string, params: Record<string, unknown>): boolean
  /**
   * Closes the connection without ending the stream, after a `retry:` of `retryMs` (SEP-1699
   * polling); the client resumes with GET + Last-Event-ID. Only resumable (2025-11-25) streams
   * have it; elsewhere it is absent or does nothing.
   */
  closeConnection? (retryMs: number): void
  /**
   * Sends a JSON-RPC request to the client on this stream and resolves to its response, or
   * rejects with a `ClientInputError` on timeout or abort. Only 2025 sessions' streams have it
   * (2026-07-28 asks with multi round-trip requests instead).
   */
  request? (method: string, params: Record<string, unknown>, options: ClientRequestOptions): Promise<ClientAnswer>
}

export interface ClientRequestOptions {
  readonly timeout: number
  readonly signal: AbortSignal
  /** The question's key, for the error messages. */
  readonly key: string
}

/**
 * How a traced call ended, as its answer says it (`http/tracing.ts`): given on the call only while
 * something traces, so that the untraced path pays one check at most.
 */
export interface CallOutcome {
  /** The JSON-RPC error the call was answered with. */
  rpcError?: { readonly code: number, readonly message: string } | undefined
  /** A `tools/call` answered with a result that has `isError: true` (a tool error). */
  isError?: boolean | undefined
}

/**
 * Everything known about one incoming request, whatever its era. Every field is always present
 * (undefined when it does not apply), so that the calls of both eras share one shape and the
 * copies made of them (`{ ...call, channel }`) stay cheap.
 */
export interface Call {
  readonly era: Era
  readonly protocolVersion: string
  /** What the call's revision has (resumable streams, structured output...), looked up once. */
  readonly rules: Rules
  readonly id: RequestId
  readonly method: string
  readonly params: Record<string, unknown>
  readonly client: ClientInfo
  readonly sessionId: string | undefined
  /** The 2025 session the call belongs to; undefined in the modern era. */
  readonly session: Session | undefined
  readonly transport: Transport
  /** Open while the response streams; undefined for a plain JSON answer. */
  readonly channel: Channel | undefined
  /** The least severe level the client wants `notifications/message` for; undefined: none. */
  readonly logLevel: string | undefined
  /**
   * A 2025 call answered as JSON so far, from a client that accepts an event stream: opens its
   * answer as one on demand (the first question the handler asks), and returns its channel.
   */
  readonly openStream: (() => Channel) | undefined
  /** The verified caller when authorization is on; undefined otherwise. */
  readonly auth: AuthInfo | undefined
  /**
   * What the request names (a tool, a resource, a prompt), looked up once by whoever builds the
   * call (`protocol/target.ts`); undefined when it names nothing known, and the method then says
   * what is wrong. Required, so that no edge can forget the lookup.
   */
  readonly target: Target | undefined
  /** Where the answer's outcome is noted for its trace; undefined when nothing traces. */
  readonly outcome: CallOutcome | undefined
}

/**
 * A 2026-07-28 request as a call: its version, client and log level from its `_meta`. `outcome`:
 * where a trace notes how the call ended, when something traces it.
 */
export function modernCall (request: InboundRequest, meta: ModernMeta, transport: Transport, auth: AuthInfo | undefined, outcome: CallOutcome | undefined): Call {
  // the fields in Call's order, as sessionCall has them: both eras' calls share one shape
  return {
    era: 'modern',
    protocolVersion: meta.protocolVersion,
    rules: MODERN_RULES,
    id: request.id,
    method: request.method,
    params: request.params!,
    client: meta.client,
    sessionId: undefined,
    session: undefined,
    transport,
    channel: undefined,
    logLevel: meta.logLevel,
    openStream: undefined,
    auth,
    target: request.target,
    outcome
  }
}

/** A request of a 2025 session as a call: its version, client and log level are the session's. */
export function sessionCall (session: Session, request: InboundRequest, transport: Transport, auth: AuthInfo | undefined, outcome: CallOutcome | undefined): Call {
  return {
    era: 'legacy',
    protocolVersion: session.protocolVersion,
    rules: rulesOf(session.protocolVersion),
    id: request.id,
    method: request.method,
    params: request.params ?? {},
    client: session.client,
    sessionId: session.id,
    session,
    transport,
    channel: undefined,
    logLevel: session.logLevel,
    openStream: undefined,
    auth,
    target: request.target,
    outcome
  }
}
