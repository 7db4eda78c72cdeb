/**
 * What a message arriving at the server is, decided once, from the message itself and the two
 * values a transport may carry beside it (a 2025 session id, an `MCP-Protocol-Version`): its era,
 * its kind, its method's facts (`spec/methods.ts`), the name `Mcp-Name` mirrors and the item it
 * names (`target.ts`). The transport's checks, authorization, `request.mcp`, the log bindings and
 * the traces all read this one answer.
 *
 * Total: a body that is not a valid message is still described as far as it can be told (for
 * `request.mcp` and the logs), with the refusal that answers it. Also here: the 2026-07-28
 * per-request `_meta`, what makes a message modern, and the checks on its fields.
 */
import { ProtocolError } from '../errors.js'
import { isLegacyVersion, isModernVersion, negotiate, type Era } from '../spec/eras.js'
import { INVALID_PARAMS, idOf, messageKind, type MessageKind, type RequestId } from '../spec/jsonrpc.js'
import { LOG_LEVELS } from '../spec/log-levels.js'
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from '../spec/meta-keys.js'
import { REF_TOOL } from '../spec/completion.js'
import { METHODS, type MethodFacts, type TargetKind } from '../spec/methods.js'
import type { ClientInfo } from '../spec/types.js'
import { isObject } from '../values.js'
import type { Registry } from '../define/registry.js'
import type { Target } from './target.js'

/** A body as the server first reads it. Every field is always present (undefined when it does not apply). */
export interface Inbound {
  /** A message's kind; `batch` for an array (2025-03-26 sessions); `invalid` for a body that is no message. */
  readonly kind: MessageKind | 'batch' | 'invalid'
  /** `modern` (2026-07-28) or `legacy` (a 2025 session, its `initialize`, a batch); undefined when neither can be told. */
  readonly era: Era | undefined
  /** The body's `_meta` version, the version `initialize` will negotiate, or a session's 2025 `MCP-Protocol-Version`. */
  readonly protocolVersion: string | undefined
  /** The method, when the body has one as a string (an invalid message's included). */
  readonly method: string | undefined
  /** The method's row; undefined for a method this server does not know. */
  readonly facts: MethodFacts | undefined
  readonly params: Record<string, unknown> | undefined
  /** A request's id (a usable id of an invalid message too); never a response's, which names a request of ours. */
  readonly id: RequestId | undefined
  /** The 2025 session id the transport carried, not yet looked up. */
  readonly sessionId: string | undefined
  /** What `Mcp-Name` mirrors (SEP-2243): the tool or prompt name, the resource URI, the task id. */
  readonly name: string | undefined
  /** The item the request names, looked up once (`target.ts`). */
  readonly target: Target | undefined
  /** `invalid`: the -32600 that answers the body. */
  readonly refusal: ProtocolError | undefined
  /** `batch`: its items, each classified when it is answered. */
  readonly items: readonly unknown[] | undefined
  /** `response`: the client's result or error, answering a question of ours. */
  readonly result: unknown
  readonly error: unknown
  /** `response`: its id, which names a question of ours. */
  readonly responseId: RequestId | null | undefined
  /** A 2026-07-28 request's `_meta`, read and checked (`readModernMeta`); undefined otherwise. */
  readonly meta: ModernMeta | undefined
  /** Why a 2026-07-28 request's `_meta` is refused (400 + -32602): the first of the era's checks throws it. */
  readonly metaRefusal: ProtocolError | undefined
}

/**
 * What a log line (and a trace) names a message by: its method, and the tool, prompt, resource or
 * task its method's row says to name (`facts.logged`), when the params carry it as a string.
 */
export function logNames (inbound: Inbound): { method: string | undefined, name?: string } {
  const field = inbound.facts?.logged
  const name = field === undefined ? undefined : inbound.params?.[field]
  return typeof name === 'string' ? { method: inbound.method, name } : { method: inbound.method }
}

