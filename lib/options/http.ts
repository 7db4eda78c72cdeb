/**
 * The options of the plugin's HTTP surface: its path and Fastify's register options, the
 * DNS-rebinding checks, the routes' own options and their OpenAPI document. Declared once
 * (lib/option-spec.ts).
 */
import { SakeOptionError } from '../errors.js'
import { fail, got, unknownKeys } from '../checks.js'
import { isObject } from '../values.js'
import { custom, type Option } from '../option-spec.js'
import { hostEntry, originEntry, type OriginCheck } from '../http/origin.js'
import { resolveRouteOptions, type McpRouteOptions, type ResolvedRouteOptions } from '../http/route-options.js'
import type { OpenApiDocs } from '../http/openapi.js'

/** The endpoint's path: a URL path starting with '/'. */
export const PATH = custom<string, string>("`'/mcp'`", (value) => {
  // only a missing option takes its default: null is a value, and a wrong one
  const path = value === undefined ? '/mcp' : value
  if (typeof path !== 'string' || !path.startsWith('/')) fail('path', "a URL path starting with '/', such as '/mcp'", path)
  return path
})

/** Fastify's `prefix` register option: '' or a path such as '/ai', as Fastify itself takes it. */
export const PREFIX = custom<string, string>(undefined, (value) => {
  if (value === undefined || value === '' || value === '/') return ''
  if (typeof value !== 'string' || !value.startsWith('/') || /\s|\?|#/.test(value)) fail('prefix', "a URL path starting with '/', such as '/ai' (Fastify's register option: the plugin's routes answer below it)", value)
  return value.endsWith('/') ? value.slice(0, -1) : value
})

/**
 * Fastify's `logLevel` and `logSerializers` register options: known here, read with `routeOptions`,
 * which they join. Typed `unknown`, so that Fastify's `RegisterOptions` type them.
 */
export const REGISTER_ONLY = custom<unknown, undefined>(undefined, () => undefined)

/**
 * `routeOptions`, with Fastify's `logLevel` and `logSerializers` register options under it: they
 * apply to the plugin's routes, as they would to a plugin's routes; `routeOptions`' own win.
 */
export const ROUTE_OPTIONS = custom<McpRouteOptions, ResolvedRouteOptions>(undefined, (routeOptions, { given }) => {
  const { logLevel, logSerializers } = given
  if (logLevel === undefined && logSerializers === undefined) return resolveRouteOptions(routeOptions)
  if (logLevel !== undefined && typeof logLevel !== 'string') fail('logLevel', "a log level, such as 'warn' (Fastify's register option: the plugin's routes log at it)", logLevel)
  if (logSerializers !== undefined && !isObject(logSerializers)) fail('logSerializers', "an object of serializers (Fastify's register option)", logSerializers)
  if (routeOptions !== undefined && !isObject(routeOptions)) return resolveRouteOptions(routeOptions) // refused as it is
  return resolveRouteOptions({ ...(logLevel === undefined ? {} : { logLevel }), ...(logSerializers === undefined ? {} : { logSerializers }), ...routeOptions })
})

const OPENAPI_KEYS = ['summary', 'description', 'tags']

/** `openapi`: false (default), true, or `{ summary?, description?, tags? }`. */
export const OPENAPI = custom<boolean | { summary?: string, description?: string, tags?: string[] }, OpenApiDocs>('`false`', (value) => {
  if (value === undefined || value === false) return false
  const accepts = "true, false, or { summary?, description?, tags? }, such as { tags: ['mcp'] }"
  const given = value === true ? {} : isObject(value) ? value : fail('openapi', accepts, value)
  unknownKeys(given, OPENAPI_KEYS, 'openapi.')
  const { summary = 'MCP endpoint', description = 'Model Context Protocol over Streamable HTTP: one JSON-RPC message per POST, answered as JSON or as a server-sent event stream', tags } = given
  if (typeof summary !== 'string') fail('openapi.summary', 'a string', summary)
  if (typeof description !== 'string') fail('openapi.description', 'a string', description)
  if (tags !== undefined && (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string'))) fail('openapi.tags', "an array of tag names, such as ['mcp']", tags)
  return Object.freeze({ summary, description, tags: tags === undefined ? undefined : Object.freeze([...tags as string[]]) })
})

/** An allow-list option: undefined (the default), false, or a non-empty array of valid entries, normalised. */
function allowList (value: unknown, key: string, accepts: string, entry: (value: unknown) => { value: string } | { problem: string }): readonly string[] | false | undefined {
  if (value === undefined || value === false) return value
  if (!Array.isArray(value) || value.length === 0) fail(key, accepts, value)
  return Object.freeze(value.map((item, i) => {
    const checked = entry(item)
    if ('problem' in checked) throw new SakeOptionError(`fastify-sake: option '${key}[${i}]' ${checked.problem}; got ${got(item)}`)
    return checked.value
  }))
}

/** `allowedHosts`: undefined, the loopback default; false, no check. */
export const ALLOWED_HOSTS: Option<string[] | false, readonly string[] | false | undefined> = custom('loopback names', (value) =>
  allowList(value, 'allowedHosts', "a non-empty array of host names ('localhost', 'mcp.example.com:8443'), or false to turn the check off", hostEntry))

/**
 * `allowedOrigins`: a list as `allowList` checks it, `'cors'`, or a synchronous function. An async
 * one is refused now: its promise would reach the check on every request, which cannot wait for it.
 */
export const ALLOWED_ORIGINS = custom<string[] | 'cors' | OriginCheck | false, readonly string[] | 'cors' | OriginCheck | false | undefined>('loopback origins', (value) => {
  if (value === 'cors') return value
  if (typeof value === 'function') {
    if (value.constructor.name === 'AsyncFunction' || value.constructor.name === 'AsyncGeneratorFunction') {
      throw new SakeOptionError("fastify-sake: option 'allowedOrigins' must be a synchronous function (origin, request) => boolean, got an async function: the check runs on every request and cannot wait for a promise; load what it needs before registering (a Set of origins it reads), or give a list of origins")
    }
    return value as OriginCheck
  }
  return allowList(value, 'allowedOrigins', "a non-empty array of origins ('https://app.example.com'), 'cors' to accept what @fastify/cors allows, a function (origin, request) => boolean, or false to turn the check off", originEntry)
})
