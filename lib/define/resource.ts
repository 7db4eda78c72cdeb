/**
 * Resource definitions, fixed (`uri`) or templated (`uriTemplate`): the typed shape users write,
 * the checks run at registration, the compiled form the server lists and reads, and the shaping of
 * what `read` returns into `contents`.
 */
import { SakeResourceDefinitionError } from '../errors.js'
import type { Era } from '../spec/eras.js'
import { deepFreeze, isObject, kind, plain } from '../values.js'
import type { Icon } from './content.js'
import type { McpConfig } from './config.js'
import { checkCommonFields, checkKnownKeys } from './common-fields.js'
import type { CompletionContext, RequestContext } from './handler-context.js'
import { parseUriTemplate, type UriTemplate } from './uri-template.js'
import { requirementOf, type Requirement, type ScopeRequirement } from './requirement.js'
import { APP_MIME_TYPE } from '../spec/apps.js'
import { UI_META_KEYS, UI_TTL, isUiUri, uiMetaOf, type UiResourceMeta } from './apps.js'

/** `audience`, `priority` (0 to 1) and `lastModified` (ISO 8601), as the spec defines them. */
export interface ResourceAnnotations {
  audience?: Array<'user' | 'assistant'>
  priority?: number
  lastModified?: string
}

/** One entry of `contents`: text, or binary data (bytes, or base64 text) sent as a base64 `blob`. */
export type ResourceContents =
  | { text: string, mimeType?: string, uri?: string, _meta?: Record<string, unknown> }
  | { blob: Uint8Array | string, mimeType?: string, uri?: string, _meta?: Record<string, unknown> }

/**
 * What `read` returns: a string (text), bytes (a blob), a contents object, or an array of these.
 * `undefined` or `null` means there is no such resource (for a template: the values name nothing).
 */
export type ResourceReturn = string | Uint8Array | ResourceContents | ReadonlyArray<string | Uint8Array | ResourceContents> | undefined | null

/** What `complete` returns: the values, or the values with the total count and whether more exist. */
export type CompletionReturn = readonly string[] | { values: readonly string[], total?: number, hasMore?: boolean }

interface ResourceBase {
  /** Required; shown to people and models. */
  name: string
  title?: string
  description?: string
  mimeType?: string
  icons?: Icon[]
  annotations?: ResourceAnnotations
  /** Milliseconds a client may cache this resource's `resources/read` and the list pages it is on. */
  ttl?: number
  /** Sent as the resource's `_meta` in lists. */
  meta?: Record<string, unknown>
  /** With `auth` on: the scope (or every one of several) a token must grant to read it. */
  scope?: ScopeRequirement
  /** Your own settings, as a route's `config`: the host's hooks read it on `request.mcp.config`. Never sent. Type its keys by augmenting `McpConfig`. */
  config?: McpConfig
  /**
   * `cacheScope` of its 2026-07-28 `resources/read` results: `'public'` (any cache may share them)
   * or `'private'` (one caller's). Default: `'public'`, `'private'` with `auth` on; a `ui://`
   * resource is `'public'` unless told otherwise.
   */
  cacheScope?: 'public' | 'private'
}

/** The variables of a URI template, by name: `'users://{id}'` gives `{ id: string }`. */
export type TemplateVariables<T extends string> = string extends T
  ? Record<string, string>
  : { [K in VariableNames<T>]: string }

type VariableNames<T extends string> = T extends `${string}{${infer V}}${infer Rest}`
  ? (V extends `+${infer N}` ? N : V) | VariableNames<Rest>
  : never

/**
 * A resource at one URI. A `ui://` URI makes it an MCP App's HTML (`text/html;profile=mcp-app`),
 * with the `_meta.ui` options (`csp`, `permissions`, `domain`, `prefersBorder`), shown only to
 * clients that declared MCP Apps.
 */
export interface FixedResourceDefinition extends ResourceBase, UiResourceMeta {
  uri: string
  uriTemplate?: undefined
  /** Size in bytes, when known. */
  size?: number
  read (uri: string, vars: Record<string, never>, ctx: RequestContext): ResourceReturn | Promise<ResourceReturn>
  complete?: undefined
}

