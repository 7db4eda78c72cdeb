/** `initialize` (legacy), `server/discover` (modern) and `ping` (legacy). */
import { ProtocolError } from '../../errors.js'
import { SUPPORTED_VERSIONS, negotiate, rulesOf, type LegacyVersion } from '../../spec/eras.js'
import { INVALID_PARAMS } from '../../spec/jsonrpc.js'
import type { ClientInfo } from '../../spec/types.js'
import { isObject } from '../../values.js'
import type { ServerContext } from '../server.js'
import { APPS_EXTENSION } from '../../spec/apps.js'
import { TOOL_COMPLETION_EXTENSION } from '../../spec/completion.js'
import { TASKS_EXTENSION } from '../../spec/tasks.js'
import { SKILLS_EXTENSION } from '../../spec/skills.js'

const TASKS_CAPABILITY = Object.freeze({ list: {}, cancel: {}, requests: { tools: { call: {} } } })

function capabilities (): Record<string, unknown> {
  return {
    // listChanged and subscribe: app.mcp.listChanged / resourceUpdated reach 2025 GET streams and
    // 2026-07-28 subscriptions/listen (lib/http/session-streams.ts, lib/http/listens.ts)
    tools: { listChanged: true },
    // served whether or not anything is registered: declared iff the methods answer (docs/architecture.md)
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    completions: {},
    // notifications/message on streamed answers (logging/setLevel in 2025, _meta logLevel in 2026-07-28)
    logging: {}
  }
}

/** The serialised `server/discover` result; it never changes once the server is ready. */
export function discoverResult (server: ServerContext): string {
  return JSON.stringify({
    resultType: 'complete',
    // every version we serve, legacy included: the same list an unsupported-version error gives
    supportedVersions: SUPPORTED_VERSIONS,
    // the tasks extension: served per request, to requests that declare it (methods/tasks.ts);
    // MCP Apps too (methods/apps.ts), when the server has an app; tool completion when a tool completes
    capabilities: { ...capabilities(), extensions: { [TASKS_EXTENSION]: {}, ...usedExtensions(server) } },
    instructions: server.instructions,
    ttlMs: server.ttl,
    cacheScope: 'public',
    _meta: server.serverInfoMeta
  })
}

/**
 * The extensions advertised only by a server that uses them: MCP Apps (`io.modelcontextprotocol/ui`)
 * when something here has an app, tool completion (`spec/completion.ts`) when a tool has `complete`,
 * Skills (`spec/skills.ts`) when a skill is registered.
 */
function usedExtensions (server: ServerContext): Record<string, unknown> {
  const used: Record<string, unknown> = {}
  if (server.registry.servesApps()) used[APPS_EXTENSION] = {}
  if (server.registry.completesTools()) used[TOOL_COMPLETION_EXTENSION] = {}
  // the Skills extension with skills to serve; the resources capability it needs is always declared
  if (server.registry.servesSkills()) used[SKILLS_EXTENSION] = { directoryRead: server.registry.skillLimits.directoryRead }
  return used
}

export interface Initialized {
  readonly version: LegacyVersion
  readonly client: ClientInfo
  readonly result: string
}

/**
 * Reads `initialize` params and negotiates: the client's version when we speak it, else our newest
 * legacy version (not an error: a client that cannot use it disconnects).
 */
export function initialize (server: ServerContext, params: Record<string, unknown> | undefined): Initialized {
  if (params === undefined) throw new ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs params with protocolVersion, capabilities and clientInfo')
  const { protocolVersion, capabilities: caps, clientInfo } = params
  if (typeof protocolVersion !== 'string') throw new ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs "protocolVersion" as a string')
  if (!isObject(caps)) throw new ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs "capabilities" as an object')
  if (!isObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
    throw new ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs "clientInfo" as an object with "name" and "version" strings')
  }
  const version = negotiate(protocolVersion)
  const caps2025: Record<string, unknown> = rulesOf(version).tasks ? { ...capabilities(), tasks: TASKS_CAPABILITY } : capabilities()
  // MCP Apps and tool completion in a 2025 session: `capabilities.extensions`, an open field those revisions leave to extensions
  const extensions = usedExtensions(server)
  if (Object.keys(extensions).length > 0) caps2025.extensions = extensions
  const result = JSON.stringify({
    protocolVersion: version,
    // 2025-11-25 sessions: task-augmented tools/call, tasks/list and tasks/cancel (protocol/methods/tasks.ts)
    capabilities: caps2025,
    serverInfo: server.info,
    instructions: server.instructions
  })
  return { version, client: { info: clientInfo as ClientInfo['info'], capabilities: caps }, result }
}
