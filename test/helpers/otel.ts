// OpenTelemetry for the tracing tests, set up once per test process (the api's globals can be set
// once): a BasicTracerProvider exporting to memory, W3C trace context propagation, and a context
// manager over AsyncLocalStorage (the few lines @opentelemetry/context-async-hooks would bring).
// For the metrics tests, `meterProvider` registers the SDK's MeterProvider for one test.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Test } from 'tap'
import { ROOT_CONTEXT, context, metrics, propagation, trace, type Context, type ContextManager } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { MeterProvider, MetricReader, type MetricData } from '@opentelemetry/sdk-metrics'

class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>()
  active (): Context { return this.storage.getStore() ?? ROOT_CONTEXT }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>> (ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args))
  }

  bind<T> (ctx: Context, target: T): T {
    if (typeof target !== 'function') return target
    const run = (...args: unknown[]): unknown => this.with(ctx, () => (target as (...a: unknown[]) => unknown)(...args))
    return run as T
  }

  enable (): this { return this }
  disable (): this { this.storage.disable(); return this }
}

export const exporter = new InMemorySpanExporter()
export const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
trace.setGlobalTracerProvider(provider)
context.setGlobalContextManager(new StorageContextManager())
propagation.setGlobalPropagator(new W3CTraceContextPropagator())

/** The finished spans so far, and a fresh start for the next test. */
export function takeSpans (): ReadableSpan[] {
  const spans = exporter.getFinishedSpans()
  exporter.reset()
  return spans
}

/** The finished span named `name` (or whose name starts with it); fails loudly when there is none. */
export function spanNamed (spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const span = spans.find((s) => s.name === name)
  if (span === undefined) throw new Error(`no span named '${name}' in ${JSON.stringify(spans.map((s) => s.name))}`)
  return span
}

/** A reader that collects when asked (the SDK's readers are push-based; this one is read by the test). */
class CollectingReader extends MetricReader {
  protected async onForceFlush (): Promise<void> {}
  protected async onShutdown (): Promise<void> {}
}

/** The SDK's MeterProvider registered as the global one for test `t`, and its metrics collected on demand. */
export interface TestMeters {
  readonly provider: MeterProvider
  /** Every metric with data so far, of every instrumentation scope, with the scope's name. */
  collect (): Promise<Array<MetricData & { scope: string }>>
}

/** Registers a fresh MeterProvider (a manual reader) as the global one until `t` ends. */
export function meterProvider (t: Test): TestMeters {
  const reader = new CollectingReader()
  const provider = new MeterProvider({ readers: [reader] })
  metrics.disable()
  metrics.setGlobalMeterProvider(provider)
  t.teardown(async () => {
    metrics.disable()
    await provider.shutdown()
  })
  return {
    provider,
    collect: async () => {
      const { resourceMetrics } = await reader.collect()
      return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => ({ ...metric, scope: scope.scope.name })))
    }
  }
}