/** A family of resources, read by matching the requested URI against `uriTemplate`. */
export interface TemplateResourceDefinition<T extends string = string> extends ResourceBase {
  uri?: undefined
  /** RFC 6570: `{var}` matches one or more characters other than '/', `{+var}` any. */
  uriTemplate: T
  size?: undefined
  read (uri: string, vars: TemplateVariables<T>, ctx: RequestContext): ResourceReturn | Promise<ResourceReturn>
  /** Suggestions for a variable of the template (`completion/complete`). */
  complete? (variable: string, partial: string, ctx: CompletionContext): CompletionReturn | Promise<CompletionReturn>
}

export type ResourceDefinition<T extends string = string> = FixedResourceDefinition | TemplateResourceDefinition<T>

/** A resource as the server keeps it: checked, with its list entry built once. */
export interface CompiledResource {
  readonly kind: 'resource'
  /** The URI, or the template. */
  readonly key: string
  readonly definition: ResourceDefinition
  /** Set for a template. */
  readonly template: UriTemplate | undefined
  /** The `Resource` or `ResourceTemplate` object of the lists, per era (the same in both). */
  readonly wire: Readonly<Record<Era, Record<string, unknown>>>
  readonly ttl: number | undefined
  /** What it demands of the caller (`scope`); undefined: nothing. */
  readonly access: Requirement | undefined
  /** The definition's `config`, as given. */
  readonly config: Readonly<McpConfig> | undefined
  /** The `cacheScope` it asks for; undefined: the default (public, private with auth on). */
  readonly cacheScope: 'public' | 'private' | undefined
  /**
   * Set for a UI resource (`ui://`): its `_meta.ui`, put on the list entry (in `wire`) and on
   * every content item of a read, for clients that declared MCP Apps. Other clients get neither,
   * and lists do not show them the resource (`withoutApps: null`).
   */
  readonly ui: { readonly meta: Readonly<UiResourceMeta> | undefined } | undefined
  /** The list entry for a client without MCP Apps: null, not listed; undefined, the same as `wire`. */
  readonly withoutApps: null | undefined
  /** Set on a skill's `SKILL.md` (`skill.ts`): never listed to a caller its scope does not allow. */
  readonly skill?: true
}

const KNOWN_KEYS = ['uri', 'uriTemplate', 'name', 'title', 'description', 'mimeType', 'icons', 'size', 'annotations', 'ttl', 'meta', 'read', 'complete', 'scope', 'config', 'cacheScope', ...UI_META_KEYS]
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/

function fail (who: string, message: string): never {
  throw new SakeResourceDefinitionError(`${who}: ${message}`)
}

/** Checks `{ audience, priority, lastModified }`; returns the problem, or undefined. */
export function annotationsProblem (annotations: unknown): string | undefined {
  if (!isObject(annotations)) return `'annotations' must be an object { audience?, priority?, lastModified? }, got ${kind(annotations)}`
  for (const [key, value] of Object.entries(annotations)) {
    if (value === undefined) continue
    if (key === 'audience') {
      if (!Array.isArray(value) || !value.every((who) => who === 'user' || who === 'assistant')) return "'annotations.audience' must be an array of 'user' and 'assistant'"
    } else if (key === 'priority') {
      if (typeof value !== 'number' || !(value >= 0 && value <= 1)) return `'annotations.priority' must be a number from 0 to 1, got ${JSON.stringify(value)}`
    } else if (key === 'lastModified') {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) return `'annotations.lastModified' must be an ISO 8601 timestamp such as "2025-01-12T15:00:58Z", got ${JSON.stringify(value)}`
    } else {
      return `unknown annotation '${key}'; known annotations are audience, priority, lastModified`
    }
  }
  return undefined
}

function checkCommon (def: Record<string, unknown>, who: string): void {
  const failHere = (message: string): never => fail(who, message)
  checkKnownKeys(def, KNOWN_KEYS, failHere)
  if (typeof def.name !== 'string' || def.name.length === 0) fail(who, `'name' is required: a non-empty string, got ${JSON.stringify(def.name) ?? 'nothing'}`)
  checkCommonFields(def, '_meta', failHere)
  if (def.mimeType !== undefined && typeof def.mimeType !== 'string') fail(who, `'mimeType' must be a string, got ${kind(def.mimeType)}`)
  if (typeof def.read !== 'function') fail(who, `'read' must be a function (uri, vars, ctx) => contents, got ${kind(def.read)}`)
  if (def.annotations !== undefined) {
    const problem = annotationsProblem(def.annotations)
    if (problem !== undefined) fail(who, problem)
  }
  if (def.cacheScope !== undefined && def.cacheScope !== 'public' && def.cacheScope !== 'private') fail(who, `'cacheScope' must be 'public' or 'private', got ${JSON.stringify(def.cacheScope) ?? kind(def.cacheScope)}`)
}

