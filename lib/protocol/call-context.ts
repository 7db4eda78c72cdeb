/** The context a tool's `execute` and `prepare` get: `FeatureContext` plus the tool's ways to talk back. */
import { SEVERITY, type LogLevel } from '../spec/log-levels.js'
import type { Call, Channel } from './call.js'
import { FeatureContext } from './feature-context.js'
import type { InputSettings } from './input/asker.js'
import type { Retry } from './input/round-trip.js'

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
  constructor (call: Call, bindings: Readonly<{ tool: string }>, settings: InputSettings, retry?: Retry) {
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
  notify (level: LogLevel | string, data: unknown, logger?: string): void {
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
