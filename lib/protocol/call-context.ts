/**
 * The contexts handlers get. `FeatureContext`: what a resource's `read`, a prompt's `get` and a
 * `complete` callback (`completionContext`) get, who is asking and over what. `CallContext`: a
 * tool's, the same plus the tool's ways to talk back while it runs (progress, log messages,
 * closing a resumable stream's connection). Their logger and abort signal are made on first use:
 * most calls never touch them, and the hot path should not pay for a pino child and an
 * AbortController it does not need.
 */
import { SEVERITY, type LogLevel } from '../spec/log-levels.js'
import type { Logger } from '../spec/types.js'
import { isObject } from '../values.js'
import type { CompletionContext, RequestContext } from '../define/handler-context.js'
import type { Elicit, RootsOutcome, SampleOutcome, SamplingParams } from '../define/input.js'
import type { Call, Channel } from './call.js'
import { completerOf, completionOf, wholeList } from './completer.js'
import type { Asker, InputSettings } from './input/asker.js'
import { ClientInput, type Offers } from './input/client-input.js'
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
    this.clientInput ??= new ClientInput(this.call, this.asks ? this.asker() : undefined, this.settings.validators, () => offersOf(this.call, this.settings))
    return this.clientInput
  }

  /** What carries this run's questions: the era's own (a running task's context has its own). */
  protected asker (): Asker {
    return this.call.era === 'modern'
      ? (this.round = new RoundTrip(this.retry?.answers))
      : new StreamAsker(this.call, this.settings.timeout, () => this.signal)
  }
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

/**
 * The context of a `complete` callback: asks nothing (its questions are all `unsupported`: a
 * completion answers at once), and carries the arguments already filled in.
 */
export function completionContext (call: Call, what: string, argument: string, settings: InputSettings, args: Record<string, string>): CompletionContext {
  return Object.assign(new FeatureContext(call, { completing: what, argument }, settings, undefined, false), { arguments: Object.freeze(args) })
}

/** The string arguments a call already has, but `except`: a template's variables, or the call's `arguments`. */
function knownArguments (call: Call, except: string): Record<string, string> {
  const given = call.target?.kind === 'found' ? call.target.vars : call.params.arguments
  const known: Record<string, string> = {}
  if (!isObject(given)) return known
  for (const [name, value] of Object.entries(given)) if (name !== except && typeof value === 'string') known[name] = value
  return known
}

/**
 * The handler's own `complete`, for the forms it builds (`ctx.elicit.form(..., { complete })`):
 * the values for an argument, asked with nothing typed and the call's other arguments as context.
 * A callback that fails is logged and the form asks without the list: the question still stands.
 */
function offersOf (call: Call, settings: InputSettings): Offers | undefined {
  /* c8 ignore next -- every handler with a context serves a target the edge found */
  if (call.target === undefined) return undefined
  const { what, names, complete } = completerOf(call.target)
  return {
    what,
    names: complete === undefined ? [] : names,
    async values (name) {
      const ctx = completionContext(call, what, name, settings, knownArguments(call, name))
      try {
        return wholeList(completionOf(await complete!(name, '', ctx)))
      } catch (err) {
        ctx.log.error({ err }, `completion for ${what} failed: the form asks for '${name}' without its values`)
        return undefined
      }
    }
  }
}
