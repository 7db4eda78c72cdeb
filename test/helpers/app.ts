// Shared test helpers: build an app with the plugin, and the headers/bodies of raw requests.
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import sake, { type SakeOptions } from '../../lib/index.js'

export const MODERN = '2026-07-28'

/** An app with fastify-sake registered (logger off unless given), not yet ready. */
export async function build (options: Partial<SakeOptions> = {}, fastifyOptions: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, ...fastifyOptions })
  await app.register(sake, { name: 'test-server', version: '1.0.0', ...options })
  return app
}

/** The `_meta` a 2026-07-28 client sends. */
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
 * A well-formed 2026-07-28 POST for `method`: body with `_meta`, and the MCP-Protocol-Version,
 * Mcp-Method and (for tools/call) Mcp-Name headers. `headers` are merged over (undefined deletes).
 */
export function modernRequest (method: string, params: Record<string, unknown> = {}, headers: Record<string, string | undefined> = {}): InjectOptions {
  const h: Record<string, string | undefined> = {
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

/** Starts a 2025 session with `initialize` (and `notifications/initialized`) and returns its id. */
export async function openSession (app: FastifyInstance, protocolVersion = '2025-11-25'): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'legacy', version: '1' } } }
  })
  const id = res.headers['mcp-session-id']
  if (typeof id !== 'string') throw new Error(`initialize failed: ${res.statusCode} ${res.body}`)
  await app.inject(legacyRequest(id, protocolVersion, { jsonrpc: '2.0', method: 'notifications/initialized' }))
  return id
}

/** A POST on a 2025 session. */
export function legacyRequest (sessionId: string, protocolVersion: string, body: unknown, headers: Record<string, string | undefined> = {}): InjectOptions {
  const h: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': protocolVersion,
    ...headers
  }
  for (const k of Object.keys(h)) if (h[k] === undefined) delete h[k]
  return { method: 'POST', url: '/mcp', headers: h as Record<string, string>, payload: JSON.stringify(body) }
}

/** The parsed JSON-RPC body of a response. */
export function rpc (res: LightMyRequestResponse): { id?: unknown, result?: any, error?: { code: number, message: string, data?: any } } {
  return JSON.parse(res.body)
}
