/**
 * `routeOptions`: Fastify route options for the MCP routes (POST, GET, DELETE and the 405s), so
 * the host's route-level plugins work on them as on its own routes: `config` (`config.rateLimit`
 * of @fastify/rate-limit, `config.otel`), route hooks, `logLevel`, `constraints`. What the plugin
 * must own (the URL, the methods, the handler, the body limit, the schema and error handling) is
 * refused at registration, with the option to use instead where there is one.
 */
import { SakeOptionError } from '../errors.js'
import { fail, unknownKeys } from '../checks.js'
import { isObject } from '../values.js'

/** The route hooks one may add; they run after the plugin's own hooks of the same name. */
export const ROUTE_HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onTimeout', 'onError', 'onRequestAbort'] as const

type HookName = typeof ROUTE_HOOKS[number]
type Hook = (...args: any[]) => unknown

/** What the option takes (Fastify's own types check each hook's signature where the user writes it). */
export type McpRouteOptions = {
  /** Merged into each MCP route's `config` (`request.routeOptions.config`). */
  config?: Record<string, unknown>
  logLevel?: string
  logSerializers?: Record<string, (value: any) => unknown>
  constraints?: Record<string, unknown>
} & { [K in HookName]?: Hook | Hook[] }

export interface ResolvedRouteOptions {
  readonly config: Readonly<Record<string, unknown>>
  /** `logLevel`, `logSerializers`, `constraints`, as given. */
  readonly plain: Readonly<Record<string, unknown>>
  readonly hooks: Readonly<Partial<Record<HookName, readonly Hook[]>>>
}

const PLAIN = ['logLevel', 'logSerializers', 'constraints'] as const
const KNOWN = ['config', ...PLAIN, ...ROUTE_HOOKS]

/** The route options the plugin owns, and what to do instead. */
const OWNED: Readonly<Record<string, string>> = {
  url: "the plugin's 'path' option sets it",
  path: "the plugin's 'path' option sets it",
  method: 'the MCP endpoint answers POST, GET and DELETE itself',
  handler: 'the plugin answers MCP requests itself',
  bodyLimit: "use the plugin's 'bodyLimit' option",
  schema: "MCP messages are checked by the plugin, not by a route schema; to show the endpoint in an OpenAPI document (@fastify/swagger), use the plugin's 'openapi' option",
  attachValidation: 'MCP messages are checked by the plugin, not by a route schema',
  validatorCompiler: 'MCP messages are checked by the plugin, not by a route schema',
  serializerCompiler: 'the plugin writes its answers as JSON text itself',
  schemaErrorFormatter: 'MCP messages are checked by the plugin, not by a route schema',
  errorHandler: 'the plugin turns errors into JSON-RPC errors; use an onError hook to observe them',
  prefix: "register the plugin in a context with a prefix: app.register(async (child) => child.register(sake, …), { prefix: '/a' })",
  prefixTrailingSlash: 'the plugin registers one path'
}

const NONE: ResolvedRouteOptions = Object.freeze({ config: Object.freeze({}), plain: Object.freeze({}), hooks: Object.freeze({}) })

/** Checks `routeOptions`; throws a `SakeOptionError` naming what to change. */
export function resolveRouteOptions (value: unknown): ResolvedRouteOptions {
  if (value === undefined) return NONE
  if (!isObject(value)) fail('routeOptions', 'an object of Fastify route options, such as { config: { rateLimit: { max: 100 } } }', value)
  for (const key of Object.keys(value)) {
    const instead = OWNED[key]
    if (instead !== undefined) throw new SakeOptionError(`fastify-sake: option 'routeOptions.${key}' is the plugin's own on the MCP routes: ${instead}`)
  }
  unknownKeys(value, KNOWN, 'routeOptions.')
  const config = value.config ?? {}
  if (!isObject(config)) fail('routeOptions.config', 'an object, merged into each MCP route\'s config', config)
  const plain: Record<string, unknown> = {}
  for (const key of PLAIN) {
    if (value[key] === undefined) continue
    if (key === 'logLevel' ? typeof value[key] !== 'string' : !isObject(value[key])) fail(`routeOptions.${key}`, key === 'logLevel' ? "a log level, such as 'warn'" : 'an object', value[key])
    plain[key] = value[key]
  }
  const hooks: Partial<Record<HookName, readonly Hook[]>> = {}
  for (const name of ROUTE_HOOKS) {
    const hook = value[name]
    if (hook === undefined) continue
    const list = Array.isArray(hook) ? hook : [hook]
    if (list.length === 0 || !list.every((fn) => typeof fn === 'function')) fail(`routeOptions.${name}`, 'a hook function or a non-empty array of them', hook)
    hooks[name] = Object.freeze([...list] as Hook[])
  }
  return Object.freeze({ config: Object.freeze({ ...config }), plain: Object.freeze(plain), hooks: Object.freeze(hooks) })
}

/** The plugin's own hooks of one route, and its `config` marker. */
export interface OwnRouteOptions {
  readonly onRequest: readonly Hook[]
  readonly preValidation?: readonly Hook[]
  readonly preHandler?: readonly Hook[]
  readonly config: Readonly<Record<string | symbol, unknown>>
}

/**
 * The options of one MCP route: the user's, with the plugin's `config` marker, and the plugin's
 * own hooks first in each stage (Origin, token, the era's checks, authorization), so a refused
 * request never reaches the user's route hooks.
 */
export function routeShape (user: ResolvedRouteOptions, own: OwnRouteOptions): Record<string, unknown> {
  const shape: Record<string, unknown> = { ...user.plain, config: { ...user.config, ...own.config } }
  for (const name of ROUTE_HOOKS) {
    const ours = name === 'onRequest' || name === 'preValidation' || name === 'preHandler' ? own[name] ?? [] : []
    const hooks = [...ours, ...(user.hooks[name] ?? [])]
    if (hooks.length > 0) shape[name] = hooks
  }
  return shape
}
