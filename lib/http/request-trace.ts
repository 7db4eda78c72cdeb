/**
 * The trace of one MCP message on its HTTP request (`Tracing.begin` takes it): the context object
 * the diagnostics channel publishes and the span describes, and where the steps that answer the
 * message note what they learn of it (its session, its JSON-RPC error).
 */
import type { FastifyRequest } from 'fastify'
import type { Era } from '../spec/eras.js'
import type { RequestId } from '../spec/jsonrpc.js'
import type { ProtocolError } from '../errors.js'
import type { Session } from '../state/session-store.js'
import type { Call, CallOutcome } from '../protocol/call.js'
import { logNames, type Inbound } from '../protocol/inbound.js'
import type { Attributes, StartedSpan } from '../protocol/otel/api.js'

/**
 * The context object of one traced MCP message, the same object in every event of the channel.
 * `protocolVersion` and `sessionId` of a 2025 message are filled in once its session is known (an
 * `initialize` gets the session it opened); the outcome (`rpcError`, `isError`) by `asyncStart`,
 * which comes once the answer is sent (a stream: once it ended). Node adds `error` for an
 * unexpected failure (answered 500 + -32603 by the endpoint's error handler).
 */
export interface McpRequestTrace extends CallOutcome {
  /** The JSON-RPC method (`tools/call`, `notifications/initialized`). */
  readonly method: string
  /**
   * The tool or prompt name, the resource URI; undefined for other methods (a task method's task id,
   * a handle, never).
   */
  readonly name: string | undefined
  /** `modern` (2026-07-28) or `legacy` (2025); undefined for a message of neither (answered 400). */
  era: Era | undefined
  protocolVersion: string | undefined
  /** The JSON-RPC id; undefined for a notification. */
  readonly id: RequestId | undefined
  /** The 2025 session id; undefined in 2026-07-28. */
  sessionId: string | undefined
  readonly request: FastifyRequest
  /** Set by Node: the handler's thrown error, with the `error` event. */
  error?: unknown
}

/** On a request of the POST route: its message's trace, while one is being taken (see `Tracing.begin`). */
export const kTraced = Symbol('fastify-sake.traced')

/**
 * One message being traced, on its request (`kTraced`): its context (where its call notes its
 * outcome), whether the channel saw its start, and its span. The POST handler reads it there.
 */
export interface Traced {
  readonly trace: McpRequestTrace
  readonly published: boolean
  readonly span: StartedSpan | undefined
  /** The message, as the edge classified it (what the metrics describe it by). */
  readonly inbound: Inbound
  /** When it began (`performance.now()`), while a meter provider is registered; undefined otherwise. */
  readonly started: number | undefined
}

export type TracedRequest = FastifyRequest & { [kTraced]?: Traced | null }

/** The trace of one message, as far as its classification tells (its handler fills in the rest). */
export function traceOf (request: FastifyRequest, inbound: Inbound): McpRequestTrace {
  const { method, id, era, protocolVersion, sessionId } = inbound
  return { method: method!, name: logNames(inbound).name, era, protocolVersion, id, sessionId, request }
}

/** A traced message of a session: its version and session are the session's (an `initialize`: the one it opened). */
export function inSession (request: FastifyRequest, session: Session): void {
  const trace = (request as TracedRequest)[kTraced]?.trace
  if (trace === undefined) return
  trace.protocolVersion = session.protocolVersion
  trace.sessionId = session.id
}

/**
 * Notes the JSON-RPC error a POST is answered with (the routes' error handler); `unexpected`: the
 * failure behind a 500, which the channel's `error` event and the span's exception carry.
 */
export function answeredWith (request: FastifyRequest, error: ProtocolError, unexpected?: unknown): void {
  const trace = (request as TracedRequest)[kTraced]?.trace
  if (trace === undefined) return
  trace.rpcError = { code: error.code, message: error.message }
  if (unexpected !== undefined) trace.error = unexpected
}

/** Notes a JSON-RPC error answer on a traced call (a no-op when nothing traces it). */
export function answeredWithError (call: Call, err: ProtocolError): void {
  if (call.outcome !== undefined) call.outcome.rpcError = { code: err.code, message: err.message }
}

/**
 * The conventions' network attributes of the HTTP request a message came in, which its span, its
 * measurement and a session's carry alike; `network.protocol.version` is the HTTP version (`1.1`, `2`).
 */
export function networkOf (request: FastifyRequest): Attributes {
  const version = request.raw.httpVersion
  return {
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'network.protocol.version': version === '2.0' ? '2' : version
  }
}
