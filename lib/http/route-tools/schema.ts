/**
 * What `config.mcp` says (`McpRouteConfig`), and a route tool's schemas, read from the route's own: its input is the route's `params`,
 * `querystring` and object `body` merged into one object of arguments (with where each argument goes
 * back in the request), its output the 2xx response schema, its hints the HTTP method's. Whatever
 * cannot become a tool is refused with a `SakeRouteToolError` naming the route.
 */
import type { RouteOptions } from 'fastify'
import { Type } from '@sinclair/typebox'
import { SakeRouteToolError } from '../../errors.js'
import { isObject, isTypeBox, kind } from '../../values.js'
import { jsonSchemaOf, schemaKind } from '../../define/schemas.js'
import type { McpConfig } from '../../define/config.js'
import type { ToolAnnotations } from '../../define/tool-definition.js'
import type { Authentication, ScopeRequirement } from '../../define/requirement.js'
import type { Icon } from '../../define/content.js'

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
  /** Your own settings, read by hooks on `request.mcp.config` (as a tool's `config`; its keys typed by augmenting `McpConfig`). */
  config?: McpConfig
}

export const PARTS = ['params', 'querystring', 'body'] as const
export type Part = typeof PARTS[number]

/** Where each tool argument goes in the request. */
export interface Placement { readonly part: Part, readonly field: string }

export function where (route: RouteOptions): string {
  return `${String(route.method)} ${route.url}`
}

export function fail (route: RouteOptions, message: string): never {
  throw new SakeRouteToolError(`route '${where(route)}': ${message}`)
}

/** The object schema of one part, or undefined; refuses what cannot become tool arguments. */
function partSchema (route: RouteOptions, part: Part, raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined
  let schema = exported(route, `its ${part} schema`, raw, 'input')
  if (part === 'body' && isObject(schema) && isObject(schema.content)) {
    // Fastify's per-content-type bodies: only a JSON one can be tool arguments
    const types = Object.keys(schema.content)
    const json = (schema.content as Record<string, unknown>)['application/json']
    if (types.length !== 1 || !isObject(json) || json.schema === undefined) {
      fail(route, `its body schema is per content type (${types.join(', ')}); an MCP call sends JSON arguments, so give the route one application/json body schema (a multipart or other body cannot be a tool)`)
    }
    schema = exported(route, `its ${part} schema`, json.schema, 'input')
  }
  if (!isObject(schema)) fail(route, `its ${part} schema must be a JSON Schema object, got ${kind(schema)}`)
  if (schema.type !== 'object' || '$ref' in schema || 'oneOf' in schema || 'anyOf' in schema || 'allOf' in schema) {
    const what = schema.type !== 'object' ? `type ${JSON.stringify(schema.type ?? 'unspecified')}` : 'a $ref or a oneOf/anyOf/allOf at its root'
    fail(route, `its ${part} schema is ${what}; a tool's arguments are one object, merged from the params, querystring and body objects' properties: give the route an object ${part} schema with 'properties' (a route whose ${part} is not such an object cannot be a tool)`)
  }
  return schema
}

/**
 * A route's schema as JSON Schema: a type provider's Standard Schema (fastify-type-provider-zod's
 * Zod) through its library's export; anything else as it is (TypeBox is JSON Schema already).
 */
function exported (route: RouteOptions, what: string, schema: unknown, side: 'input' | 'output'): unknown {
  if (schemaKind(schema) !== 'standard') return schema
  return jsonSchemaOf(schema, side, (message) => fail(route, `${what} ${message}`))
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
export function inputSchemaOf (route: RouteOptions, mcp: McpRouteConfig): { input: Record<string, unknown>, placements: Map<string, Placement> } {
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
export function outputSchemaOf (route: RouteOptions): unknown {
  const response = (route.schema as Record<string, unknown> | undefined)?.response
  if (!isObject(response)) return undefined
  const keys = Object.keys(response)
  const key = ['200', '201', '2xx'].find((code) => keys.includes(code)) ?? keys.find((code) => /^2\d\d$/.test(code))
  if (key === undefined) return undefined
  let schema = exported(route, `its ${key} response schema`, response[key], 'output')
  if (isObject(schema) && isObject(schema.content)) {
    const json = (schema.content as Record<string, unknown>)['application/json']
    if (!isObject(json) || json.schema === undefined) return undefined // a text or binary answer: no structured output
    schema = exported(route, `its ${key} response schema`, json.schema, 'output')
  }
  if (!isObject(schema)) fail(route, `its ${key} response schema must be a JSON Schema object, got ${kind(schema)}`)
  return isTypeBox(schema) ? schema : Type.Unsafe(schema as Record<string, unknown>)
}

/** The hints the HTTP method implies (RFC 9110's safe and idempotent methods), under the route's own. */
export function annotationsOf (method: string, annotations: ToolAnnotations | undefined): ToolAnnotations | undefined {
  const implied: ToolAnnotations = method === 'GET' || method === 'HEAD'
    ? { readOnly: true }
    : method === 'DELETE' ? { destructive: true } : method === 'PUT' ? { idempotent: true } : {}
  if (annotations !== undefined && !isObject(annotations)) return annotations // compileTool says what is wrong
  const merged = { ...implied, ...annotations }
  return Object.keys(merged).length === 0 ? undefined : merged
}
