/** `tools/list` and `tools/call`, for both eras. */
import { AccessRefusal, ClientInputError, InsufficientScopeError, MissingCapabilityError, ProtocolError, QuotaExceededError, ToolError } from '../../errors.js'
import { INTERNAL_ERROR, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY } from '../../spec/jsonrpc.js'
import { describe, isThenable } from '../../values.js'
import { explain } from '../../define/messages.js'
import { errorResult, payloadOf, resultOf, unwrap, type CallToolResult } from '../../define/result.js'
import { checkStandard, type Checked } from '../../define/schemas.js'
import type { CompiledTool } from '../../define/tool.js'
import type { Call } from '../call.js'
import { CallContext } from '../call-context.js'
import { finishRound, readRetry } from '../input/round-trip.js'
import { resultJson } from '../results.js'
import type { ServerContext } from '../server.js'
import { TaskContext } from '../tasks/task-context.js'
import type { Outcome } from '../tasks/transitions.js'
import { TaskAsker } from '../tasks/questions.js'
import { startTask, taskTtl } from './tasks.js'
import { appOnlyRefusal, declaresApps, uiFallback } from './apps.js'

export function listTools (server: ServerContext, call: Call): string {
  const cursor = call.params.cursor
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ProtocolError(INVALID_PARAMS, 'Invalid params: "cursor" must be a string')
  }
  const page = server.lists.page('tools', call.era, cursor, call.auth, declaresApps(call.client))
  if (page === undefined) throw new ProtocolError(INVALID_PARAMS, `Invalid params: unknown cursor ${JSON.stringify(cursor)}; start again without a cursor`)
  return page
}

/** The tool a `tools/call` names, as the edge looked it up (`call.target`), or -32602 saying what is wrong. */
function toolOf (call: Call): CompiledTool {
  if (call.target?.kind === 'tool') return call.target
  const name = call.params.name
  if (typeof name !== 'string') {
    throw new ProtocolError(INVALID_PARAMS, 'Invalid params: tools/call needs "name", the tool to call, as a string')
  }
  // one line to search for when a client keeps calling a tool that is not there (a stale list)
  call.transport.log.info({ tool: name }, `fastify-sake: tools/call of an unknown tool '${name}'`)
  throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`)
}

/** The `arguments` of a `tools/call`: absent means none; anything but an object is -32602. */
function argumentsOf (tool: CompiledTool, params: Record<string, unknown>): Record<string, unknown> {
  const args = params.arguments
  if (args === undefined) return {}
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: "arguments" of tool '${tool.name}' must be an object, got ${describe(args)}`)
  }
  return args as Record<string, unknown>
}

/**
 * Whether the run asked a question it has no answer to yet (or got an unreadable one): then the
 * call answers that, whatever the handler does next. A function, not an inline check: the answer
 * changes while the handler awaits, which TypeScript's narrowing of the getter would not see.
 */
function asked (ctx: CallContext): boolean {
  return ctx.round?.asked === true
}

/** Stands for the result of a run that ended on an unanswered question; never sent. */
const PENDING = errorResult('input required')

/**
 * The results `internalFailure` made: inside a 2026-07-28 task, a crash is `failed`, not a tool
 * error. A mark on the result object itself, so module-level and weak: each result is one call's,
 * never shared between servers, and the mark goes with the result.
 */
const crashed = new WeakSet<object>()

function internalFailure (tool: CompiledTool): CallToolResult {
  const result = errorResult(`Tool '${tool.name}' failed with an internal error`)
  crashed.add(result)
  return result
}

/**
 * Runs a `tools/call` and returns its result as JSON text. Only a call that names no known tool or
 * sends no arguments object is a protocol error; whatever goes wrong after that is the tool's
 * failure, answered as a result with `isError: true`.
 */
