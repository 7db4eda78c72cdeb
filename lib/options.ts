/**
 * Plugin options: checked once at registration, with defaults filled in and the result frozen. A
 * wrong value fails `register` with a message naming the option, what it accepts and what it got:
 * several options are security switches, so a typo must never quietly become a default.
 */
import type { Readable, Writable } from 'node:stream'
import { BadCaller, SakeOptionError } from './errors.js'
import { fail, got, unknownKeys } from './checks.js'
import { isObject } from './values.js'
import { SESSION_STORE_METHODS, type SessionStore } from './state/session-store.js'
import { BUS_METHODS, type Bus } from './state/bus.js'
import { EVENT_STORE_METHODS, type EventStore } from './state/event-store.js'
import { TASK_STORE_METHODS, type TaskStore } from './state/task-store.js'
import type { RedisClient, RedisOption } from './state/redis/connection.js'
import type { DefinedTool, ToolDefinition } from './define/tool.js'
import type { ResourceDefinition } from './define/resource.js'
import type { DefinedPrompt, PromptDefinition } from './define/prompt.js'
import type { SkillDefinition } from './define/skill.js'
import { SKILL_LIMITS } from './spec/skills.js'
import { iconsProblem } from './define/content.js'
import type { AuthInfo, ServerInfo } from './spec/types.js'
import { hostEntry, originEntry, type OriginCheck } from './http/origin.js'
import { resolveRouteOptions, type McpRouteOptions, type ResolvedRouteOptions } from './http/route-options.js'
import type { OpenApiDocs } from './http/openapi.js'
import { decodeKeys } from './state/request-state.js'
import { resolveAuth, resolveScopes, type AuthOptions, type Caller, type ResolvedAuth, type ScopesOption } from './auth/options.js'
import { toAuthInfo } from './auth/verify.js'

export interface RequestStateOptions {
  /**
   * The key ring sealing 2026-07-28 `requestState` (AES-256-GCM): 32-byte keys, base64 text or
   * bytes. The first seals, all open: rotate by putting a new key first and keeping the old one for
   * one `ttl`. Default: one random key per process, which only works while every round of a call
   * reaches the same process; a fleet (or a restart mid-call) needs shared keys.
   */
  keys?: Array<string | Uint8Array>
  /** Milliseconds a `requestState` stays valid. Default 10 minutes. */
  ttl?: number
}

export interface SessionOptions {
  /** Where 2025 sessions live; default: in memory, bounded by the two options below. */
  store?: SessionStore
  /** Milliseconds without a request after which a session ends. Default 30 minutes. */
  idleTimeout?: number
  /**
   * Most sessions held at once (in Redis: across the fleet). At the bound a new `initialize` is
   * refused (503, `Retry-After`); no live session is ever dropped to make room. Default 10,000.
   */
  maxSessions?: number
  /**
   * Most sessions one caller (a token's subject, else the client's address) holds at once; its next
   * `initialize` is refused (429, `Retry-After`). Default 100 (or `maxSessions`, when lower).
   */
  maxPerCaller?: number
  /**
   * Bytes one session may take as stored (its client's `initialize` capabilities and clientInfo,
   * its subscriptions): an `initialize` or a `resources/subscribe` beyond it is refused (-32602).
   * Default 16,384.
   */
  maxSize?: number
}

export interface StreamOptions {
  /**
   * Most event streams this instance holds open at once: 2025 GET streams, calls answered as
   * streams (counted from the call's start), 2026-07-28 `subscriptions/listen`. A new one is
   * refused (503). Default 10,000 (mind the process's file descriptor limit).
   */
  maxStreams?: number
  /** Most event streams one caller holds open on this instance; a new one is refused (429). Default 100. */
  maxPerCaller?: number
  /**
   * Bytes an event stream may hold unsent for a client that reads slower than the server writes;
   * beyond it the connection is closed (a resumable stream's events stay in the event store for
   * `Last-Event-ID`). Default 262,144 (256 KiB).
   */
  maxBuffered?: number
}

export interface QuestionOptions {
  /** Most questions (`ctx.elicit`, `ctx.sample`, `ctx.roots` in 2025 sessions) waiting for answers on this instance. Default 1,000. */
  maxQuestions?: number
  /** Most such questions waiting for one caller's answers; a new one is refused. Default 20. */
  maxPerCaller?: number
}

export interface EventOptions {
  /** Where events of resumable (2025-11-25) SSE streams are kept; default: in memory, bounded below. */
  store?: EventStore
  /** Most events the in-memory store keeps per stream. Default 1,000. */
  maxPerStream?: number
  /** Most events the in-memory store keeps in all. Default 100,000. */
  maxEvents?: number
  /** Milliseconds after which an untouched stream's events are dropped. Default 5 minutes. */
  idleTimeout?: number
}

export interface TaskOptions {
  /** Where tasks live; default: in memory, bounded by `maxTasks`. */
  store?: TaskStore
  /**
   * Most tasks held at once, running or finished and kept until their ttl (in Redis: across the
   * fleet). At the bound a new task is refused (503); no task is dropped to make room. Default 10,000.
   */
  maxTasks?: number
  /** Most tasks one caller holds at once, running or kept; its next one is refused (429). Default 100 (or `maxTasks`, when lower). */
  maxPerCaller?: number
  /** Milliseconds a task is kept when its creator asks no ttl. Default 10 minutes. */
  ttl?: number
  /** The longest ttl granted, in milliseconds. Default one hour. */
  maxTtl?: number
  /** Suggested polling interval (`pollInterval`), in milliseconds. Default 1 second. */
  pollInterval?: number
  /**
   * How long `app.close()` gives running tasks, in milliseconds: with a store that outlives the
   * process (Redis, or your own), they may finish within it, and whatever still runs then fails;
   * in memory they fail at once and their handlers get this long to stop. Default 5 seconds.
   */
  closeTimeout?: number
}

