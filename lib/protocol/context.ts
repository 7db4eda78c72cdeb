/**
 * The per-call context handed to a tool, built over whatever transport carried the call. Its
 * logger and abort signal are made on first use: most calls never touch them, and the hot path
 * should not pay for a pino child and an AbortController it does not need.
 */
import type { Era } from './eras.js'
import type { ClientInfo, ToolContext } from '../define/tool.js'
import type { RequestId } from './jsonrpc.js'

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

/** Everything known about one incoming request, whatever its era. */
export interface Call {
  readonly era: Era
  readonly protocolVersion: string
  readonly id: RequestId
  readonly method: string
  readonly params: Record<string, unknown>
  readonly client: ClientInfo
  readonly sessionId: string | undefined
  readonly transport: Transport
}

export class CallContext {
  readonly era: Era
  readonly protocolVersion: string
  readonly client: ClientInfo
  readonly sessionId: string | undefined
  readonly requestId: RequestId
  readonly tool: string
  private readonly transport: Transport
  private logger: Logger | undefined
  private abortSignal: AbortSignal | undefined

  constructor (call: Call, tool: string) {
    this.era = call.era
    this.protocolVersion = call.protocolVersion
    this.client = call.client
    this.sessionId = call.sessionId
    this.requestId = call.id
    this.tool = tool
    this.transport = call.transport
  }

  get request (): ToolContext['request'] {
    return this.transport.request as ToolContext['request']
  }

  get log (): ToolContext['log'] {
    this.logger ??= this.transport.log.child({ tool: this.tool, mcpRequestId: this.requestId })
    return this.logger as unknown as ToolContext['log']
  }

  get signal (): AbortSignal {
    this.abortSignal ??= this.transport.signal()
    return this.abortSignal
  }
}
