/** `prompts/list` and `prompts/get`, for both eras. */
import { ClientInputError, ProtocolError } from '../../errors.js'
import { INTERNAL_ERROR, INVALID_PARAMS } from '../../spec/jsonrpc.js'
import { describe } from '../../values.js'
import { explain } from '../../define/messages.js'
import { checkStandard } from '../../define/schemas.js'
import { shapePrompt, type CompiledPrompt } from '../../define/prompt.js'
import type { Call } from '../call.js'
import { FeatureContext } from '../call-context.js'
import { clientInputFailure } from '../input/client-input.js'
import { finishRound, readRetry, settle } from '../input/round-trip.js'
import { resultJson } from '../results.js'
import type { ServerContext } from '../server.js'
import type { Target } from '../target.js'

/** The prompt `name` names, as the edge looked it up (`found`), or -32602 saying what is wrong. */
export function promptOf (found: Target | undefined, name: unknown, method: string): CompiledPrompt {
  if (found?.kind === 'prompt') return found
  if (typeof name !== 'string') throw new ProtocolError(INVALID_PARAMS, `Invalid params: ${method} needs "name", the prompt, as a string`)
  throw new ProtocolError(INVALID_PARAMS, `Unknown prompt: ${name}`)
}

/** The prompt's arguments, checked: an object of strings, the required ones present, no unknown one. */
function argumentsOf (prompt: CompiledPrompt, params: Record<string, unknown>): Record<string, string> {
  const args = params.arguments ?? {}
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: "arguments" of prompt '${prompt.name}' must be an object of strings, got ${describe(args)}`)
  }
  for (const name of prompt.required) {
    if ((args as Record<string, unknown>)[name] === undefined) {
      throw new ProtocolError(INVALID_PARAMS, `Invalid params: prompt '${prompt.name}' needs argument '${name}'`)
    }
  }
  // a copy: validation must not touch the request's own object
  const copy = { ...args } as Record<string, string>
  if (!prompt.validate(copy)) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: invalid arguments for prompt '${prompt.name}': ${explain(prompt.validate.errors)}`)
  }
  return copy
}

/** The arguments `get` receives: as checked, or as the libraries of Standard Schema ones give them back. */
// typed as strings for `get`: a library's transform may give back anything, as its own types say
async function checkedArguments (prompt: CompiledPrompt, args: Record<string, string>): Promise<Record<string, string>> {
  if (prompt.standard === undefined) return args
  const checked = await checkStandard(prompt.standard, args, 'argument')
  if (checked.problems !== undefined) throw new ProtocolError(INVALID_PARAMS, `Invalid params: invalid arguments for prompt '${prompt.name}': ${checked.problems}`)
  return checked.value as Record<string, string>
}

export async function getPrompt (server: ServerContext, call: Call): Promise<string> {
  const { input } = server
  const prompt = promptOf(call.target, call.params.name, 'prompts/get')
  const args = await checkedArguments(prompt, argumentsOf(prompt, call.params))
  const retry = call.era === 'modern' ? readRetry(input, call, prompt.name, call.params.arguments) : undefined
  const ctx = new FeatureContext(call, { prompt: prompt.name }, input, retry)
  try {
    const returned = await settle(prompt.definition.get(args, ctx))
    // a question asked and not yet answered wins over whatever the handler did after it
    const round = ctx.round === undefined ? undefined : finishRound(ctx.round, input, call, prompt.name, call.params.arguments)
    if (round !== undefined) return resultJson(server, 'modern', round)
    return resultJson(server, call.era, shapePrompt(returned(), prompt.definition.description))
  } catch (err) {
    if (err instanceof ProtocolError) throw err
    if (err instanceof ClientInputError) throw clientInputFailure(`prompt '${prompt.name}'`, err)
    ctx.log.error({ err }, `prompt '${prompt.name}' failed`)
    throw new ProtocolError(INTERNAL_ERROR, `Internal error: prompt '${prompt.name}' failed`)
  }
}
