// Raw SSE over a real port: open a stream with fetch, read its events one by one, close it.
import type { Test } from 'tap'
import { request, type IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { MODERN, modernMeta } from '../helpers/app.js'

export interface SseEvent { id?: string, data?: string, retry?: number, comment?: string }

export interface OpenStream {
  status: number
  headers: Headers
  /** The next event (comments included); undefined once the stream ended. */
  next (timeoutMs?: number): Promise<SseEvent | undefined>
  /** The next event that carries data, parsed; skips comments and priming events. */
  message (timeoutMs?: number): Promise<any>
  /** Every event until the stream ends. */
  rest (timeoutMs?: number): Promise<SseEvent[]>
  close (): void
  json (): Promise<any>
}

/** Listens on 127.0.0.1 and returns the endpoint URL; the app closes at teardown. */
export async function listen (t: Test, app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  return `http://127.0.0.1:${port}/mcp`
}

export async function open (url: string, init: { method: string, headers: Record<string, string>, body?: string }): Promise<OpenStream> {
  // node:http with a connection of its own: closing the stream closes the socket, nothing pooled
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
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const event: SseEvent = {}
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) event.comment = line.slice(1).trim()
        else if (line.startsWith('id:')) event.id = line.slice(3).trim()
        else if (line.startsWith('retry:')) event.retry = Number(line.slice(6))
        else if (line.startsWith('data:')) event.data = (event.data ?? '') + line.slice(5).trim()
      }
      pending.push(event)
    }
  }
  let text = ''
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
  return {
    status: res.statusCode!,
    headers: new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
    next,
    async message (timeoutMs) {
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
    json: async () => {
      // eslint-disable-next-line no-unmodified-loop-condition -- set by the response's listeners while we await
      while (!done) await new Promise<void>((resolve) => { waiters.push(resolve) })
      return JSON.parse(text)
    }
  }
}

let nextId = 1

/** A modern POST over the network, answered as a stream or JSON. */
export async function modernPost (url: string, method: string, params: Record<string, any> = {}, headers: Record<string, string> = {}, id: number | string = nextId++): Promise<OpenStream> {
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

/** `initialize` + `notifications/initialized` over the network; returns the session id. */
export async function session (url: string, protocolVersion = '2025-11-25'): Promise<string> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const res = await open(url, { method: 'POST', headers: base, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) })
  await res.json()
  const id = res.headers.get('mcp-session-id')!
  await (await open(url, { method: 'POST', headers: { ...base, 'mcp-session-id': id, 'mcp-protocol-version': protocolVersion }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).rest()
  return id
}

/** A request on a 2025 session over the network. */
export async function legacyPost (url: string, sessionId: string, protocolVersion: string, body: unknown): Promise<OpenStream> {
  return open(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion },
    body: JSON.stringify(body)
  })
}

/** The session's GET stream (or a resumption, with `lastEventId`). */
export async function getStream (url: string, sessionId: string, lastEventId?: string, protocolVersion = '2025-11-25'): Promise<OpenStream> {
  const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion }
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
  return open(url, { method: 'GET', headers })
}

export const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))
