/**
 * What a request names (its method's `target` in `spec/methods.ts`): a tool, a resource, a prompt,
 * or the prompt, resource template or tool a completion refers to; how it is written in messages, and
 * what it demands of the caller. Looked up once, when the message is classified (`inbound.ts`),
 * and carried on the call (`call.target`): the header checks, authorization, the streaming
 * decision and the method all use that one answer.
 */
import type { Requirement } from '../define/requirement.js'
import type { CompiledPrompt } from '../define/prompt.js'
import type { FoundResource } from '../define/registry.js'
import type { FoundDirectory, InSkill } from '../define/skill-directories.js'
import type { CompiledSkill } from '../define/skill.js'
import type { CompiledResource } from '../define/resource.js'
import type { CompiledTool } from '../define/tool.js'

/**
 * A tool, a prompt, a resource found by URI, a resource template (a completion's `ref/resource`), a
 * skill, a skill's folder, or a URI inside a skill's folder that names nothing there (authorized as
 * the skill is, then answered as not found).
 */
export type Target = CompiledTool | CompiledPrompt | FoundResource | CompiledResource | CompiledSkill | FoundDirectory | InSkill

/** The target in a message: `tool 'add'`, `resource 'file:///a'`, `prompt 'review'`, `resource template 'users://{id}'`. */
export function describeTarget (target: Target): string {
  switch (target.kind) {
    case 'tool': return `tool '${target.name}'`
    case 'prompt': return `prompt '${target.name}'`
    case 'found': return `resource '${target.uri}'`
    case 'resource': return `resource template '${target.key}'`
    case 'skill': return `skill '${target.uri}'`
    case 'directory': return `directory '${target.uri}'`
    // named as what was asked for: the refusal is the one a name that exists there gets
    case 'in-skill': return `${target.asked} '${target.uri}'`
  }
}

/** What the target demands of the caller; undefined: nothing. */
export function accessOf (target: Target): Requirement | undefined {
  return target.kind === 'found' ? target.resource.access : target.access
}