export interface SakeOptions {
  /** The server's name, sent as `serverInfo.name`. Required. */
  name: string
  /** The server's version, sent as `serverInfo.version`. Required. */
  version: string
  /** A display name for `serverInfo.title`. */
  title?: string
  description?: string
  websiteUrl?: string
  icons?: ServerInfo['icons']
  /** Guidance for the model on how to use this server. */
  instructions?: string
  /** The endpoint path. Default `/mcp`. */
  path?: string
  /** Ceiling of every cacheable result's `ttlMs`, in milliseconds. Default 300,000 (five minutes). */
  ttl?: number
  /** Tools per `tools/list` page. Default 100. */
  pageSize?: number
  /** Largest accepted POST body, in bytes. Default 1 MiB. */
  bodyLimit?: number
  /** Most messages in one JSON-RPC batch (2025-03-26 sessions); a larger batch is refused with -32600. Default 32. */
  maxBatchItems?: number
  /**
   * Milliseconds between keep-alive comments on an open event stream, and how long a streaming call
   * may stay silent before its stream opens (a proxy waits for headers); 0: neither. Default 15,000.
   */
  keepAlive?: number
  /**
   * How long `app.close()` lets MCP calls in flight finish, in milliseconds, before their
   * `ctx.signal` aborts (a rolling deploy: docs/fleet.md, "Draining and rolling deploys"). Default
   * 10 seconds.
   */
  closeTimeout?: number
  /** Legacy session settings. */
  sessions?: SessionOptions
  /** Where list-changed and resource-updated notifications travel to open streams. Default: in memory. */
  bus?: Bus
  /** Resumable SSE streams (2025-11-25 sessions): the event store and its bounds. */
  events?: EventOptions
  /** Tasks (long-running tools): the task store, its bounds and ttls. */
  tasks?: TaskOptions
  /** Open event streams: how many, in all and per caller, and how much each may hold unsent. */
  streams?: StreamOptions
  /** Questions to 2025 clients waiting for their answers: how many, in all and per caller. */
  questions?: QuestionOptions
  /**
   * Share 2025 sessions, resumable streams, the bus and tasks across instances through Redis: a
   * `redis://` URL (needs the `ioredis` package), an ioredis client (`app.redis` of
   * `@fastify/redis`: one pool for the service; the plugin never closes a client it did not
   * make), or `{ url | client, prefix, timeout }`. A store given in its own option wins.
   */
  redis?: string | RedisClient | RedisOptions
  /** How a question's answers travel between rounds of a 2026-07-28 call (multi round-trip requests). */
  requestState?: RequestStateOptions
  /**
   * Milliseconds a question asked on a 2025 session's stream (`ctx.elicit`, `ctx.sample`,
   * `ctx.roots`) waits for the client's answer. Default 10 minutes: a person is filling a form.
   */
  inputTimeout?: number
  /** Tools to register with the plugin. */
  tools?: DefinedTool[]
  /** Resources and resource templates to register with the plugin. */
  resources?: ResourceDefinition[]
  /** Prompts to register with the plugin (made with `definePrompt`). */
  prompts?: DefinedPrompt[]
  /** Skills (the Skills extension, SEP-2640): a folder of them, skills in code, and their limits. */
  skills?: SkillsOptions
  /**
   * DNS-rebinding protection: the `Host` values accepted, `host` (any port) or `host:port`. Default:
   * on loopback connections, localhost, 127.0.0.1 and [::1] on any port. `false`: no Host check.
   */
  allowedHosts?: string[] | false
  /**
   * DNS-rebinding protection: the `Origin` values accepted when one is sent, as full origins
   * (`https://app.example.com`). Default: on loopback connections, http(s) origins of localhost,
   * 127.0.0.1 and [::1] on any port. `'cors'`: what the host's `@fastify/cors` allows (the reply
   * carries `Access-Control-Allow-Origin: *` or the origin itself). A function `(origin, request) =>
   * boolean`: the host's own synchronous check. `false`: no Origin check.
   */
  allowedOrigins?: string[] | 'cors' | OriginCheck | false
  /**
   * Authorization as an OAuth 2.1 resource server: bearer tokens on every request, scopes per
   * tool, step-up, Protected Resource Metadata. Default false: no token, every tool allowed.
   */
  auth?: AuthOptions | false
  /** The scopes tools, resources and prompts may require (`scope`), each with its description. */
  scopes?: ScopesOption
  /**
   * Fastify route options for the MCP routes: `config` (e.g. `config.rateLimit`), route hooks
   * (after the plugin's own), `logLevel`, `logSerializers`, `constraints`.
   */
  routeOptions?: McpRouteOptions
  /**
   * The MCP endpoint in the service's OpenAPI document (@fastify/swagger): by default none of the
   * plugin's routes is shown. `true`, or `{ summary?, description?, tags? }`: the POST route is, with
   * its request body; GET, DELETE and the metadata routes stay hidden.
   */
  openapi?: boolean | { summary?: string, description?: string, tags?: string[] }
  /**
   * Fastify's own register option: the plugin's routes (the endpoint and the metadata) answer
   * below it, as a plugin's routes do: `app.register(sake, { prefix: '/ai' })` serves `/ai/mcp`.
   * The decorators (`registerTool`, `app.mcp`) stay on the context you registered the plugin in.
   */
  prefix?: string
  // Fastify's register options `logLevel` and `logSerializers` (typed by Fastify's RegisterOptions)
  // apply to the plugin's routes too, `routeOptions.logLevel` and `.logSerializers` winning
  /**
   * Traces of MCP requests: the `fastify-sake:request` diagnostics channel, and, when
   * `@opentelemetry/api` is installed, an OpenTelemetry span per request and the MCP metrics. Default
   * true; false: none of them.
   */
  tracing?: boolean
}

