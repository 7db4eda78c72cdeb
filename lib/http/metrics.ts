/**
 * The MCP metrics of the OpenTelemetry semantic conventions (open-telemetry/semantic-conventions-
 * genai, docs/gen-ai/mcp.md, "Metrics"), recorded through the host's `@opentelemetry/api` meter (the
 * optional peer `http/tracing.ts` imports once an SDK is set up; this file loads with it):
 *
 * - `mcp.server.operation.duration`: one measurement per MCP message answered (a request or a
 *   notification; each item of a batch is one), over the interval its span covers, from the
 *   route's `preValidation` (`Tracing.begin`) to the response's close;
 * - `mcp.server.session.duration`: one measurement per 2025 session that ends on this server, by
 *   its DELETE, from the `createdAt` its `initialize` stored with it (it may have been opened by
 *   another instance of a fleet). Nothing else is an end this server observes: a session that
 *   expires idle is only noticed by its store (a timer, a Redis TTL), a `sessionEnded` from the bus
 *   is the instance that served the DELETE measuring it, a server that closes leaves the sessions
 *   of a shared store alive, and a session stored before `createdAt` existed has no start.
 *
 * Both are histograms in seconds with the conventions' explicit bucket boundaries (an advice, so a
 * view of the host's may still override them). The attributes are the ones the conventions list
 * for each metric, with values a client cannot multiply: a method this server does not know is
 * `_OTHER`, a tool or prompt name only when it names one of this server's, a version only when
 * it is one this server serves; `mcp.resource.uri` is opt-in and left out, as are the session and
 * request ids, which the conventions give spans only. The attribute names are written out as
 * strings: `@opentelemetry/semantic-conventions` marks its MCP constants deprecated (they moved to
 * the GenAI conventions' own repository), and this package may not depend on it anyway.
 *
 * Without a meter provider this costs a message one check (`on`): the api's global provider is
 * its no-op singleton, compared by identity with the one the instruments were made from. The api
 * has no proxy meter provider (a meter taken from the no-op provider stays a no-op), so a provider
 * registered later is seen by that comparison changing, and the instruments are made then.
 */
import type { FastifyRequest } from 'fastify'
import { SUPPORTED_VERSIONS } from '../spec/eras.js'
import { CLIENT_NOTIFICATIONS, METHODS } from '../spec/methods.js'
import type { Session } from '../state/session-store.js'
import type { Inbound } from '../protocol/inbound.js'
import {
  TRACER_NAME, type Attributes, type OtelApi, type OtelHistogram, type OtelMeterProvider
} from '../protocol/otel/api.js'
import { errorTypeOf, namedIn } from '../protocol/otel/conventions.js'
import { networkOf, type McpRequestTrace } from './request-trace.js'
import type { Measures } from './tracing.js'

/** The histogram of every message answered. */
export const OPERATION_DURATION = 'mcp.server.operation.duration'
/** The histogram of every 2025 session ended here. */
export const SESSION_DURATION = 'mcp.server.session.duration'

/**
 * The conventions' bucket boundaries, in seconds, for both histograms: "This metric SHOULD be
 * specified with ExplicitBucketBoundaries of [ 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30,
 * 60, 120, 300 ]".
 */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300])

/**
 * The notifications a client sends that the conventions name as well-known values of
 * `mcp.method.name`; with the methods this server answers (`spec/methods.ts`), the methods a
 * measurement names. Any other is `_OTHER`, as the HTTP conventions record an unknown
 * `http.request.method`: a client's made-up method names would each make a new series.
 */
const KNOWN_NOTIFICATIONS: ReadonlySet<string> = new Set(Object.values(CLIENT_NOTIFICATIONS))

const OTHER_METHOD = '_OTHER'

/** The instruments made from one meter provider. */
interface Instruments {
  readonly operation: OtelHistogram
  readonly session: OtelHistogram
}

/** The MCP metrics of one server. */
export class Metrics implements Measures {
  /** The provider the instruments were made from (the no-op one: none made). */
  private provider: OtelMeterProvider | undefined
  private instruments: Instruments | undefined

  constructor (private readonly api: OtelApi) {}

  /**
   * Whether a meter provider is registered (an SDK), checked per message so that one registered
   * after the plugin is seen: one read of the api's global and an identity comparison, no
   * allocation, while it stays the provider last seen.
   */
  on (): boolean {
    const provider = this.api.metrics.getMeterProvider()
    return provider === this.provider ? this.instruments !== undefined : this.use(provider)
  }

  /** One message answered, `seconds` after its trace began (`mcp.server.operation.duration`). */
  operation (trace: McpRequestTrace, inbound: Inbound, seconds: number): void {
    if (!this.on()) return
    const attributes: Attributes = {
      'mcp.method.name': METHODS.has(trace.method) || KNOWN_NOTIFICATIONS.has(trace.method) ? trace.method : OTHER_METHOD,
      ...networkOf(trace.request)
    }
    const version = trace.protocolVersion
    if (version !== undefined && SUPPORTED_VERSIONS.includes(version)) attributes['mcp.protocol.version'] = version
    const otel = inbound.facts?.otel
    if (otel?.operation !== undefined) attributes['gen_ai.operation.name'] = otel.operation
    // a tool's or a prompt's name when it is one of ours (the target the edge found): a name a
    // client made up would make a series of its own; a resource's URI is opt-in
    if (otel?.name !== undefined && otel.name !== 'mcp.resource.uri' && inbound.target !== undefined) {
      const named = namedIn(inbound, otel.name)
      if (named !== undefined) attributes[otel.name] = named
    }
    if (trace.rpcError !== undefined) attributes['rpc.response.status_code'] = String(trace.rpcError.code)
    const errorType = errorTypeOf(trace)
    if (errorType !== undefined) attributes['error.type'] = errorType
    this.instruments!.operation.record(seconds, attributes)
  }

  /**
   * A 2025 session ended here, by the DELETE `request` (`mcp.server.session.duration`): from the
   * `createdAt` stored with it, so another instance's clock when another instance opened it (a
   * negative difference, clocks apart, counts as 0). A DELETE is the session's normal end: no
   * `error.type`, which the conventions give only a session that "ends with an error".
   */
  sessionEnded (request: FastifyRequest, session: Session): void {
    const { createdAt } = session
    if (createdAt === undefined || !this.on()) return
    this.instruments!.session.record(Math.max(0, Date.now() - createdAt) / 1000, {
      'mcp.protocol.version': session.protocolVersion,
      ...networkOf(request)
    })
  }

  /** A provider not seen before: its instruments, unless it is the api's no-op one. */
  private use (provider: OtelMeterProvider): boolean {
    this.provider = provider
    const meter = provider.getMeter(TRACER_NAME)
    if (meter === this.api.createNoopMeter()) {
      this.instruments = undefined
      return false
    }
    this.instruments = {
      operation: meter.createHistogram(OPERATION_DURATION, {
        description: 'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
        unit: 's',
        advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] }
      }),
      session: meter.createHistogram(SESSION_DURATION, {
        description: 'The duration of the MCP session as observed on the MCP server.',
        unit: 's',
        advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] }
      })
    }
    return true
  }
}
