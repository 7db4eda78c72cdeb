/**
 * `mcpCors`: the options of `@fastify/cors` that let a browser page use the MCP endpoint from
 * another origin, in one line (`app.register(cors, mcpCors({ origin: [...] }))`, with the plugin's
 * `allowedOrigins: 'cors'` following the same list). What @fastify/cors does not do by default, and
 * a browser client needs: DELETE (a 2025 session's end), the MCP request headers, each tool's
 * `Mcp-Param-{Name}` (CORS has no wildcard for a prefix, so a preflight's are checked one by one),
 * and `Mcp-Session-Id` readable by the page's script (else a 2025 client loses its session).
 */
import type { FastifyRequest } from 'fastify'
import { LAST_EVENT_ID, METHOD, NAME, PARAM_PREFIX, PROTOCOL_VERSION, RETRY_AFTER, SESSION_ID, SHOWN, WWW_AUTHENTICATE } from '../spec/headers.js'

/** The request headers an MCP client sends, lowercased; `Mcp-Param-*` are checked by prefix. */
const MCP_REQUEST_HEADERS = new Set(['content-type', 'accept', 'authorization', SESSION_ID, PROTOCOL_VERSION, METHOD, NAME, LAST_EVENT_ID])

/** What a page's script must read: the session, the negotiated version, where to get a token, when to come back. */
const EXPOSED = [SHOWN[SESSION_ID], SHOWN[PROTOCOL_VERSION], SHOWN[WWW_AUTHENTICATE], SHOWN[RETRY_AFTER]]

/** An origin as @fastify/cors takes it. */
type Origin = string | RegExp | boolean | ReadonlyArray<string | RegExp> | ((origin: string | undefined, callback: (error: Error | null, allow: boolean | string) => void) => void)

export interface McpCorsOptions {
  /** The origins allowed, as @fastify/cors takes them: a list such as `['https://app.example.com']`. */
  origin: Origin
  /** More request headers to allow, besides the MCP ones (case-insensitive). */
  allowedHeaders?: readonly string[]
  /** More response headers a page may read, besides the MCP ones. */
  exposedHeaders?: readonly string[]
  /** Cookies and other browser-managed credentials (not needed for a bearer token). Default false. */
  credentials?: boolean
  /** Seconds a browser may keep a preflight's answer. */
  maxAge?: number
}

/** What `app.register(cors, …)` takes: a per-request delegator, so that a preflight's headers are answered one by one. */
export interface McpCorsRegistration {
  readonly hook: 'onRequest'
  readonly delegator: (request: FastifyRequest, callback: (error: Error | null, options?: any) => void) => void
}

/**
 * The @fastify/cors options for MCP: `origin` as given, the methods GET, POST and DELETE, the
 * request headers of MCP (and of `allowedHeaders`) allowed when a preflight asks for them, and
 * the MCP response headers exposed. Pair it with `allowedOrigins: 'cors'` on the plugin.
 */
export function mcpCors (options: McpCorsOptions): McpCorsRegistration {
  if (options === null || typeof options !== 'object' || options.origin === undefined) {
    throw new TypeError("fastify-sake: mcpCors takes { origin, allowedHeaders?, exposedHeaders?, credentials?, maxAge? }, such as mcpCors({ origin: ['https://app.example.com'] })")
  }
  const extra = new Set((options.allowedHeaders ?? []).map((name) => name.toLowerCase()))
  const base = {
    origin: options.origin,
    methods: ['GET', 'POST', 'DELETE'],
    exposedHeaders: [...EXPOSED, ...(options.exposedHeaders ?? [])],
    credentials: options.credentials ?? false,
    ...(options.maxAge === undefined ? {} : { maxAge: options.maxAge })
  }
  return Object.freeze({
    hook: 'onRequest' as const,
    delegator (request: FastifyRequest, callback: (error: Error | null, options?: any) => void) {
      const asked = request.headers['access-control-request-headers']
      const allowed = typeof asked === 'string'
        ? asked.split(',').map((name) => name.trim()).filter((name) => allowedHeader(name.toLowerCase(), extra))
        : []
      callback(null, { ...base, allowedHeaders: allowed })
    }
  })
}

function allowedHeader (name: string, extra: ReadonlySet<string>): boolean {
  return MCP_REQUEST_HEADERS.has(name) || extra.has(name) || (name.startsWith(PARAM_PREFIX) && name.length > PARAM_PREFIX.length)
}