export interface SkillsOptions {
  /** A folder of skills, read at registration: the same as `app.registerSkill({ directory })`. */
  directory?: string | URL
  /** Skills in code, dynamic skills, more folders: the same as `app.registerSkill` for each. */
  definitions?: SkillDefinition[]
  /** Bytes of one skill file at most; a larger file is a registration error. Default 1 MiB. */
  maxFileSize?: number
  /** Serve `resources/directory/read` on the skills' folders (declared as `directoryRead`). Default true. */
  directoryRead?: boolean
}

export interface RedisOptions {
  url?: string
  client?: RedisClient
  /** Prepended to every key and channel, so that several servers share one Redis. Default `'sake:'`. */
  prefix?: string
  /** Milliseconds a Redis command may take before the request fails with 503. Default 2000. */
  timeout?: number
  /**
   * Milliseconds between two heartbeats of this instance (issue 29: a fleet's survivors end what a
   * dead instance was running). Default 2000.
   */
  heartbeat?: number
  /**
   * Milliseconds without a heartbeat after which an instance is taken for dead: its tasks fail and
   * its resumable streams end with an error. At least twice `heartbeat`. Default 8000 (with the
   * default heartbeat, a dead instance is found within about 10 s).
   */
  deadAfter?: number
  /**
   * Milliseconds this instance reuses a 2025 session it read from Redis, instead of reading it
   * again for every call. What another instance changes or ends reaches it through the bus at
   * once; if the bus missed it, at the latest after this long. At most half of
   * `sessions.idleTimeout`. Default 1000; 0 reads every time.
   */
  sessionCache?: number
}

export interface ResolvedOptions {
  readonly info: ServerInfo
  readonly instructions: string | undefined
  readonly path: string
  readonly ttl: number
  readonly pageSize: number
  readonly bodyLimit: number
  readonly maxBatchItems: number
  readonly keepAlive: number
  readonly closeTimeout: number
  readonly sessions: { readonly store: SessionStore | undefined, readonly idleTimeout: number, readonly maxSessions: number, readonly maxPerCaller: number, readonly maxSize: number }
  readonly bus: Bus | undefined
  readonly events: { readonly store: EventStore | undefined, readonly maxPerStream: number, readonly maxEvents: number, readonly idleTimeout: number }
  readonly tasks: { readonly store: TaskStore | undefined, readonly maxTasks: number, readonly maxPerCaller: number, readonly ttl: number, readonly maxTtl: number, readonly pollInterval: number, readonly closeTimeout: number }
  readonly streams: { readonly maxStreams: number, readonly maxPerCaller: number, readonly maxBuffered: number }
  readonly questions: { readonly maxQuestions: number, readonly maxPerCaller: number }
  readonly redis: ResolvedRedis | undefined
  /** `keys` decoded and checked (undefined: a random key per process); index.ts builds the sealer from these. */
  readonly requestState: { readonly keys: readonly Buffer[] | undefined, readonly ttl: number }
  readonly inputTimeout: number
  readonly tools: readonly ToolDefinition[]
  readonly resources: readonly ResourceDefinition[]
  readonly prompts: readonly PromptDefinition[]
  readonly openapi: OpenApiDocs
  /** Fastify's register options the plugin honours: the routes' prefix ('' for none). */
  readonly prefix: string
  readonly skills: { readonly definitions: readonly SkillDefinition[], readonly maxFileSize: number, readonly directoryRead: boolean }
  /** undefined: the loopback default; false: no check. */
  readonly allowedHosts: readonly string[] | false | undefined
  /** Also 'cors' (the host's @fastify/cors decides) or the host's function. */
  readonly allowedOrigins: readonly string[] | 'cors' | OriginCheck | false | undefined
  /** undefined: authorization is off. */
  readonly auth: ResolvedAuth | undefined
  readonly scopes: ReadonlyMap<string, string>
  readonly routeOptions: ResolvedRouteOptions
  readonly tracing: boolean
}

