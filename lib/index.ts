/**
 * fastify-sake: serve the Model Context Protocol from a Fastify service.
 *
 * The plugin wires options to the pieces that do the work: the registry (what is served), the
 * protocol core's server, the stores (2025 sessions, resumable streams, the bus), `app.mcp`, and
 * the endpoint's routes, which live in their own encapsulated context.
 */
import { randomBytes } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, InjectOptions } from 'fastify'
import { SakeOptionError } from './errors.js'
import { resolveOptions, type ResolvedOptions, type SakeOptions } from './options/server.js'
import { resolveStdioOptions, type StdioOptions } from './options/stdio.js'
import { Registry } from './define/registry.js'
import type { ToolDefinition } from './define/tool-definition.js'
import type { ResourceDefinition } from './define/resource.js'
import type { PromptDefinition } from './define/prompt.js'
import { MemorySessionStore } from './state/memory-session-store.js'
import { SessionCache } from './state/session-cache.js'
import { MemoryBus } from './state/memory-bus.js'
import { MemoryEventStore } from './state/memory-event-store.js'
import { MemoryTaskStore } from './state/memory-task-store.js'
import type { RedisConnection } from './state/redis/connection.js'
import type { RedisStores } from './state/redis/stores.js'
import type { RedisSessionStore } from './state/redis/session-store.js'
import { MemoryLiveness, type Liveness } from './state/liveness.js'
import { RequestStateSealer } from './state/request-state.js'
import { Quota } from './state/quota.js'
import { serverContext } from './protocol/server.js'
import { Sessions } from './protocol/session/sessions.js'
import { Fleet } from './protocol/fleet.js'
import { addToCatalogue } from './auth/catalogue.js'
import { underPrefix } from './auth/auth-options.js'
import { requestInfo } from './http/request-info.js'
import { kMcpRoute, routes } from './http/routes.js'
import { collectRouteTools } from './http/route-tools/collect.js'
import { routeToolInfo } from './http/route-tools/run.js'
import { Streams } from './http/streams/streams.js'
import { Shutdown } from './http/shutdown.js'
import { warnOnRequestTimeout } from './http/request-timeout.js'
import { Tracing, openTelemetry, type OtelLoader } from './http/tracing.js'
import { mcpView } from './mcp-view.js'
import type { StdioHandle, StdioTransport } from './stdio/transport.js'
import type { McpView, RegisterPrompt, RegisterResource, RegisterSkill, RegisterTool } from './api.js'
import type { SkillDefinition } from './define/skill.js'
import type { Bus } from './state/bus.js'
import type { EventStore } from './state/event-store.js'
import type { Inbox } from './state/inbox.js'
import type { SessionStore } from './state/session-store.js'
import type { TaskStore } from './state/task-store.js'

