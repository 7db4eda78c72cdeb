/**
 * The pieces one registration of the plugin makes, before index.ts wires them to Fastify: the
 * `requestState` sealer, the stores, the protocol core's server, the 2025 session protocol, the
 * streams, the fleet and the shutdown's state.
 */
import type { FastifyInstance } from 'fastify'
import type { ResolvedOptions } from '../options/server.js'
import type { ResolvedAuth } from '../auth/auth-options.js'
import type { Registry } from '../define/registry.js'
import { RequestStateSealer } from '../state/request-state.js'
import { Quota } from '../state/quota.js'
import { serverContext } from '../protocol/server.js'
import { Sessions } from '../protocol/session/sessions.js'
import { Fleet } from '../protocol/fleet.js'
import { Streams } from '../http/streams/streams.js'
import { Shutdown } from '../http/shutdown.js'
import { openStores } from './stores.js'

/** What `makeParts` made, for the decorators, stdio, the close and the routes. */
export type Parts = Awaited<ReturnType<typeof makeParts>>

// the process's own key breaks a question's retry on another instance or after a restart: said
// at start on a fleet (redis), else when a call first asks the client something, and never when none does
const EPHEMERAL_WARNING = 'fastify-sake: requestState is sealed with a random key of this process: a 2026-07-28 call ' +
  'that asks the client something (ctx.elicit, ctx.sample, ctx.roots) fails its retry on another instance or after a ' +
  'restart. Behind a load balancer, give every instance the same requestState.keys'

/** The server's one `requestState` sealer (state/request-state.ts), which warns when its key is the process's own. */
export function requestStateSealer (app: FastifyInstance, options: ResolvedOptions): RequestStateSealer {
  const onEphemeralSeal = options.redis === undefined ? () => app.log.warn(EPHEMERAL_WARNING) : undefined
  const sealer = new RequestStateSealer({ ...options.requestState, onEphemeralSeal })
  if (sealer.ephemeral && options.redis !== undefined) app.log.warn(EPHEMERAL_WARNING)
  return sealer
}

export async function makeParts (app: FastifyInstance, options: ResolvedOptions, registry: Registry,
  auth: ResolvedAuth | undefined, sealer: RequestStateSealer) {
  const stores = await openStores(options, app.log)
  const { sessions, bus, events, taskStore, liveness } = stores
  const server = serverContext({
    info: options.info,
    instructions: options.instructions,
    ttl: options.ttl,
    pageSize: options.pageSize,
    registry,
    sessions,
    sessionMaxSize: options.sessions.maxSize,
    sealer,
    inputTimeout: options.inputTimeout,
    hideForbidden: auth?.hideForbidden === true,
    clockSkew: auth?.clockTolerance,
    taskStore,
    bus,
    tasks: { ...options.tasks, bounds: { perCaller: options.tasks.maxPerCaller, total: options.tasks.maxTasks } },
    liveness,
    log: app.log
  })
  // the 2025 session protocol (the handshake, finding sessions, cancellations, questions to clients)
  // is `legacy`; what callers may hold at once (issue 40): sessions and tasks are counted by their stores (in
  // Redis across a fleet), open streams and waiting questions here, where they are held
  const { streams: streamOptions, questions } = options
  const streamQuota = new Quota('streams', { perCaller: streamOptions.maxPerCaller, total: streamOptions.maxStreams })
  const questionQuota = new Quota('questions', { perCaller: questions.maxPerCaller, total: questions.maxQuestions })
  const legacy = new Sessions(sessions, bus, liveness, stores.inbox, {
    sessions: { perCaller: options.sessions.maxPerCaller, total: options.sessions.maxSessions },
    maxSize: options.sessions.maxSize,
    questions: questionQuota,
    alone: options.redis === undefined && options.bus === undefined
  })
  const streams = new Streams({
    bus,
    events,
    sessions,
    questions: legacy.questions,
    keepAlive: options.keepAlive,
    maxBuffered: streamOptions.maxBuffered,
    liveness,
    quota: streamQuota
  })
  // a fleet's survivors end what a dead instance was running (only on a shared store: in memory
  // there is no other instance)
  const fleet = new Fleet(liveness, server.tasks, events, app.log)
  if (options.redis !== undefined) {
    fleet.start(options.redis.heartbeat)
    // answers the bus missed (its connection blinked) are taken from the inbox at the same pace
    legacy.collect(options.redis.heartbeat, app.log)
  }
  // draining and closing for rolling deploys: a client told to come back waits a second (`retry:`, Retry-After)
  return { stores, server, legacy, streams, streamQuota, fleet, shutdown: new Shutdown(1000) }
}
