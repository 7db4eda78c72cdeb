/**
 * Plugin options: checked once at registration, with defaults filled in and the result frozen. A
 * wrong value fails `register` with a message naming the option, what it accepts and what it got:
 * several options are security switches, so a typo must never quietly become a default.
 *
 * Each option is declared once below (or in the file of its concern: state.ts, redis.ts, http.ts,
 * catalog.ts), with its default and its check (lib/option-spec.ts); `SakeOptions` is made from
 * the declarations, and a test holds docs/options.md to them.
 */
import { SakeOptionError } from '../errors.js'
import { fail, got } from '../checks.js'
import { MAX_TIMER, custom, flag, implementation, integer, readGroup, text, type InputOf, type ResolvedOf } from '../option-spec.js'
import { BUS_METHODS, type Bus } from '../state/bus.js'
import type { DefinedTool, ToolDefinition } from '../define/tool-definition.js'
import type { ResourceDefinition } from '../define/resource.js'
import type { DefinedPrompt, PromptDefinition } from '../define/prompt.js'
import { iconsProblem } from '../define/content.js'
import type { ServerInfo } from '../spec/types.js'
import { AUTH, resolveAuth, resolveScopes, type AuthOptions, type ResolvedAuth, type ScopesOption } from '../auth/auth-options.js'
import { STATE_GROUPS } from './state.js'
import { REDIS_OPTION } from './redis.js'
import { ALLOWED_HOSTS, ALLOWED_ORIGINS, OPENAPI, PATH, PREFIX, REGISTER_ONLY, ROUTE_OPTIONS } from './http.js'
import { SKILLS_OPTION, definitions } from './catalog.js'