export function callTool (server: ServerContext, call: Call): string | Promise<string> {
  const { input } = server
  const tool = toolOf(call)
  if (tool.appOnly && !declaresApps(call.client)) throw appOnlyRefusal(tool, call.era)
  const args = argumentsOf(tool, call.params)
  // one check on the hot path: only a task tool, or a call asking for a task, goes further
  const ttl = tool.task !== undefined || call.params.task !== undefined ? taskTtl(server, call, tool) : undefined
  // only a retry of an earlier round carries a requestState or answers: a first call reads nothing
  const { requestState, inputResponses } = call.params
  const retry = call.era === 'modern' && (requestState !== undefined || inputResponses !== undefined) ? readRetry(input, call, tool.name, call.params.arguments) : undefined
  const ctx = new CallContext(call, tool.logBindings, input, retry)
  if (ttl !== undefined) return callAsTask(server, call, tool, args, ttl, ctx)
  let result: CallToolResult | Promise<CallToolResult>
  try {
    result = run(tool, args, call, ctx)
  } catch (err) {
    return failed(server, call, tool, ctx, err)
  }
  // a sync tool is answered in the same turn: no promise between the request and its answer
  // `run` hands on execute's own promise (or prepare's): a real one, never a user's thenable
  if (result instanceof Promise) return result.then((value) => settle(server, call, tool, ctx, value), (err: unknown) => failed(server, call, tool, ctx, err))
  return settle(server, call, tool, ctx, result)
}

/** A task tool, or a call asking for a task: the task is created in the request. */
async function callAsTask (server: ServerContext, call: Call, tool: CompiledTool, args: Record<string, unknown>, ttl: number, ctx: CallContext): Promise<string> {
  try {
    // a task tool's `prepare` runs here, in the request: its questions travel with the request
    // (multi round-trip in 2026-07-28, this request's stream in 2025), and what it decides
    // comes before any task exists
    const step = await prepareStep(tool, args, call, ctx)
    if (!(step instanceof Stop)) return await startTask(server, call, ttl, (signal, taskId) => runTask(server, call, tool, step, signal, taskId))
    // a 2025 client asked a task and gets one, already failed; 2026-07-28 may answer a task tool inline
    if (call.era === 'legacy') return await startTask(server, call, ttl, async () => outcomeOf(server, call, tool, step.result))
    return settle(server, call, tool, ctx, step.result)
  } catch (err) {
    return failed(server, call, tool, ctx, err)
  }
}

/** The call's answer from its result. */
function settle (server: ServerContext, call: Call, tool: CompiledTool, ctx: CallContext, result: CallToolResult): string {
  try {
    // a question asked and not yet answered wins over whatever the tool did after it
    if (ctx.round !== undefined) {
      const round = finishRound(ctx.round, server.input, call, tool.name, call.params.arguments)
      if (round !== undefined) return resultJson(server, 'modern', round)
    }
    if (result.isError === true && call.outcome !== undefined) call.outcome.isError = true
    return resultJson(server, call.era, result)
  } catch (err) {
    return failed(server, call, tool, ctx, err)
  }
}

function failed (server: ServerContext, call: Call, tool: CompiledTool, ctx: CallContext, err: unknown): string {
  if (err instanceof ProtocolError) throw err // a missing capability (-32021), or a refusal by scope
  // `run` catches what the tool throws; what gets here is a returned value JSON cannot carry
  // (a BigInt, a cycle, a function), found while serialising it
  ctx.log.error({ err }, `tool '${tool.name}' returned a value that cannot be sent as JSON`)
  if (call.outcome !== undefined) call.outcome.isError = true
  return resultJson(server, call.era, internalFailure(tool))
}

/**
 * Runs a tool's `execute` as a task, detached from the request that created it: on a call whose
 * signal is the task's (cancel, expiry, server close), whose questions wait on the task, and whose
 * notifications (2025: progress and log messages, tagged with the task) go to a `tasks/result`
 * stream or the session's own; 2026-07-28 has none inside a task.
 */
async function runTask (server: ServerContext, call: Call, tool: CompiledTool, input: unknown, signal: AbortSignal, taskId: string): Promise<Outcome> {
  const transport = { request: call.transport.request, caller: call.transport.caller, log: call.transport.log, signal: () => signal }
  const channel = call.era === 'legacy'
    ? { notify: (method: string, params: Record<string, unknown>) => server.tasks.notify(taskId, call.sessionId, method, params) }
    : undefined
  const detached: Call = { ...call, transport, channel, openStream: undefined, outcome: undefined }
  const ctx = new TaskContext(detached, tool.logBindings, server.input, new TaskAsker(server.tasks, taskId, signal))
  try {
    return outcomeOf(server, call, tool, await execute(tool, input, detached, ctx))
  } catch (err) {
    if (err instanceof ProtocolError) return { status: 'failed', statusMessage: err.message, error: { code: err.code, message: err.message, data: err.data } }
    ctx.log.error({ err }, `tool '${tool.name}' returned a value that cannot be sent as JSON`)
    return outcomeOf(server, call, tool, internalFailure(tool))
  }
}

