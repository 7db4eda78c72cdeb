/**
 * Traces of MCP requests, one per message answered (a batch item, served as a POST of its own, is one too):
 *
 * - the `fastify-sake:request` diagnostics_channel TracingChannel (`REQUEST_CHANNEL`): `start`,
 *   `end`, `asyncStart`, `asyncEnd` (and `error` for an unexpected failure) with one context
 *   object, an `McpRequestTrace`, published only while the channel has subscribers;
 * - an OpenTelemetry SERVER span per message when `@opentelemetry/api` can be imported (an optional
 *   peer dependency, imported once something is registered with it, never required: `Tracing`): named and described as the
 *   semantic conventions for MCP say (`mcp.method.name`, `gen_ai.tool.name`, `error.type`, ...),
 *   its parent the trace context in `params._meta` (`traceparent`, `tracestate`) when the client
 *   sent one, with a link to the HTTP request's span (@fastify/otel's), else that span.
 *
 * - the MCP metrics of the conventions (`mcp.server.operation.duration` over the same interval as
 *   the span, `mcp.server.session.duration`), through the same api's meter, while a meter provider
 *   is registered (`http/metrics.ts`, a `Measures` here).
 *
 * A POSTed message's trace spans the route's steps: it begins in `preValidation` (before the
 * plugin's own checks, so that their refusals are in it), the handler runs inside its span, and it
 * ends when the response closes (a stream: when it ended). A batch's messages are each served as a
 * POST of their own (`batch.ts`), traced as such; the batch itself is not. A message nobody traces or measures costs one check (`Tracing.on`), and a
 * call one more (`call.outcome`).
 *
 * The conventions' attribute names are written out as strings, here and in `http/metrics.ts`:
 * `@opentelemetry/semantic-conventions` marks its MCP constants deprecated (the GenAI conventions
 * moved to their own repository), and it would be one more package for a few strings.
 */
import diagnostics from 'node:diagnostics_channel'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Era } from '../spec/eras.js'
import { INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RESOURCE_NOT_FOUND, type RequestId } from '../spec/jsonrpc.js'
import type { ProtocolError } from '../errors.js'
import { isObject } from '../values.js'
import type { Session } from '../state/session-store.js'
import type { NameAttribute } from '../spec/methods.js'
import type { Call, CallOutcome } from '../protocol/call.js'
import { logNames, type Inbound } from '../protocol/inbound.js'
/** The name of the TracingChannel: `diagnostics_channel.tracingChannel('fastify-sake:request')`. */
export const REQUEST_CHANNEL = 'fastify-sake:request'

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
  /** The tool or prompt name, the resource URI; undefined for other methods (a task method's task id, a handle, never). */
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

const channel = diagnostics.tracingChannel<unknown, McpRequestTrace>(REQUEST_CHANNEL)

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

type TracedRequest = FastifyRequest & { [kTraced]?: Traced | null }

/**
 * The trace of one message, as far as its classification tells (its handler fills in the rest);
 * a batch item's era, version and session are its batch's.
 */
