/** `completion/complete`, for both eras: prompt arguments and resource template variables. */
import { ProtocolError } from '../../errors.js'
import { INTERNAL_ERROR, INVALID_PARAMS } from '../../spec/jsonrpc.js'
import { describe, isObject } from '../../values.js'
import type { CompletionContext } from '../../define/context.js'
import type { CompletionReturn } from '../../define/resource.js'
import type { Call } from '../call.js'
import { FeatureContext } from '../context.js'
import { resultJson } from '../results.js'
import type { ServerContext } from '../server.js'
import type { Target } from '../target.js'
import { promptOf } from './prompts.js'

/** The spec's limit on `values` in one answer. */
export const MAX_VALUES = 100

type Complete = (argument: string, partial: string, ctx: CompletionContext) => CompletionReturn | Promise<CompletionReturn>

/** What arrived, for a message: a string as itself, anything else by its type. */
function got (value: unknown): string {
  if (value === undefined) return 'nothing'
  return typeof value === 'string' ? JSON.stringify(value) : describe(value)
}

function invalid (message: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, `Invalid params: ${message}`)
}

/** What is being completed (the edge looked it up: `found`): the callback (maybe none) and the names it completes. */
function completing (found: Target | undefined, ref: unknown): { what: string, names: readonly string[], complete: Complete | undefined } {
  if (!isObject(ref)) throw invalid(`completion/complete needs "ref", { type: "ref/prompt", name } or { type: "ref/resource", uri }, got ${got(ref)}`)
  if (ref.type === 'ref/prompt') {
    const prompt = promptOf(found, ref.name, 'a ref/prompt')
    return { what: `prompt '${prompt.name}'`, names: prompt.arguments, complete: prompt.definition.complete?.bind(prompt.definition) }
  }
  if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') throw invalid('a ref/resource needs "uri", the resource template, as a string')
    const template = found?.kind === 'resource' ? found : undefined
    if (template === undefined) throw new ProtocolError(INVALID_PARAMS, `Unknown resource template: ${ref.uri}`)
    const definition = template.definition as { complete?: Complete }
    return { what: `resource template '${ref.uri}'`, names: template.template!.variables, complete: definition.complete?.bind(definition) }
  }
  throw invalid(`"ref.type" must be "ref/prompt" or "ref/resource", got ${got(ref.type)}`)
}

/** `context.arguments`: absent is none; otherwise an object of strings. */
function contextArguments (params: Record<string, unknown>): Record<string, string> {
  const context = params.context
  if (context === undefined) return {}
  const args = isObject(context) ? (context.arguments ?? {}) : undefined
  if (!isObject(args) || !Object.values(args).every((value) => typeof value === 'string')) {
    throw invalid('"context" must be { arguments: { name: value } } with string values')
  }
  return { ...args } as Record<string, string>
}

/** Checks what a callback returned and caps it at 100 values. */
function shape (returned: unknown): { values: string[], total?: number, hasMore?: boolean } {
  const body = Array.isArray(returned) ? { values: returned } : returned
  if (!isObject(body) || !Array.isArray(body.values) || !body.values.every((value) => typeof value === 'string')) {
    throw new TypeError('complete() must return an array of strings or { values, total?, hasMore? }')
  }
  if (body.total !== undefined && !(Number.isInteger(body.total) && (body.total as number) >= 0)) throw new TypeError("complete()'s 'total' must be a non-negative integer")
  if (body.hasMore !== undefined && typeof body.hasMore !== 'boolean') throw new TypeError("complete()'s 'hasMore' must be a boolean")
  const values = body.values as string[]
  const out: { values: string[], total?: number, hasMore?: boolean } = { values: values.slice(0, MAX_VALUES) }
  if (values.length > MAX_VALUES) {
    out.total = (body.total as number | undefined) ?? values.length
    out.hasMore = true
  } else {
    if (body.total !== undefined) out.total = body.total as number
    if (body.hasMore !== undefined) out.hasMore = body.hasMore
  }
  return out
}

export async function complete (server: ServerContext, call: Call): Promise<string> {
  const target = completing(call.target, call.params.ref)
  const argument = call.params.argument
  if (!isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw invalid('completion/complete needs "argument" as { name, value } with string values')
  }
  if (!target.names.includes(argument.name)) {
    throw invalid(`${target.what} has no argument '${argument.name}'${target.names.length > 0 ? `; its arguments are ${target.names.join(', ')}` : ''}`)
  }
  const args = contextArguments(call.params)
  if (target.complete === undefined) return resultJson(server, call.era, { completion: { values: [] } })
  // completion cannot ask the client anything: its questions are all `unsupported`
  const ctx = Object.assign(new FeatureContext(call, { completing: target.what, argument: argument.name }, server.input, undefined, false), { arguments: Object.freeze(args) })
  try {
    return resultJson(server, call.era, { completion: shape(await target.complete(argument.name, argument.value, ctx)) })
  } catch (err) {
    if (err instanceof ProtocolError) throw err
    ctx.log.error({ err }, `completion for ${target.what} failed`)
    throw new ProtocolError(INTERNAL_ERROR, `Internal error: completion for ${target.what} failed`)
  }
}
