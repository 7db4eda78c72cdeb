/**
 * An OpenTelemetry SERVER span per MCP message, named and described as the semantic conventions for
 * MCP say (`mcp.method.name`, `gen_ai.tool.name`, `error.type`, ...): its parent the trace context in
 * `params._meta` (`traceparent`, `tracestate`) when the client sent one, with a link to the HTTP
 * request's span (@fastify/otel's), else that span.
 */
import type { FastifyRequest } from 'fastify'
import { isObject } from '../values.js'
import type { Inbound } from '../protocol/inbound.js'
import {
  TRACER_NAME, type Attributes, type OtelApi, type OtelContext, type OtelGetter, type OtelSpan,
  type OtelSpanContext, type OtelTracer, type StartedSpan
} from '../protocol/otel/api.js'
import { errorTypeOf, namedIn } from '../protocol/otel/conventions.js'
import { networkOf, type McpRequestTrace } from './request-trace.js'

/**
 * The HTTP request's own span, as the ambient context: @fastify/otel's request span when it
 * instruments the request (`request.opentelemetry()`, duck-typed: a span of its hooks is active
 * in ours, not the request's), else whatever is active.
 */
function ambientOf (api: OtelApi, request: FastifyRequest): OtelContext {
  const otel = (request as { opentelemetry?: () => { context?: unknown } }).opentelemetry?.()
  return isObject(otel?.context) ? otel.context : api.context.active()
}

/** Reads `traceparent`, `tracestate` (and whatever the configured propagators read) from `params._meta`. */
const META_GETTER: OtelGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key]
    return typeof value === 'string' ? value : undefined
  }
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
    const attributes: Attributes = { 'mcp.method.name': method, ...networkOf(request) }
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
