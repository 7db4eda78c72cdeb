/**
 * `@opentelemetry/api`, the optional peer dependency spans and metrics go through: the parts of it
 * used, typed locally (the package is an optional peer, so no type of ours may name it), whether
 * anything was registered with it, and importing it. It knows no transport.
 */

/** The parts of `@opentelemetry/api` used by `http/spans.ts` and `http/metrics.ts`. */
export interface OtelApi {
  readonly trace: {
    getTracer (name: string): OtelTracer
    getTracerProvider (): { getDelegate? (): unknown }
    setSpan (context: OtelContext, span: OtelSpan): OtelContext
    getSpanContext (context: OtelContext): OtelSpanContext | undefined
  }
  readonly context: {
    active (): OtelContext
    with<T> (context: OtelContext, fn: () => T): T
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

export interface OtelMeterProvider { getMeter (name: string): OtelMeter }
export interface OtelMeter {
  createHistogram (name: string, options: {
    description: string, unit: string, advice: { explicitBucketBoundaries: number[] }
  }): OtelHistogram
}
export interface OtelHistogram { record (value: number, attributes: Attributes): void }

export type OtelContext = object
export type Attributes = Record<string, string | number>
export interface OtelSpanContext { readonly traceId: string, readonly spanId: string }
export interface OtelGetter<Carrier> {
  keys (carrier: Carrier): string[]
  get (carrier: Carrier, key: string): undefined | string | string[]
}
export interface OtelTracer {
  startSpan (name: string, options: {
    kind: number, attributes: Attributes, links?: Array<{ context: OtelSpanContext }>
  }, context: OtelContext): OtelSpan
}
export interface OtelSpan {
  isRecording (): boolean
  setAttribute (key: string, value: string | number): unknown
  setStatus (status: { code: number, message?: string }): unknown
  recordException (exception: Error | string): void
  end (): void
}

/** A started span, and the context that makes it the active one. */
export interface StartedSpan { readonly span: OtelSpan, readonly context: OtelContext }

/** The tracer's and the meter's (instrumentation scope's) name. */
export const TRACER_NAME = 'fastify-sake'

/**
 * Where `@opentelemetry/api` 1.x keeps what is registered with it (a tracer or meter provider, a
 * context manager, a propagator).
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1')

/**
 * Whether anything was registered with OpenTelemetry's api in this process (an SDK was set up),
 * read without importing the api: until then a span or a measurement would be a no-op.
 */
export function otelRegistered (): boolean {
  return (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL] !== undefined
}

/** Imports `@opentelemetry/api`, an optional peer: undefined when it is not installed (or fails to load). */
export async function openTelemetry (
  load: () => Promise<unknown> = async () => import('@opentelemetry/api')
): Promise<OtelApi | undefined> {
  try {
    const api = await load() as OtelApi
    return typeof api?.trace?.getTracer === 'function' ? api : undefined
  } catch {
    return undefined
  }
}
