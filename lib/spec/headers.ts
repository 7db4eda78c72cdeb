/**
 * The wire rules of SEP-2243's request headers that both sides share: the base64 sentinel, and how
 * a client encodes a value (which body field `Mcp-Name` mirrors is a method's fact: `methods.ts`).
 * The server's checks (`http/headers.ts`) decode with the same sentinel; the client (`client/`)
 * encodes with it.
 */

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
