/**
 * Who may call what: the `scope` (tools, resources, prompts) and `authentication` (tools) of a
 * definition, checked at registration, and the per-request check against the verified caller.
 * Transport-neutral: the HTTP edge calls `authorize` and sends the error it throws.
 */
import type { AuthInfo } from '../protocol/auth-info.js'
import { findResource } from '../protocol/methods/resources.js'
import { isObject } from '../define/resource.js'
import type { Registry } from '../registry.js'
import { insufficientAuthentication, insufficientScope, type StepUp } from './challenge.js'
import { isScopeToken } from './options.js'

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

/** The tool, resource or prompt a request targets, with how to name it; undefined when none (or unknown: the method says so). */
function targetOf (registry: Registry, method: string, params: Record<string, unknown>): { item: object, what: string } | undefined {
  switch (method) {
    case 'tools/call': {
      const tool = typeof params.name === 'string' ? registry.tools.get(params.name) : undefined
      return tool === undefined ? undefined : { item: tool, what: `tool '${tool.name}'` }
    }
    case 'resources/read':
    case 'resources/subscribe': {
      const found = typeof params.uri === 'string' ? findResource(registry, params.uri) : undefined
      return found === undefined ? undefined : { item: found.resource, what: `resource '${params.uri as string}'` }
    }
    case 'prompts/get': {
      const prompt = typeof params.name === 'string' ? registry.prompts.get(params.name) : undefined
      return prompt === undefined ? undefined : { item: prompt, what: `prompt '${prompt.name}'` }
    }
    case 'completion/complete': {
      const ref = params.ref
      if (!isObject(ref)) return undefined
      if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
        const prompt = registry.prompts.get(ref.name)
        return prompt === undefined ? undefined : { item: prompt, what: `prompt '${prompt.name}'` }
      }
      const template = ref.type === 'ref/resource' && typeof ref.uri === 'string' ? registry.templates.get(ref.uri) : undefined
      return template === undefined ? undefined : { item: template, what: `resource template '${template.key}'` }
    }
  }
  return undefined
}

/** The scopes the tool, resource or prompt named by `Mcp-Method` / `Mcp-Name` needs: a hint for a 401's challenge, never a decision. */
export function scopesFor (registry: Registry, method: string, name: string): readonly string[] | undefined {
  const target = targetOf(registry, method, { name, uri: name })
  return target === undefined ? undefined : registry.access.get(target.item)?.scopes
}

/**
 * Throws the 403 (a scope the token lacks) or 401 (a sign-in too weak or too old) for a request
 * the caller may not make. Scopes come first: a client re-authorizing for them may well satisfy
 * the step-up in the same sign-in. The challenge names every scope the operation needs, held or
 * not: the 2025-11-25 text asks for that, and the 2026-07-28 text allows it.
 */
export function authorize (registry: Registry, metadataUrl: string, method: string, params: Record<string, unknown> | undefined, caller: AuthInfo, now = Date.now() / 1000): void {
  const target = targetOf(registry, method, params ?? {})
  const requirement = target === undefined ? undefined : registry.access.get(target.item)
  if (requirement === undefined) return
  if (!allows(requirement, caller.scopes)) throw insufficientScope(metadataUrl, requirement.scopes, target!.what)
  const stepUp = requirement.stepUp
  if (stepUp === undefined) return
  const acrOk = stepUp.acr === undefined || (caller.acr !== undefined && stepUp.acr.includes(caller.acr))
  const ageOk = stepUp.maxAge === undefined || (caller.authTime !== undefined && now - caller.authTime <= stepUp.maxAge)
  if (!acrOk || !ageOk) throw insufficientAuthentication(metadataUrl, stepUp, target!.what)
}