/**
 * The checks of a UI resource (`ui://`, reserved for MCP Apps): its type is the extension's, its
 * `_meta.ui` comes from the options (so it reaches only the clients that declared the extension).
 * Returns the `_meta.ui`; the `_meta.ui` options anywhere but on a `ui://` URI are refused.
 */
function uiOf (raw: Record<string, unknown>, who: string): CompiledResource['ui'] {
  const given = UI_META_KEYS.filter((key) => raw[key] !== undefined)
  if (!isUiUri(raw.uri)) {
    if (given.length > 0) fail(who, `'${given[0]!}' is MCP Apps metadata, for a UI resource: give the resource a ui:// URI, or leave it out`)
    return undefined
  }
  if (raw.mimeType !== undefined && raw.mimeType !== APP_MIME_TYPE) fail(who, `a ui:// resource is an MCP App's HTML: its 'mimeType' is ${JSON.stringify(APP_MIME_TYPE)} (the default), got ${JSON.stringify(raw.mimeType)}`)
  if (isObject(raw.meta) && (raw.meta.ui !== undefined)) fail(who, "give the app's _meta.ui as the options csp, permissions, domain and prefersBorder, not in 'meta': they are sent only to clients that declared MCP Apps")
  const meta = uiMetaOf(raw, (message) => fail(who, message))
  // checked above to be strings, booleans, arrays of strings and empty objects: a JSON copy is exact
  return Object.freeze({ meta: meta === undefined ? undefined : deepFreeze(JSON.parse(JSON.stringify(meta)) as UiResourceMeta) })
}

/**
 * Checks a definition and compiles it. Throws `SakeResourceDefinitionError` with a message naming
 * the resource and what to change. `scopes`: the declared scopes its `scope` must come from.
 */
export function compileResource (def: ResourceDefinition, scopes: ReadonlyMap<string, string> = new Map()): CompiledResource {
  if (!isObject(def)) throw new SakeResourceDefinitionError(`a resource definition must be an object, got ${kind(def)}`)
  const raw = def as unknown as Record<string, unknown>
  const hasUri = raw.uri !== undefined
  const hasTemplate = raw.uriTemplate !== undefined
  const who = hasUri ? `resource '${String(raw.uri)}'` : hasTemplate ? `resource template '${String(raw.uriTemplate)}'` : `resource '${String(raw.name)}'`
  if (hasUri === hasTemplate) fail(who, "give exactly one of 'uri' (a fixed resource) or 'uriTemplate' (a family of resources, RFC 6570)")
  checkCommon(raw, who)

  let template: UriTemplate | undefined
  if (hasUri) {
    if (typeof raw.uri !== 'string' || !SCHEME.test(raw.uri)) fail(who, `'uri' must be an absolute URI with a scheme, such as "file:///notes.md" or "config://app", got ${JSON.stringify(raw.uri)}`)
    if (raw.complete !== undefined) fail(who, "'complete' completes the variables of a 'uriTemplate'; a fixed resource has none")
    if (raw.size !== undefined && !(typeof raw.size === 'number' && Number.isInteger(raw.size) && raw.size >= 0)) fail(who, `'size' must be a non-negative integer (bytes), got ${JSON.stringify(raw.size) ?? kind(raw.size)}`)
  } else {
    if (typeof raw.uriTemplate !== 'string' || !SCHEME.test(raw.uriTemplate)) fail(who, `'uriTemplate' must be a URI template with a scheme, such as "users://{id}/profile", got ${JSON.stringify(raw.uriTemplate)}`)
    const parsed = parseUriTemplate(raw.uriTemplate)
    if (typeof parsed === 'string') fail(who, `'uriTemplate' ${parsed}`)
    if (parsed.variables.length === 0) fail(who, "'uriTemplate' has no {variable}; use 'uri' for a fixed resource")
    template = parsed
    if (raw.size !== undefined) fail(who, "'size' belongs to a fixed resource ('uri'); a template names many")
    if (raw.complete !== undefined && typeof raw.complete !== 'function') fail(who, `'complete' must be a function (variable, partial, ctx) => values, got ${kind(raw.complete)}`)
  }

  const ui = uiOf(raw, who)
  const wire: Record<string, unknown> = hasUri ? { uri: raw.uri } : { uriTemplate: raw.uriTemplate }
  wire.name = raw.name
  for (const key of ['title', 'description', 'mimeType', 'icons', 'size', 'annotations'] as const) {
    if (raw[key] !== undefined) wire[key] = raw[key]
  }
  if (ui !== undefined) wire.mimeType = APP_MIME_TYPE
  if (raw.meta !== undefined) wire._meta = raw.meta
  // the draft extension puts _meta.ui on the list entry too, for hosts to review before reading
  if (ui?.meta !== undefined) wire._meta = { ...(raw.meta as Record<string, unknown> | undefined), ui: ui.meta }
  const copy = deepFreeze(plain(wire, (message) => fail(who, `its definition cannot be sent as JSON: ${message}`)))
  const access = requirementOf(raw, scopes, (message) => fail(who, message))
  return Object.freeze({
    kind: 'resource' as const,
    key: (hasUri ? raw.uri : raw.uriTemplate) as string,
    definition: def as ResourceDefinition,
    template,
    wire: Object.freeze({ modern: copy, legacy: copy }),
    // an app's HTML changes with a deploy, not with the data: a long default (SEP-2549's advice)
    ttl: (raw.ttl as number | undefined) ?? (ui === undefined ? undefined : UI_TTL),
    access,
    config: raw.config as McpConfig | undefined,
    // an app is the same for everyone, so public; unless it needs a scope, which a shared cache cannot check
    cacheScope: (raw.cacheScope as 'public' | 'private' | undefined) ?? (ui === undefined || access !== undefined ? undefined : 'public'),
    ui,
    withoutApps: ui === undefined ? undefined : null
  })
}