export const defaults = Object.freeze({
  path: '/mcp',
  ttl: 300_000, // 5 minutes, in ms (Sake's default)
  pageSize: 100,
  bodyLimit: 1024 * 1024, // 1 MiB, Fastify's own default
  keepAlive: 15_000, // 15 s, in ms: under the idle timeouts of common proxies (60 s)
  closeTimeout: 10_000, // 10 s, in ms: inside the 30 s a process manager usually grants after SIGTERM
  idleTimeout: 30 * 60_000, // 30 minutes, in ms
  maxSessions: 10_000,
  maxSessionsPerCaller: 100,
  maxSessionSize: 16 * 1024, // bytes a session takes as stored: real clients' capabilities are a few hundred
  maxBatchItems: 32,
  maxStreams: 10_000,
  maxStreamsPerCaller: 100,
  maxBuffered: 256 * 1024, // bytes unsent on one stream before its connection is closed
  maxQuestions: 1000,
  maxQuestionsPerCaller: 20,
  maxEventsPerStream: 1000,
  maxEvents: 100_000,
  eventIdleTimeout: 5 * 60_000, // 5 minutes, in ms: long enough for a client to reconnect
  inputTimeout: 10 * 60_000, // 10 minutes, in ms: a person reads the question and answers it
  maxTasks: 10_000,
  maxTasksPerCaller: 100,
  taskTtl: 10 * 60_000, // 10 minutes, in ms
  maxTaskTtl: 60 * 60_000, // one hour, in ms
  taskPollInterval: 1000,
  taskCloseTimeout: 5000,
  redisPrefix: 'sake:',
  redisTimeout: 2000,
  heartbeat: 2000, // ms: a dead instance is found within deadAfter + heartbeat, about 10 s
  deadAfter: 8000,
  sessionCache: 1000, // ms: a 2025 session read from Redis serves the calls of the next second
  skillFileSize: 1024 * 1024,
  requestStateTtl: 10 * 60_000 // 10 minutes, in ms: a person answers the question between rounds
})

const KNOWN = ['name', 'version', 'title', 'description', 'websiteUrl', 'icons', 'instructions', 'path', 'ttl', 'pageSize', 'bodyLimit', 'maxBatchItems', 'keepAlive', 'closeTimeout', 'sessions', 'bus', 'events', 'tasks', 'streams', 'questions', 'redis', 'requestState', 'inputTimeout', 'tools', 'resources', 'prompts', 'skills', 'allowedHosts', 'allowedOrigins', 'auth', 'scopes', 'routeOptions', 'openapi', 'tracing', 'prefix', 'logLevel', 'logSerializers']
const SESSION_KEYS = ['store', 'idleTimeout', 'maxSessions', 'maxPerCaller', 'maxSize']
const STREAM_KEYS = ['maxStreams', 'maxPerCaller', 'maxBuffered']
const QUESTION_KEYS = ['maxQuestions', 'maxPerCaller']
const EVENT_KEYS = ['store', 'maxPerStream', 'maxEvents', 'idleTimeout']
const TASK_KEYS = ['store', 'maxTasks', 'maxPerCaller', 'ttl', 'maxTtl', 'pollInterval', 'closeTimeout']
const REQUEST_STATE_KEYS = ['keys', 'ttl']

function string (options: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const value = options[key]
  if (value === undefined && !required) return undefined
  if (typeof value !== 'string' || value.length === 0) fail(key, 'a non-empty string', value)
  return value
}

/** The longest delay a Node timer takes; beyond it, `setTimeout` fires after 1 ms instead. */
const MAX_TIMER = 2_147_483_647

