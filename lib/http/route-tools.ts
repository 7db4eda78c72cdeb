/**
 * The host's own Fastify routes as MCP tools (`config: { mcp: { name, scope, … } }` on a route).
 *
 * An `onRoute` hook, added where the plugin is registered (fastify-plugin: that context and every
 * context created after it), reads each route's `config.mcp` as it is declared and compiles the
 * route into the same registry item `registerTool` makes: its input schema is the route's
 * `params`, `querystring` and object `body` merged (`inputSchemaOf`), its output schema the 2xx
 * response schema, its scopes and step-up read as a tool's are. A call runs the route itself with
 * `app.inject`, so the host's hooks, auth, validation, serializers and error handler run as they do
 * for an HTTP client; the response becomes the tool's result (`resultOf`).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { STATUS_CODES } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify'
import { Type } from '@sinclair/typebox'
import { SakeError, SakeRouteToolError } from '../errors.js'
import { isObject, isTypeBox, kind } from '../values.js'
import type { AuthInfo } from '../spec/types.js'
import { audio, image } from '../define/content.js'
import type { Registry } from '../define/registry.js'
import type { CompiledTool, ToolAnnotations, ToolDefinition } from '../define/tool.js'
import { toolError } from '../define/result.js'
import type { ToolContext } from '../define/context.js'
import type { Authentication, ScopeRequirement } from '../define/access.js'
import type { Icon } from '../define/content.js'
import type { McpRequestInfo } from './request-info.js'

/** `config.mcp` of a route: how the route is offered as an MCP tool. */
export interface McpRouteConfig {
  /** The tool name; default: the route's `schema.operationId`. */
  name?: string
  title?: string
  /** Default: the route's `schema.description`, else its `schema.summary`. */
  description?: string
  icons?: Icon[]
  /** Merged over the defaults of the HTTP method (GET/HEAD: readOnly, PUT: idempotent, DELETE: destructive). */
  annotations?: ToolAnnotations
  /** Merged into the tool's `_meta`. */
  meta?: Record<string, unknown>
  /** Milliseconds a client may cache a list page holding this tool. */
  ttl?: number
  /** With `auth` on: the scope (or every one of several) a token must grant to call the tool. */
  scope?: ScopeRequirement
  /** With `auth` on: how the person must have signed in (step-up, RFC 9470). */
  authentication?: Authentication
  /** Arguments mirrored into `Mcp-Param-*` headers, by argument name: `{ region: 'Region' }`. */
  header?: Record<string, string>
  /**
   * The tool argument a route field becomes, keyed `part.field` (`params`, `querystring`, `body`):
   * `{ 'querystring.id': 'query_id' }`, for a name in two parts or one a model should read otherwise.
   */
  rename?: Record<string, string>
  /** Your own settings, read by hooks on `request.mcp.config` (as a tool's `config`). */
  config?: Record<string, unknown>
}

/** In an exposed route's `config`: the tool it is. */
const kRouteTool = Symbol('fastify-sake.routeTool')

const KNOWN_KEYS = new Set(['name', 'title', 'description', 'icons', 'annotations', 'meta', 'ttl', 'scope', 'authentication', 'header', 'rename', 'config'])
const PARTS = ['params', 'querystring', 'body'] as const
type Part = typeof PARTS[number]

/** Where each tool argument goes in the request. */
interface Placement { readonly part: Part, readonly field: string }

/** The MCP call a route's request runs for, while `app.inject` runs it. */
interface RouteCall {
  readonly method: string
  readonly info: McpRequestInfo
  readonly auth: AuthInfo | null
  /** The route's request, once it claimed this call (a nested inject from the route claims nothing). */
  request: FastifyRequest | undefined
}

/** Per route tool call: what the route's request belongs to (an inject carries no object of ours). */
const calls = new AsyncLocalStorage<RouteCall>()
const claimed = new WeakMap<FastifyRequest, RouteCall>()

