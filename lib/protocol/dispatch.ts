/**
 * The method tables of both eras. A method answers with a result object or with a result already
 * serialised (lists and discover are); `answer` adds what the era asks of every result and returns
 * the JSON text of the result.
 */
import { METHOD_NOT_FOUND } from './jsonrpc.js'
import { ProtocolError } from '../errors.js'
import { callTool, listTools } from './methods/tools.js'
import { discoverResult } from './methods/lifecycle.js'
import { META_SERVER_INFO, type Era } from './eras.js'
import type { Call } from './context.js'
import type { Registry } from '../registry.js'

export interface ServerState {
  readonly registry: Registry
  readonly instructions: string | undefined
  /** `server/discover`, serialised when the server is ready. */
  discover: string | undefined
}

type Method = (state: ServerState, call: Call) => string | object | Promise<string | object>

const modern = new Map<string, Method>([
  ['server/discover', (state) => state.discover ?? discoverResult(state.registry, state.instructions)],
  ['tools/list', (state, call) => listTools(state.registry, call)],
  ['tools/call', (state, call) => callTool(state.registry, call)]
])

const legacy = new Map<string, Method>([
  ['ping', () => '{}'],
  ['tools/list', (state, call) => listTools(state.registry, call)],
  ['tools/call', (state, call) => callTool(state.registry, call)]
])

const tables: Record<Era, Map<string, Method>> = { modern, legacy }

/** Whether the era has the method; the HTTP edge answers an unknown one before reading further. */
export function hasMethod (era: Era, method: string): boolean {
  return tables[era].has(method)
}

function finish (state: ServerState, era: Era, result: object): string {
  if (era === 'legacy') return JSON.stringify(result)
  // every modern result says what it is and who answered (SEP-2575)
  const out = result as Record<string, unknown>
  const meta = out._meta as Record<string, unknown> | undefined
  return JSON.stringify({
    resultType: 'complete',
    ...out,
    _meta: meta === undefined ? state.registry.serverInfoMeta : { ...meta, [META_SERVER_INFO]: state.registry.options.info }
  })
}

/** Runs a request and returns its result as JSON text, or throws a ProtocolError. */
export async function dispatch (state: ServerState, call: Call): Promise<string> {
  const method = tables[call.era].get(call.method)
  if (method === undefined) {
    throw new ProtocolError(METHOD_NOT_FOUND, `Method not found: ${call.method}`, call.era === 'modern' ? 404 : 200)
  }
  const result = await method(state, call)
  return typeof result === 'string' ? result : finish(state, call.era, result)
}