function integer (options: Record<string, unknown>, key: string, min: number, fallback: number, unit: string, display = key, max = Number.MAX_SAFE_INTEGER): number {
  const value = options[key]
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(display, max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min} (${unit})` : `an integer from ${min} to ${max} (${unit}; a Node timer goes no further)`, value)
  }
  return value
}

/**
 * A per-caller bound (`<group>.maxPerCaller`) under its group's total (`<group>.<total>`): by default
 * the smaller of `fallback` and the total; given above the total, refused (it could never be reached).
 */
function perCaller (group: Record<string, unknown>, name: string, total: number, totalKey: string, fallback: number, unit: string): number {
  const value = integer(group, 'maxPerCaller', 1, Math.min(fallback, total), unit, `${name}.maxPerCaller`)
  if (value > total) fail(`${name}.maxPerCaller`, `at most ${name}.${totalKey} (${total}): one caller cannot hold more than the server holds in all`, value)
  return value
}

/** `streams`: `{ maxStreams?, maxPerCaller?, maxBuffered? }`. */
function resolveStreams (value: unknown): ResolvedOptions['streams'] {
  const given = value === undefined ? {} : value
  if (!isObject(given)) fail('streams', 'an object { maxStreams?, maxPerCaller?, maxBuffered? }', value)
  unknownKeys(given, STREAM_KEYS, 'streams.')
  const maxStreams = integer(given, 'maxStreams', 1, defaults.maxStreams, 'streams', 'streams.maxStreams')
  return Object.freeze({
    maxStreams,
    maxPerCaller: perCaller(given, 'streams', maxStreams, 'maxStreams', defaults.maxStreamsPerCaller, 'streams'),
    maxBuffered: integer(given, 'maxBuffered', 1024, defaults.maxBuffered, 'bytes', 'streams.maxBuffered')
  })
}

/** `questions`: `{ maxQuestions?, maxPerCaller? }`. */
function resolveQuestions (value: unknown): ResolvedOptions['questions'] {
  const given = value === undefined ? {} : value
  if (!isObject(given)) fail('questions', 'an object { maxQuestions?, maxPerCaller? }', value)
  unknownKeys(given, QUESTION_KEYS, 'questions.')
  const maxQuestions = integer(given, 'maxQuestions', 1, defaults.maxQuestions, 'questions', 'questions.maxQuestions')
  return Object.freeze({ maxQuestions, maxPerCaller: perCaller(given, 'questions', maxQuestions, 'maxQuestions', defaults.maxQuestionsPerCaller, 'questions') })
}

const REDIS_KEYS = ['url', 'client', 'prefix', 'timeout', 'heartbeat', 'deadAfter', 'sessionCache']
const REDIS_CLIENT = ['call', 'duplicate', 'subscribe', 'on', 'quit', 'disconnect']

/**
 * The `redis` option once checked: the connection's settings, the heartbeat's
 * (`state/redis/liveness.ts`) and the session copies' (`state/session-cache.ts`).
 */
export interface ResolvedRedis extends RedisOption {
  readonly heartbeat: number
  readonly deadAfter: number
  readonly sessionCache: number
}

/** `redis`: a URL, an ioredis client, or `{ url | client, prefix, timeout, heartbeat, deadAfter, sessionCache }`. */
function resolveRedis (value: unknown, sessionIdle: number): ResolvedRedis | undefined {
  if (value === undefined) return undefined
  const accepts = 'a redis:// or rediss:// URL, an ioredis client (app.redis of @fastify/redis), or { url | client, prefix?, timeout?, heartbeat?, deadAfter?, sessionCache? }'
  const given: Record<string, unknown> = typeof value === 'string' || (isObject(value) && typeof value.call === 'function') ? { [typeof value === 'string' ? 'url' : 'client']: value } : (isObject(value) ? value : fail('redis', accepts, value))
  unknownKeys(given, REDIS_KEYS, 'redis.')
  const { url, client } = given
  if ((url === undefined) === (client === undefined)) fail('redis', `${accepts}: exactly one of url and client`, value)
  if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url) || !URL.canParse(url))) fail('redis.url', 'a redis:// or rediss:// URL, such as redis://127.0.0.1:6379', url)
  if (client !== undefined) {
    if (!isObject(client)) fail('redis.client', 'an ioredis client', client)
    const missing = REDIS_CLIENT.filter((method) => typeof client[method] !== 'function')
    if (missing.length > 0) fail('redis.client', `an ioredis client (5 or later); this one lacks ${missing.join(', ')}`, client)
  }
  const prefix = given.prefix ?? defaults.redisPrefix
  if (typeof prefix !== 'string') fail('redis.prefix', "a string put before every key, such as 'sake:'", prefix)
  const heartbeat = integer(given, 'heartbeat', 100, defaults.heartbeat, 'milliseconds', 'redis.heartbeat', MAX_TIMER)
  const deadAfter = integer(given, 'deadAfter', 1, Math.max(defaults.deadAfter, 2 * heartbeat), 'milliseconds', 'redis.deadAfter', MAX_TIMER)
  // one late heartbeat must not make a live instance dead
  if (deadAfter < 2 * heartbeat) fail('redis.deadAfter', `at least twice redis.heartbeat (${2 * heartbeat} ms), so that one late heartbeat does not make a live instance dead`, deadAfter)
  // a copy in use does not renew the session's expiry in Redis: the read that refills it does
  const longest = Math.floor(sessionIdle / 2)
  const sessionCache = integer(given, 'sessionCache', 0, Math.min(defaults.sessionCache, longest), 'milliseconds; 0 reads every time', 'redis.sessionCache', MAX_TIMER)
  if (sessionCache > longest) fail('redis.sessionCache', `at most half of sessions.idleTimeout (${longest} ms), so that a session in use never expires in Redis between two reads`, sessionCache)
  return Object.freeze({
    url: url as string | undefined,
    client: client as RedisClient | undefined,
    prefix,
    timeout: integer(given, 'timeout', 1, defaults.redisTimeout, 'milliseconds', 'redis.timeout', MAX_TIMER),
    heartbeat,
    deadAfter,
    sessionCache
  })
}

/**
 * `routeOptions`, with Fastify's `logLevel` and `logSerializers` register options under it: they
 * apply to the plugin's routes, as they would to a plugin's routes; `routeOptions`' own win.
 */
function withRegisterOptions (input: Record<string, unknown>): unknown {
  const { logLevel, logSerializers, routeOptions } = input
  if (logLevel === undefined && logSerializers === undefined) return routeOptions
  if (logLevel !== undefined && typeof logLevel !== 'string') fail('logLevel', "a log level, such as 'warn' (Fastify's register option: the plugin's routes log at it)", logLevel)
  if (logSerializers !== undefined && !isObject(logSerializers)) fail('logSerializers', "an object of serializers (Fastify's register option)", logSerializers)
  if (routeOptions !== undefined && !isObject(routeOptions)) return routeOptions // refused as it is
  return { ...(logLevel === undefined ? {} : { logLevel }), ...(logSerializers === undefined ? {} : { logSerializers }), ...routeOptions }
}

/** Fastify's `prefix` register option: '' or a path such as '/ai', as Fastify itself takes it. */
function resolvePrefix (value: unknown): string {
  if (value === undefined || value === '' || value === '/') return ''
  if (typeof value !== 'string' || !value.startsWith('/') || /\s|\?|#/.test(value)) fail('prefix', "a URL path starting with '/', such as '/ai' (Fastify's register option: the plugin's routes answer below it)", value)
  return value.endsWith('/') ? value.slice(0, -1) : value
}

const OPENAPI_KEYS = ['summary', 'description', 'tags']

/** `openapi`: false (default), true, or `{ summary?, description?, tags? }`. */
function resolveOpenApi (value: unknown): OpenApiDocs {
  if (value === undefined || value === false) return false
  const accepts = "true, false, or { summary?, description?, tags? }, such as { tags: ['mcp'] }"
  const given = value === true ? {} : isObject(value) ? value : fail('openapi', accepts, value)
  unknownKeys(given, OPENAPI_KEYS, 'openapi.')
  const { summary = 'MCP endpoint', description = 'Model Context Protocol over Streamable HTTP: one JSON-RPC message per POST, answered as JSON or as a server-sent event stream', tags } = given
  if (typeof summary !== 'string') fail('openapi.summary', 'a string', summary)
  if (typeof description !== 'string') fail('openapi.description', 'a string', description)
  if (tags !== undefined && (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string'))) fail('openapi.tags', "an array of tag names, such as ['mcp']", tags)
  return Object.freeze({ summary, description, tags: tags === undefined ? undefined : Object.freeze([...tags as string[]]) })
}

const SKILLS_KEYS = ['directory', 'definitions', 'maxFileSize', 'directoryRead']

/** `skills`: `{ directory?, definitions?, maxFileSize?, directoryRead? }`; the definitions are checked when registered. */
function resolveSkills (value: unknown): ResolvedOptions['skills'] {
  const given = value === undefined ? {} : value
  if (!isObject(given)) fail('skills', "an object { directory?, definitions?, maxFileSize?, directoryRead? }, such as { directory: './skills' }", value)
  unknownKeys(given, SKILLS_KEYS, 'skills.')
  const { directory, definitions = [], directoryRead = true } = given
  if (directory !== undefined && typeof directory !== 'string' && !(directory instanceof URL)) fail('skills.directory', "a folder's path or file: URL, such as './skills' or new URL('./skills', import.meta.url)", directory)
  if (!Array.isArray(definitions)) fail('skills.definitions', 'an array of skill definitions ({ directory }, { path, files } or { path, resources: \'dynamic\', frontmatter, read })', definitions)
  if (typeof directoryRead !== 'boolean') fail('skills.directoryRead', 'true or false', directoryRead)
  return Object.freeze({
    definitions: Object.freeze(directory === undefined ? [...definitions] : [{ directory } as SkillDefinition, ...definitions]),
    maxFileSize: integer(given, 'maxFileSize', 1, defaults.skillFileSize, 'bytes', 'skills.maxFileSize', SKILL_LIMITS.bytes),
    directoryRead
  })
}

/** Two or more names as a sentence lists them: `a and b`, `a, b and c` (every contract has two methods or more). */
function listed (names: readonly string[]): string {
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`
}