/**
 * The call `request` runs for, if it is a route tool's request: the call of the inject that made
 * it, claimed by the first request of that method in the inject's async context: the route's own
 * request, which our route hook claims before its handler runs (so a request the handler makes
 * itself with `app.inject` is never taken for it).
 */
function claim (request: FastifyRequest): RouteCall | undefined {
  const known = claimed.get(request)
  if (known !== undefined) return known
  const call = calls.getStore()
  if (call === undefined || call.request !== undefined || request.raw.method !== call.method) return undefined
  call.request = request
  claimed.set(request, call)
  return call
}

/** `request.mcp` of a request of an exposed route: the tools/call that runs it, or null for an HTTP client's. */
export function routeToolInfo (request: FastifyRequest): McpRequestInfo | null {
  // every route's config is an object (Fastify adds url and method to it)
  if ((request.routeOptions.config as unknown as Record<symbol, unknown>)[kRouteTool] === undefined) return null
  return claim(request)?.info ?? null
}

function where (route: RouteOptions): string {
  return `${String(route.method)} ${route.url}`
}

function fail (route: RouteOptions, message: string): never {
  throw new SakeRouteToolError(`route '${where(route)}': ${message}`)
}

/** The object schema of one part, or undefined; refuses what cannot become tool arguments. */
function partSchema (route: RouteOptions, part: Part, raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined
  let schema = raw
  if (part === 'body' && isObject(schema) && isObject(schema.content)) {
    // Fastify's per-content-type bodies: only a JSON one can be tool arguments
    const types = Object.keys(schema.content)
    const json = (schema.content as Record<string, unknown>)['application/json']
    if (types.length !== 1 || !isObject(json) || json.schema === undefined) {
      fail(route, `its body schema is per content type (${types.join(', ')}); an MCP call sends JSON arguments, so give the route one application/json body schema (a multipart or other body cannot be a tool)`)
    }
    schema = json.schema
  }
  if (!isObject(schema)) fail(route, `its ${part} schema must be a JSON Schema object, got ${kind(schema)}`)
  if (schema.type !== 'object' || '$ref' in schema || 'oneOf' in schema || 'anyOf' in schema || 'allOf' in schema) {
    const what = schema.type !== 'object' ? `type ${JSON.stringify(schema.type ?? 'unspecified')}` : 'a $ref or a oneOf/anyOf/allOf at its root'
    fail(route, `its ${part} schema is ${what}; a tool's arguments are one object, merged from the params, querystring and body objects' properties: give the route an object ${part} schema with 'properties' (a route whose ${part} is not such an object cannot be a tool)`)
  }
  return schema
}

/** The names in a path (`/users/:id` → id; `*` → '*'), which are arguments even without a params schema. */
function pathParams (url: string): string[] {
  const names: string[] = []
  for (const match of url.matchAll(/:([A-Za-z0-9_]+)/g)) names.push(match[1])
  if (url.includes('*')) names.push('*')
  return names
}

function stringMap (route: RouteOptions, option: string, value: unknown): Record<string, string> {
  if (value === undefined) return {}
  if (!isObject(value) || !Object.values(value).every((item) => typeof item === 'string')) {
    fail(route, `'config.mcp.${option}' must be an object of strings, got ${kind(value)}`)
  }
  return value as Record<string, string>
}

/**
 * The tool's input schema and where each argument goes: the properties of `params`, `querystring`
 * and `body`, in that order, each under its own name (or the one `rename` gives it); a name in two
 * parts is refused, the route naming both.
 */