/** Base64 of bytes; a string is taken as base64 already. */
function base64 (data: Uint8Array | string): string {
  return typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64')
}

/**
 * Turns what `read` returned into `contents`; throws a TypeError naming the problem when it is not
 * a shape we know (the caller logs it and answers -32603).
 */
export function shapeContents (returned: unknown, uri: string, mimeType: string | undefined): Array<Record<string, unknown>> {
  const items = Array.isArray(returned) ? returned : [returned]
  return items.map((item, i) => {
    const at = Array.isArray(returned) ? `item ${i}` : 'the value'
    const out: Record<string, unknown> = { uri }
    if (mimeType !== undefined) out.mimeType = mimeType
    if (typeof item === 'string') {
      out.text = item
    } else if (item instanceof Uint8Array) {
      out.blob = base64(item)
    } else if (isObject(item) && (typeof item.text === 'string') !== (item.blob instanceof Uint8Array || typeof item.blob === 'string')) {
      if (item.uri !== undefined) {
        if (typeof item.uri !== 'string') throw new TypeError(`${at}: 'uri' must be a string`)
        out.uri = item.uri
      }
      if (item.mimeType !== undefined) {
        if (typeof item.mimeType !== 'string') throw new TypeError(`${at}: 'mimeType' must be a string`)
        out.mimeType = item.mimeType
      }
      if (typeof item.text === 'string') out.text = item.text
      else out.blob = base64(item.blob as Uint8Array | string)
      if (item._meta !== undefined) {
        if (!isObject(item._meta)) throw new TypeError(`${at}: '_meta' must be an object`)
        out._meta = item._meta
      }
    } else {
      throw new TypeError(`${at} is ${kind(item)}; read() returns a string, bytes, { text } or { blob }, or an array of them`)
    }
    return out
  })
}

/**
 * Declares a resource or a resource template in its own module, for `registerResource` or the
 * `resources` option; a template's `read` gets its variables typed.
 * @example
 * export const profile = defineResource({
 *   uriTemplate: 'users://{id}/profile',
 *   name: 'User profile',
 *   read: (uri, { id }) => JSON.stringify(users.get(id))
 * })
 */
export function defineResource<const T extends string> (def: TemplateResourceDefinition<T>): ResourceDefinition
export function defineResource (def: FixedResourceDefinition): ResourceDefinition
export function defineResource (def: ResourceDefinition): ResourceDefinition {
  return def
}