/**
 * A store or bus the user passed in (sessions, events, tasks, bus), checked now: a missing method
 * would otherwise fail on first use (a session store's, on the first 2025 client).
 */
function implementation<T> (value: unknown, option: string, contract: string, methods: readonly string[], optional: readonly string[] = ['close']): T | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'function') fail(option, `a ${contract} instance (new MyStore()), not a class or a function`, value)
  if (!isObject(value)) fail(option, `a ${contract} object with ${listed(methods)} methods`, value)
  for (const method of [...methods, ...optional]) {
    const member = value[method]
    if (typeof member === 'function' || (member === undefined && optional.includes(method))) continue
    const problem = member === undefined ? 'is missing' : `is not a function (got ${got(member)})`
    throw new SakeOptionError(`fastify-sake: option '${option}' must implement ${contract} (${methods.join(', ')} and optionally ${optional.join(', ')}): its '${method}' method ${problem}`)
  }
  return value as T
}

/** An allow-list option: undefined (the default), false, or a non-empty array of valid entries, normalised. */
function allowList (options: Record<string, unknown>, key: string, accepts: string, entry: (value: unknown) => { value: string } | { problem: string }): readonly string[] | false | undefined {
  const value = options[key]
  if (value === undefined || value === false) return value
  if (!Array.isArray(value) || value.length === 0) fail(key, accepts, value)
  return Object.freeze(value.map((item, i) => {
    const checked = entry(item)
    if ('problem' in checked) throw new SakeOptionError(`fastify-sake: option '${key}[${i}]' ${checked.problem}; got ${got(item)}`)
    return checked.value
  }))
}

/**
 * `allowedOrigins`: a list as `allowList` checks it, `'cors'`, or a synchronous function. An async
 * one is refused now: its promise would reach the check on every request, which cannot wait for it.
 */
function allowedOrigins (options: Record<string, unknown>): ResolvedOptions['allowedOrigins'] {
  const value = options.allowedOrigins
  if (value === 'cors') return value
  if (typeof value === 'function') {
    if (value.constructor.name === 'AsyncFunction' || value.constructor.name === 'AsyncGeneratorFunction') {
      throw new SakeOptionError("fastify-sake: option 'allowedOrigins' must be a synchronous function (origin, request) => boolean, got an async function: the check runs on every request and cannot wait for a promise; load what it needs before registering (a Set of origins it reads), or give a list of origins")
    }
    return value as OriginCheck
  }
  return allowList(options, 'allowedOrigins', "a non-empty array of origins ('https://app.example.com'), 'cors' to accept what @fastify/cors allows, a function (origin, request) => boolean, or false to turn the check off", originEntry)
}

