/**
 * Traces of MCP requests, one per message answered (a batch item, served as a POST of its own, is one too):
 *
 * - the `fastify-sake:request` diagnostics_channel TracingChannel (`REQUEST_CHANNEL`): `start`,
 *   `end`, `asyncStart`, `asyncEnd` (and `error` for an unexpected failure) with one context
 *   object, an `McpRequestTrace` (`request-trace.ts`), published only while the channel has subscribers;
 * - an OpenTelemetry SERVER span per message (`spans.ts`) when `@opentelemetry/api` can be imported
 *   (an optional peer dependency, imported once something is registered with it, never required:
 *   `Tracing`, with `protocol/otel/api.ts`);
 * - the MCP metrics of the conventions (`mcp.server.operation.duration` over the same interval as
 *   the span, `mcp.server.session.duration`), through the same api's meter, while a meter provider
 *   is registered (`http/metrics.ts`, a `Measures` here).
 *
 * A POSTed message's trace spans the route's steps: it begins in `preValidation` (before the
 * plugin's own checks, so that their refusals are in it), the handler runs inside its span, and it
 * ends when the response closes (a stream: when it ended). A batch's messages are each served as a
 * POST of their own (`batch.ts`), traced as such; the batch itself is not. A message nobody traces
 * or measures costs one check (`Tracing.on`), and a call one more (`call.outcome`).
 */
import diagnostics from 'node:diagnostics_channel'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Session } from '../state/session-store.js'
import type { Inbound } from '../protocol/inbound.js'
import { otelRegistered, type OtelApi, type StartedSpan } from '../protocol/otel/api.js'
import { kTraced, traceOf, type McpRequestTrace, type Traced, type TracedRequest } from './request-trace.js'
import { Spans } from './spans.js'

// lib/index.ts imports these from here, as its one door to tracing

/** The name of the TracingChannel: `diagnostics_channel.tracingChannel('fastify-sake:request')`. */
export const REQUEST_CHANNEL = 'fastify-sake:request'

const channel = diagnostics.tracingChannel<unknown, McpRequestTrace>(REQUEST_CHANNEL)

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

/**
 * How a server gets OpenTelemetry: the api (undefined when it is not installed), then its metrics
 * (`http/metrics.ts`, loaded with it).
 */
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
  constructor (
    private readonly enabled: boolean, private spans: Spans | undefined,
    private metrics?: Measures | undefined, private loader?: OtelLoader | undefined
  ) {}

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
    const trace = traceOf(request, inbound)
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
