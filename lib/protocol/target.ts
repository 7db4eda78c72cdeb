/**
 * What a request names (its method's `target` in `spec/methods.ts`): a tool, a resource, a prompt,
 * or the prompt or resource template a completion refers to. Looked up once, when the message is
 * classified (`inbound.ts`), and carried on the call (`call.target`): the header checks,
 * authorization, the streaming decision and the method all use that one answer.
 */
import { isObject } from '../values.js'
import type { MethodFacts } from '../spec/methods.js'
import type { Requirement } from '../define/access.js'
import type { CompiledPrompt } from '../define/prompt.js'
import type { FoundResource, Registry } from '../define/registry.js'
import type { CompiledResource } from '../define/resource.js'
import type { CompiledTool } from '../define/tool.js'

/** A tool, a prompt, a resource found by URI, or a resource template (a completion's `ref/resource`). */
export type Target = CompiledTool | CompiledPrompt | FoundResource | CompiledResource

/**
 * The item `params` names for a method with those `facts` (`spec/methods.ts`); undefined when the
 * method names none, or names one that does not exist or not in the right shape (the method itself
 * then answers the precise -32602).
 */
export function targetOf (registry: Registry, facts: MethodFacts | undefined, params: Record<string, unknown> | undefined): Target | undefined {
  if (params === undefined) return undefined
  switch (facts?.target) {
    case 'tool':
      return typeof params.name === 'string' ? registry.tools.get(params.name) : undefined
    case 'prompt':
      return typeof params.name === 'string' ? registry.prompts.get(params.name) : undefined
    case 'resource':
      return typeof params.uri === 'string' ? registry.findResource(params.uri) : undefined
    case 'reference': {
      const ref = params.ref
      if (!isObject(ref)) return undefined
      if (ref.type === 'ref/prompt') return typeof ref.name === 'string' ? registry.prompts.get(ref.name) : undefined
      return ref.type === 'ref/resource' && typeof ref.uri === 'string' ? registry.templates.get(ref.uri) : undefined
    }
  }
  return undefined
}

/** The target in a message: `tool 'add'`, `resource 'file:///a'`, `prompt 'review'`, `resource template 'users://{id}'`. */
export function describeTarget (target: Target): string {
  switch (target.kind) {
    case 'tool': return `tool '${target.name}'`
    case 'prompt': return `prompt '${target.name}'`
    case 'found': return `resource '${target.uri}'`
    case 'resource': return `resource template '${target.key}'`
  }
}

/** What the target demands of the caller; undefined: nothing. */
export function accessOf (target: Target): Requirement | undefined {
  return target.kind === 'found' ? target.resource.access : target.access
}