async function sake (app: FastifyInstance, rawOptions: SakeOptions): Promise<void> {
  const options = resolveOptions(rawOptions)
  if (app.hasDecorator('registerTool') || app.hasDecorator('mcp')) {
    throw new SakeOptionError('fastify-sake: an MCP server is already registered in this context or a parent of it; register each server in its own sibling context: app.register(async (child) => { await child.register(sake, {...}) })')
  }
  // the process's own key breaks a question's retry on another instance or after a restart: said
  // at start on a fleet (redis), else when a call first asks the client something, and never when none does
  const ephemeralWarning = 'fastify-sake: requestState is sealed with a random key of this process: a 2026-07-28 call that asks the client something (ctx.elicit, ctx.sample, ctx.roots) fails its retry on another instance or after a restart. Behind a load balancer, give every instance the same requestState.keys'
  const sealer = new RequestStateSealer({ ...options.requestState, onEphemeralSeal: options.redis === undefined ? () => app.log.warn(ephemeralWarning) : undefined })
  if (sealer.ephemeral && options.redis !== undefined) app.log.warn(ephemeralWarning)

  // under a Fastify prefix (the context's, and the register option's) every route of ours answers
  // below it: the endpoint and the metadata alike
  const prefix = app.prefix + options.prefix
  const path = prefix === '' || options.path !== '/' ? prefix + options.path : prefix
  const auth = options.auth === undefined ? undefined : underPrefix(options.auth, prefix)
  const registry = new Registry(options.scopes, { maxFileSize: options.skills.maxFileSize, directoryRead: options.skills.directoryRead })
  // the app's scope catalogue (mcpScopes), across its servers: a scope described otherwise elsewhere fails here
  addToCatalogue(app, { name: options.info.name, path, resource: auth?.resource ?? null, registry, scopes: options.scopes })
  const { sessions, bus, events, taskStore, liveness, inbox, close } = await openStores(options, app.log)
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
  // the 2025 session protocol: the handshake, finding sessions, cancellations, questions to clients
  // what callers may hold at once (issue 40): sessions and tasks are counted by their stores (in
  // Redis across a fleet), open streams and waiting questions here, where they are held
  const streamQuota = new Quota('streams', { perCaller: options.streams.maxPerCaller, total: options.streams.maxStreams })
  const questionQuota = new Quota('questions', { perCaller: options.questions.maxPerCaller, total: options.questions.maxQuestions })
  const legacy = new Sessions(sessions, bus, liveness, inbox, {
    sessions: { perCaller: options.sessions.maxPerCaller, total: options.sessions.maxSessions },
    maxSize: options.sessions.maxSize,
    questions: questionQuota,
    alone: options.redis === undefined && options.bus === undefined
  })
  const streams = new Streams({ bus, events, sessions, questions: legacy.questions, keepAlive: options.keepAlive, maxBuffered: options.streams.maxBuffered, liveness, quota: streamQuota })
  // a fleet's survivors end what a dead instance was running (only on a shared store: in memory there is no other instance)
  const fleet = new Fleet(liveness, server.tasks, events, app.log)
  if (options.redis !== undefined) {
    fleet.start(options.redis.heartbeat)
    // answers the bus missed (its connection blinked) are taken from the inbox at the same pace
    legacy.collect(options.redis.heartbeat, app.log)
  }

  // draining and closing for rolling deploys: a client told to come back waits a second (`retry:`, Retry-After)
  const shutdown = new Shutdown(1000)
  // stdio connections (lib/stdio/): the same server to a local host that started the process
  const stdioOpen = new Set<StdioTransport>()
  const stdio = async (given?: StdioOptions): Promise<StdioHandle> => {
    const { input, output, caller, closeOnEnd } = resolveStdioOptions(given)
    // loaded with the first stdio connection (a server over HTTP alone never loads lib/stdio/), before
    // ready: from ready on, stdout is held in the same turn, so nothing else writes to it in between
    const { StdioTransport } = await import('./stdio/transport.js')
    await app.ready()
    const transport = new StdioTransport({
      server, sessions: legacy, bus, log: app.log, logRequests: app.initialConfig.disableRequestLogging !== true, auth: caller, lineLimit: options.bodyLimit, closeTimeout: options.closeTimeout, streams: streamQuota, maxBatchItems: options.maxBatchItems, maxBuffered: options.streams.maxBuffered
    }, { input, output, logger: app.log })
    stdioOpen.add(transport)
    // the client closed stdin: it is done with this process, which may now exit
    if (closeOnEnd) void transport.inputEnded.then(async () => { if (!shutdown.closing) await app.close() })
    return transport
  }
  decorate(app, registry, options, mcpView({ info: options.info, path, registry, bus, scopes: options.scopes, shutdown, lists: server.lists, stdio }))
  // routes declared from here on, in this context and the ones made after it, with config.mcp (http/route-tools/)
  collectRouteTools(app, { registry, ownRoutes: kMcpRoute })

  app.addHook('onReady', async () => {
    registry.seal()
    server.lists.build()
  })
  // Fastify's requestTimeout 0 (its default) on an address other machines reach: one warn line (docs/production.md)
  warnOnRequestTimeout(app)
  // a rolling deploy: no new requests, calls in flight finish within closeTimeout, open streams are
  // handed over or ended (they would hold server.close() forever), tasks finish or fail. Nothing
  // here waits: the host's own preClose hooks run next, then Fastify's server.close() waits for the
  // requests in flight, which the bound started here ends
  let tasksClosed: Promise<void> = Promise.resolve()
  let stdioClosed: Promise<unknown> = Promise.resolve()
  app.addHook('preClose', async () => {
    shutdown.draining = true
    shutdown.closing = true
    // in a fleet a resumable stream's events are in the shared store: its client resumes on another
    // instance (retry:, then the connection closes) while the call finishes here
    if (options.redis !== undefined) streams.handOver(shutdown.retryMs)
    // alone, an answer to a question could only come here, which now refuses it: they end at once;
    // in a fleet the answer reaches another instance, which leaves it in this one's inbox
    else legacy.close()
    streams.close(shutdown.retryMs)
    shutdown.begin(options.closeTimeout, app.log)
    // stdio connections: no new messages, listens end, calls in flight within closeTimeout (not awaited here either)
    stdioClosed = Promise.all([...stdioOpen].map(async (transport) => { await transport.close() }))
    // tasks in a store that outlives this process may finish within tasks.closeTimeout
    tasksClosed = server.tasks.close(options.redis !== undefined || options.tasks.store !== undefined)
  })
  app.addHook('onClose', async () => {
    // calls whose connection is gone (a resumable 2025 call) and tasks: within their bounds
    await Promise.all([shutdown.settled, tasksClosed, stdioClosed])
    // and the answers those calls pushed to their resumable streams, written to the store before it
    // closes (a call bound by closeTimeout has answered by now: this is the write, bounded the same)
    await written(streams.calls.written(), options.closeTimeout)
    // questions still waiting for a 2025 client's answer end now (their calls were told to stop)
    legacy.close()
    legacy.cancellations.close()
    await fleet.stop()
    await close()
    // stdout is the process's again
    for (const transport of stdioOpen) transport.release()
  })

  // @opentelemetry/api is an optional peer, imported once something is registered with it (an SDK set
  // up): here when it already is, else at the first message after; absent, there are no spans and no metrics
  const tracing = new Tracing(options.tracing, undefined, undefined, options.tracing ? OTEL : undefined)
  await tracing.attach()
  const requestIdHeader = app.initialConfig.requestIdHeader
  const batch = { maxItems: options.maxBatchItems, inject: async (opts: InjectOptions) => await app.inject(opts), requestIdHeader: typeof requestIdHeader === 'string' ? requestIdHeader : undefined }
  const endpoint = { server, sessions: legacy, streams, auth, tracing, shutdown, batch }
  // the routes in a context of their own, below the register option's prefix when there is one
  await app.register(routes, { prefix: options.prefix, endpoint, path: options.path, bodyLimit: options.bodyLimit, origin: options, routeOptions: options.routeOptions, openapi: options.openapi, scopes: options.scopes })
}

