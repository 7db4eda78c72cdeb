/**
 * The per-request `_meta` of the 2026-07-28 revision: what makes a request modern, and the checks
 * on its required fields (400 + -32602 when one is missing or malformed).
 */
import { ProtocolError } from '../errors.js'
import { INVALID_PARAMS } from '../spec/jsonrpc.js'
import { LOG_LEVELS } from '../spec/log-levels.js'
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from '../spec/meta-keys.js'
import type { ClientInfo } from '../spec/types.js'
import { isObject } from '../values.js'

/** The `_meta` object of a message's params, if it has one. */
export function metaOf (params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta
  return isObject(meta) ? meta : undefined
}

/** True when the message carries modern per-request metadata. */
export function isModern (params: Record<string, unknown> | undefined): boolean {
  const meta = metaOf(params)
  return meta !== undefined && meta[META_PROTOCOL_VERSION] !== undefined
}

export interface ModernMeta {
  readonly protocolVersion: string
  readonly client: ClientInfo
  readonly logLevel: string | undefined
}

/** Checks the required `_meta` fields of a modern request and reads them. */
export function readModernMeta (params: Record<string, unknown> | undefined): ModernMeta {
  const meta = metaOf(params)
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
  const info = meta[META_CLIENT_INFO]
  if (info !== undefined && !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) {
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
