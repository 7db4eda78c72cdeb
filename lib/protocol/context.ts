/**
 * What a call is (`Call`), what carries it (`Transport`, `Channel`), and the context a tool gets
 * (`CallContext`, over `FeatureContext`), whatever transport carried the call.
 */
import type { Era } from './eras.js'
import type { ClientInfo } from '../define/tool.js'
import type { RequestId } from './jsonrpc.js'
import { FeatureContext } from './feature-context.js'
import type { Session } from '../state/session-store.js'
import type { AuthInfo } from './auth-info.js'
import type { ClientAnswer, InputSettings, Retry } from './input.js'

/** The least a logger must do; pino and Fastify's logger fit. */
export interface Logger {
  child (bindings: Record<string, unknown>): Logger
  error (obj: unknown, msg?: string): void
  warn (obj: unknown, msg?: string): void
  info (obj: unknown, msg?: string): void
  debug (obj: unknown, msg?: string): void
}

/** What the transport provides for a call. */
export interface Transport {
  /** The transport's own request object (a FastifyRequest over HTTP). */
  readonly request: unknown
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

/** Log levels in increasing severity (RFC 5424, as MCP uses them). */
const SEVERITY: Record<string, number> = { debug: 0, info: 1, notice: 2, warning: 3, error: 4, critical: 5, alert: 6, emergency: 7 }

/** Everything known about one incoming request, whatever its era. */
export interface Call {
  readonly era: Era
  readonly protocolVersion: string
  readonly id: RequestId
  readonly method: string
  readonly params: Record<string, unknown>
  readonly client: ClientInfo
  readonly sessionId: string | undefined
  /** The 2025 session the call belongs to; undefined in the modern era. */
  readonly session?: Session | undefined
  readonly transport: Transport
  /** Open while the response streams; undefined for a plain JSON answer. */
  readonly channel?: Channel | undefined
  /** The least severe level the client wants `notifications/message` for; undefined: none. */
  readonly logLevel?: string | undefined
  /**
   * A 2025 call answered as JSON so far, from a client that accepts an event stream: opens its
   * answer as one on demand (the first question the handler asks), and returns its channel.
   */
  readonly openStream?: (() => Channel) | undefined
  /** The verified caller when authorization is on; undefined otherwise. */
  readonly auth?: AuthInfo | undefined
}

/**
 * The tool's context: the request context plus the tool's name and its ways to talk back while it
 * runs (progress, log messages, closing a resumable stream's connection).
 */
export class CallContext extends FeatureContext {
  readonly tool: string
  private readonly channel: Channel | undefined
  private readonly progressToken: unknown
  private readonly logThreshold: number
  private lastProgress = -Infinity

  /** `bindings`: the tool's `{ tool: name }`, made once per tool rather than per call. */
  constructor (call: Call, bindings: Readonly<{ tool: string }>, settings?: InputSettings, retry?: Retry) {
    super(call, bindings, settings, retry)
    this.tool = bindings.tool
    this.channel = call.channel
    const meta = call.params._meta as Record<string, unknown> | undefined
    const token = meta?.progressToken
    this.progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined
    this.logThreshold = call.logLevel === undefined ? Infinity : SEVERITY[call.logLevel]
  }

  /**
   * Reports progress; a no-op unless the client sent a progressToken and the response streams.
   * Progress must increase, so a value not above the last one sent is dropped.
   */
  progress (progress: number, total?: number, message?: string): void {
    if (this.channel === undefined || this.progressToken === undefined) return
    if (!(progress > this.lastProgress)) return
    this.lastProgress = progress
    const params: Record<string, unknown> = { progressToken: this.progressToken, progress }
    if (total !== undefined) params.total = total
    if (message !== undefined) params.message = message
    this.channel.notify('notifications/progress', params)
  }

  /**
   * Sends a log message (`notifications/message`) to the client; a no-op unless it asked for
   * messages at this level or a less severe one and the response streams.
   */
  notify (level: keyof typeof SEVERITY | string, data: unknown, logger?: string): void {
    if (this.channel === undefined) return
    const severity = SEVERITY[level]
    if (severity === undefined || severity < this.logThreshold) return
    const params: Record<string, unknown> = { level, data }
    if (logger !== undefined) params.logger = logger
    this.channel.notify('notifications/message', params)
  }

  /**
   * Closes a 2025-11-25 response stream's connection after telling the client (`retry:`) to
   * reconnect in `retryMs`; the call goes on and the client resumes with GET + Last-Event-ID.
   * A no-op on any other stream and on a plain JSON answer.
   */
  closeStream (retryMs = 1000): void {
    this.channel?.closeConnection?.(retryMs)
  }
}
