/**
 * The method tables of both eras. A method answers with its result as JSON text: lists and
 * discover are serialised once when the server is ready, and a tool call serialises its own result,
 * so that a value JSON cannot carry is caught as that tool's failure (see `methods/tools.ts`).
 */
import { METHOD_NOT_FOUND } from './jsonrpc.js'
import { ProtocolError } from '../errors.js'
import { callTool, listTools } from './methods/tools.js'
import { discoverResult } from './methods/lifecycle.js'
import { listPage, readResource } from './methods/resources.js'
import { getPrompt } from './methods/prompts.js'
import { complete } from './methods/completion.js'
import { setLevel } from './methods/logging.js'
import { subscribe, unsubscribe } from './methods/subscriptions.js'
import type { Era } from './eras.js'
import type { Call } from './context.js'
import type { Registry } from '../registry.js'
import type { SessionStore } from '../state/session-store.js'
import type { InputSettings } from './input.js'

export interface ServerState {
  readonly registry: Registry
  readonly instructions: string | undefined
  /** 2025 sessions: methods that change the session (`logging/setLevel`, `resources/subscribe`) save it here. */
  readonly sessions: SessionStore
  /** Questions to the client: the requestState sealer, the 2025 answer timeout. */
  readonly input: InputSettings
  /** `server/discover`, serialised on first use: it never changes once the server is ready. */
  discover: string | undefined
}

type Method = (state: ServerState, call: Call) => string | Promise<string>

/** Resources, prompts and completion: the same in both eras (the envelope differs, not the method). */
const features: Array<[string, Method]> = [
  ['resources/list', (state, call) => listPage(state.registry, call, 'resources')],
  ['resources/templates/list', (state, call) => listPage(state.registry, call, 'resourceTemplates')],
  ['resources/read', (state, call) => readResource(state.registry, call, state.input)],
  ['prompts/list', (state, call) => listPage(state.registry, call, 'prompts')],
  ['prompts/get', (state, call) => getPrompt(state.registry, call, state.input)],
  ['completion/complete', (state, call) => complete(state.registry, call)]
]

const modern = new Map<string, Method>([
  ['server/discover', (state) => (state.discover ??= discoverResult(state.registry, state.instructions))],
  ['tools/list', (state, call) => listTools(state.registry, call)],
  ['tools/call', (state, call) => callTool(state.registry, call, state.input)],
  ...features
])

const legacy = new Map<string, Method>([
  ['ping', () => '{}'],
  ['logging/setLevel', (state, call) => setLevel(state.sessions, call)],
  ['resources/subscribe', (state, call) => subscribe(state.sessions, call)],
  ['resources/unsubscribe', (state, call) => unsubscribe(state.sessions, call)],
  ['tools/list', (state, call) => listTools(state.registry, call)],
  ['tools/call', (state, call) => callTool(state.registry, call, state.input)],
  ...features
])

const tables: Record<Era, Map<string, Method>> = { modern, legacy }

/**
 * Runs a request and returns its result as JSON text, or throws a ProtocolError. An unknown method
 * is HTTP 404 in the modern era; a legacy session keeps 200, since there 404 means "session gone".
 */
export async function dispatch (state: ServerState, call: Call): Promise<string> {
  const method = tables[call.era].get(call.method)
  if (method === undefined) {
    throw new ProtocolError(METHOD_NOT_FOUND, `Method not found: ${call.method}`, call.era === 'modern' ? 404 : 200)
  }
  return method(state, call)
}
