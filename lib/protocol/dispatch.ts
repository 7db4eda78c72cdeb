/**
 * The method tables of both eras. A method answers with its result as JSON text: lists and
 * discover are serialised once when the server is ready, and a tool call serialises its own result,
 * so that a value JSON cannot carry is caught as that tool's failure (see `methods/tools.ts`).
 */
import { ProtocolError } from '../errors.js'
import type { Era } from '../spec/eras.js'
import { METHOD_NOT_FOUND } from '../spec/jsonrpc.js'
import type { Call } from './call.js'
import type { ServerContext } from './server.js'
import { callTool, listTools } from './methods/tools.js'
import { discoverResult } from './methods/lifecycle.js'
import { listPage, readResource } from './methods/resources.js'
import { getPrompt } from './methods/prompts.js'
import { complete } from './methods/completion.js'
import { setLevel } from './methods/logging.js'
import { subscribe, unsubscribe } from './methods/subscriptions.js'
import { cancelModernTask, cancelTask, getModernTask, getTask, listTasks, taskResult, updateModernTask } from './methods/tasks.js'

type Method = (server: ServerContext, call: Call) => string | Promise<string>

/** Resources, prompts and completion: the same in both eras (the envelope differs, not the method). */
const features: Array<[string, Method]> = [
  ['resources/list', (server, call) => listPage(server, call, 'resources')],
  ['resources/templates/list', (server, call) => listPage(server, call, 'resourceTemplates')],
  ['resources/read', readResource],
  ['prompts/list', (server, call) => listPage(server, call, 'prompts')],
  ['prompts/get', getPrompt],
  ['completion/complete', complete]
]

const modern = new Map<string, Method>([
  ['server/discover', (server) => (server.discover ??= discoverResult(server))],
  ['tools/list', listTools],
  ['tools/call', callTool],
  // the io.modelcontextprotocol/tasks extension (no tasks/list, no tasks/result in this era)
  ['tasks/get', getModernTask],
  ['tasks/update', updateModernTask],
  ['tasks/cancel', cancelModernTask],
  ...features
])

const legacy = new Map<string, Method>([
  ['ping', () => '{}'],
  ['logging/setLevel', setLevel],
  ['resources/subscribe', subscribe],
  ['resources/unsubscribe', unsubscribe],
  ['tools/list', listTools],
  ['tools/call', callTool],
  // 2025-11-25 only; each answers -32601 in older sessions
  ['tasks/get', getTask],
  ['tasks/result', taskResult],
  ['tasks/list', listTasks],
  ['tasks/cancel', cancelTask],
  ...features
])

const tables: Record<Era, Map<string, Method>> = { modern, legacy }

/**
 * Runs a request and returns its result as JSON text, or throws a ProtocolError (callers await it:
 * not async itself, it hands on the method's own promise, one fewer on every call). An unknown method
 * is HTTP 404 in the modern era; a legacy session keeps 200, since there 404 means "session gone".
 */
export function dispatch (server: ServerContext, call: Call): string | Promise<string> {
  const method = tables[call.era].get(call.method)
  if (method === undefined) {
    throw new ProtocolError(METHOD_NOT_FOUND, `Method not found: ${call.method}`, call.era === 'modern' ? 404 : 200)
  }
  return method(server, call)
}
