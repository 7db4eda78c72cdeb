// A raw HTTP/1.1 client for the fuzz harness: it writes bytes as given (CR/LF in a header,
// duplicate or oddly cased names, a body shorter than its Content-Length, hand-made chunks), which
// node:http and fetch refuse to send, and reads the response with a bound on the whole exchange.
import { connect } from 'node:net'

/**
 * Sends one request and reads its response.
 *
 * - `headers`: `[name, value]` pairs, written in order and as they are;
 * - `body`: a Buffer; `bodyMode`: `length` (Content-Length of the body), `chunked` (random-sized
 *   chunks, from `chunks`), `short` (a Content-Length 10 bytes over, then the write side closed),
 *   `none` (no framing header at all);
 * - `peek`: for a stream that stays open by design (a session's GET, `subscriptions/listen`): the
 *   response is complete once its headers and `peek` ms of body arrived;
 * - `abortAfter(text)`: a predicate on the body so far; once true, the socket is destroyed (a
 *   client dropping a stream mid-flight) and the result has `aborted: true`.
 *
 * Resolves to `{ status, headers, body, timedOut, closedEarly, aborted, ms }`; never rejects.
 */
export function send ({ port, host = '127.0.0.1', method, path, headers = [], body, bodyMode = 'length', chunks = [], timeout = 10_000, peek, abortAfter }) {
  const started = Date.now()
  return new Promise((resolve) => {
    const socket = connect({ port, host })
    let raw = Buffer.alloc(0)
    let head
    let done = false
    let peekTimer
    const finish = (extra = {}) => {
      if (done) return
      done = true
      clearTimeout(timer)
      clearTimeout(peekTimer)
      socket.destroy()
      const parsed = head === undefined ? { status: 0, headers: {}, body: '' } : { ...head, body: decodeBody(head, raw.subarray(head.length)) }
      resolve({ ...parsed, timedOut: false, closedEarly: false, aborted: false, ms: Date.now() - started, ...extra })
    }
    const timer = setTimeout(() => finish({ timedOut: true }), timeout)
    socket.on('error', () => finish({ closedEarly: head === undefined }))
    socket.on('close', () => finish({ closedEarly: head === undefined || !complete(head, raw.subarray(head.length), method) }))
    socket.on('data', (chunk) => {
      raw = Buffer.concat([raw, chunk])
      while (head === undefined) {
        head = parseHead(raw)
        if (head === undefined) return
        // an interim 100 Continue: the real response follows it, maybe in the same chunk
        if (head.status === 100) {
          raw = raw.subarray(head.length)
          head = undefined
          continue
        }
        if (peek !== undefined && /event-stream/.test(head.headers['content-type'] ?? '')) peekTimer = setTimeout(() => finish(), peek)
      }
      const rest = raw.subarray(head.length)
      if (abortAfter !== undefined && abortAfter(rest.toString('latin1'))) return finish({ aborted: true })
      if (complete(head, rest, method)) finish()
    })
    // one write: a server that answers before reading the body (a refused Origin, a 413) and then
    // closes would otherwise reset a socket still sending, and that reset discards its answer
    socket.on('connect', () => {
      const lines = [`${method} ${path} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`)]
      const payload = body ?? Buffer.alloc(0)
      if (bodyMode === 'length' || bodyMode === 'short') lines.push(`Content-Length: ${payload.length + (bodyMode === 'short' ? 10 : 0)}`)
      if (bodyMode === 'chunked') lines.push('Transfer-Encoding: chunked')
      const parts = [Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1')]
      if (bodyMode === 'chunked') {
        let at = 0
        for (const size of [...chunks, payload.length]) {
          const piece = payload.subarray(at, at + Math.max(1, size))
          if (piece.length === 0) break
          parts.push(Buffer.from(piece.length.toString(16) + '\r\n'), piece, Buffer.from('\r\n'))
          at += piece.length
        }
        parts.push(Buffer.from('0\r\n\r\n'))
      } else {
        parts.push(payload)
      }
      socket.write(Buffer.concat(parts))
      if (bodyMode === 'short') socket.end()
    })
  })
}

function parseHead (raw) {
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(statusLine.split(' ')[1])
  const headers = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  return { status, headers, length: end + 4 }
}

/** Whether the body is all there: by Content-Length, by the last chunk, or never (until close). */
function complete (head, rest, method) {
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return true
  if (/chunked/i.test(head.headers['transfer-encoding'] ?? '')) return rest.includes('0\r\n\r\n') && dechunk(rest) !== undefined
  if (head.headers['content-length'] !== undefined) return rest.length >= Number(head.headers['content-length'])
  return false
}

/** A chunked body's content, or undefined while its last chunk has not arrived. */
function dechunk (rest) {
  const parts = []
  let at = 0
  for (;;) {
    const eol = rest.indexOf('\r\n', at)
    if (eol < 0) return undefined
    const size = parseInt(rest.subarray(at, eol).toString('latin1'), 16)
    if (Number.isNaN(size)) return undefined
    if (size === 0) return Buffer.concat(parts)
    if (rest.length < eol + 2 + size + 2) return undefined
    parts.push(rest.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
}

function decodeBody (head, rest) {
  if (/chunked/i.test(head.headers['transfer-encoding'] ?? '')) {
    const whole = dechunk(rest)
    if (whole !== undefined) return whole.toString('utf8')
    // cut short (a peeked or aborted stream): the complete chunks so far
    const parts = []
    let at = 0
    for (;;) {
      const eol = rest.indexOf('\r\n', at)
      if (eol < 0) break
      const size = parseInt(rest.subarray(at, eol).toString('latin1'), 16)
      if (!(size > 0) || rest.length < eol + 2 + size) break
      parts.push(rest.subarray(eol + 2, eol + 2 + size))
      at = eol + 2 + size + 2
    }
    return Buffer.concat(parts).toString('utf8')
  }
  // bytes past Content-Length are not this response's (a body the server did not read, parsed as a next request)
  const length = head.headers['content-length']
  return (length === undefined ? rest : rest.subarray(0, Number(length))).toString('utf8')
}

/** The JSON messages of an event stream's `data:` fields (the empty priming data skipped). */
export function sseMessages (text) {
  const messages = []
  for (const event of text.split(/\n\n/)) {
    const data = event.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n')
    if (data === '') continue
    try {
      messages.push(JSON.parse(data))
    } catch {
      messages.push({ unparseable: data })
    }
  }
  return messages
}
