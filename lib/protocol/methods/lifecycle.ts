/** `initialize` (legacy), `server/discover` (modern) and `ping` (legacy). */
import { INVALID_PARAMS } from '../jsonrpc.js'
import { ProtocolError } from '../../errors.js'
import { SUPPORTED_VERSIONS, negotiate, type LegacyVersion } from '../eras.js'
import type { ClientInfo } from '../../define/tool.js'
import type { Registry } from '../../registry.js'

function capabilities (): Record<string, unknown> {
  return {
    // listChanged and subscribe: app.mcp.listChanged / resourceUpdated reach 2025 GET streams and
    // 2026-07-28 subscriptions/listen (lib/http/streams.ts)
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
export function discoverResult (registry: Registry, instructions: string | undefined): string {
  return JSON.stringify({
    resultType: 'complete',
    // every version we serve, legacy included: the same list an unsupported-version error gives
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: capabilities(),
    instructions,
    ttlMs: registry.options.ttl,
    cacheScope: 'public',
    _meta: registry.serverInfoMeta
  })
}

export interface Initialized {
  readonly version: LegacyVersion
  readonly client: ClientInfo
  readonly result: string
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Reads `initialize` params and negotiates: the client's version when we speak it, else our newest
 * legacy version (not an error: a client that cannot use it disconnects).
 */
export function initialize (registry: Registry, instructions: string | undefined, params: Record<string, unknown> | undefined): Initialized {
  if (params === undefined) throw new ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs params with protocolVersion, capabilities and clientInfo')
  const { protocolVersion, capabilities: caps, clientInfo } = params
  if (typeof protocolVersion !== 'string') throw new ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs "protocolVersion" as a string')
  if (!isObject(caps)) throw new ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs "capabilities" as an object')
  if (!isObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
    throw new ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs "clientInfo" as an object with "name" and "version" strings')
  }
  const version = negotiate(protocolVersion)
  const result = JSON.stringify({
    protocolVersion: version,
    capabilities: capabilities(),
    serverInfo: registry.options.info,
    instructions
  })
  return { version, client: { info: clientInfo as ClientInfo['info'], capabilities: caps }, result }
}
