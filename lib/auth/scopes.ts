/** `app.mcp.scopes()`: every declared scope, what it is for, and what needs it (for a consent page). */
import type { Requirement } from '../define/requirement.js'
import type { Registry } from '../define/registry.js'

export interface ScopeInfo {
  readonly scope: string
  readonly description: string
  /** Tools that need this scope, by name. */
  readonly tools: readonly string[]
  /** Resources and resource templates that need it, by URI or URI template. */
  readonly resources: readonly string[]
  /** Prompts that need it, by name. */
  readonly prompts: readonly string[]
  /** Skills that need it, by the URI of their `SKILL.md`. */
  readonly skills: readonly string[]
}

/** In declaration order; a scope nothing requires is listed too (a consent page may still show it). */
export function scopeList (registry: Registry, scopes: ReadonlyMap<string, string>): ScopeInfo[] {
  const needing = (items: Iterable<[string, { readonly access: Requirement | undefined }]>, scope: string): string[] =>
    [...items].filter(([, item]) => item.access?.scopes.includes(scope) === true).map(([key]) => key)
  return [...scopes].map(([scope, description]) => Object.freeze({
    scope,
    description,
    tools: Object.freeze(needing(registry.tools, scope)),
    resources: Object.freeze([...needing(registry.resources, scope), ...needing(registry.templates, scope)]),
    prompts: Object.freeze(needing(registry.prompts, scope)),
    skills: Object.freeze(needing(registry.skills, scope))
  }))
}
