/**
 * The context handed to a resource's `read`, a prompt's `get`, a `complete` callback and (extended
 * by `CallContext`) a tool: who is asking and over what. Its logger and abort signal are made on
 * first use: most calls never touch them, and the hot path should not pay for a pino child and an
 * AbortController it does not need.
 */
import type { Call, Logger } from './context.js'
import type { RequestContext } from '../define/tool.js'

export class FeatureContext implements RequestContext {
  readonly era: RequestContext['era']
  readonly protocolVersion: string
  readonly client: RequestContext['client']
  readonly sessionId: string | undefined
  readonly requestId: string | number
  private readonly call: Call
  private readonly bindings: Record<string, unknown>
  private logger: Logger | undefined
  private abortSignal: AbortSignal | undefined

  /** `bindings` name what is served (`{ resource: uri }`, `{ prompt: name }`) in every log line. */
  constructor (call: Call, bindings: Record<string, unknown>) {
    this.era = call.era
    this.protocolVersion = call.protocolVersion
    this.client = call.client
    this.sessionId = call.sessionId
    this.requestId = call.id
    this.call = call
    this.bindings = bindings
  }

  get request (): RequestContext['request'] {
    return this.call.transport.request as RequestContext['request']
  }

  get log (): RequestContext['log'] {
    this.logger ??= this.call.transport.log.child({ ...this.bindings, mcpRequestId: this.requestId })
    return this.logger as unknown as RequestContext['log']
  }

  get auth (): RequestContext['auth'] {
    return this.call.auth
  }

  get signal (): AbortSignal {
    this.abortSignal ??= this.call.transport.signal()
    return this.abortSignal
  }
}
