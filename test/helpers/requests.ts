// Requests through app.inject, for each era: 2026-07-28 POSTs (built, or sent as given), 2025 sessions and their POSTs, and the parsed answers.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'

export const MODERN = '2026-07-28'

/** Every client capability a question can need (elicitation in both modes, sampling, roots). */
export const ALL_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }

type Headers = Record<string, string | undefined>

const BASE: Headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** Header sets merged left to right, names lowercased; an undefined value deletes the header. */
function merge (...sets: Headers[]): Record<string, string> {
  const out: Headers = {}
  for (const set of sets) for (const [k, v] of Object.entries(set)) out[k.toLowerCase()] = v
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out as Record<string, string>
}

/** The `_meta` a 2026-07-28 client sends, with `extra` merged over it. */
export function modernMeta (extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'test-client', version: '0.0.1' },
    ...extra
  }
}

let nextId = 1

/**
 * A well-formed 2026-07-28 POST for `method`, with a fresh numeric id: `params._meta` is merged
 * over the modern defaults (`modernMeta`), and the MCP-Protocol-Version, Mcp-Method and (for
 * tools/call) Mcp-Name headers are set. `headers` are merged over (undefined deletes; case kept).
 * To send a body exactly as given, `_meta` included, use `modernPost`.
 */
export function modernRequest (method: string, params: Record<string, unknown> = {}, headers: Headers = {}): InjectOptions {
  const h: Headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method
  }
  if (method === 'tools/call' && typeof params.name === 'string') h['mcp-name'] = params.name
  for (const [k, v] of Object.entries(headers)) h[k] = v
  for (const k of Object.keys(h)) if (h[k] === undefined) delete h[k]
  return {
    method: 'POST',
    url: '/mcp',
    headers: h as Record<string, string>,
    payload: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: modernMeta(params._meta as Record<string, unknown> | undefined) } })
  }
}

/** A POST of `payload` (a string is sent as it is, anything else as JSON) with JSON and Accept headers; `headers` merged over (lowercased, undefined deletes). */
export function post (payload: unknown, headers: Headers = {}): InjectOptions {
  return {
    method: 'POST',
    url: '/mcp',
    headers: merge(BASE, headers),
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload)
  }
}

/**
 * A 2026-07-28 POST of `body` exactly as given (its `_meta` untouched, for the malformed-_meta
 * tests), with the headers a modern client derives from it: MCP-Protocol-Version from `_meta` (or
 * the modern version), Mcp-Method, and Mcp-Name for tools/call. `headers` are merged over them
 * (undefined deletes). To have `_meta` filled in, use `modernRequest`.
 */
export function modernPost (body: Record<string, any>, headers: Headers = {}): InjectOptions {
  const derived: Headers = {
    'mcp-protocol-version': body.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? MODERN,
    'mcp-method': body.method
  }
  if (body.method === 'tools/call' && typeof body.params?.name === 'string') derived['mcp-name'] = body.params.name
  return post(body, merge(derived, headers))
}

/** A modern tools/call of `name` with `args`, id `id`, plus extra headers (e.g. Mcp-Param-*). */
export function modernCall (name: string, args: unknown, headers: Headers = {}, id: number | string = 1): InjectOptions {
  return modernPost({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: modernMeta() } }, headers)
}

/**
 * A POST on a 2025 session: the Mcp-Session-Id and MCP-Protocol-Version headers, then `headers`
 * merged over (lowercased, undefined deletes). A string body is sent as it is, anything else as JSON.
 */
export function sessionPost (sessionId: string, protocolVersion: string, body: unknown, headers: Headers = {}): InjectOptions {
  return post(body, merge({ 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion }, headers))
}

export interface OpenSessionOptions {
  /** The capabilities `initialize` declares; default {}. */
  capabilities?: Record<string, unknown>
  /** The clientInfo `initialize` sends; default { name: 'legacy', version: '1' }. */
  clientInfo?: { name: string, version: string }
  /** Merged over the JSON and Accept headers of `initialize` (a token, say); undefined deletes one. */
  headers?: Headers
  /**
   * Send `notifications/initialized` after it, with the same `headers` (default true). False: the
   * session is left as `initialize` made it, as a client that never sends the notification.
   */
  initialized?: boolean
  /** The client's address (app.inject's `remoteAddress`): another caller, as quotas count them. */
  remoteAddress?: string
}

/** Starts a 2025 session with `initialize` (and, unless told otherwise, `notifications/initialized`) and returns its id. */
export async function openSession (app: FastifyInstance, protocolVersion = '2025-11-25', options: OpenSessionOptions = {}): Promise<string> {
  const { capabilities = {}, clientInfo = { name: 'legacy', version: '1' }, headers = {}, initialized = true, remoteAddress } = options
  const res = await app.inject({ ...initializeRequest(protocolVersion, { capabilities, clientInfo, headers }), remoteAddress })
  const id = res.headers['mcp-session-id']
  if (typeof id !== 'string') throw new Error(`initialize failed: ${res.statusCode} ${res.body}`)
  if (initialized) await app.inject({ ...sessionPost(id, protocolVersion, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers), remoteAddress })
  return id
}

/** An `initialize` POST (a 2025 client's first request). */
export function initializeRequest (protocolVersion = '2025-11-25', options: Pick<OpenSessionOptions, 'capabilities' | 'clientInfo' | 'headers'> = {}): InjectOptions {
  const { capabilities = {}, clientInfo = { name: 'legacy', version: '1' }, headers = {} } = options
  return {
    method: 'POST',
    url: '/mcp',
    headers: merge(BASE, headers),
    payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities, clientInfo } }
  }
}

/** The parsed JSON-RPC body of a response. */
export function rpc (res: LightMyRequestResponse): { id?: unknown, result?: any, error?: { code: number, message: string, data?: any } } {
  return JSON.parse(res.body)
}

export interface Answer {
  status: number
  headers: LightMyRequestResponse['headers']
  /** The parsed body, or undefined when there is none. */
  body: any
  raw: string
}

/** Injects `options` and returns the status, headers, parsed body and raw body text. */
export async function send (app: FastifyInstance, options: InjectOptions): Promise<Answer> {
  const res = await app.inject(options)
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? undefined : JSON.parse(res.body), raw: res.body }
}
