/**
 * The JSON-RPC 2.0 envelope: what a message is, the standard and MCP error codes, and the
 * serialisers for responses. Pure functions over parsed JSON; no transport here.
 */
import { ProtocolError } from '../errors.js'
import { describe } from '../values.js'

export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const METHOD_NOT_FOUND = -32601
export const INVALID_PARAMS = -32602
export const INTERNAL_ERROR = -32603
/** 2026-07-28: an HTTP header is missing, malformed or differs from the body (SEP-2243). */
export const HEADER_MISMATCH = -32020
/** 2026-07-28: the work needs a client capability the request did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021
/** 2026-07-28: the request names a protocol version this server does not serve. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022
/** Legacy transports: the `Mcp-Session-Id` names no live session (the SDKs' convention). */
export const SESSION_NOT_FOUND = -32001
/** 2025 revisions: `resources/read` names no resource (2026-07-28 uses -32602 instead). */
export const RESOURCE_NOT_FOUND = -32002

export type RequestId = string | number

export interface JsonRpcResponse {
  jsonrpc: '2.0'
  id: RequestId | null
  result?: unknown
  error?: { code: number, message: string, data?: unknown }
}

/** What one JSON-RPC message is: a request (a method and an id), a notification (no id), or a response. */
export type MessageKind = 'request' | 'notification' | 'response'

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Sorts one JSON value into a request, a notification or a response, or throws `-32600` with a
 * message naming the first thing wrong with it. (It reads, and makes nothing: the caller keeps the
 * value, whose fields are then known to be well-formed.)
 */
export function messageKind (value: unknown): MessageKind {
  if (!isPlainObject(value)) {
    throw new ProtocolError(INVALID_REQUEST, `Invalid Request: expected a JSON-RPC object, got ${describe(value)}`, 400)
  }
  if (value.jsonrpc !== '2.0') {
    throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be the string "2.0"', 400)
  }
  const { id, method, params } = value
  if (method === undefined) {
    if ('result' in value || 'error' in value) {
      if (id !== null && typeof id !== 'string' && typeof id !== 'number') {
        throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: a response "id" must be a string, a number or null', 400)
      }
      return 'response'
    }
    throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: "method" is missing', 400)
  }
  if (typeof method !== 'string' || method.length === 0) {
    throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string', 400)
  }
  if (params !== undefined && !isPlainObject(params)) {
    throw new ProtocolError(INVALID_REQUEST, `Invalid Request: "params" must be an object, got ${describe(params)}`, 400)
  }
  if (!('id' in value)) return 'notification'
  if (isRequestId(id)) return 'request'
  // MCP narrows JSON-RPC's ids: a string or an integer, never null
  const what = typeof id === 'number' ? String(id) : describe(id)
  throw new ProtocolError(INVALID_REQUEST, `Invalid Request: "id" must be a string or an integer, got ${what}`, 400)
}

function isRequestId (id: unknown): id is RequestId {
  return typeof id === 'string' || Number.isInteger(id)
}

/**
 * Reads the request id of a message that failed validation, when it has a usable one. A response's
 * id names a request of the server's, not one this error answers, so it is never echoed.
 */
export function idOf (value: unknown): RequestId | null {
  if (!isPlainObject(value)) return null
  if (value.method === undefined && ('result' in value || 'error' in value)) return null
  return isRequestId(value.id) ? value.id : null
}

/** Serialises a successful response around an already serialised result. */
export function resultText (id: RequestId, resultJson: string): string {
  return '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + resultJson + '}'
}

/** The JSON-RPC error object for a ProtocolError. */
export function errorBody (id: RequestId | null, error: ProtocolError): JsonRpcResponse {
  const body: JsonRpcResponse = { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } }
  if (error.data !== undefined) body.error!.data = error.data
  return body
}

/**
 * Serialises a notification (a server's message that expects no answer): the envelope as text
 * around the params' JSON, the same bytes as stringifying `{ jsonrpc, method, params }` without
 * building that object (a streamed call sends one per progress step: bench/RESULTS.md).
 */
export function notificationText (method: string, params?: Record<string, unknown>): string {
  const head = '{"jsonrpc":"2.0","method":' + JSON.stringify(method)
  return params === undefined ? head + '}' : head + ',"params":' + JSON.stringify(params) + '}'
}