function inputSchemaOf (route: RouteOptions, mcp: McpRouteConfig): { input: Record<string, unknown>, placements: Map<string, Placement> } {
  const schema = (route.schema ?? {}) as Record<string, unknown>
  const rename = stringMap(route, 'rename', mcp.rename)
  const headers = stringMap(route, 'header', mcp.header)
  if (schema.consumes !== undefined && (!Array.isArray(schema.consumes) || schema.consumes.some((type) => type !== 'application/json'))) {
    fail(route, `it consumes ${JSON.stringify(schema.consumes)}; an MCP call sends JSON arguments, so only an application/json body can be a tool`)
  }
  const headerSchema = schema.headers
  if (isObject(headerSchema) && Array.isArray(headerSchema.required) && headerSchema.required.length > 0) {
    fail(route, `its headers schema requires ${headerSchema.required.map((name) => `'${String(name)}'`).join(', ')}; an MCP call carries no headers of its own (only Authorization, traceparent and the request id travel): make them optional, or take the value as a querystring or body field`)
  }

  const properties: Record<string, unknown> = {}
  const required: string[] = []
  const placements = new Map<string, Placement>()
  const used = new Set<string>()
  const place = (part: Part, field: string, property: unknown, isRequired: boolean): void => {
    const key = `${part}.${field}`
    used.add(key)
    const name = rename[key] ?? field
    const taken = placements.get(name)
    if (taken !== undefined) {
      fail(route, `the argument '${name}' would come from both ${taken.part} and ${part}; give one of them another name with config.mcp.rename, such as rename: { '${key}': '${part === 'querystring' ? 'query' : part}_${field}' }`)
    }
    placements.set(name, { part, field })
    properties[name] = property
    if (isRequired) required.push(name)
  }
  for (const part of PARTS) {
    const object = partSchema(route, part, part === 'querystring' ? schema.querystring ?? schema.query : schema[part])
    const props = isObject(object?.properties) ? object.properties : {}
    const requiredFields = Array.isArray(object?.required) ? object.required : []
    for (const [field, property] of Object.entries(props)) {
      place(part, field, property, part === 'params' || requiredFields.includes(field))
    }
    // a path parameter the params schema does not describe is still a required string
    if (part === 'params') {
      for (const field of pathParams(route.url)) if (!(field in props)) place('params', field, { type: 'string' }, true)
    }
  }
  for (const key of Object.keys(rename)) {
    if (!used.has(key)) fail(route, `config.mcp.rename names '${key}', which is not a field of the route's params, querystring or body (keys are 'part.field')`)
  }
  for (const [name, header] of Object.entries(headers)) {
    if (!placements.has(name)) fail(route, `config.mcp.header names '${name}', which is not an argument of the tool (its arguments: ${[...placements.keys()].join(', ') || 'none'})`)
    properties[name] = { ...properties[name] as Record<string, unknown>, 'x-mcp-header': header }
  }
  const input: Record<string, unknown> = { type: 'object', properties, additionalProperties: false }
  if (required.length > 0) input.required = required
  return { input, placements }
}

/** The schema of the route's 2xx answer (200, 201, '2xx', then any other 2xx), as the tool's output. */
function outputSchemaOf (route: RouteOptions): unknown {
  const response = (route.schema as Record<string, unknown> | undefined)?.response
  if (!isObject(response)) return undefined
  const keys = Object.keys(response)
  const key = ['200', '201', '2xx'].find((code) => keys.includes(code)) ?? keys.find((code) => /^2\d\d$/.test(code))
  if (key === undefined) return undefined
  let schema = response[key]
  if (isObject(schema) && isObject(schema.content)) {
    const json = (schema.content as Record<string, unknown>)['application/json']
    if (!isObject(json) || json.schema === undefined) return undefined // a text or binary answer: no structured output
    schema = json.schema
  }
  if (!isObject(schema)) fail(route, `its ${key} response schema must be a JSON Schema object, got ${kind(schema)}`)
  return isTypeBox(schema) ? schema : Type.Unsafe(schema)
}

/** The hints the HTTP method implies (RFC 9110's safe and idempotent methods), under the route's own. */
function annotationsOf (method: string, annotations: ToolAnnotations | undefined): ToolAnnotations | undefined {
  const implied: ToolAnnotations = method === 'GET' || method === 'HEAD'
    ? { readOnly: true }
    : method === 'DELETE' ? { destructive: true } : method === 'PUT' ? { idempotent: true } : {}
  if (annotations !== undefined && !isObject(annotations)) return annotations // compileTool says what is wrong
  const merged = { ...implied, ...annotations }
  return Object.keys(merged).length === 0 ? undefined : merged
}

