/** `tools/list` and `tools/call`, for both eras. */
import { INVALID_PARAMS } from '../jsonrpc.js'
import { ProtocolError, ToolError } from '../../errors.js'
import { CallContext, type Call } from '../context.js'
import { explain } from '../../define/messages.js'
import { errorResult, shape, unwrap, type CallToolResult } from '../../define/result.js'
import { isLegacyVersion, rulesOf } from '../eras.js'
import type { Registry } from '../../registry.js'
import type { CompiledTool } from '../../define/tool.js'

export function listTools (registry: Registry, call: Call): string {
  const cursor = call.params.cursor
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ProtocolError(INVALID_PARAMS, 'Invalid params: "cursor" must be a string')
  }
  const page = registry.toolsPage(call.era, cursor)
  if (page === undefined) throw new ProtocolError(INVALID_PARAMS, `Invalid params: unknown cursor ${JSON.stringify(cursor)}; start again without a cursor`)
  return page
}

/** Finds the tool a `tools/call` names, or throws -32602. Used by the header checks too. */
export function toolOf (registry: Registry, params: Record<string, unknown>): CompiledTool {
  const name = params.name
  if (typeof name !== 'string') {
    throw new ProtocolError(INVALID_PARAMS, 'Invalid params: tools/call needs "name", the tool to call, as a string')
  }
  const tool = registry.tools.get(name)
  if (tool === undefined) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`)
  return tool
}

export async function callTool (registry: Registry, call: Call): Promise<CallToolResult> {
  const tool = toolOf(registry, call.params)
  let args = call.params.arguments
  if (args === undefined) args = {}
  else if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: "arguments" of tool '${tool.name}' must be an object`)
  }
  // a model can fix bad arguments, so they are a tool error it reads, not a protocol error
  if (!tool.validate(args)) {
    return errorResult(`Invalid arguments for tool '${tool.name}': ${explain(tool.validate.errors)}`)
  }

  const ctx = new CallContext(call, tool.name)
  let returned: unknown
  try {
    returned = await tool.definition.execute(args, ctx)
  } catch (err) {
    if (err instanceof ToolError) return errorResult(err.message, err.meta)
    // the details stay in the log: a stack trace or a driver message is not for the client
    ctx.log.error({ err }, `tool '${tool.name}' threw`)
    return errorResult(`Tool '${tool.name}' failed with an internal error`)
  }

  const { value, meta, error } = unwrap(returned)
  if (error !== undefined) return errorResult(error.message, meta)
  if (tool.validateOutput !== undefined && !tool.validateOutput(value)) {
    ctx.log.error({ problems: explain(tool.validateOutput.errors, 'property') }, `tool '${tool.name}' returned a value that does not match its output schema`)
    return errorResult(`Tool '${tool.name}' failed with an internal error`)
  }
  const structured = call.era === 'modern' || !isLegacyVersion(call.protocolVersion) || rulesOf(call.protocolVersion).structuredOutput
  return shape(value, meta, structured, call.era === 'legacy')
}