/** The api, and http/metrics.ts with it: a server whose process has no OpenTelemetry SDK loads neither. */
const OTEL: OtelLoader = {
  api: async () => await openTelemetry(),
  metrics: async (api) => new (await import('./http/metrics.js')).Metrics(api)
}

/** `writes`, or `timeout` ms, whichever comes first: a store that hangs does not hold the close. */
async function written (writes: Promise<void>, timeout: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([writes, new Promise<void>((resolve) => { timer = setTimeout(resolve, timeout) })])
  clearTimeout(timer)
}

/** The stores a server keeps its shared state in, and how to close the ones the plugin made. */
interface Stores {
  readonly sessions: SessionStore
  readonly bus: Bus
  readonly events: EventStore
  readonly taskStore: TaskStore
  /** Which instances of the fleet are alive: Redis's heartbeats with the `redis` option, else this instance alone. */
  readonly liveness: Liveness
  /** Where answers to this instance's questions are left for it: Redis's with the `redis` option, else none (one instance). */
  readonly inbox: Inbox | undefined
  /** Closes what the plugin made: a store the user passed in is theirs to close. */
  close (): Promise<void>
}

/**
 * Each store: the user's own (its option), else the `redis` option's (every store shared through
 * one connection), else the in-memory default, bounded by its options.
 */
