// Requests over a real port: streams read event by event, 2026-07-28 and 2025 POSTs, a 2025 session, its GET stream, and a request with a Host header of our choosing.
import { request, type IncomingMessage } from 'node:http'
import { MODERN, modernMeta } from './requests.js'
import { takeSseEvents, type SseEvent } from './sse.js'

/** A response over the network, read as SSE events as they arrive (or, with `json()`, as one JSON body). */
export interface OpenStream {
  status: number
  headers: Headers
  /** The next event (comments included); undefined once the stream ended. */
  next (timeoutMs?: number): Promise<SseEvent | undefined>
  /** The next event that carries data, parsed; skips comments and priming events. A JSON answer is one message. */
  message (timeoutMs?: number): Promise<any>
  /** Every event until the stream ends. */
  rest (timeoutMs?: number): Promise<SseEvent[]>
  close (): void
  json (): Promise<any>
}

/** Sends one request on a connection of its own (closing the stream closes the socket, nothing pooled) and resolves with its headers. */
export async function open (url: string, init: { method: string, headers: Record<string, string>, body?: string }): Promise<OpenStream> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: init.method, headers: init.headers, agent: false }, resolve)
    req.on('error', reject)
    req.end(init.body)
  })
  res.setEncoding('utf8')
  let buffer = ''
  let done = false
  const pending: SseEvent[] = []
  const waiters: Array<() => void> = []
  const wake = (): void => { for (const w of waiters.splice(0)) w() }
  const parse = (): void => {
    const { events, rest } = takeSseEvents(buffer)
    buffer = rest
    pending.push(...events)
  }
  let text = ''
  let jsonRead = false
  res.on('data', (chunk: string) => { text += chunk; buffer += chunk; parse(); wake() })
  res.on('end', () => { done = true; wake() })
  res.on('close', () => { done = true; wake() })
  const next = async (timeoutMs = 2000): Promise<SseEvent | undefined> => {
    const deadline = Date.now() + timeoutMs
    // eslint-disable-next-line no-unmodified-loop-condition -- the response's 'end'/'close' listeners set `done` while we await
    while (pending.length === 0 && !done) {
      if (Date.now() > deadline) throw new Error('no event in time')
      await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 50) })
    }
    return pending.shift()
  }
  const json = async (): Promise<any> => {
    // eslint-disable-next-line no-unmodified-loop-condition -- set by the response's listeners while we await
    while (!done) await new Promise<void>((resolve) => { waiters.push(resolve) })
    return JSON.parse(text)
  }
  return {
    status: res.statusCode!,
    headers: new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
    next,
    async message (timeoutMs) {
      // an answer that did not stream (a call that sent nothing before its result) is its one message
      if (res.headers['content-type']?.startsWith('application/json') === true) {
        if (jsonRead) return undefined
        jsonRead = true
        return await json()
      }
      for (;;) {
        const event = await next(timeoutMs)
        if (event === undefined) return undefined
        if (event.data !== undefined && event.data !== '') return JSON.parse(event.data)
      }
    },
    async rest (timeoutMs) {
      const all: SseEvent[] = []
      for (let event = await next(timeoutMs); event !== undefined; event = await next(timeoutMs)) all.push(event)
      return all
    },
    close: () => { res.destroy() },
    json
  }
}

/**
 * The call's response on a stream (the first message with an id and no method), skipping the
 * notifications and questions before it; undefined when the stream ends without one.
 */
export async function responseOn (stream: OpenStream, timeoutMs: number): Promise<any> {
  for (;;) {
    const message = await stream.message(timeoutMs)
    if (message === undefined || (message.id !== undefined && message.method === undefined)) return message
  }
}

let nextId = 1

/**
 * A 2026-07-28 POST over the network (the network twin of requests.ts `modernRequest`), answered
 * as a stream or JSON: `params._meta` merged over the modern defaults, a fresh id unless given, and
 * Mcp-Name set for tools/call whatever `params.name` is. `headers` are spread over the defaults.
 */
export async function streamPost (url: string, method: string, params: Record<string, any> = {}, headers: Record<string, string> = {}, id: number | string = nextId++): Promise<OpenStream> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...headers
  }
  if (method === 'tools/call') h['mcp-name'] = params.name
  return open(url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta(params._meta) } }) })
}

/** A POST on a 2025 session over the network; `headers` are spread over the JSON, Accept and session headers (an Accept of its own, say). */
export async function legacyPost (url: string, sessionId: string, protocolVersion: string, body: unknown, headers: Record<string, string> = {}): Promise<OpenStream> {
  return open(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion, ...headers },
    body: JSON.stringify(body)
  })
}

/**
 * `initialize` (clientInfo `raw`) + `notifications/initialized` over the network; returns the
 * session id. Default: version 2025-11-25 and no capabilities (requests.ts `ALL_CAPABILITIES` for a
 * client that can be asked everything); `headers` go on both (an Authorization, say).
 */
export async function sessionOn (url: string, options: { protocolVersion?: string, capabilities?: Record<string, unknown>, headers?: Record<string, string> } = {}): Promise<string> {
  const { protocolVersion = '2025-11-25', capabilities = {}, headers = {} } = options
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }
  const res = await open(url, { method: 'POST', headers: base, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 'raw', version: '1' } } }) })
  await res.json()
  const id = res.headers.get('mcp-session-id')!
  await (await legacyPost(url, id, protocolVersion, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).rest()
  return id
}

/** The session's GET stream (or a resumption, with `lastEventId`). */
export async function getStream (url: string, sessionId: string, lastEventId?: string, protocolVersion = '2025-11-25'): Promise<OpenStream> {
  const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion }
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
  return open(url, { method: 'GET', headers })
}

export interface RawRequest {
  port: number
  /**
   * Exactly the headers sent, Host among them if given (fetch would not let us set Host); or the
   * header lines as sent, `[name, value, name, value...]`, where a name may come twice (then give
   * Host and Content-Length too: Node adds neither).
   */
  headers: Record<string, string> | readonly string[]
  /** Where to connect; default 127.0.0.1. */
  address?: string
  path?: string
  method?: string
  body?: string
}

/** One request with exactly the headers given, Host included; the status and the parsed JSON body (undefined when empty). */
export async function rawRequest (options: RawRequest): Promise<{ status: number, body: any }> {
  const { port, headers, address = '127.0.0.1', path = '/mcp', method = 'POST', body } = options
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, path, method, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode!, body: text === '' ? undefined : JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(body)
  })
}