export function traceOf (request: FastifyRequest, inbound: Inbound, era: Era | undefined, protocolVersion: string | undefined, sessionId: string | undefined): McpRequestTrace {
  return { method: inbound.method!, name: logNames(inbound).name, era, protocolVersion, id: inbound.id, sessionId, request }
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
 * What measures messages and sessions (`http/metrics.ts`), as tracing sees it: a structural type,
 * so that this file does not import the one that builds on it.
 */
export interface Measures {
  /** Whether a meter provider is registered: the one check an unmeasured message pays. */
  on (): boolean
  /** One message answered, `seconds` after its trace began. */
  operation (trace: McpRequestTrace, inbound: Inbound, seconds: number): void
  /** A 2025 session ended here (its DELETE), `request` the one that ended it. */
  sessionEnded (request: FastifyRequest, session: Session): void
}

/** Where `@opentelemetry/api` 1.x keeps what is registered with it (a tracer or meter provider, a context manager, a propagator). */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1')

/**
 * Whether anything was registered with OpenTelemetry's api in this process (an SDK was set up),
 * read without importing the api: until then a span or a measurement would be a no-op.
 */
export function otelRegistered (): boolean {
  return (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL] !== undefined
}

/** How a server gets OpenTelemetry: the api (undefined when it is not installed), then its metrics (`http/metrics.ts`, loaded with it). */
export interface OtelLoader {
  api (): Promise<OtelApi | undefined>
  metrics (api: OtelApi): Promise<Measures>
}

/**
 * What one server traces and measures: the channel unless `tracing: false`, and spans and metrics
 * when OpenTelemetry is there. With a loader, `@opentelemetry/api` is imported once something is
 * registered with it: at registration when an SDK is already set up (`attach`), else by the first
 * message that finds one (`on`).
 */
export class Tracing {
  constructor (private readonly enabled: boolean, private spans: Spans | undefined, private metrics?: Measures | undefined, private loader?: OtelLoader | undefined) {}

  /** Whether a message is traced or measured at all: the one check an untraced message pays. */
  on (): boolean {
    // the messages served while the api is being imported are not traced by it, only the later ones
    if (this.loader !== undefined && otelRegistered()) void this.load(this.loader)
    return this.spans?.on() === true || this.metrics?.on() === true || (this.enabled && channel.hasSubscribers)
  }

  /** At registration: OpenTelemetry now when an SDK is already set up, so that the first message is traced. */
  async attach (): Promise<void> {
    if (this.loader !== undefined && otelRegistered()) await this.load(this.loader)
  }

  /** Imports the api, once: spans and metrics when it is installed, else nothing, for good. */
  private async load (loader: OtelLoader): Promise<void> {
    this.loader = undefined
    const api = await loader.api()
    if (api === undefined) return
    const metrics = await loader.metrics(api)
    this.spans = new Spans(api)
    this.metrics = metrics
  }

  /**
   * Begins the trace of a POSTed message (the route's `preValidation`) and runs `check`, the
   * route's own checks, inside it: the channel's stores (`bindStore`) then hold for the rest of the
   * request, which `check` continues through Fastify's `done`. A batch or a client's response is
   * not traced here (a batch's items are, as POSTs of their own). The trace ends when the response closes.
   */
  begin (request: FastifyRequest, reply: FastifyReply, inbound: Inbound, check: () => void): void {
    // a response has no method; nor has a batch, whose items are traced one by one
    if (inbound.method === undefined) {
      check()
      return
    }
    const started = this.metrics?.on() === true ? performance.now() : undefined
    const trace = traceOf(request, inbound, inbound.era, inbound.protocolVersion, inbound.sessionId)
    const span = this.spans?.on() === true ? this.spans.start(trace, inbound) : undefined
    const published = this.enabled && channel.hasSubscribers
    const traced: Traced = { trace, published, span, inbound, started }
    ;(request as TracedRequest)[kTraced] = traced
    reply.raw.once('close', () => { this.end(traced) })
    if (!published) {
      check()
      return
    }
    channel.start.runStores(trace, check)
    channel.end.publish(trace)
  }

  /**
   * Runs the POST route's handler inside its message's span, so that a tool's own spans are its
   * children. Returns what the handler returns, sync or not (an answer sent in its turn stays so).
   */
  within<T> (span: StartedSpan, handler: () => T): T {
    return this.spans!.within(span, handler)
  }

  /** A 2025 session ended here (its DELETE): its duration, while a meter provider is registered. */
  sessionEnded (request: FastifyRequest, session: Session): void {
    this.metrics?.sessionEnded(request, session)
  }

  /** The end of a POSTed message's trace: its response closed, the outcome known. */
  private end (traced: Traced): void {
    const { trace, span, started } = traced
    if (started !== undefined) this.metrics!.operation(trace, traced.inbound, (performance.now() - started) / 1000)
    if (span !== undefined) this.spans!.end(span, trace)
    if (!traced.published) return
    if (trace.error !== undefined) channel.error.publish(trace)
    channel.asyncStart.publish(trace)
    channel.asyncEnd.publish(trace)
  }
}

/**
 * The parts of `@opentelemetry/api` used here and by `http/metrics.ts`, typed locally: the package
 * is an optional peer, so no type of ours may name it.
 */
export interface OtelApi {
  readonly trace: {
    getTracer (name: string): OtelTracer
    getTracerProvider (): { getDelegate? (): unknown }
    setSpan (context: OtelContext, span: OtelSpan): OtelContext
    getSpanContext (context: OtelContext): OtelSpanContext | undefined
  }
  readonly context: {
    active (): OtelContext
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>> (context: OtelContext, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F>
  }
  readonly propagation: {
    extract<Carrier> (context: OtelContext, carrier: Carrier, getter?: OtelGetter<Carrier>): OtelContext
  }
  readonly ProxyTracerProvider: new () => { getDelegate (): unknown }
  readonly SpanKind: { readonly SERVER: number }
  readonly SpanStatusCode: { readonly ERROR: number }
  /** The global meter provider: the one registered, else the api's no-op provider (a singleton). */
  readonly metrics: { getMeterProvider (): OtelMeterProvider }
  /** The api's no-op meter, the one its no-op provider gives. */
  createNoopMeter (): OtelMeter
}

export interface OtelMeterProvider {
  getMeter (name: string): OtelMeter
}
export interface OtelMeter {
  createHistogram (name: string, options: { description: string, unit: string, advice: { explicitBucketBoundaries: number[] } }): OtelHistogram
}
export interface OtelHistogram {
  record (value: number, attributes: Attributes): void
}

type OtelContext = object
export type Attributes = Record<string, string | number>
interface OtelSpanContext { readonly traceId: string, readonly spanId: string }
interface OtelGetter<Carrier> {
  keys (carrier: Carrier): string[]
  get (carrier: Carrier, key: string): undefined | string | string[]
}
interface OtelTracer {
  startSpan (name: string, options: { kind: number, attributes: Attributes, links?: Array<{ context: OtelSpanContext }> }, context: OtelContext): OtelSpan
}
interface OtelSpan {
  isRecording (): boolean
  setAttribute (key: string, value: string | number): unknown
  setStatus (status: { code: number, message?: string }): unknown
  recordException (exception: Error | string): void
  end (): void
}

/** A started span, and the context that makes it the active one. */
export interface StartedSpan { readonly span: OtelSpan, readonly context: OtelContext }

/**
 * The HTTP request's own span, as the ambient context: @fastify/otel's request span when it
 * instruments the request (`request.opentelemetry()`, duck-typed: a span of its hooks is active
 * in ours, not the request's), else whatever is active.
 */
function ambientOf (api: OtelApi, request: FastifyRequest): OtelContext {
  const otel = (request as { opentelemetry?: () => { context?: unknown } }).opentelemetry?.()
  return isObject(otel?.context) ? otel.context : api.context.active()
}

/** The tracer's and the meter's (instrumentation scope's) name. */
export const TRACER_NAME = 'fastify-sake'

/** `network.protocol.version`: the HTTP version a request came over (`1.1`, `2`). */
export function httpVersionOf (request: FastifyRequest): string {
  const version = request.raw.httpVersion
  return version === '2.0' ? '2' : version
}

/** Reads `traceparent`, `tracestate` (and whatever the configured propagators read) from `params._meta`. */
const META_GETTER: OtelGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key]
    return typeof value === 'string' ? value : undefined
  }
}

