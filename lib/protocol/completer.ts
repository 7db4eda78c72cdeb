/**
 * What completes the arguments of a target (a tool, a prompt, a resource template): its `complete`
 * callback, the names it completes, and the checks and cap on what the callback returns. Two
 * places ask: `completion/complete` (`methods/completion.ts`), and a form that offers a handler's
 * own values (`ctx.elicit.form(..., { complete })`, `call-context.ts`).
 */
import { MAX_COMPLETION_VALUES } from '../spec/completion.js'
import { isObject } from '../values.js'
import type { CompletionContext } from '../define/handler-context.js'
import type { CompletionReturn } from '../define/resource.js'
import { describeTarget, type Target } from './target.js'

type Complete = (argument: string, partial: string, ctx: CompletionContext) => CompletionReturn | Promise<CompletionReturn>

export interface Completer {
  /** The target in messages: `tool 'deploy'`, `prompt 'review'`, `resource template 'users://{id}'`. */
  readonly what: string
  /** The names it has: a tool's or a prompt's arguments, a template's variables (a fixed resource: none). */
  readonly names: readonly string[]
  /** The callback, bound to its definition; undefined when the target has none (its answers are empty). */
  readonly complete: Complete | undefined
}

/** A completion's answer: `completion` of a `CompleteResult`. */
export interface Completion {
  values: string[]
  total?: number
  hasMore?: boolean
}

function bound (definition: { complete?: Complete }): Complete | undefined {
  return definition.complete?.bind(definition)
}

/** The completer of a target the edge found. */
export function completerOf (target: Target): Completer {
  const what = describeTarget(target)
  if (target.kind === 'tool' || target.kind === 'prompt') return { what, names: target.arguments, complete: bound(target.definition) }
  // a skill, its folder or a name inside it: nothing of theirs has arguments to complete
  if (target.kind === 'skill' || target.kind === 'directory' || target.kind === 'in-skill') return { what, names: [], complete: undefined }
  // a template (a completion's ref/resource), or the resource a read found (fixed: no variables)
  const resource = target.kind === 'found' ? target.resource : target
  return { what, names: resource.template?.variables ?? [], complete: bound(resource.definition as { complete?: Complete }) }
}

/**
 * Checks what a callback returned and caps it at the spec's 100 values (then `hasMore`, and the
 * count as `total` unless one was given). Throws a TypeError naming the mistake.
 */
export function completionOf (returned: unknown): Completion {
  const body = Array.isArray(returned) ? { values: returned } : returned
  if (!isObject(body) || !Array.isArray(body.values) || !body.values.every((value) => typeof value === 'string')) {
    throw new TypeError('complete() must return an array of strings or { values, total?, hasMore? }')
  }
  if (body.total !== undefined && !(Number.isInteger(body.total) && (body.total as number) >= 0)) throw new TypeError("complete()'s 'total' must be a non-negative integer")
  if (body.hasMore !== undefined && typeof body.hasMore !== 'boolean') throw new TypeError("complete()'s 'hasMore' must be a boolean")
  const values = body.values as string[]
  const out: Completion = { values: values.slice(0, MAX_COMPLETION_VALUES) }
  if (values.length > MAX_COMPLETION_VALUES) {
    out.total = (body.total as number | undefined) ?? values.length
    out.hasMore = true
  } else {
    if (body.total !== undefined) out.total = body.total as number
    if (body.hasMore !== undefined) out.hasMore = body.hasMore
  }
  return out
}

/**
 * The values when they are the whole list (some, no `hasMore`, no `total` above them): what a form
 * may offer as its only choices. A partial list gives undefined: the person may need another value.
 */
export function wholeList (completion: Completion): string[] | undefined {
  const { values, total, hasMore } = completion
  if (values.length === 0 || hasMore === true || (total !== undefined && total > values.length)) return undefined
  return values
}