/** The path with its parameters filled in (each value percent-encoded; a wildcard keeps its slashes). */
function pathOf (url: string, params: Record<string, unknown>): string {
  return url
    .replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_all, name: string) => encodeURIComponent(String(params[name])))
    .replace('*', () => encodeURI(String(params['*'])))
}

/** What travels from the MCP request into the route: the credentials, the trace context, the request id. */
function forwarded (request: FastifyRequest, requestIdHeader: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of ['authorization', 'traceparent', 'tracestate']) {
    const value = request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  if (requestIdHeader !== undefined) headers[requestIdHeader] = request.id
  return headers
}

function isJson (type: string): boolean {
  return /^application\/(?:[\w.+-]*\+)?json\b/i.test(type)
}

/** What the route's error says: Fastify's `{ message }`, or the text it answered. */
function reasonOf (response: LightMyRequestResponse): string {
  const body = response.body
  try {
    const parsed: unknown = JSON.parse(body)
    if (isObject(parsed) && typeof parsed.message === 'string') return parsed.message
  } catch {}
  return body.length > 500 ? `${body.slice(0, 500)}…` : body
}

/**
 * The route's answer as the tool's result: 2xx JSON is the value (JSON text plus
 * `structuredContent`, checked against the output schema); 2xx text is text; an image or audio is
 * that block; no body (204) is no content. 4xx is a tool error with the status and the route's
 * message; anything else (5xx, a redirect) a tool error naming the status only, the body logged.
 */