async function openStores (options: ResolvedOptions, log: FastifyBaseLogger): Promise<Stores> {
  const instance = randomBytes(9).toString('base64url')
  const fleet = options.redis === undefined ? undefined : await openFleet(options, instance, log)
  const shared = fleet?.stores
  const bus = options.bus ?? shared?.bus ?? new MemoryBus()
  // Redis's sessions are read once a second per instance, not once a call (state/session-cache.ts)
  const sessions = options.sessions.store ??
    (shared === undefined ? new MemorySessionStore(options.sessions) : cached(shared.sessions, bus, options.redis!.sessionCache, log))
  const events = options.events.store ?? shared?.events ?? new MemoryEventStore(options.events)
  const taskStore = options.tasks.store ?? shared?.tasks ?? new MemoryTaskStore(options.tasks)
  const liveness: Liveness = fleet?.liveness ?? new MemoryLiveness(instance)
  return {
    sessions,
    bus,
    events,
    taskStore,
    liveness,
    inbox: shared?.inbox,
    close: async () => {
      // this instance leaves the fleet first: a survivor takes over at once whatever it still owns
      await liveness.close?.()
      if (options.sessions.store === undefined) await sessions.close?.()
      if (options.bus === undefined) await bus.close?.()
      if (options.events.store === undefined) await events.close?.()
      if (options.tasks.store === undefined) await taskStore.close?.()
      await fleet?.redis.close()
    }
  }
}

/**
 * The `redis` option's connection, its stores and this instance's heartbeats. lib/state/redis/ (and
 * ioredis, which its connection imports) load here, with the option: a server without it never loads them.
 */
async function openFleet (options: ResolvedOptions, instance: string, log: FastifyBaseLogger): Promise<{ redis: RedisConnection, stores: RedisStores, liveness: Liveness }> {
  const redisOptions = options.redis!
  const [{ connect }, { redisStores }, { RedisLiveness, workerConnection }] = await Promise.all([
    import('./state/redis/connection.js'), import('./state/redis/stores.js'), import('./state/redis/liveness.js')
  ])
  const redis = await connect(redisOptions, log)
  const stores = redisStores(redis, options, log)
  return { redis, stores, liveness: new RedisLiveness(redis, instance, { interval: redisOptions.heartbeat, deadAfter: redisOptions.deadAfter }, workerConnection(redisOptions.url, redis.client)) }
}

function cached (store: RedisSessionStore, bus: Bus, maxAge: number, log: FastifyBaseLogger): SessionStore {
  return maxAge === 0 ? store : new SessionCache(store, bus, maxAge, log)
}

/**
 * What the plugin adds to the user's instance: the `register*` decorators (fed the plugin's own
 * `tools`, `resources` and `prompts` options first), `app.mcp`, and the request's `mcpAuth` and
 * `mcp` (a getter, computed when read on our routes only: the host's other routes pay nothing).
 */
function decorate (app: FastifyInstance, registry: Registry, options: ResolvedOptions, view: McpView): void {
  // an array registers all or none: a mistake in one definition leaves the server as it was
  const registerTool = (definition: ToolDefinition | readonly ToolDefinition[]): void => {
    registry.all(Array.isArray(definition) ? definition : [definition], (one) => registry.addTool(one))
  }
  const registerResource = (definition: ResourceDefinition | readonly ResourceDefinition[]): void => {
    registry.all(Array.isArray(definition) ? definition : [definition], (one) => registry.addResource(one))
  }
  const registerPrompt = (definition: PromptDefinition | readonly PromptDefinition[]): void => {
    registry.all(Array.isArray(definition) ? definition : [definition], (one) => registry.addPrompt(one))
  }
  const registerSkill = (definition: SkillDefinition | readonly SkillDefinition[]): void => {
    const skipped: string[] = []
    registry.all(Array.isArray(definition) ? definition : [definition], (one) => skipped.push(...registry.addSkill(one).skipped))
    for (const file of skipped) app.log.warn({ file }, 'fastify-sake: a symbolic link, a hard link (a file with more than one name) or another special file in a skills folder is not read, and not served; copy the file into the skill instead (a copy, not a link)')
  }
  registerTool(options.tools)
  registerResource(options.resources)
  registerPrompt(options.prompts)
  registerSkill(options.skills.definitions)

  app.decorate('registerTool', registerTool as RegisterTool)
  app.decorate('registerResource', registerResource as RegisterResource)
  app.decorate('registerPrompt', registerPrompt as RegisterPrompt)
  app.decorate('registerSkill', registerSkill as RegisterSkill)
  app.decorate('mcp', view)
  // null until the auth hook of our routes sets it (and always with auth off)
  app.decorateRequest('mcpAuth', null)
  requestMcp(app)
}