/**
 * How a task ended, from the tool's result. 2026-07-28: a tool that ran and reported an error is
 * completed (the extension), a crash is failed. 2025-11-25: a tool error is failed, as that page says.
 */
function outcomeOf (server: ServerContext, call: Call, tool: CompiledTool, returned: CallToolResult): Outcome {
  if (call.era === 'modern' && crashed.has(returned)) {
    const message = `Tool '${tool.name}' failed with an internal error`
    return { status: 'failed', statusMessage: message, error: { code: INTERNAL_ERROR, message } }
  }
  const result = JSON.parse(resultJson(server, call.era, returned)) as Record<string, unknown>
  if (call.era === 'legacy' && result.isError === true) {
    // every error result this file makes is `errorResult(message)`: its first block is that text
    return { status: 'failed', statusMessage: (result.content as Array<{ text: string }>)[0]!.text, result }
  }
  return { status: 'completed', result }
}

/**
 * A tool that needs a capability the client did not declare: 400 + -32021 in 2026-07-28, which
 * defines the error; a 2025 session, which does not, gets a tool error naming what is missing.
 */
function missing (tool: CompiledTool, call: Call, err: MissingCapabilityError): CallToolResult {
  const message = `Tool '${tool.name}': ${err.message}`
  if (call.era === 'legacy') return errorResult(message)
  throw new ProtocolError(MISSING_CLIENT_CAPABILITY, message, 400, { requiredCapabilities: err.requiredCapabilities })
}

/** What `prepare` decided instead of the input for `execute`: the result that answers the call. */
class Stop {
  constructor (readonly result: CallToolResult) {}
}

/** Validation, `prepare`, `execute`: a call run inline. Not async: the hot path (no `prepare`) is `execute`'s own promise. */
function run (tool: CompiledTool, args: Record<string, unknown>, call: Call, ctx: CallContext): CallToolResult | Promise<CallToolResult> {
  if (tool.definition.prepare === undefined && tool.standard === undefined) {
    // a model can fix bad arguments, so they are a tool error it reads, not a protocol error
    if (!tool.validate(args)) return invalidArguments(tool)
    return execute(tool, args, call, ctx)
  }
  return prepareStep(tool, args, call, ctx).then((step) => step instanceof Stop ? step.result : execute(tool, step, call, ctx))
}

function invalidArguments (tool: CompiledTool, problems = explain(tool.validate.errors)): CallToolResult {
  return errorResult(`Invalid arguments for tool '${tool.name}': ${problems}`)
}

/**
 * Validates the arguments (ajv, then the libraries of Standard Schema arguments, which may change
 * them: a transform) and runs `prepare`: the input for `execute`, or the `Stop` that answers instead.
 */
async function prepareStep (tool: CompiledTool, args: Record<string, unknown>, call: Call, ctx: CallContext): Promise<unknown> {
  if (!tool.validate(args)) return new Stop(invalidArguments(tool))
  let input: unknown = args
  if (tool.standard !== undefined) {
    try {
      const checked = await checkStandard(tool.standard, args, 'argument')
      if (checked.problems !== undefined) return new Stop(invalidArguments(tool, checked.problems))
      input = checked.value
    } catch (err) {
      ctx.log.error({ err }, `tool '${tool.name}': its input schema's library threw`)
      return new Stop(internalFailure(tool))
    }
  }
  if (tool.definition.prepare === undefined) return input
  try {
    const prepared = unwrap(await tool.definition.prepare(input, ctx))
    if (prepared.error !== undefined) return new Stop(errorResult(prepared.error.message, prepared.meta))
    if (typeof prepared.value !== 'object' || prepared.value === null) {
      ctx.log.error(`tool '${tool.name}': prepare must return the arguments for execute (an object), got ${describe(prepared.value)}`)
      return new Stop(internalFailure(tool))
    }
    // a question prepare left unanswered (even one it caught) must stop the call before execute
    return asked(ctx) ? new Stop(PENDING) : prepared.value
  } catch (err) {
    return new Stop(thrown(tool, err, call, ctx))
  }
}

