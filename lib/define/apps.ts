/**
 * MCP Apps in definitions: a tool's `ui` (the app the host shows with its result) and
 * `visibility`, a UI resource's `_meta.ui` (csp, permissions, domain, prefersBorder), their checks,
 * and the resource definition an inline `ui` registers. The wire rules are in `spec/apps.ts`.
 */
import { APP_MIME_TYPE, UI_SCHEME } from '../spec/apps.js'
import { isObject, kind } from '../values.js'
import type { RequestContext } from './handler-context.js'

/** Origins an app may reach, each list mapping to CSP directives the host builds (empty: none). */
export interface UiCsp {
  /** `connect-src`: fetch, XHR, WebSocket. */
  connectDomains?: string[]
  /** `img-src`, `script-src`, `style-src`, `font-src`, `media-src`. */
  resourceDomains?: string[]
  /** `frame-src`: nested iframes. */
  frameDomains?: string[]
  /** `base-uri`. */
  baseUriDomains?: string[]
}

/** Browser features the app asks for (the host may grant them as the iframe's `allow`). */
export interface UiPermissions {
  camera?: Record<string, never>
  microphone?: Record<string, never>
  geolocation?: Record<string, never>
  clipboardWrite?: Record<string, never>
}

/** A UI resource's `_meta.ui`: how the host should sandbox and frame the app. */
export interface UiResourceMeta {
  csp?: UiCsp
  permissions?: UiPermissions
  /** A dedicated sandbox origin; its format is the host's (see the host's documentation). */
  domain?: string
  /** Whether the host should draw a border and background around the app. */
  prefersBorder?: boolean
}

/** Who may call a tool: the model (the agent), the app of this server, or both (the default). */
export type Visibility = 'model' | 'app'

/**
 * A tool's app given in place: registers the `ui://` resource for you. `html` (the document) or
 * `read` (which returns it, e.g. from a file), and the resource's `_meta.ui`.
 */
export interface InlineUi extends UiResourceMeta {
  /** A `ui://` URI, unique among the server's resources. */
  uri: string
  /** The resource's name (default: the URI). */
  name?: string
  title?: string
  description?: string
  /** The app: a whole HTML5 document (`<!doctype html>…`). */
  html?: string
  /** Returns the app's HTML (a string), read on every `resources/read`. */
  read?: (uri: string, vars: Record<string, never>, ctx: RequestContext) => string | Uint8Array | Promise<string | Uint8Array>
  /** Milliseconds a client may cache the HTML (default: a day). */
  ttl?: number
  /** `'public'` (the default: the same HTML for everyone) or `'private'` (it embeds per-user data). */
  cacheScope?: 'public' | 'private'
}

/** How long a client may cache a UI resource by default: a day (its HTML changes with a deploy). */
export const UI_TTL = 86_400_000

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains']
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite']
/** The keys of `_meta.ui` on a UI resource. */
export const UI_META_KEYS = ['csp', 'permissions', 'domain', 'prefersBorder'] as const
const INLINE_KEYS = new Set(['uri', 'name', 'title', 'description', 'html', 'read', 'ttl', 'cacheScope', ...UI_META_KEYS])

/** Why `value` is not a valid value of `_meta.ui`'s key `key`, or undefined when it is. */
export function uiMetaProblem (key: typeof UI_META_KEYS[number], value: unknown): string | undefined {
  switch (key) {
    case 'csp':
      if (!isObject(value)) return `'csp' must be an object { connectDomains?, resourceDomains?, frameDomains?, baseUriDomains? }, got ${kind(value)}`
      for (const [name, list] of Object.entries(value)) {
        if (!CSP_KEYS.includes(name)) return `unknown 'csp' key '${name}'; known keys are ${CSP_KEYS.join(', ')}`
        if (list !== undefined && !(Array.isArray(list) && list.every((origin) => typeof origin === 'string' && origin !== ''))) {
          return `'csp.${name}' must be an array of origins such as "https://api.example.com", got ${kind(list)}`
        }
      }
      return undefined
    case 'permissions':
      if (!isObject(value)) return `'permissions' must be an object such as { camera: {} }, got ${kind(value)}`
      for (const [name, granted] of Object.entries(value)) {
        if (!PERMISSIONS.includes(name)) return `unknown permission '${name}'; known permissions are ${PERMISSIONS.join(', ')}`
        if (granted !== undefined && !(isObject(granted) && Object.keys(granted).length === 0)) return `'permissions.${name}' must be {} (asked for) or left out, got ${kind(granted)}`
      }
      return undefined
    case 'domain':
      return typeof value === 'string' && value !== '' ? undefined : `'domain' must be a non-empty string, got ${kind(value)}`
    case 'prefersBorder':
      return typeof value === 'boolean' ? undefined : `'prefersBorder' must be a boolean, got ${kind(value)}`
  }
}