/** Validates the options and returns them complete and frozen. */
export function resolveOptions (input: unknown): ResolvedOptions {
  if (!isObject(input)) {
    throw new SakeOptionError(`fastify-sake: the options must be an object with at least name and version, such as { name: 'my-app', version: '1.0.0' }, got ${got(input)}`)
  }
  unknownKeys(input, KNOWN, '')
  const info: ServerInfo = { name: string(input, 'name', true)!, version: string(input, 'version', true)! }
  for (const key of ['title', 'description', 'websiteUrl'] as const) {
    const value = string(input, key, false)
    if (value !== undefined) info[key] = value
  }
  if (input.icons !== undefined) {
    const problem = iconsProblem(input.icons)
    if (problem !== undefined) fail('icons', `an array of { src, mimeType?, sizes?, theme? } (${problem})`, input.icons)
    // a copy: serverInfo is sent as it was checked, whatever later happens to the caller's array
    info.icons = JSON.parse(JSON.stringify(input.icons))
  }

  // only a missing option takes its default: null is a value, and a wrong one
  const path = input.path === undefined ? defaults.path : input.path
  if (typeof path !== 'string' || !path.startsWith('/')) fail('path', "a URL path starting with '/', such as '/mcp'", path)

  const sessions = input.sessions === undefined ? {} : input.sessions
  if (!isObject(sessions)) fail('sessions', 'an object { store?, idleTimeout?, maxSessions?, maxPerCaller?, maxSize? }', sessions)
  unknownKeys(sessions, SESSION_KEYS, 'sessions.')
  const sessionIdle = integer(sessions, 'idleTimeout', 1, defaults.idleTimeout, 'milliseconds', 'sessions.idleTimeout')
  const maxSessions = integer(sessions, 'maxSessions', 1, defaults.maxSessions, 'sessions', 'sessions.maxSessions')

  const events = input.events === undefined ? {} : input.events
  if (!isObject(events)) fail('events', 'an object { store?, maxPerStream?, maxEvents?, idleTimeout? }', events)
  unknownKeys(events, EVENT_KEYS, 'events.')

  const tasks = input.tasks === undefined ? {} : input.tasks
  if (!isObject(tasks)) fail('tasks', 'an object { store?, maxTasks?, maxPerCaller?, ttl?, maxTtl?, pollInterval?, closeTimeout? }', tasks)
  unknownKeys(tasks, TASK_KEYS, 'tasks.')
  const maxTasks = integer(tasks, 'maxTasks', 1, defaults.maxTasks, 'tasks', 'tasks.maxTasks')

  const requestState = input.requestState === undefined ? {} : input.requestState
  if (!isObject(requestState)) fail('requestState', 'an object { keys?, ttl? }, e.g. { keys: [process.env.MCP_STATE_KEY] }', requestState)
  unknownKeys(requestState, REQUEST_STATE_KEYS, 'requestState.')
  let keys: Buffer[] | undefined
  try {
    keys = requestState.keys === undefined ? undefined : decodeKeys(requestState.keys)
  } catch (err) {
    // decodeKeys names the key at fault ("requestState keys[1] is ...")
    throw new SakeOptionError(`fastify-sake: option ${(err as Error).message}`)
  }

  const tools = input.tools === undefined ? [] : input.tools
  if (!Array.isArray(tools)) fail('tools', 'an array of tool definitions', tools)
  const resources = input.resources === undefined ? [] : input.resources
  if (!Array.isArray(resources)) fail('resources', 'an array of resource definitions', resources)
  const prompts = input.prompts === undefined ? [] : input.prompts
  if (!Array.isArray(prompts)) fail('prompts', 'an array of prompt definitions', prompts)
  const tracing = input.tracing === undefined ? true : input.tracing
  if (typeof tracing !== 'boolean') fail('tracing', 'true or false (false: no spans, no metrics, no diagnostics channel events)', tracing)

  return Object.freeze({
    info: Object.freeze(info),
    instructions: string(input, 'instructions', false),
    path,
    ttl: integer(input, 'ttl', 0, defaults.ttl, 'milliseconds'),
    pageSize: integer(input, 'pageSize', 1, defaults.pageSize, 'tools per page'),
    bodyLimit: integer(input, 'bodyLimit', 1, defaults.bodyLimit, 'bytes'),
    maxBatchItems: integer(input, 'maxBatchItems', 1, defaults.maxBatchItems, 'messages per batch'),
    keepAlive: integer(input, 'keepAlive', 0, defaults.keepAlive, 'milliseconds; 0 for none', 'keepAlive', MAX_TIMER),
    closeTimeout: integer(input, 'closeTimeout', 0, defaults.closeTimeout, 'milliseconds', 'closeTimeout', MAX_TIMER),
    sessions: Object.freeze({
      store: implementation<SessionStore>(sessions.store, 'sessions.store', 'SessionStore', SESSION_STORE_METHODS),
      idleTimeout: sessionIdle,
      maxSessions,
      maxPerCaller: perCaller(sessions, 'sessions', maxSessions, 'maxSessions', defaults.maxSessionsPerCaller, 'sessions'),
      maxSize: integer(sessions, 'maxSize', 1024, defaults.maxSessionSize, 'bytes', 'sessions.maxSize')
    }),
    bus: implementation<Bus>(input.bus, 'bus', 'Bus', BUS_METHODS),
    events: Object.freeze({
      store: implementation<EventStore>(events.store, 'events.store', 'EventStore', EVENT_STORE_METHODS, ['delete', 'close']),
      maxPerStream: integer(events, 'maxPerStream', 1, defaults.maxEventsPerStream, 'events', 'events.maxPerStream'),
      maxEvents: integer(events, 'maxEvents', 1, defaults.maxEvents, 'events', 'events.maxEvents'),
      idleTimeout: integer(events, 'idleTimeout', 1, defaults.eventIdleTimeout, 'milliseconds', 'events.idleTimeout')
    }),
    tasks: Object.freeze({
      store: implementation<TaskStore>(tasks.store, 'tasks.store', 'TaskStore', TASK_STORE_METHODS),
      maxTasks,
      maxPerCaller: perCaller(tasks, 'tasks', maxTasks, 'maxTasks', defaults.maxTasksPerCaller, 'tasks'),
      ttl: integer(tasks, 'ttl', 1, defaults.taskTtl, 'milliseconds', 'tasks.ttl', MAX_TIMER),
      maxTtl: integer(tasks, 'maxTtl', 1, defaults.maxTaskTtl, 'milliseconds', 'tasks.maxTtl', MAX_TIMER),
      pollInterval: integer(tasks, 'pollInterval', 0, defaults.taskPollInterval, 'milliseconds', 'tasks.pollInterval'),
      closeTimeout: integer(tasks, 'closeTimeout', 0, defaults.taskCloseTimeout, 'milliseconds', 'tasks.closeTimeout', MAX_TIMER)
    }),
    streams: resolveStreams(input.streams),
    questions: resolveQuestions(input.questions),
    redis: resolveRedis(input.redis, sessionIdle),
    requestState: Object.freeze({ keys: keys === undefined ? undefined : Object.freeze(keys), ttl: integer(requestState, 'ttl', 1, defaults.requestStateTtl, 'milliseconds', 'requestState.ttl') }),
    inputTimeout: integer(input, 'inputTimeout', 1, defaults.inputTimeout, 'milliseconds', 'inputTimeout', MAX_TIMER),
    tools: Object.freeze([...tools]) as readonly ToolDefinition[],
    resources: Object.freeze([...resources]) as readonly ResourceDefinition[],
    prompts: Object.freeze([...prompts]) as readonly PromptDefinition[],
    skills: resolveSkills(input.skills),
    openapi: resolveOpenApi(input.openapi),
    prefix: resolvePrefix(input.prefix),
    allowedHosts: allowList(input, 'allowedHosts', "a non-empty array of host names ('localhost', 'mcp.example.com:8443'), or false to turn the check off", hostEntry),
    allowedOrigins: allowedOrigins(input),
    auth: resolveAuth(input.auth),
    scopes: resolveScopes(input.scopes),
    routeOptions: resolveRouteOptions(withRegisterOptions(input)),
    tracing
  })
}

