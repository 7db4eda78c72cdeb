/**
 * The checks of what every definition shares (tools, resources, prompts, and the tools that routes
 * become): its keys, and `title`, `description`, `icons`, `meta`, `ttl` and `config`. One home, so
 * the three kinds accept, refuse and word these alike. Each kind passes its own `fail`, which names
 * the definition and throws the kind's own error class: codes stay per kind.
 */
import { got, unknownKeyProblem } from '../checks.js'
import { isObject, kind } from '../values.js'
import { iconsProblem } from './content.js'

/** Throws the kind's definition error (`SakeToolDefinitionError`...) with the message, naming the definition. */
export type Fail = (message: string) => never

/**
 * Refuses the first key that is not one of `known`, suggesting the one a typo meant: a misspelt
 * optional key would otherwise be ignored, and a misspelt required one reported as missing.
 */
export function checkKnownKeys (def: Record<string, unknown>, known: readonly string[], fail: Fail): void {
  const problem = unknownKeyProblem(def, known)
  if (problem !== undefined) fail(problem)
}

/** A `ttl` that is not one, as its message shows it. */
function shown (value: unknown): string {
  if (typeof value === 'number' || value === null) return String(value) // JSON would show NaN as null
  if (typeof value === 'function' || typeof value === 'symbol') return kind(value) // JSON has no text for these
  return got(value)
}

/**
 * Checks `title`, `description`, `ttl`, `meta`, `config` and `icons` where given. `metaSentAs`
 * says what `meta` becomes on the wire ("the tool's _meta"), for its message.
 */
export function checkCommonFields (def: Record<string, unknown>, metaSentAs: string, fail: Fail): void {
  for (const key of ['title', 'description'] as const) {
    if (def[key] !== undefined && typeof def[key] !== 'string') fail(`'${key}' must be a string, got ${kind(def[key])}`)
  }
  // Number.isInteger is false for anything but a number, so no typeof check is needed
  if (def.ttl !== undefined && !(Number.isInteger(def.ttl) && (def.ttl as number) >= 0)) fail(`'ttl' must be a non-negative integer (milliseconds), got ${shown(def.ttl)}`)
  if (def.meta !== undefined && !isObject(def.meta)) fail(`'meta' must be an object (sent as ${metaSentAs}), got ${kind(def.meta)}`)
  if (def.config !== undefined && !isObject(def.config)) fail(`'config' must be an object (your settings, read by hooks on request.mcp.config), got ${kind(def.config)}`)
  if (def.icons !== undefined) {
    const problem = iconsProblem(def.icons)
    if (problem !== undefined) fail(`'icons' must be an array of { src, mimeType?, sizes?, theme? }: ${problem}`)
  }
}
