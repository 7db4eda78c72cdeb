/**
 * `completion/complete`, for both eras: prompt arguments, resource template variables, and (this
 * server's extension, `spec/completion.ts`) tool arguments.
 */
import { ProtocolError } from '../../errors.js'
import { REF_TOOL } from '../../spec/completion.js'
import { INTERNAL_ERROR, INVALID_PARAMS } from '../../spec/jsonrpc.js'
import { describe, isObject } from '../../values.js'
import type { CompiledTool } from '../../define/tool.js'
import type { Call } from '../call.js'
import { completerOf, completionOf, type Completer } from '../completer.js'
import { completionContext } from '../call-context.js'
import { resultJson } from '../results.js'
import type { ServerContext } from '../server.js'
import { promptOf } from './prompts.js'
import { appOnlyRefusal, declaresApps } from './apps.js'

/** What arrived, for a message: a string as itself, anything else by its type. */
function got (value: unknown): string {
  if (value === undefined) return 'nothing'
  return typeof value === 'string' ? JSON.stringify(value) : describe(value)
}

function invalid (message: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, `Invalid params: ${message}`)
}

/**
 * The tool a `ref/tool` names (the edge looked it up: `call.target`). An app-only tool is refused
 * to a client without MCP Apps, as its call would be: it is not listed to that client.
 */
function toolOf (call: Call, name: unknown): CompiledTool {
  const found = call.target
  if (found?.kind === 'tool') {
    if (found.appOnly && !declaresApps(call.client)) throw appOnlyRefusal(found, call.era)
    return found
  }
  if (typeof name !== 'string') throw invalid(`a ${REF_TOOL} needs "name", the tool, as a string`)
  throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`)
}

/** What is being completed (the edge looked it up: `call.target`): its callback (maybe none) and the names it completes. */
function completing (call: Call, ref: unknown): Completer {
  if (!isObject(ref)) throw invalid(`completion/complete needs "ref", { type: "ref/prompt", name }, { type: "ref/resource", uri } or { type: "${REF_TOOL}", name }, got ${got(ref)}`)
  if (ref.type === 'ref/prompt') return completerOf(promptOf(call.target, ref.name, 'a ref/prompt'))
  if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') throw invalid('a ref/resource needs "uri", the resource template, as a string')
    const template = call.target?.kind === 'resource' ? call.target : undefined
    if (template === undefined) throw new ProtocolError(INVALID_PARAMS, `Unknown resource template: ${ref.uri}`)
    return completerOf(template)
  }
  if (ref.type === REF_TOOL) return completerOf(toolOf(call, ref.name))
  throw invalid(`"ref.type" must be "ref/prompt", "ref/resource" or "${REF_TOOL}", got ${got(ref.type)}`)
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

export async function complete (server: ServerContext, call: Call): Promise<string> {
  const target = completing(call, call.params.ref)
  const argument = call.params.argument
  if (!isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw invalid('completion/complete needs "argument" as { name, value } with string values')
  }
  if (!target.names.includes(argument.name)) {
    throw invalid(`${target.what} has no argument '${argument.name}'${target.names.length > 0 ? `; its arguments are ${target.names.join(', ')}` : ''}`)
  }
  const args = contextArguments(call.params)
  if (target.complete === undefined) return resultJson(server, call.era, { completion: { values: [] } })
  const ctx = completionContext(call, target.what, argument.name, server.input, args)
  try {
    return resultJson(server, call.era, { completion: completionOf(await target.complete(argument.name, argument.value, ctx)) })
  } catch (err) {
    if (err instanceof ProtocolError) throw err
    ctx.log.error({ err }, `completion for ${target.what} failed`)
    throw new ProtocolError(INTERNAL_ERROR, `Internal error: completion for ${target.what} failed`)
  }
}
