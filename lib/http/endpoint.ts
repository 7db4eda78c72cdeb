/**
 * What the HTTP edge of one MCP server holds, made once at registration: the protocol core's
 * server and its 2025 session protocol, every open stream, authorization, and tracing. Each step of
 * the POST route (`post.ts` and the era files it calls) and the GET and DELETE routes take it.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { ProtocolError } from '../errors.js'
import { PARSE_ERROR } from '../spec/jsonrpc.js'
import type { ServerContext } from '../protocol/server.js'
import type { Sessions } from '../protocol/session/sessions.js'
import type { ResolvedAuth } from '../auth/auth-options.js'
import type { Shutdown } from './shutdown.js'
import type { Streams } from './streams/streams.js'
import type { Tracing } from './tracing.js'

export interface Endpoint {
  readonly server: ServerContext
  /** The 2025 session protocol: the handshake, finding sessions, cancellations, questions. */
  readonly sessions: Sessions
  /** Every open event stream: streamed answers, GET streams, subscriptions. */
  readonly streams: Streams
  /** Authorization; undefined when it is off (then nothing below checks anything). */
  readonly auth?: ResolvedAuth | undefined
  /** Traces of MCP requests: the diagnostics channel, and OpenTelemetry spans when it is there. */
  readonly tracing: Tracing
  /** Draining and closing: refuses new requests once closing, and bounds the calls in flight. */
  readonly shutdown: Shutdown
  /** How a batch's requests are served, each as a POST of its own (`batch.ts`). */
  readonly batch: BatchSettings
}

export interface BatchSettings {
  /** Most messages in one batch (`maxBatchItems`). */
  readonly maxItems: number
  /** The app's `inject`: each request of a batch passes the endpoint's hooks as a POST of its own. */
  readonly inject: (options: InjectOptions) => Promise<LightMyRequestResponse>
  /** Fastify's `requestIdHeader`, when set: the items' requests carry the batch's id. */
  readonly requestIdHeader: string | undefined
}

/** An empty body, whether the JSON parser saw it or (without a Content-Type) nothing parsed it. */
export const emptyBody = new ProtocolError(PARSE_ERROR, 'Parse error: the request body is empty; send one JSON-RPC message as application/json', 400)