/**
 * `request.mcp`, once per app, on the root context's requests, so that it is null on every route
 * of the app (as its type says), also outside the context the plugin was registered in (a child
 * context's decorators never reach its parent): a getter, computed when read on our routes only,
 * for the registry the route carries, so one getter serves every server of the app. Fastify has
 * no public handle on the root context; a context is made from its parent with `Object.create`, so
 * the root is the last of the prototypes with `decorateRequest`. `test/index.test.ts` checks it,
 * so that a Fastify that made contexts otherwise fails there.
 */
function requestMcp (app: FastifyInstance): void {
  let root = app
  for (let parent = Object.getPrototypeOf(root); typeof parent?.decorateRequest === 'function'; parent = Object.getPrototypeOf(parent)) root = parent
  if (root.hasRequestDecorator('mcp')) return
  root.decorateRequest('mcp', {
    getter (this: FastifyRequest) {
      const served = (this.routeOptions.config as unknown as Record<symbol, Registry | undefined> | undefined)?.[kMcpRoute]
      // elsewhere: a host route exposed as a tool gets the tools/call that runs it, any other null
      return served === undefined ? routeToolInfo(this) : requestInfo(this, served)
    }
  })
}

/** The plugin. `await app.register(sake, { name, version })` */
const plugin = fp(sake, { name: 'fastify-sake', fastify: '5.x' })
export default plugin
export { plugin as sake }