/** A request, once its kind is known. */
export type InboundRequest = Inbound & { readonly kind: 'request', readonly method: string, readonly id: RequestId, readonly facts: MethodFacts | undefined }

/**
 * Describes one body. `sessionId` and `versionHeader` are what the transport carried beside it
 * (HTTP: `Mcp-Session-Id`, `MCP-Protocol-Version`); a transport without them passes undefined.
 */
export function classify (registry: Registry, body: unknown, sessionId: string | undefined, versionHeader: string | undefined): Inbound {
  let kind: Inbound['kind']
  let refusal: ProtocolError | undefined
  let era: Era | undefined
  let protocolVersion: string | undefined
  let method: string | undefined
  let params: Record<string, unknown> | undefined
  let id: RequestId | undefined
  let responseId: RequestId | null | undefined
  let message: Record<string, unknown> | undefined
  if (Array.isArray(body)) {
    kind = 'batch'
  } else {
    try {
      kind = messageKind(body)
      message = body as Record<string, unknown>
    } catch (err) {
      kind = 'invalid'
      refusal = err as ProtocolError
      message = isObject(body) ? body : undefined
    }
    if (kind === 'response') {
      responseId = message!.id as RequestId | null
    } else if (kind !== 'invalid') {
      // a valid message: messageKind checked its method (a string) and params (an object or none)
      method = message!.method as string
      params = message!.params as Record<string, unknown> | undefined
      id = kind === 'request' ? message!.id as RequestId : undefined
    } else {
      // as much as an invalid message tells
      method = typeof message?.method === 'string' ? message.method : undefined
      params = isObject(message?.params) ? message.params : undefined
      id = idOf(body) ?? undefined
    }
  }
  const facts = method === undefined ? undefined : METHODS.get(method)
  const meta = metaOf(params)
  if (method !== undefined && meta !== undefined && meta[META_PROTOCOL_VERSION] !== undefined) {
    era = 'modern'
    const version = meta[META_PROTOCOL_VERSION]
    protocolVersion = typeof version === 'string' ? version : undefined
  } else if (facts?.handshake === true) {
    era = 'legacy'
    protocolVersion = negotiate(params?.protocolVersion)
  } else if (sessionId !== undefined || kind === 'batch') {
    era = 'legacy'
    protocolVersion = isLegacyVersion(versionHeader) ? versionHeader : undefined
  }
  const field = facts?.mcpName
  const named = field === undefined ? undefined : params?.[field]
  // a 2026-07-28 request says in its _meta who asks and at which version: read here, once
  let modern: ModernMeta | undefined
  let metaRefusal: ProtocolError | undefined
  if (era === 'modern' && kind === 'request') {
    try { modern = checkMeta(meta) } catch (err) { metaRefusal = err as ProtocolError }
  }
  // one literal, every field in the same order: one hidden class for every kind
  return {
    kind,
    era,
    protocolVersion,
    method,
    facts,
    params,
    id,
    sessionId,
    name: typeof named === 'string' ? named : undefined,
    target: facts?.target === undefined ? undefined : targetOf(registry, facts.target, params),
    refusal,
    items: kind === 'batch' ? body as unknown[] : undefined,
    result: kind === 'response' ? message!.result : undefined,
    error: kind === 'response' ? message!.error : undefined,
    responseId,
    meta: modern,
    metaRefusal
  }
}

/**
 * What the `Mcp-*` headers alone say, before the body is read: unverified, since the body is
 * what the server executes (a transport's checks refuse headers that differ from it). A 2026-07-28
 * request's headers tell its era, version, method and name; a 2025 one's, its session. `name` is
 * the decoded `Mcp-Name`, undefined when absent or undecodable.
 */