/** The `_meta.ui` of a UI resource from the options that give it; undefined when none does. */
export function uiMetaOf (source: Record<string, unknown>, fail: (message: string) => never): UiResourceMeta | undefined {
  let meta: Record<string, unknown> | undefined
  for (const key of UI_META_KEYS) {
    const value = source[key]
    if (value === undefined) continue
    const problem = uiMetaProblem(key, value)
    if (problem !== undefined) fail(problem)
    meta ??= {}
    meta[key] = value
  }
  return meta
}

/** Whether a URI names a UI resource (`ui://…`). */
export function isUiUri (uri: unknown): uri is string {
  return typeof uri === 'string' && uri.startsWith(UI_SCHEME) && uri.length > UI_SCHEME.length
}

/** The checked `visibility`, `['model', 'app']` when not given. */
export function visibilityOf (value: unknown, fail: (message: string) => never): readonly Visibility[] {
  if (value === undefined) return ['model', 'app']
  if (!Array.isArray(value) || value.length === 0 || !value.every((who) => who === 'model' || who === 'app') || new Set(value).size !== value.length) {
    fail(`'visibility' must be ['model', 'app'] (the default), ['app'] (only the app calls it) or ['model'], got ${JSON.stringify(value) ?? kind(value)}`)
  }
  return Object.freeze([...value] as Visibility[])
}

/** A document an HTML5 parser reads in standards mode starts with its doctype. */
const DOCTYPE = /^\s*<!doctype html/i

/**
 * The resource definition an inline `ui` registers (a `FixedResourceDefinition`; `resource.ts`
 * imports this file, so the type is not named here), or `fail` saying what is wrong. The resource
 * itself is checked as any resource is, when the registry adds it.
 */
export function inlineUiResource (ui: Record<string, unknown>, fail: (message: string) => never): Record<string, unknown> {
  for (const key of Object.keys(ui)) {
    if (!INLINE_KEYS.has(key)) fail(`unknown 'ui' option '${key}'; known options are ${[...INLINE_KEYS].join(', ')}`)
  }
  if (!isUiUri(ui.uri)) fail(`'ui.uri' must be a ui:// URI such as "ui://my-server/dashboard", got ${JSON.stringify(ui.uri) ?? kind(ui.uri)}`)
  const { html, read } = ui
  if ((html === undefined) === (read === undefined)) fail("'ui' needs exactly one of 'html' (the app's HTML document) or 'read' (a function returning it)")
  if (html !== undefined && (typeof html !== 'string' || !DOCTYPE.test(html))) {
    fail(`'ui.html' must be a whole HTML5 document, starting with <!doctype html>, got ${typeof html === 'string' ? JSON.stringify(html.slice(0, 40)) : kind(html)}`)
  }
  if (read !== undefined && typeof read !== 'function') fail(`'ui.read' must be a function (uri, vars, ctx) => html, got ${kind(read)}`)
  const definition: Record<string, unknown> = {
    uri: ui.uri,
    name: ui.name ?? ui.uri,
    mimeType: APP_MIME_TYPE,
    read: read ?? (() => html)
  }
  for (const key of ['title', 'description', 'ttl', 'cacheScope', ...UI_META_KEYS] as const) {
    if (ui[key] !== undefined) definition[key] = ui[key]
  }
  return definition
}
