/**
 * A route tool's call: the route runs in-process through `app.inject` with the call's arguments put
 * where the route takes them, what may travel from the MCP request (credentials, trace context, the
 * request id), and the route's answer read back as the tool's result. The route's own request
 * knows its call (`request.mcp`, `request.mcpAuth`) by claiming it from the inject's async context.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { STATUS_CODES } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify'
import { isObject } from '../../values.js'
import type { AuthInfo } from '../../spec/types.js'
import { CALL_TOOL } from '../../spec/methods.js'
import { audio, image } from '../../define/content.js'
import type { CompiledTool } from '../../define/tool.js'
import { toolError } from '../../define/result.js'
import type { ToolContext } from '../../define/handler-context.js'
import type { McpRequestInfo } from '../request-info.js'
import type { Part, Placement } from './schema.js'

/** In an exposed route's `config`: the tool it is. */
export const kRouteTool = Symbol('fastify-sake.routeTool')

/** The MCP call a route's request runs for, while `app.inject` runs it. */
interface RouteCall {
  readonly method: string
  readonly info: McpRequestInfo
  readonly auth: AuthInfo | null
  /** The route's request, once it claimed this call (a nested inject from the route claims nothing). */
  request: FastifyRequest | undefined
}

/**
 * The call an `app.inject` of ours runs, in the inject's async context: an inject carries strings,
 * not objects, so the route's request finds its call here. Module-level on purpose: the async
 * context is the process's, and every value in it is one call's own (two servers' calls never
 * share one), so nothing here is shared between servers.
 */
const calls = new AsyncLocalStorage<RouteCall>()
/**
 * The call a route's request claimed, by request: the claim is made once (the first reader, the
 * `request.mcp` getter or the route hook) and must answer the same afterwards, even from a context
 * the inject's storage no longer reaches. Weak: it lives as long as the request.
 */
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

/** The path with its parameters filled in (each value percent-encoded; a wildcard keeps its slashes). */
function pathOf (url: string, params: Record<string, unknown>): string {
  return url
    .replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_all, name: string) => encodeURIComponent(String(params[name])))
    .replace('*', () => encodeURI(String(params['*'])))
}

/** Where a route tool's request comes from when no HTTP request carries the call (stdio): this host. */
const LOCAL = '127.0.0.1'

/**
 * What travels from the MCP request into the route: the credentials, the trace context, the
 * request id. Over stdio nothing does (the caller is `request.mcpAuth`, from the call).
 */
function forwarded (request: FastifyRequest | undefined, requestIdHeader: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  if (request === undefined) return headers
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
export function executor (app: FastifyInstance, route: RouteOptions, method: string, placements: ReadonlyMap<string, Placement>, hasBody: boolean, requestIdHeader: string | undefined, compiled: () => CompiledTool) {
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
    const options: InjectOptions = { method: method as InjectOptions['method'], url, query, headers: forwarded(ctx.request, requestIdHeader), remoteAddress: ctx.request?.ip ?? LOCAL }
    if (hasBody) options.payload = parts.body as Record<string, unknown> as InjectOptions['payload']
    const tool = compiled()
    const info: McpRequestInfo = Object.freeze({
      verified: true,
      era: ctx.era,
      protocolVersion: ctx.protocolVersion,
      method: CALL_TOOL,
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
export function onRouteCall (request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const call = claim(request)
  if (call !== undefined) request.mcpAuth = call.auth
  done()
}
