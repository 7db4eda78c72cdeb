/**
 * The context handlers receive, as users see it: who asks and over what (every handler), plus a
 * tool's ways to talk back while it runs. The protocol core implements these
 * (`protocol/call-context.ts`). The one file below the HTTP layer
 * that names Fastify, and only its types: `ctx.request` is the request carrying the call.
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type { Era } from '../spec/eras.js'
import type { LogLevel } from '../spec/log-levels.js'
import type { AuthInfo, ClientInfo } from '../spec/types.js'
import type { InputContext } from './input.js'

/**
 * What every handler receives (tools, resources, prompts, completion): who asks, over what, and
 * (tools, resources/read and prompts/get only; elsewhere the answer is `unsupported`) the
 * questions it may ask the client: `elicit`, `sample`, `roots`.
 */
export interface RequestContext extends InputContext {
  /**
   * The Fastify request carrying the call; undefined over stdio (`app.mcp.stdio()`), where no HTTP
   * request carries it: read the caller from `auth`, the client from `client`.
   */
  readonly request: FastifyRequest | undefined
  /** A pino child logger bound to what is served (tool, resource, prompt) and the request id. */
  readonly log: FastifyBaseLogger
  /** Aborted when the client goes away (or cancels) before the answer is sent. */
  readonly signal: AbortSignal
  /** `modern` (2026-07-28, stateless) or `legacy` (a 2025 session). */
  readonly era: Era
  /** The protocol revision of this request. */
  readonly protocolVersion: string
  readonly client: ClientInfo
  /** The legacy session id, or undefined in the modern era. */
  readonly sessionId: string | undefined
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number
  /** The verified caller (subject, scopes, claims) when `auth` is on; undefined otherwise. */
  readonly auth: AuthInfo | undefined
}

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext extends RequestContext {
  /** The tool's name. */
  readonly tool: string
  /**
   * Reports progress to a client that asked for it (a `progressToken`); otherwise does nothing.
   * Values must increase; one that does not is dropped.
   */
  progress (progress: number, total?: number, message?: string): void
  /**
   * Sends a log message to a client that asked for this level (`logging/setLevel` in a 2025
   * session, `_meta` log level in 2026-07-28); otherwise does nothing.
   */
  notify (level: LogLevel, data: unknown, logger?: string): void
  /**
   * In a 2025-11-25 session's streamed answer: sends `retry: retryMs` (default 1000) and closes the
   * connection while the call goes on; the client reconnects with GET + Last-Event-ID and receives
   * the rest (SEP-1699 polling). Does nothing anywhere else.
   */
  closeStream (retryMs?: number): void
}

/** What a `complete` callback receives: the request, and the arguments the user already filled in. */
export interface CompletionContext extends RequestContext {
  /** `context.arguments` of the request: other arguments already resolved, by name. */
  readonly arguments: Readonly<Record<string, string>>
}