export function classifyHeaders (registry: Registry, versionHeader: string | undefined, sessionId: string | undefined, method: string | undefined, name: string | undefined): Pick<Inbound, 'era' | 'protocolVersion' | 'method' | 'name' | 'sessionId' | 'target'> {
  const era: Era | undefined = sessionId !== undefined ? 'legacy' : isModernVersion(versionHeader) ? 'modern' : undefined
  const facts = method === undefined || name === undefined ? undefined : METHODS.get(method)
  return {
    era,
    protocolVersion: era === undefined ? undefined : versionHeader,
    method,
    name,
    sessionId,
    // the header names the item by the field the body would: a name, or a URI
    target: facts?.target === undefined ? undefined : targetOf(registry, facts.target, { name, uri: name })
  }
}

/**
 * The item `params` names, of the kind its method's row says (`spec/methods.ts`); undefined when
 * it names one that does not exist or not in the right shape (the method itself then answers the
 * precise -32602).
 */
export function targetOf (registry: Registry, kind: TargetKind, params: Record<string, unknown> | undefined): Target | undefined {
  if (params === undefined) return undefined
  switch (kind) {
    case 'tool':
      return typeof params.name === 'string' ? registry.tools.get(params.name) : undefined
    case 'prompt':
      return typeof params.name === 'string' ? registry.prompts.get(params.name) : undefined
    case 'resource':
      return typeof params.uri === 'string' ? registry.findResource(params.uri) : undefined
    case 'skill':
      return typeof params.uri === 'string' ? registry.findSkill(params.uri) : undefined
    case 'directory':
      return typeof params.uri === 'string' ? registry.findDirectory(params.uri) : undefined
    case 'reference': {
      const ref = params.ref
      if (!isObject(ref)) return undefined
      if (ref.type === 'ref/prompt') return typeof ref.name === 'string' ? registry.prompts.get(ref.name) : undefined
      // this server's extension (spec/completion.ts): authorized as the tool's call is
      if (ref.type === REF_TOOL) return typeof ref.name === 'string' ? registry.tools.get(ref.name) : undefined
      return ref.type === 'ref/resource' && typeof ref.uri === 'string' ? registry.templates.get(ref.uri) : undefined
    }
  }
}

/** The `_meta` object of a message's params, if it has one. */
function metaOf (params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta
  return isObject(meta) ? meta : undefined
}

export interface ModernMeta {
  readonly protocolVersion: string
  readonly client: ClientInfo
  readonly logLevel: string | undefined
}

/** Checks the required `_meta` fields of a modern request and reads them (400 + -32602 when one is missing or malformed). */
export function readModernMeta (params: Record<string, unknown> | undefined): ModernMeta {
  return checkMeta(metaOf(params))
}

function checkMeta (meta: Record<string, unknown> | undefined): ModernMeta {
  if (meta === undefined) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: a 2026-07-28 request needs params._meta with "${META_PROTOCOL_VERSION}" and "${META_CLIENT_CAPABILITIES}"`, 400)
  }
  const protocolVersion = meta[META_PROTOCOL_VERSION]
  if (typeof protocolVersion !== 'string') {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: params._meta["${META_PROTOCOL_VERSION}"] must be a string`, 400)
  }
  const capabilities = meta[META_CLIENT_CAPABILITIES]
  if (!isObject(capabilities)) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: params._meta["${META_CLIENT_CAPABILITIES}"] is required and must be an object ({} for none)`, 400)
  }
  const info = meta[META_CLIENT_INFO] as Record<string, unknown> | undefined
  // a JSON value with string name and version is an object: only its fields need a look
  if (info !== undefined && !(typeof info?.name === 'string' && typeof info.version === 'string')) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: params._meta["${META_CLIENT_INFO}"] must be an object with "name" and "version" strings`, 400)
  }
  const logLevel = meta[META_LOG_LEVEL]
  if (logLevel !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(logLevel)) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: params._meta["${META_LOG_LEVEL}"] must be one of ${LOG_LEVELS.join(', ')}`, 400)
  }
  return {
    protocolVersion,
    client: { info: info as ClientInfo['info'], capabilities },
    logLevel: logLevel as string | undefined
  }
}