export { Type, type Static, type TSchema } from '@sinclair/typebox'
export { defineTool, StringEnum } from './define/tool-definition.js'
export type {
  ToolDefinition, DefinedTool, ToolAnnotations, OutputSpec, OutputOf, ToolReturn,
  ArgsToolDefinition, SchemaToolDefinition, JsonSchemaToolDefinition, Prepared, ArgumentName, ArgsOf
} from './define/tool-definition.js'
export type {
  AnySchema, SchemaMap, SchemaInput, SchemaOutput, StandardSchemaV1, StandardJsonSchemaV1, TypeBox1Schema
} from './define/schemas.js'
export type { RequestContext, ToolContext, CompletionContext } from './define/handler-context.js'
export type { AuthInfo, ClientInfo, ServerInfo } from './spec/types.js'
export type { LogLevel } from './spec/log-levels.js'
export type { RegisterTool, RegisterResource, RegisterPrompt, RegisterSkill, McpView, ToolInfo, ListedInfo } from './api.js'
export type { SkillChanges } from './define/registry.js'
export type { McpRequestInfo } from './http/request-info.js'
export type { McpConfig } from './define/config.js'
export type { McpRouteOptions } from './http/route-options.js'
export type { McpRouteConfig } from './http/route-tools/schema.js'
export { REQUEST_CHANNEL, type McpRequestTrace } from './http/tracing.js'
export type {
  InputContext, Elicit, FormOptions, FormOutcome, FormContent, UrlOutcome, SampleOutcome, RootsOutcome, SamplingParams, SamplingMessage,
  SampledMessage, Root, Unsupported, Declined, Cancelled
} from './define/input.js'
export { text, image, audio, resource, resourceLink } from './define/content.js'
export type { ContentBlock, TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink, ContentAnnotations, Icon } from './define/content.js'
export { withMeta, withText, toolError } from './define/result.js'
export { defineResource } from './define/resource.js'
export type {
  ResourceDefinition, FixedResourceDefinition, TemplateResourceDefinition, TemplateVariables, ResourceContents, ResourceReturn,
  ResourceAnnotations, CompletionReturn
} from './define/resource.js'
export { definePrompt, userMessage, assistantMessage } from './define/prompt.js'
export type { PromptDefinition, TypedPromptDefinition, DefinedPrompt, PromptArgument, PromptArguments, PromptMessage, PromptReturn } from './define/prompt.js'
export type { WithMeta, WithText, ToolErrorResult, CallToolResult } from './define/result.js'
export type { InlineUi, UiResourceMeta, UiCsp, UiPermissions, Visibility } from './define/apps.js'
export { APPS_EXTENSION, APP_MIME_TYPE } from './spec/apps.js'
export { TOOL_COMPLETION_EXTENSION } from './spec/completion.js'
export { mcpCors, type McpCorsOptions, type McpCorsRegistration } from './http/cors.js'
export { SKILLS_EXTENSION } from './spec/skills.js'
export type {
  SkillDefinition, SkillFilesDefinition, DynamicSkillDefinition, SkillDirectoryDefinition, SkillFrontmatter, SkillFileReturn, SkillFileEntry
} from './define/skill.js'
export {
  SakeError, SakeOptionError, SakeToolDefinitionError, SakeHeaderDefinitionError, SakeDuplicateToolError,
  SakeRegisterAfterReadyError, ProtocolError, ToolError, MissingCapabilityError, ClientInputError, errorCodes,
  SakeResourceDefinitionError, SakePromptDefinitionError, SakeDuplicateResourceError, SakeDuplicatePromptError,
  AuthorizationError, InsufficientScopeError, RequestStateError, SakeRouteToolError, StoreUnavailableError, ShuttingDownError, QuotaExceededError,
  SakeClientOptionError, SakeSkillDefinitionError
} from './errors.js'
export type { RequestStateRejection, RequestStateBindingPart, SakeErrorCode, QuotaLimit } from './errors.js'
// the client's errors, from the client's own file (the one import of lib/client/ the server side makes,
// .dependency-cruiser.mjs): the same classes as fastify-sake/client's, so instanceof works with either import
export {
  RpcError, AuthChallengeError, HttpError, UnansweredInputError, SkillVerificationError, ServerCapabilityError, ServerProcessError,
  type AuthChallenge, type SkillVerificationReason, type ServerProcessReason
} from './client/errors.js'
export type { SakeOptions } from './options/server.js'
export type { SessionOptions, EventOptions, TaskOptions, RequestStateOptions, StreamOptions, QuestionOptions } from './options/state.js'
export type { RedisOptions } from './options/redis.js'
export type { SkillsOptions } from './options/catalog.js'
export type { StdioOptions } from './options/stdio.js'
export type { StdioHandle } from './stdio/transport.js'
export type { AuthOptions, Caller, VerifyToken, AuthenticateHook, ScopesOption } from './auth/auth-options.js'
export type { Authentication, ScopeRequirement } from './define/requirement.js'
export type { ScopeInfo } from './auth/scopes.js'
export { mcpScopes, type AppScopeInfo, type ServerScopeInfo } from './auth/catalogue.js'
export type { Session, SessionStore } from './state/session-store.js'
export type { Bus, BusEvent, BusListener, ListName } from './state/bus.js'
export type { EventStore, StoredEvent, Replay } from './state/event-store.js'
export { MemoryBus } from './state/memory-bus.js'
export { MemoryEventStore } from './state/memory-event-store.js'
export { MemorySessionStore } from './state/memory-session-store.js'
export type { TaskStore, TaskRecord, TaskPatch, TaskPage, TaskStatus, TaskAnswer, TaskQuestion, TaskError } from './state/task-store.js'
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './state/memory-task-store.js'
export { SUPPORTED_VERSIONS, MODERN_VERSIONS, LEGACY_VERSIONS, type Era } from './spec/eras.js'