/**
 * The value of the attribute that carries what a message names: a resource's URI; a tool's or
 * prompt's name, which a completion gives in its reference to a prompt (a reference to a resource
 * template carries no attribute of the conventions).
 */
export function namedIn (inbound: Inbound, attribute: NameAttribute): string | undefined {
  const { params } = inbound
  let named: unknown
  if (attribute === 'mcp.resource.uri') named = params?.uri
  else if (inbound.facts?.target !== 'reference') named = params?.name
  else if (isObject(params?.ref) && params.ref.type === 'ref/prompt') named = params.ref.name
  return typeof named === 'string' ? named : undefined
}

/** OpenTelemetry spans of one server: the tracer, looked up once at registration. */
export class Spans {
  private readonly tracer: OtelTracer
  /** The api's no-op provider: what the global provider delegates to until an SDK registers one. */
  private readonly noop: unknown

  constructor (private readonly api: OtelApi) {
    this.tracer = api.trace.getTracer(TRACER_NAME)
    this.noop = new api.ProxyTracerProvider().getDelegate()
  }

  /**
   * Whether a tracer provider is registered (an SDK): without one every span would be a no-op, so
   * the api being installed (often as someone else's dependency) costs a message nothing more.
   */
  on (): boolean {
    return this.api.trace.getTracerProvider().getDelegate?.() !== this.noop
  }

