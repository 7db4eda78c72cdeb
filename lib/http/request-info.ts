/**
 * `request.mcp`: what an MCP request is, for the host's hooks (a rate limit per tool, a log field,
 * a gateway's routing), on the MCP routes only. Computed when read, never before: the host's other
 * routes and a hook that never looks pay nothing.
 *
 * Before the body is read (`onRequest`, `preParsing`) it comes from the `Mcp-*` headers of a
 * 2026-07-28 request, unverified (`verified: false`); from `preValidation` on, from the body's
 * classification (`inboundOf`, the one the plugin's own checks in `post.ts` use), which is what the
 * server executes (`verified: true`). The plugin's checks refuse a request whose headers differ from
 * its body, right after the host's hooks of the same stage.
 */
import type { FastifyRequest } from 'fastify'
import type { Era } from '../spec/eras.js'
import type { Registry } from '../define/registry.js'
import type { McpConfig } from '../define/config.js'
import { classify, classifyHeaders, type Inbound } from '../protocol/inbound.js'
import type { Target } from '../protocol/target.js'
import { carriedBy, decodeHeaderValue, headerValue, valueAt, type Carried } from './headers.js'
import { METHOD, NAME, PROTOCOL_VERSION, SESSION_ID, SHOWN } from '../spec/headers.js'

/** What an MCP request is, as far as it is known when read (see `verified`). */
export interface McpRequestInfo {
  /** True once the values come from the body (`preValidation` on); false: from the headers alone. */
  readonly verified: boolean
  /** `modern` (2026-07-28) or `legacy` (a 2025 session, or its `initialize`); undefined when neither can be told. */
  readonly era: Era | undefined
  /** The revision: the body's `_meta` version, the version `initialize` will negotiate, or a session's `MCP-Protocol-Version` header. */
  readonly protocolVersion: string | undefined
  /** The JSON-RPC method (`tools/call`); undefined for a batch or a response. */
  readonly method: string | undefined
  /** What SEP-2243's `Mcp-Name` carries: the tool or prompt name, the resource URI. */
  readonly name: string | undefined
  /** The JSON-RPC id of a request; undefined for a notification, a response or a batch. */
  readonly id: string | number | undefined
  /** The 2025 session id (`Mcp-Session-Id`), unverified until the plugin looked the session up. */
  readonly sessionId: string | undefined
  /** The arguments a tool mirrors into `Mcp-Param-*` headers, by argument name, as the header carries them. */
  readonly params: Readonly<Record<string, string>>
  /** The called tool as listed (`tools/call`), when it exists. */
  readonly tool: Readonly<Record<string, unknown>> | undefined
  /** The prompt as listed (`prompts/get`, a completion of its arguments), when it exists. */
  readonly prompt: Readonly<Record<string, unknown>> | undefined
  /** The resource or resource template as listed (`resources/read`, `resources/subscribe`, a completion), when it exists. */
  readonly resource: Readonly<Record<string, unknown>> | undefined
  /** The target definition's own `config`, when it has one: typed by what the application declares in `McpConfig`. */
  readonly config: Readonly<McpConfig> | undefined
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({})

/** On each request of the MCP routes: its body's classification, made once (`inboundOf`). */
export const kInbound = Symbol('fastify-sake.inbound')

/**
 * The classification of a request's body, made on first use (the plugin's check, or a host hook
 * that reads `request.mcp` before it) and kept on the request: nothing classifies it again.
 * Only once the body is read (`request.body` defined).
 */
export function inboundOf (request: FastifyRequest, registry: Registry, carried: Carried = carriedBy(request)): Inbound {
  const held = request as FastifyRequest & { [kInbound]: Inbound | null }
  return (held[kInbound] ??= classify(registry, request.body, carried.sessionId, carried.version))
}

/** On each request of the MCP routes: its `request.mcp` from the body, once made (it cannot change). */
export const kView = Symbol('fastify-sake.view')

type ViewedRequest = FastifyRequest & { [kView]: McpRequestInfo | null }

/** `request.mcp` for a request of an MCP route served by `registry`. */
export function requestInfo (request: FastifyRequest, registry: Registry): McpRequestInfo {
  if (request.body === undefined) return fromHeaders(request, registry)
  const viewed = request as ViewedRequest
  return (viewed[kView] ??= fromBody(inboundOf(request, registry)))
}

function fromBody (inbound: Inbound): McpRequestInfo {
  const { target } = inbound
  let mirrored = NO_PARAMS
  if (target?.kind === 'tool' && target.headers.length > 0) {
    const values: Record<string, string> = {}
    for (const param of target.headers) {
      const value = valueAt(inbound.params?.arguments, param.path)
      if (value !== undefined && value !== null) values[param.path.join('.')] = String(value)
    }
    mirrored = Object.freeze(values)
  }
  return described(true, inbound.era, inbound.protocolVersion, inbound.method, inbound.name, inbound.id, inbound.sessionId, mirrored, target)
}

/** Before the body: what a 2026-07-28 request's headers say (a 2025 request's say little more than its session). */
function fromHeaders (request: FastifyRequest, registry: Registry): McpRequestInfo {
  const { headers } = request
  const rawName = headerValue(headers, NAME)
  let name: string | undefined
  try {
    name = rawName === undefined ? undefined : decodeHeaderValue(SHOWN[NAME], rawName)
  } catch {
    name = undefined // a malformed header: the plugin's own check refuses it once the body is read
  }
  const told = classifyHeaders(registry, headerValue(headers, PROTOCOL_VERSION), headerValue(headers, SESSION_ID), headerValue(headers, METHOD), name)
  const { target } = told
  let mirrored = NO_PARAMS
  if (target?.kind === 'tool' && target.headers.length > 0) {
    const values: Record<string, string> = {}
    for (const param of target.headers) {
      const raw = headerValue(headers, param.header)
      if (raw === undefined) continue
      try {
        values[param.path.join('.')] = decodeHeaderValue(param.display, raw)
      } catch {} // refused later, as above
    }
    mirrored = Object.freeze(values)
  }
  return described(false, told.era, told.protocolVersion, told.method, told.name, undefined, told.sessionId, mirrored, target)
}

function described (verified: boolean, era: Era | undefined, protocolVersion: string | undefined, method: string | undefined, name: string | undefined, id: string | number | undefined, sessionId: string | undefined, params: Readonly<Record<string, string>>, target: Target | undefined): McpRequestInfo {
  const item = target?.kind === 'found' ? target.resource : target
  return Object.freeze({
    verified,
    era,
    protocolVersion,
    method,
    name,
    id,
    sessionId,
    params,
    tool: item?.kind === 'tool' ? item.wire.modern : undefined,
    prompt: item?.kind === 'prompt' ? item.wire.modern : undefined,
    resource: item?.kind === 'resource' ? item.wire.modern : undefined,
    // a skill, a skill's folder or a name inside it carries no `config` of the user's
    config: item?.kind === 'skill' || item?.kind === 'directory' || item?.kind === 'in-skill' ? undefined : item?.config
  })
}
