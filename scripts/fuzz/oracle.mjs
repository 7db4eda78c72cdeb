// What every answer of the MCP endpoint must be, whatever was sent (issue 17): no 5xx, no hang,
// an answer (unless the request itself was cut short), only the spec's error codes and ours
// (docs/errors.md), the request's id on every error once the body was readable JSON with a readable
// id, and nothing internal (a stack trace, a file path) in any body.
import { sseMessages } from './http.mjs'

/** JSON-RPC's codes, and the server codes docs/errors.md documents. */
export const ALLOWED_CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32020, -32021, -32022])

/** The example server's bodyLimit: Fastify's default. */
const BODY_LIMIT = 1024 * 1024

const LEAKS = [
  [/\n\s+at .+:\d+:\d+/, 'a stack trace'],
  [/(?:\/work\/|\/home\/|\/root\/|node_modules|node:internal|file:\/\/)/, 'a file path'],
  [/\b(?:TypeError|RangeError|ReferenceError|SyntaxError): /, 'a JavaScript error message']
]

/**
 * The id an error about this body must carry: the message's id when the body is one JSON object
 * with a string or integer id that is not a response's; otherwise null.
 */
export function readableId (text) {
  let value
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  if (value.method === undefined && (Object.hasOwn(value, 'result') || Object.hasOwn(value, 'error'))) return null
  const id = value.id
  return typeof id === 'string' || Number.isInteger(id) ? id : null
}

/**
 * The failures of one exchange, as `{ check, detail }` (empty when it is fine). `request` is what
 * `build` made, `response` what `send` read.
 */
export function judge (request, response) {
  const failures = []
  // `key`: what groups failures into classes in the report (the check, the status, the error's code and message without the values in it)
  const fail = (check, detail, key = check) => failures.push({ check, detail, key })
  if (response.timedOut) {
    fail('hang', `no complete answer within the bound (${response.status === 0 ? 'not even a status line' : `status ${response.status}, body so far ${response.body.length} bytes`})`)
    return failures
  }
  if (response.status >= 500) fail('5xx', `HTTP ${response.status}: ${response.body.slice(0, 200)}`, `5xx: ${response.status} ${response.body.replace(/"id":[^,]*,/, '').slice(0, 80)}`)
  if (response.status === 0) {
    // the request was cut short on purpose (a body shorter than its Content-Length), or its body is
    // over the server's bodyLimit (1 MiB): the server answers 413 at once and closes, and the reset of
    // a socket still sending discards that answer before this client reads it. Closing is an answer then.
    if (request.bodyMode !== 'short' && !(request.body?.length > BODY_LIMIT)) fail('no answer', 'the connection closed without a response')
    return failures
  }
  for (const [pattern, what] of LEAKS) {
    if (pattern.test(response.body) && !(request.text ?? '').match(pattern)) fail('leak', `the body holds ${what}: ${excerpt(response.body, pattern)}`)
  }
  const type = response.headers['content-type'] ?? ''
  const onPost = request.method === 'POST'
  if (/event-stream/.test(type)) {
    const messages = sseMessages(response.body)
    for (const message of messages) checkMessage(message, onPost ? expectedId(request, response) : null, fail, false)
    if (request.peek === undefined && onPost && !response.aborted) {
      const id = readableId(request.text ?? '')
      // a 2025-11-25 stream may close early after a `retry:` hint (SSE polling): the answer comes on the resumed GET
      const polling = request.era === '2025-11-25' && /^retry: \d+$/m.test(response.body)
      if (polling) return failures
      if (!messages.some((m) => m.id !== undefined && (m.result !== undefined || m.error !== undefined))) fail('stream without answer', 'the event stream ended without the response')
      else if (id !== null && !messages.some((m) => m.id === id)) fail('id lost', `the stream's response does not carry id ${JSON.stringify(id)}`)
    }
    return failures
  }
  if (/json/.test(type) && response.body !== '' && request.method !== 'HEAD') {
    let body
    try {
      body = JSON.parse(response.body)
    } catch {
      fail('bad json', `a ${type} body that is not JSON: ${response.body.slice(0, 120)}`)
      return failures
    }
    const jsonRpc = (one) => typeof one === 'object' && one !== null && 'jsonrpc' in one
    if (Array.isArray(body)) {
      for (const one of body) checkMessage(one, undefined, fail, true)
    } else if (jsonRpc(body)) {
      checkMessage(body, onPost ? expectedId(request, response) : null, fail, false)
    }
  }
  return failures
}

/**
 * The id an error answer must carry, or undefined when none is owed: the body was never read as
 * JSON (refused before parsing: Host/Origin, size, media type, broken framing) or is a batch.
 */
function expectedId (request, response) {
  if (request.text === undefined) return undefined
  if ([403, 413, 415].includes(response.status)) return undefined
  // cut short, or sent without Content-Length or chunks: the server never saw a body
  if (request.bodyMode === 'short' || request.bodyMode === 'none') return undefined
  const type = request.headers.filter(([name]) => name.toLowerCase() === 'content-type').map(([, value]) => value)
  if (type.length !== 1 || !/^application\/json\s*(;|$)/i.test(type[0])) return undefined
  return readableId(request.text)
}

function checkMessage (message, id, fail, inBatch) {
  if (typeof message !== 'object' || message === null) return fail('bad message', `not a JSON-RPC object: ${JSON.stringify(message)}`)
  if (message.unparseable !== undefined) return fail('bad message', `an event whose data is not JSON: ${message.unparseable.slice(0, 120)}`)
  if (message.jsonrpc !== '2.0') fail('bad message', `"jsonrpc" is ${JSON.stringify(message.jsonrpc)}`)
  if (message.error === undefined) return
  const { code, message: text } = message.error
  if (!ALLOWED_CODES.has(code)) fail('unknown code', `error code ${JSON.stringify(code)} (${text})`)
  if (typeof text !== 'string' || text.length === 0) fail('bad message', 'an error without a message')
  if (inBatch || id === undefined) return
  if (id !== null && message.id !== id) {
    fail('id lost', `error ${code} "${String(text).slice(0, 100)}" has id ${JSON.stringify(message.id)}, the request's is ${JSON.stringify(id)}`,
      `id lost: ${code} ${String(text).replace(/["'].*$|\d+/g, '…').slice(0, 60)}`)
  }
}

function excerpt (body, pattern) {
  const at = body.search(pattern)
  return JSON.stringify(body.slice(Math.max(0, at - 60), at + 80))
}
