// Helpers for the raw-HTTP tests in test/http/: hand-built POSTs (any body, any headers), the
// parsed answer, and a logger that keeps every line so a test can say what was logged.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { MODERN, modernMeta } from './app.js'

export { MODERN, modernMeta }

type Headers = Record<string, string | undefined>

const BASE: Headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

function merge (...sets: Headers[]): Record<string, string> {
  const out: Headers = {}
  for (const set of sets) for (const [k, v] of Object.entries(set)) out[k.toLowerCase()] = v
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out as Record<string, string>
}

/** A POST of `payload` (a string is sent as it is, anything else as JSON) with JSON and Accept headers. */
export function post (payload: unknown, headers: Headers = {}): InjectOptions {
  return {
    method: 'POST',
    url: '/mcp',
    headers: merge(BASE, headers),
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload)
  }
}

/**
 * A 2026-07-28 POST of `body` exactly as given (its `_meta` untouched), with the headers a modern
 * client derives from it: MCP-Protocol-Version from `_meta` (or the modern version), Mcp-Method, and
 * Mcp-Name for tools/call. `headers` are merged over them (undefined deletes).
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

/** A request on a 2025 session, with the session's version header (override with `headers`). */
export function sessionPost (sessionId: string, protocolVersion: string, body: unknown, headers: Headers = {}): InjectOptions {
  return post(body, merge({ 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion }, headers))
}

export interface Answer {
  status: number
  headers: LightMyRequestResponse['headers']
  /** The parsed body, or undefined when there is none. */
  body: any
  raw: string
}

export async function send (app: FastifyInstance, options: InjectOptions): Promise<Answer> {
  const res = await app.inject(options)
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? undefined : JSON.parse(res.body), raw: res.body }
}

export interface LogLine {
  level: number
  msg?: string
  [key: string]: unknown
}

/** A Fastify `logger` option that keeps every line, parsed. */
export function captureLog (): { logger: { level: string, stream: { write (line: string): void } }, lines: LogLine[], errors (): LogLine[] } {
  const lines: LogLine[] = []
  return {
    logger: { level: 'debug', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } },
    lines,
    errors: () => lines.filter((line) => line.level >= 50)
  }
}
