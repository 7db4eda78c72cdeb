/**
 * Each method's handler, and the tables of both eras built from them and the method rows
 * (`spec/methods.ts`, which says which eras serve a method). A method answers with its result as
 * JSON text: lists and discover are serialised once when the server is ready, and a tool call
 * serialises its own result, so that a value JSON cannot carry is caught as that tool's failure
 * (see `methods/tools.ts`).
 */
import { ProtocolError } from '../errors.js'
import type { Era } from '../spec/eras.js'
import { METHOD_NOT_FOUND } from '../spec/jsonrpc.js'
import { METHODS } from '../spec/methods.js'
import type { Call } from './call.js'
import type { ServerContext } from './server.js'
import { callTool, listTools } from './methods/tools.js'
import { discoverResult } from './methods/handshake.js'
import { listPage, readResource } from './methods/resources.js'
import { getPrompt } from './methods/prompts.js'
import { complete } from './methods/completion.js'
import { setLevel } from './methods/logging.js'
import { subscribe, unsubscribe } from './methods/subscriptions.js'
import { getSkill, listSkills, readDirectory } from './methods/skills.js'
import { cancelModernTask, cancelTask, getModernTask, getTask, listTasks, taskResult, updateModernTask } from './methods/tasks.js'

type Method = (server: ServerContext, call: Call) => string | Promise<string>

/**
 * The handlers, by method: one for every era that serves it, or one per era where the eras
 * differ. The 2025 handshake (`initialize`) and 2026-07-28 `subscriptions/listen` have none: the
 * session protocol and the transport answer them.
 */
const HANDLERS: Readonly<Record<string, Method | Readonly<Partial<Record<Era, Method>>>>> = {
  ping: () => '{}',
  'server/discover': (server) => (server.discover ??= discoverResult(server)),
  'logging/setLevel': setLevel,
  'tools/list': listTools,
  'tools/call': callTool,
  'resources/list': (server, call) => listPage(server, call, 'resources'),
  'resources/templates/list': (server, call) => listPage(server, call, 'resourceTemplates'),
  'resources/read': readResource,
  'resources/subscribe': subscribe,
  'resources/unsubscribe': unsubscribe,
  'prompts/list': (server, call) => listPage(server, call, 'prompts'),
  'prompts/get': getPrompt,
  'completion/complete': complete,
  'skills/list': listSkills,
  'skills/get': getSkill,
  'resources/directory/read': readDirectory,
  // the tasks extension (2026-07-28) and the 2025-11-25 tasks (which answer -32601 in older sessions)
  'tasks/get': { modern: getModernTask, legacy: getTask },
  'tasks/update': updateModernTask,
  'tasks/cancel': { modern: cancelModernTask, legacy: cancelTask },
  'tasks/result': taskResult,
  'tasks/list': listTasks
}

/** The handler of a method in each era that serves it: the method rows decide, the handlers fill. */
const tables: Record<Era, Map<string, Method>> = { modern: new Map(), legacy: new Map() }
for (const facts of METHODS.values()) {
  if (facts.handshake || facts.listens) continue
  const handler = HANDLERS[facts.method]
  for (const era of ['modern', 'legacy'] as const) {
    if (!facts[era]) continue
    const method = typeof handler === 'function' ? handler : handler?.[era]
    /* c8 ignore next -- a row without its handler is our bug, found by every test that imports this file */
    if (method === undefined) throw new Error(`fastify-sake: the method ${facts.method} has a row in spec/methods.ts but no ${era} handler in protocol/dispatch.ts`)
    tables[era].set(facts.method, method)
  }
}

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