/** Runs `execute` and shapes what it returned into the call's result; sync for a sync tool. */
function execute (tool: CompiledTool, input: unknown, call: Call, ctx: CallContext): CallToolResult | Promise<CallToolResult> {
  let returned: unknown
  try {
    returned = tool.definition.execute(input, ctx)
  } catch (err) {
    return thrown(tool, err, call, ctx)
  }
  // a sync tool's value needs no turn of the microtask queue
  if (isThenable(returned)) return Promise.resolve(returned).then((value) => shaped(tool, value, call, ctx), (err: unknown) => thrown(tool, err, call, ctx))
  return shaped(tool, returned, call, ctx)
}

function shaped (tool: CompiledTool, returned: unknown, call: Call, ctx: CallContext): CallToolResult | Promise<CallToolResult> {
  // a question the handler caught and went past: its result is moot, input_required wins
  if (asked(ctx)) return PENDING
  if (returned instanceof MissingCapabilityError) return missing(tool, call, returned)
  if (tool.standardOutput !== undefined) return checkedOutput(tool, returned, call, ctx)
  const structured = call.rules.structuredOutput
  const result = resultOf(returned, structured, call.era === 'legacy', tool.validateOutput)
  if (result === undefined) return outputMismatch(tool, explain(tool.validateOutput!.errors, 'property'), ctx)
  return tool.ui === undefined ? result : uiFallback(tool, result)
}

function outputMismatch (tool: CompiledTool, problems: string, ctx: CallContext): CallToolResult {
  ctx.log.error({ problems }, `tool '${tool.name}' returned a value that does not match its output schema`)
  return internalFailure(tool)
}

/**
 * `shaped` for an output a Standard Schema's library checks (after ajv, for the parts it has): the
 * library only judges the value, the client gets what `execute` returned (an output schema's
 * transform cannot be exported as JSON Schema anyway).
 */
function checkedOutput (tool: CompiledTool, returned: unknown, call: Call, ctx: CallContext): CallToolResult | Promise<CallToolResult> {
  const parts = unwrap(returned)
  if (parts.error !== undefined) return errorResult(parts.error.message, parts.meta)
  const payload = payloadOf(parts.value)
  if (!tool.validateOutput!(payload)) return outputMismatch(tool, explain(tool.validateOutput!.errors, 'property'), ctx)
  const finish = (checked: Checked): CallToolResult | Promise<CallToolResult> => {
    if (checked.problems !== undefined) return outputMismatch(tool, checked.problems, ctx)
    const structured = call.rules.structuredOutput
    const result = resultOf(returned, structured, call.era === 'legacy', undefined)!
    return tool.ui === undefined ? result : uiFallback(tool, result)
  }
  let checked: Checked | Promise<Checked>
  try {
    checked = checkStandard(tool.standardOutput!, payload, 'property')
  } catch (err) {
    ctx.log.error({ err }, `tool '${tool.name}': its output schema's library threw`)
    return internalFailure(tool)
  }
  return isThenable(checked)
    ? checked.then(finish, (err: unknown) => {
      ctx.log.error({ err }, `tool '${tool.name}': its output schema's library threw`)
      return internalFailure(tool)
    })
    : finish(checked)
}

/** What `prepare` or `execute` threw, as the call's result (or the refusal it stands for). */
function thrown (tool: CompiledTool, err: unknown, call: Call, ctx: CallContext): CallToolResult {
  if (asked(ctx)) return PENDING // the answer will be input_required (callTool)
  if (err instanceof ToolError) return errorResult(err.message, err.meta)
  if (err instanceof MissingCapabilityError) return missing(tool, call, err)
  // the tool found it needs more than its declared scopes: refused as a declared scope is
  if (err instanceof InsufficientScopeError) throw AccessRefusal.scope(err.scopes, `tool '${tool.name}'`)
  // a question the quotas refused (the caller has as many waiting as it may): the call is refused with it
  if (err instanceof QuotaExceededError) throw err
  if (err instanceof ClientInputError) {
    ctx.log.warn({ err }, `tool '${tool.name}': a question to the client failed`)
    return errorResult(`Tool '${tool.name}': ${err.message}`)
  }
  // the details stay in the log: a stack trace or a driver message is not for the client
  ctx.log.error({ err }, `tool '${tool.name}' threw`)
  return internalFailure(tool)
}