  /**
   * Starts the span of one message. Its parent: the client's span when `params._meta` carries its
   * context (the HTTP request's span then linked), else the HTTP request's span.
   */
  start (trace: McpRequestTrace, inbound: Inbound): StartedSpan {
    const { api } = this
    const ambient = ambientOf(api, trace.request)
    let parent = ambient
    let links: Array<{ context: OtelSpanContext }> | undefined
    const meta = inbound.params?._meta
    if (isObject(meta)) {
      parent = api.propagation.extract(ambient, meta, META_GETTER)
      const from = api.trace.getSpanContext(ambient)
      const to = api.trace.getSpanContext(parent)
      if (from !== undefined && (to?.spanId !== from.spanId || to.traceId !== from.traceId)) links = [{ context: from }]
    }
    const { name, attributes } = this.describe(trace, inbound)
    const span = this.tracer.startSpan(name, { kind: api.SpanKind.SERVER, attributes, links }, parent)
    return { span, context: api.trace.setSpan(parent, span) }
  }

  /** Runs `fn` with the span as the active one. */
  within<T> (started: StartedSpan, fn: () => T): T {
    return this.api.context.with(started.context, fn)
  }

  /** Ends the span with what handling the message learned; `trace.error`, an unexpected failure, is recorded. */
  end (started: StartedSpan, trace: McpRequestTrace): void {
    const { span } = started
    if (trace.error !== undefined) span.recordException(trace.error as Error)
    if (span.isRecording()) this.finish(span, trace)
    span.end()
  }

  /** The span's name and the attributes the message itself gives (known before it is handled). */
  private describe (trace: McpRequestTrace, inbound: Inbound): { name: string, attributes: Attributes } {
    const { method, request } = trace
    const attributes: Attributes = {
      'mcp.method.name': method,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'network.protocol.version': httpVersionOf(request)
    }
    if (trace.id !== undefined) attributes['jsonrpc.request.id'] = String(trace.id)
    attributes['client.address'] = request.ip
    const port = request.socket.remotePort
    if (port !== undefined && request.ip === request.socket.remoteAddress) attributes['client.port'] = port
    // what the message names, as its row says (`spec/methods.ts`); in the span's name only when it
    // is one of ours, a tool or a prompt: a name a client made up, or a URI, is not low-cardinality
    let target: string | undefined
    const otel = inbound.facts?.otel
    if (otel?.operation !== undefined) attributes['gen_ai.operation.name'] = otel.operation
    const named = otel?.name === undefined ? undefined : namedIn(inbound, otel.name)
    if (named !== undefined) {
      attributes[otel!.name!] = named
      if (otel!.name !== 'mcp.resource.uri' && inbound.target !== undefined) target = named
    }
    return { name: target === undefined ? method : `${method} ${target}`, attributes }
  }

