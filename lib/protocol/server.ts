/**
 * One MCP server as the protocol core sees it: what it says of itself, what it serves, and the
 * settings its methods need. Made once per registration of the plugin (two servers in one process
 * share nothing), and handed to every method with the call.
 */
import type { Logger, ServerInfo } from '../spec/types.js'
import { META_SERVER_INFO } from '../spec/meta-keys.js'
import type { Registry } from '../define/registry.js'
import type { SessionStore } from '../state/session-store.js'
import type { RequestStateSealer } from '../state/request-state.js'
import { ListPages } from './lists.js'
import { FormValidators } from './input/form-validators.js'
import type { InputSettings } from './input/asker.js'
import type { TaskStore } from '../state/task-store.js'
import type { Bus } from '../state/bus.js'
import type { Liveness } from '../state/liveness.js'
import type { QuotaBounds } from '../state/quota.js'
import { Tasks } from './tasks/lifecycle.js'
import { CLOCK_SKEW } from './access-check.js'

export interface ServerContext {
  readonly info: ServerInfo
  readonly instructions: string | undefined
  /** Ceiling of every cacheable result's `ttlMs`, in milliseconds. */
  readonly ttl: number
  readonly registry: Registry
  /** The list results, serialised when the server is ready. */
  readonly lists: ListPages
  /** 2025 sessions: methods that change the session (`logging/setLevel`, `resources/subscribe`) save it here. */
  readonly sessions: SessionStore
  /** Bytes a 2025 session may take as stored (`sessions.maxSize`): `resources/subscribe` keeps within it. */
  readonly sessionMaxSize: number
  /** Questions to the client: the requestState sealer, the 2025 answer timeout, the form validators. */
  readonly input: InputSettings
  /** `_meta` with serverInfo, for modern results. */
  readonly serverInfoMeta: Readonly<Record<string, unknown>>
  /** The same as `"_meta":{…}` JSON text, spliced into modern results (`results.ts`). */
  readonly serverInfoMetaJson: string
  /** Tasks (issue 13): the store and the lifecycle of the tasks running here. */
  readonly tasks: Tasks
  /** Seconds a token's `auth_time` may be ahead of this clock for a step-up check (`auth.clockTolerance`). */
  readonly clockSkew: number
  /** `server/discover`, serialised on first use: it never changes once the server is ready. */
  discover: string | undefined
}

export interface ServerContextOptions {
  readonly info: ServerInfo
  readonly instructions: string | undefined
  readonly ttl: number
  readonly pageSize: number
  readonly registry: Registry
  readonly sessions: SessionStore
  /** `sessions.maxSize`; default: no bound. */
  readonly sessionMaxSize?: number | undefined
  readonly sealer: RequestStateSealer
  readonly inputTimeout: number
  /** `auth.hideForbidden`: lists show each caller what its scopes allow. */
  readonly hideForbidden: boolean
  /** `auth.clockTolerance`, in seconds; default `CLOCK_SKEW`. */
  readonly clockSkew?: number | undefined
  readonly taskStore: TaskStore
  readonly bus: Bus
  readonly tasks: TaskTimings
  /** Where the tasks running here are recorded as this instance's (a fleet's survivors fail them if it dies). */
  readonly liveness?: Liveness | undefined
  /** The server's own logger, for what fails outside any request. */
  readonly log?: Logger | undefined
}

/**
 * The durations of the `tasks` option, resolved, in milliseconds (the user-facing option type is
 * options.ts's `TaskOptions`; the Tasks constructor's are tasks/lifecycle.ts's `TaskSettings`).
 */
export interface TaskTimings {
  /** The task store's bounds (`tasks.maxPerCaller`, `tasks.maxTasks`), which a refusal names. */
  readonly bounds?: QuotaBounds | undefined
  readonly ttl: number
  readonly maxTtl: number
  readonly pollInterval: number
  readonly closeTimeout: number
}

export function serverContext (options: ServerContextOptions): ServerContext {
  const { info, instructions, ttl, pageSize, registry, sessions, hideForbidden } = options
  const serverInfoMeta = Object.freeze({ [META_SERVER_INFO]: info })
  return {
    info,
    instructions,
    ttl,
    registry,
    lists: new ListPages(registry, { ttl, pageSize, serverInfoMeta, hideForbidden }),
    sessions,
    sessionMaxSize: options.sessionMaxSize ?? Infinity,
    input: { sealer: options.sealer, timeout: options.inputTimeout, validators: new FormValidators() },
    serverInfoMeta,
    serverInfoMetaJson: '"_meta":' + JSON.stringify(serverInfoMeta),
    tasks: new Tasks({ ...options.tasks, store: options.taskStore, bus: options.bus, pageSize, log: options.log, liveness: options.liveness }),
    clockSkew: options.clockSkew ?? CLOCK_SKEW,
    discover: undefined
  }
}