function resultOf (tool: string, what: string, response: LightMyRequestResponse, ctx: ToolContext): unknown {
  const status = response.statusCode
  const type = String(response.headers['content-type'] ?? '')
  if (status >= 200 && status < 300) {
    if (response.rawPayload.length === 0) return undefined
    if (isJson(type)) return response.json()
    if (/^image\//i.test(type)) return image(response.rawPayload, type.split(';')[0])
    if (/^audio\//i.test(type)) return audio(response.rawPayload, type.split(';')[0])
    return response.body
  }
  const phrase = `${status} ${STATUS_CODES[status] ?? ''}`.trim()
  if (status >= 400 && status < 500) return toolError(`${what} answered ${phrase}: ${reasonOf(response)}`)
  // the route's own details (a driver message, a stack) stay in the log
  ctx.log.error({ statusCode: status, body: reasonOf(response) }, `route tool '${tool}': ${what} answered ${phrase}`)
  return toolError(`Tool '${tool}' failed: the route answered ${phrase}`)
}

/** The `execute` of a route tool: runs the route with the call's arguments, in-process. */
function executor (app: FastifyInstance, route: RouteOptions, method: string, placements: ReadonlyMap<string, Placement>, hasBody: boolean, requestIdHeader: string | undefined, compiled: () => CompiledTool) {
  return async (args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> => {
    const parts: Record<Part, Record<string, unknown>> = { params: {}, querystring: {}, body: {} }
    for (const [name, value] of Object.entries(args)) {
      const placement = placements.get(name)! // the input schema refuses any other argument
      parts[placement.part][placement.field] = value
    }
    const url = pathOf(route.url, parts.params)
    const query: Record<string, string | string[]> = {}
    for (const [field, value] of Object.entries(parts.querystring)) {
      query[field] = Array.isArray(value) ? value.map((item) => typeof item === 'string' ? item : JSON.stringify(item)) : typeof value === 'string' ? value : JSON.stringify(value)
    }
    const options: InjectOptions = { method: method as InjectOptions['method'], url, query, headers: forwarded(ctx.request, requestIdHeader), remoteAddress: ctx.request.ip }
    if (hasBody) options.payload = parts.body as Record<string, unknown> as InjectOptions['payload']
    const tool = compiled()
    const info: McpRequestInfo = Object.freeze({
      verified: true,
      era: ctx.era,
      protocolVersion: ctx.protocolVersion,
      method: 'tools/call',
      name: tool.name,
      id: ctx.requestId,
      // never the session: a route is not part of it
      sessionId: undefined,
      params: Object.freeze({}),
      tool: tool.wire.modern,
      prompt: undefined,
      resource: undefined,
      config: tool.config
    })
    const call: RouteCall = { method, info, auth: ctx.auth ?? null, request: undefined }
    const response = await calls.run(call, async () => await app.inject(options))
    return resultOf(tool.name, `${method} ${url}`, response, ctx)
  }
}

/** A route hook of every exposed route: ties the request to its call and sets `request.mcpAuth` from it. */
function onRouteCall (request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const call = claim(request)
  if (call !== undefined) request.mcpAuth = call.auth
  done()
}

export interface RouteToolOptions {
  readonly registry: Registry
  /** The config marker of the plugin's own routes, which are never tools. */
  readonly ownRoutes: symbol
}

/**
 * Adds the `onRoute` hook that turns routes with `config.mcp` into tools of `registry`. Throws
 * (from the route's declaration) a `SakeRouteToolError`, or the tool's own `SakeError`, naming
 * the route.
 */
export function collectRouteTools (app: FastifyInstance, options: RouteToolOptions): void {
  const { registry, ownRoutes } = options
  const requestIdHeader = typeof app.initialConfig.requestIdHeader === 'string' ? app.initialConfig.requestIdHeader : undefined
  // the HEAD route Fastify adds for a GET shares the GET's config: it is the same tool
  const exposed = new WeakSet<object>()
  app.addHook('onRoute', (route) => {
    const config = route.config as Record<string | symbol, unknown> | undefined
    const mcp: unknown = config?.mcp
    if (mcp === undefined || mcp === false || config![ownRoutes] !== undefined) return
    if (exposed.has(config!)) return
    if (mcp !== true && !isObject(mcp)) fail(route, `config.mcp must be true or an object such as { name: 'get_user' }, got ${kind(mcp)}`)
    if (typeof route.method !== 'string') fail(route, 'a route with several methods cannot be one tool; declare one route per method, each with its own config.mcp')
    const given: McpRouteConfig = mcp === true ? {} : mcp
    for (const key of Object.keys(given)) {
      if (!KNOWN_KEYS.has(key)) fail(route, `unknown option 'config.mcp.${key}'; known options are ${[...KNOWN_KEYS].join(', ')}`)
    }
    const schema = (route.schema ?? {}) as Record<string, unknown>
    const name = given.name ?? schema.operationId
    if (name === undefined) fail(route, "it has no tool name: give config: { mcp: { name: 'get_user' } }, or a schema.operationId (which config: { mcp: true } uses)")
    const { input, placements } = inputSchemaOf(route, given)
    const output = outputSchemaOf(route)
    const hasBody = schema.body !== undefined
    let tool: CompiledTool | undefined
    const definition: ToolDefinition = {
      name: name as string,
      input,
      execute: executor(app, route, route.method, placements, hasBody, requestIdHeader, () => tool!)
    }
    const description = given.description ?? schema.description ?? schema.summary
    if (description !== undefined) definition.description = description as string
    const annotations = annotationsOf(route.method, given.annotations)
    if (annotations !== undefined) definition.annotations = annotations
    for (const key of ['title', 'icons', 'meta', 'ttl', 'scope', 'authentication', 'config'] as const) {
      if (given[key] !== undefined) (definition as unknown as Record<string, unknown>)[key] = given[key]
    }
    if (output !== undefined) definition.output = output as ToolDefinition['output']
    try {
      tool = registry.addTool(definition)
    } catch (err) {
      if (err instanceof SakeError) err.message = `route '${where(route)}': ${err.message}`
      throw err
    }
    exposed.add(config!)
    route.config = { ...config, [kRouteTool]: tool } as typeof route.config
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    route.onRequest = [onRouteCall, ...own] as typeof route.onRequest
  })
}
