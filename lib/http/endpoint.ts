/**
 * What the HTTP edge of one MCP server holds, made once at registration: the protocol core's
 * server, the stores, every open stream, authorization, and the calls `notifications/cancelled`
 * can stop. Each path of the endpoint (`post.ts`, `modern.ts`, `legacy.ts`, `batch.ts`, the GET
 * and DELETE routes) takes it as its first argument.
 */
import { ProtocolError } from '../errors.js'
import { PARSE_ERROR, SESSION_NOT_FOUND } from '../spec/jsonrpc.js'
import type { SessionStore } from '../state/session-store.js'
import type { ServerContext } from '../protocol/server.js'
import type { ResolvedAuth } from '../auth/options.js'
import type { Cancellations } from './cancellation.js'
import type { Streams } from './streams.js'
import type { Tracing } from './tracing.js'

export interface Endpoint {
  readonly server: ServerContext
  readonly sessions: SessionStore
  /** Every open event stream: streamed answers, GET streams, subscriptions. */
  readonly streams: Streams
  /** Authorization; undefined when it is off (then nothing below checks anything). */
  readonly auth?: ResolvedAuth | undefined
  /** 2025 calls that `notifications/cancelled` can stop (per process: see `cancellation.ts`). */
  readonly cancellations: Cancellations
  /** Traces of MCP requests: the diagnostics channel, and OpenTelemetry spans when it is there. */
  readonly tracing: Tracing
}

/** A 2025 session id that names no live session; the client must send initialize again (404, any HTTP method). */
export const sessionNotFound = new ProtocolError(SESSION_NOT_FOUND, 'Session not found: it ended or expired; send initialize to start a new session', 404)

/** An empty body, whether the JSON parser saw it or (without a Content-Type) nothing parsed it. */
export const emptyBody = new ProtocolError(PARSE_ERROR, 'Parse error: the request body is empty; send one JSON-RPC message as application/json', 400)
