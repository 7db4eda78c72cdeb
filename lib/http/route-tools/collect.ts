/**
 * The host's own Fastify routes as MCP tools (`config: { mcp: { name, scope, … } }` on a route).
 *
 * An `onRoute` hook, added where the plugin is registered (fastify-plugin: that context and every
 * context created after it), reads each route's `config.mcp` as it is declared and compiles the
 * route into the same registry item `registerTool` makes: its input schema is the route's
 * `params`, `querystring` and object `body` merged, its output schema the 2xx response schema
 * (`schema.ts`), its scopes and step-up read as a tool's are. A call runs the route itself with
 * `app.inject`, so the host's hooks, auth, validation, serializers and error handler run as they do
 * for an HTTP client; the response becomes the tool's result (`run.ts`).
 */
import type { FastifyInstance } from 'fastify'
import { SakeError } from '../../errors.js'
import { isObject, kind } from '../../values.js'
import type { Registry } from '../../define/registry.js'
import type { CompiledTool } from '../../define/tool.js'
import type { ToolDefinition } from '../../define/tool-definition.js'
import { executor, kRouteTool, onRouteCall } from './run.js'
import { annotationsOf, fail, inputSchemaOf, outputSchemaOf, where, type McpRouteConfig } from './schema.js'

const KNOWN_KEYS = new Set(['name', 'title', 'description', 'icons', 'annotations', 'meta', 'ttl', 'scope', 'authentication', 'header', 'rename', 'config'])

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
