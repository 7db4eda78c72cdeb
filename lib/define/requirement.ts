/**
 * What a tool, resource or prompt demands of its caller: `scope` (all three) and `authentication`
 * (tools), checked at registration and kept on the compiled item. The per-request check against
 * the verified caller is the protocol's (`protocol/access-check.ts`).
 */
import { isScopeToken } from '../checks.js'
import { isObject } from '../values.js'

/** What a step-up check asks for: accepted `acr` values and the oldest sign-in accepted (seconds). */
export interface StepUp {
  readonly acr?: readonly string[] | undefined
  readonly maxAge?: number | undefined
}

/** What a tool, resource or prompt demands of the caller. */
export interface Requirement {
  /** Every one of these scopes (a tool with two scopes needs both). */
  readonly scopes: readonly string[]
  /** Tools only: how recently and how strongly the person must have signed in. */
  readonly stepUp: StepUp | undefined
}

/** `authentication: { acr: ['mfa'], maxAge: 300 }` on a tool (RFC 9470's `acr_values` and `max_age`). */
export interface Authentication {
  /** Accepted authentication context classes (the token's `acr` must be one of them). */
  acr?: readonly string[]
  /** Seconds since the person signed in (the token's `auth_time`) beyond which the call is refused. */
  maxAge?: number
}

/** One scope or several: every one is required. */
export type ScopeRequirement = string | readonly string[]

const AUTHENTICATION_KEYS = new Set(['acr', 'maxAge'])

function checkStepUp (value: unknown, fail: (message: string) => never): StepUp {
  if (!isObject(value)) fail(`'authentication' must be an object { acr?: string[], maxAge?: seconds }, such as { acr: ['mfa'], maxAge: 300 }, got ${JSON.stringify(value)}`)
  for (const key of Object.keys(value)) {
    if (!AUTHENTICATION_KEYS.has(key)) fail(`unknown option 'authentication.${key}'; known options are acr, maxAge`)
  }
  const { acr, maxAge } = value
  if (acr === undefined && maxAge === undefined) fail("'authentication' needs 'acr', 'maxAge' or both")
  if (acr !== undefined && (!Array.isArray(acr) || acr.length === 0 || !acr.every(isScopeToken))) {
    fail(`'authentication.acr' must be a non-empty array of acr values (printable ASCII without spaces, '"' or '\\'), got ${JSON.stringify(acr)}`)
  }
  if (maxAge !== undefined && (typeof maxAge !== 'number' || !Number.isInteger(maxAge) || maxAge < 0)) {
    fail(`'authentication.maxAge' must be a non-negative integer (seconds since sign-in), got ${JSON.stringify(maxAge)}`)
  }
  return Object.freeze({ acr: acr === undefined ? undefined : Object.freeze([...acr as string[]]), maxAge: maxAge as number | undefined })
}

/**
 * Reads a definition's `scope` and (where allowed) `authentication`; undefined when it has
 * neither. A scope must be one the plugin's `scopes` option declares: a typo would otherwise lock
 * everyone out, or a consent page would never show the scope.
 */
export function requirementOf (definition: { scope?: unknown, authentication?: unknown }, declared: ReadonlyMap<string, string>, fail: (message: string) => never): Requirement | undefined {
  const { scope, authentication } = definition
  if (scope === undefined && authentication === undefined) return undefined
  let scopes: string[] = []
  if (scope !== undefined) {
    const list = typeof scope === 'string' ? [scope] : scope
    if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string')) {
      fail(`'scope' must be a scope name or a non-empty array of them, such as 'issues:read', got ${JSON.stringify(scope)}`)
    }
    for (const item of list as string[]) {
      if (!declared.has(item)) {
        fail(`scope '${item}' is not declared; declare it in the plugin's scopes option, such as scopes: { '${item}': 'What it allows' }${declared.size > 0 ? ` (declared: ${[...declared.keys()].join(', ')})` : ''}`)
      }
    }
    scopes = [...new Set(list as string[])]
  }
  return Object.freeze({ scopes: Object.freeze(scopes), stepUp: authentication === undefined ? undefined : checkStepUp(authentication, fail) })
}

/** Whether a caller holding `held` scopes may use an item with this requirement (scopes only: step-up is per call). */
export function allows (requirement: Requirement | undefined, held: readonly string[]): boolean {
  return requirement === undefined || requirement.scopes.every((scope) => held.includes(scope))
}