/** `app.mcp.stdio(options)`: one stdio connection (docs/stdio.md). */
export interface StdioOptions {
  /** Where the client's messages come from (default `process.stdin`). */
  input?: Readable
  /** Where the server's messages go (default `process.stdout`, held for the protocol alone while the connection runs). */
  output?: Writable
  /**
   * Who calls, when the host knows (the person who started the process, a key from the
   * environment): every call is then checked against its scopes as over HTTP. Absent (the
   * default), nothing is checked: over stdio the caller is whoever started the process, who has
   * its rights already; the `auth` option's tokens are HTTP's.
   */
  caller?: Caller
  /** `app.close()` once the client closed its input and its calls were answered (default true): the process can then exit. */
  closeOnEnd?: boolean
}

/** The stdio options once checked. */
export interface ResolvedStdioOptions {
  readonly input: Readable
  readonly output: Writable
  readonly auth: AuthInfo | undefined
  readonly closeOnEnd: boolean
}

const STDIO_KEYS = ['input', 'output', 'caller', 'closeOnEnd']

/** Checks `app.mcp.stdio()`'s options, with a message naming what to change. */
export function resolveStdioOptions (input: unknown): ResolvedStdioOptions {
  if (input !== undefined && !isObject(input)) fail('stdio', 'an object ({ input, output, caller, closeOnEnd }) or nothing', input)
  const options = (input ?? {}) as Record<string, unknown>
  unknownKeys(options, STDIO_KEYS, 'stdio.')
  const { closeOnEnd = true } = options
  const streamIn = options.input ?? process.stdin
  const streamOut = options.output ?? process.stdout
  if (!isStream(streamIn, 'read')) fail('stdio.input', 'a readable stream (process.stdin, a socket)', streamIn)
  if (!isStream(streamOut, 'write')) fail('stdio.output', 'a writable stream (process.stdout, a socket)', streamOut)
  if (typeof closeOnEnd !== 'boolean') fail('stdio.closeOnEnd', 'a boolean', closeOnEnd)
  let auth: AuthInfo | undefined
  if (options.caller !== undefined) {
    try {
      auth = toAuthInfo(options.caller)
    } catch (err) {
      const problem = err instanceof BadCaller ? err.problem : (err as Error).message
      throw new SakeOptionError(`fastify-sake: option 'stdio.caller' must be a caller ({ subject, scopes?, acr?, authTime?, expiresAt?, claims? }, as verifyToken returns): ${problem}`)
    }
  }
  return { input: streamIn as Readable, output: streamOut as Writable, auth, closeOnEnd }
}

function isStream (value: unknown, method: 'read' | 'write'): boolean {
  return isObject(value) && typeof value.on === 'function' && typeof value[method] === 'function'
}