  /**
   * What handling the message learned: the session, the version, and whether it failed, by the
   * server span's status rule (`errorTypeOf`): a JSON-RPC error answer always records its code as
   * `rpc.response.status_code`; only a failure of the server's (and a tool error) adds `error.type`
   * and the status ERROR, described by the JSON-RPC message when there is one. A client's mistake
   * leaves the status UNSET.
   */
  private finish (span: OtelSpan, trace: McpRequestTrace): void {
    if (trace.protocolVersion !== undefined) span.setAttribute('mcp.protocol.version', trace.protocolVersion)
    if (trace.sessionId !== undefined) span.setAttribute('mcp.session.id', trace.sessionId)
    const { rpcError } = trace
    if (rpcError !== undefined) span.setAttribute('rpc.response.status_code', String(rpcError.code))
    const errorType = errorTypeOf(trace)
    if (errorType === undefined) return
    span.setAttribute('error.type', errorType)
    const { ERROR } = this.api.SpanStatusCode
    span.setStatus(rpcError === undefined ? { code: ERROR } : { code: ERROR, message: rpcError.message })
  }
}

/**
 * The JSON-RPC codes that answer a client's mistake, which the server span and the operation
 * metric do not count as the server failing. The OpenTelemetry semantic conventions for MCP
 * (open-telemetry/semantic-conventions-genai, model/mcp/common.yaml at 0e5e6a8d, group
 * `mcp.server.status.attributes`, since PR #404 for issue #389) on `rpc.response.status_code`:
 *
 *   "The following error codes indicate that the caller sent a request the receiver could not
 *   serve and SHOULD NOT be considered errors: `-32700` (`Parse error`), `-32600` (`Invalid
 *   Request`), `-32601` (`Method not found`), `-32602` (`Invalid params`) - also returned when the
 *   requested tool does not exist, `-32002` (`Resource not found`). Any other error code SHOULD be
 *   considered an error."
 *
 * and on `error.type` ("Conditionally Required: If and only if the operation fails"): "When the
 * response carries a JSON-RPC error code that classifies as an error, `error.type` SHOULD be set
 * to the string representation of that code. See `rpc.response.status_code` for which codes
 * classify as errors." So a client's mistake keeps `rpc.response.status_code` ("Conditionally
 * Required: If response contains an error code") and has no `error.type`; and with no error, the
 * span's status stays UNSET (Recording Errors: "Span Status Code MUST be left unset if the
 * instrumented operation has ended without any errors"). Codes of ours the list does not name
 * (-32001 session not found, -32020 header mismatch, -32022 unsupported version, ...) are errors,
 * as "Any other error code" says.
 */
const CLIENT_MISTAKES: ReadonlySet<number> = new Set([PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, RESOURCE_NOT_FOUND])

/**
 * `error.type` of a message as the server saw it end; undefined when it did not fail. A JSON-RPC
 * error answer: its code, unless the client's mistake (`CLIENT_MISTAKES`). A `tools/call` result
 * with `isError: true`: `tool_error` (the conventions: "When CallToolResult is returned with
 * `isError` set to `true`, this attribute SHOULD be set to `tool_error`"), which is a failure, so
 * its span's status is ERROR ("If the span status is set to `ERROR`, the status description SHOULD
 * match the `JSONRPCError.message` if the message is available": a tool error has none).
 */
export function errorTypeOf (outcome: CallOutcome): string | undefined {
  const { rpcError } = outcome
  if (rpcError !== undefined) return CLIENT_MISTAKES.has(rpcError.code) ? undefined : String(rpcError.code)
  return outcome.isError === true ? 'tool_error' : undefined
}

/** Imports `@opentelemetry/api`, an optional peer: undefined when it is not installed (or fails to load). */
export async function openTelemetry (load: () => Promise<unknown> = async () => import('@opentelemetry/api')): Promise<OtelApi | undefined> {
  try {
    const api = await load() as OtelApi
    return typeof api?.trace?.getTracer === 'function' ? api : undefined
  } catch {
    return undefined
  }
}
