/**
 * The wire rules of SEP-2243's request headers that both sides share: the base64 sentinel, and how
 * a client encodes a value (which body field `Mcp-Name` mirrors is a method's fact: `methods.ts`).
 * The server's checks (`http/headers.ts`) decode with the same sentinel; the client (`client/`)
 * encodes with it.
 */

/**
 * The headers the protocol names, lower-cased as Node.js gives them (and as `reply.header` and
 * `fetch` take them), and as messages and CORS spell them: the one place each is written.
 */
export const SESSION_ID = 'mcp-session-id'
export const PROTOCOL_VERSION = 'mcp-protocol-version'
export const METHOD = 'mcp-method'
export const NAME = 'mcp-name'
/** Before the parameter's own name (`Mcp-Param-Region`). */
export const PARAM_PREFIX = 'mcp-param-'
export const LAST_EVENT_ID = 'last-event-id'
export const WWW_AUTHENTICATE = 'www-authenticate'
export const RETRY_AFTER = 'retry-after'

/** How messages (and `Access-Control-Expose-Headers`) spell them. */
export const SHOWN = Object.freeze({
  [SESSION_ID]: 'Mcp-Session-Id',
  [PROTOCOL_VERSION]: 'MCP-Protocol-Version',
  [METHOD]: 'Mcp-Method',
  [NAME]: 'Mcp-Name',
  [PARAM_PREFIX]: 'Mcp-Param-',
  [LAST_EVENT_ID]: 'Last-Event-ID',
  [WWW_AUTHENTICATE]: 'WWW-Authenticate',
  [RETRY_AFTER]: 'Retry-After'
})

/** The sentinel that wraps a base64 header value: `=?base64?{Base64(UTF-8)}?=` (case-sensitive). */
export const BASE64_PREFIX = '=?base64?'
export const BASE64_SUFFIX = '?='

// visible ASCII and space; a tab is allowed by RFC 9110 but is a control character, so it is wrapped
const PLAIN = /^[\x20-\x7E]*$/

/**
 * A value as a client sends it in `Mcp-Name` or `Mcp-Param-*`: as it is when it is a plain header
 * value, else (non-ASCII, control characters, leading or trailing space, or a value that looks
 * like the sentinel itself) base64 of its UTF-8 bytes inside the sentinel.
 */
export function encodeHeaderValue (value: string): string {
  const plain = PLAIN.test(value) && value.trim() === value &&
    !(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX))
  return plain ? value : BASE64_PREFIX + Buffer.from(value, 'utf8').toString('base64') + BASE64_SUFFIX
}

/** A header-mirrored argument's value as a header string (string as is, integer in decimal, boolean as `true`/`false`); undefined when it is not one of those. */
export function headerString (value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  return undefined
}
