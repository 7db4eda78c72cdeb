/**
 * The context handed to a resource's `read`, a prompt's `get`, a `complete` callback and (extended
 * by `CallContext`) a tool: who is asking and over what. Its logger and abort signal are made on
 * first use: most calls never touch them, and the hot path should not pay for a pino child and an
 * AbortController it does not need.
 */
import type { Logger } from '../spec/types.js'
import type { RequestContext } from '../define/context.js'
import type { Elicit, RootsOutcome, SampleOutcome, SamplingParams } from '../define/input.js'
import type { Call } from './call.js'
import type { Asker, InputSettings } from './input/asker.js'
import { ClientInput } from './input/client-input.js'
import { RoundTrip, type Retry } from './input/round-trip.js'
import { StreamAsker } from './input/stream-asker.js'

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
  private readonly settings: InputSettings
  private readonly asks: boolean
  private readonly retry: Retry | undefined
  private clientInput: ClientInput | undefined
  /** A 2026-07-28 run's questions and answers, once the handler asked anything. */
  round: RoundTrip | undefined

  /**
   * `bindings` name what is served (`{ resource: uri }`, `{ prompt: name }`) in every log line.
   * `retry`: what a 2026-07-28 retry brought. `asks` is false for the methods that cannot ask the
   * client (only tools/call, prompts/get and resources/read can): every question is `unsupported`.
   */
  constructor (call: Call, bindings: Record<string, unknown>, settings: InputSettings, retry?: Retry, asks = true) {
    this.era = call.era
    this.protocolVersion = call.protocolVersion
    this.client = call.client
    this.sessionId = call.sessionId
    this.requestId = call.id
    this.call = call
    this.bindings = bindings
    this.settings = settings
    this.asks = asks
    this.retry = retry
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

  get elicit (): Elicit {
    return this.input().elicit
  }

  // not async: the promise handed out is the one marked handled (input/asker.ts)
  sample (key: string, params: SamplingParams): Promise<SampleOutcome> {
    return this.input().sample(key, params)
  }

  roots (key: string): Promise<RootsOutcome> {
    return this.input().roots(key)
  }

  /** Made on the first question: most handlers never ask one. */
  private input (): ClientInput {
    this.clientInput ??= new ClientInput(this.call, this.asks ? this.asker() : undefined, this.settings.validators)
    return this.clientInput
  }

  /** What carries this run's questions: the era's own (a running task's context has its own). */
  protected asker (): Asker {
    return this.call.era === 'modern'
      ? (this.round = new RoundTrip(this.retry?.answers))
      : new StreamAsker(this.call, this.settings.timeout, () => this.signal)
  }
}