/** The plugin's options, in the order they are read (and listed when a key is unknown). */
export const SERVER = {
  /** The server's name, sent as `serverInfo.name`. Required. */
  name: text(true),
  /** The server's version, sent as `serverInfo.version`. Required. */
  version: text(true),
  /** A display name for `serverInfo.title`. */
  title: text(false),
  description: text(false),
  websiteUrl: text(false),
  icons: custom<ServerInfo['icons'], ServerInfo['icons']>(undefined, (icons) => {
    if (icons === undefined) return undefined
    const problem = iconsProblem(icons)
    if (problem !== undefined) fail('icons', `an array of { src, mimeType?, sizes?, theme? } (${problem})`, icons)
    // a copy: serverInfo is sent as it was checked, whatever later happens to the caller's array
    return JSON.parse(JSON.stringify(icons))
  }),
  /** Guidance for the model on how to use this server. */
  instructions: text(false),
  /** The endpoint path. Default `/mcp`. */
  path: PATH,
  /** Ceiling of every cacheable result's `ttlMs`, in milliseconds. Default 300,000 (five minutes, Sake's default). */
  ttl: integer({ default: 300_000, min: 0, unit: 'milliseconds' }),
  /** Tools per `tools/list` page. Default 100. */
  pageSize: integer({ default: 100, min: 1, unit: 'tools per page' }),
  /** Largest accepted POST body, in bytes. Default 1 MiB (Fastify's own default). */
  bodyLimit: integer({ default: 1024 * 1024, min: 1, unit: 'bytes' }),
  /** Most messages in one JSON-RPC batch (2025-03-26 sessions); a larger batch is refused with -32600. Default 32. */
  maxBatchItems: integer({ default: 32, min: 1, unit: 'messages per batch' }),
  /**
   * Milliseconds between keep-alive comments on an open event stream, and how long a streaming call
   * may stay silent before its stream opens (a proxy waits for headers); 0: neither. Default 15,000
   * (under the idle timeouts of common proxies, 60 s).
   */
  keepAlive: integer({ default: 15_000, min: 0, max: MAX_TIMER, unit: 'milliseconds; 0 for none' }),
  /**
   * How long `app.close()` lets MCP calls in flight finish, in milliseconds, before their
   * `ctx.signal` aborts (a rolling deploy: docs/fleet.md, "Draining and rolling deploys"). Default
   * 10 seconds (inside the 30 s a process manager usually grants after SIGTERM).
   */
  closeTimeout: integer({ default: 10_000, min: 0, max: MAX_TIMER, unit: 'milliseconds' }),
  /** Legacy session settings. */
  sessions: STATE_GROUPS.sessions,
  /** Where list-changed and resource-updated notifications travel to open streams. Default: in memory. */
  bus: implementation<Bus>('Bus', BUS_METHODS),
  /** Resumable SSE streams (2025-11-25 sessions): the event store and its bounds. */
  events: STATE_GROUPS.events,
  /** Tasks (long-running tools): the task store, its bounds and ttls. */
  tasks: STATE_GROUPS.tasks,
  /** Open event streams: how many, in all and per caller, and how much each may hold unsent. */
  streams: STATE_GROUPS.streams,
  /** Questions to 2025 clients waiting for their answers: how many, in all and per caller. */
  questions: STATE_GROUPS.questions,
  /**
   * Share 2025 sessions, resumable streams, the bus and tasks across instances through Redis: a
   * `redis://` URL (needs the `ioredis` package), an ioredis client (`app.redis` of
   * `@fastify/redis`: one pool for the service; the plugin never closes a client it did not
   * make), or `{ url | client, prefix, timeout }`. A store given in its own option wins.
   */
  redis: REDIS_OPTION,
  /** How a question's answers travel between rounds of a 2026-07-28 call (multi round-trip requests). */
  requestState: STATE_GROUPS.requestState,
  /**
   * Milliseconds a question asked on a 2025 session's stream (`ctx.elicit`, `ctx.sample`,
   * `ctx.roots`) waits for the client's answer. Default 10 minutes: a person is filling a form.
   */
  inputTimeout: integer({ default: 10 * 60_000, min: 1, max: MAX_TIMER, unit: 'milliseconds' }),
  /** Tools to register with the plugin. */
  tools: definitions<DefinedTool>('tool'),
  /** Resources and resource templates to register with the plugin. */
  resources: definitions<ResourceDefinition>('resource'),
  /** Prompts to register with the plugin (made with `definePrompt`). */
  prompts: definitions<DefinedPrompt>('prompt'),
  /** Skills (the Skills extension, SEP-2640): a folder of them, skills in code, and their limits. */
  skills: SKILLS_OPTION,
  /**
   * DNS-rebinding protection: the `Host` values accepted, `host` (any port) or `host:port`. Default:
   * on loopback connections, localhost, 127.0.0.1 and [::1] on any port. `false`: no Host check.
   */
  allowedHosts: ALLOWED_HOSTS,
  /**
   * DNS-rebinding protection: the `Origin` values accepted when one is sent, as full origins
   * (`https://app.example.com`). Default: on loopback connections, http(s) origins of localhost,
   * 127.0.0.1 and [::1] on any port. `'cors'`: what the host's `@fastify/cors` allows (the reply
   * carries `Access-Control-Allow-Origin: *` or the origin itself). A function `(origin, request) =>
   * boolean`: the host's own synchronous check. `false`: no Origin check.
   */
  allowedOrigins: ALLOWED_ORIGINS,
  /**
   * Authorization as an OAuth 2.1 resource server: bearer tokens on every request, scopes per
   * tool, step-up, Protected Resource Metadata. Default false: no token, every tool allowed.
   */
  auth: { ...custom<AuthOptions | false, ResolvedAuth | undefined>('`false`', (value) => resolveAuth(value)), members: AUTH },
  /** The scopes tools, resources and prompts may require (`scope`), each with its description. */
  scopes: custom<ScopesOption, ReadonlyMap<string, string>>('`{}`', (value) => resolveScopes(value)),
  /**
   * Fastify route options for the MCP routes: `config` (e.g. `config.rateLimit`), route hooks
   * (after the plugin's own), `logLevel`, `logSerializers`, `constraints`.
   */
  routeOptions: ROUTE_OPTIONS,
  /**
   * The MCP endpoint in the service's OpenAPI document (@fastify/swagger): by default none of the
   * plugin's routes is shown. `true`, or `{ summary?, description?, tags? }`: the POST route is, with
   * its request body; GET, DELETE and the metadata routes stay hidden.
   */
  openapi: OPENAPI,
  /**
   * Traces of MCP requests: the `fastify-sake:request` diagnostics channel, and, when
   * `@opentelemetry/api` is installed, an OpenTelemetry span per request and the MCP metrics. Default
   * true; false: none of them.
   */
  tracing: flag(true, 'true or false (false: no spans, no metrics, no diagnostics channel events)'),
  /**
   * Fastify's own register option: the plugin's routes (the endpoint and the metadata) answer
   * below it, as a plugin's routes do: `app.register(sake, { prefix: '/ai' })` serves `/ai/mcp`.
   * The decorators (`registerTool`, `app.mcp`) stay on the context you registered the plugin in.
   */
  prefix: PREFIX,
  // Fastify's register options `logLevel` and `logSerializers` (typed by Fastify's RegisterOptions)
  // apply to the plugin's routes too, `routeOptions.logLevel` and `.logSerializers` winning
  logLevel: REGISTER_ONLY,
  logSerializers: REGISTER_ONLY
}

export interface SakeOptions extends Omit<InputOf<typeof SERVER>, 'logLevel' | 'logSerializers'> {
  /** The server's name, sent as `serverInfo.name`. Required. */
  name: string
  /** The server's version, sent as `serverInfo.version`. Required. */
  version: string
}

type Read = ResolvedOf<typeof SERVER>

/** The options once read: each as `SERVER` declares it, `serverInfo` gathered, the definitions typed as registered. */
export interface ResolvedOptions extends Omit<Read, 'name' | 'version' | 'title' | 'description' | 'websiteUrl' | 'icons' | 'tools' | 'resources' | 'prompts' | 'logLevel' | 'logSerializers'> {
  readonly info: ServerInfo
  readonly tools: readonly ToolDefinition[]
  readonly resources: readonly ResourceDefinition[]
  readonly prompts: readonly PromptDefinition[]
}

/** Validates the options and returns them complete and frozen. */
export function resolveOptions (input: unknown): ResolvedOptions {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new SakeOptionError(`fastify-sake: the options must be an object with at least name and version, such as { name: 'my-app', version: '1.0.0' }, got ${got(input)}`)
  }
  const { name, version, title, description, websiteUrl, icons, logLevel: _level, logSerializers: _serializers, ...rest } = readGroup(SERVER, input, '', '')
  const info: ServerInfo = { name: name!, version: version! }
  if (title !== undefined) info.title = title
  if (description !== undefined) info.description = description
  if (websiteUrl !== undefined) info.websiteUrl = websiteUrl
  if (icons !== undefined) info.icons = icons
  return Object.freeze({ ...rest, info: Object.freeze(info) })
}
