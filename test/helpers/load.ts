// A steady mixed load of both eras against one MCP endpoint (a gateway, say), for the fleet tests
// (issue 29): loops of 2025-11-25 sessions calling a tool, of 2026-07-28 stateless calls, and of
// fresh sessions (initialize, then initialized), each request with a time limit. Every request is
// recorded with when it was sent and answered and how it ended, so a test can say which failures
// it allows (only during an outage, or none) and check that every acknowledged session lives on.
import { modernMeta } from './requests.js'
import { sleep } from './until.js'

export type LoadKind = 'session call' | 'stateless call' | 'initialize'

export interface Outcome {
  readonly kind: LoadKind
  /** Date.now() when the request was sent, and when its answer (or failure) came. */
  readonly sent: number
  readonly done: number
  /** Answered as expected (200 and the right result). */
  readonly ok: boolean
  /**
   * A failure the client can act on: an HTTP error status with a JSON-RPC error body. A timeout, a
   * connection error, a body that is not JSON-RPC or a wrong result is not clean.
   */
  readonly clean: boolean
  /** For a failure: the status and the JSON-RPC error, or what went wrong. */
  readonly failure?: string
}

/** A 2025 session whose initialize was answered (so the client holds it). */
export interface Acknowledged {
  readonly id: string
  /** Date.now() when the initialize answer came. */
  readonly at: number
}

export interface LoadOptions {
  /** Loops of 2025-11-25 sessions calling `add` (each opens its session first, outside the counts). Default 2. */
  sessions?: number
  /** Loops of 2026-07-28 `add` calls. Default 2. */
  stateless?: number
  /** Loops opening fresh 2025 sessions. Default 1. */
  initializing?: number
  /** Ms a request may take before it counts as a failure (a hang). Default 5000. */
  timeout?: number
  /** Ms each loop waits between two requests (a steady load that leaves the machine some room). Default 10. */
  pause?: number
}

export interface RunningLoad {
  readonly outcomes: Outcome[]
  /** Every session whose initialize was answered: the loops' own and the fresh ones. */
  readonly acknowledged: Acknowledged[]
  /** Ends the loops after their request in flight; resolves once they stopped. */
  stop: () => Promise<void>
}

export interface Answer {
  status: number
  headers: Headers
  /** The JSON-RPC message answering the request (from a JSON body, or the event stream's last message with an id). */
  message: any
}

const LEGACY = '2025-11-25'

/** Thrown (and recorded as an unclean failure) when a request is answered with something that is not JSON-RPC. */
class Unreadable extends Error {}

/**
 * One POST with a time limit: the status and the JSON-RPC answer, whether it came as JSON or as an
 * event stream. Rejects on a timeout, a connection error or an answer that is not JSON-RPC.
 */
export async function rpc (url: string, headers: Record<string, string>, body: unknown, timeout: number): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeout)
  })
  const text = await res.text()
  if (res.status === 202 && text === '') return { status: res.status, headers: res.headers, message: undefined }
  let message: any
  try {
    if (res.headers.get('content-type')?.startsWith('text/event-stream') === true) {
      const data = text.split('\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)))
      message = data.findLast((m) => m.id !== undefined && m.method === undefined)
    } else {
      message = JSON.parse(text)
    }
  } catch {
    throw new Unreadable(`${res.status} ${text.slice(0, 200)}`)
  }
  if (message?.jsonrpc !== '2.0') throw new Unreadable(`${res.status} ${text.slice(0, 200)}`)
  return { status: res.status, headers: res.headers, message }
}

/** initialize + notifications/initialized on `url`; the session id once the initialize was answered (undefined if refused). */
export async function initialize (url: string, timeout: number): Promise<{ answer: Answer, id?: string }> {
  const answer = await rpc(url, {}, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'load', version: '1' } } }, timeout)
  const id = answer.headers.get('mcp-session-id') ?? undefined
  if (answer.status !== 200 || id === undefined) return { answer }
  // the session is the client's from here, whatever happens to this notification
  await rpc(url, { 'mcp-session-id': id, 'mcp-protocol-version': LEGACY }, { jsonrpc: '2.0', method: 'notifications/initialized' }, timeout).catch(() => {})
  return { answer, id }
}

/** A 2025 session's tools/call of add(n, 1). */
export async function sessionCall (url: string, session: string, n: number, timeout: number): Promise<Answer> {
  return await rpc(url, { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY }, { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'add', arguments: { a: n, b: 1 } } }, timeout)
}

/** A 2026-07-28 tools/call of add(n, 1), with the headers and _meta it needs. */
export async function statelessCall (url: string, n: number, timeout: number): Promise<Answer> {
  const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' }
  return await rpc(url, headers, { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'add', arguments: { a: n, b: 1 }, _meta: modernMeta() } }, timeout)
}

/** How a request ended: ok when `expected` holds of its answer; a clean failure is an error status with a JSON-RPC error. */
async function judge (kind: LoadKind, send: () => Promise<Answer>, expected: (answer: Answer) => boolean): Promise<Outcome> {
  const sent = Date.now()
  try {
    const answer = await send()
    const done = Date.now()
    if (answer.status === 200 && expected(answer)) return { kind, sent, done, ok: true, clean: true }
    const error = answer.message?.error
    const clean = answer.status >= 400 && typeof error?.code === 'number' && typeof error.message === 'string'
    return { kind, sent, done, ok: false, clean, failure: `${answer.status} ${JSON.stringify(error ?? answer.message)}` }
  } catch (err) {
    const reason = err instanceof Unreadable ? `not JSON-RPC: ${err.message}` : (err as Error).name === 'TimeoutError' ? 'timeout' : `${(err as Error).message} ${String((err as Error).cause ?? '')}`
    return { kind, sent, done: Date.now(), ok: false, clean: false, failure: reason }
  }
}

const summed = (n: number) => (answer: Answer): boolean => answer.message?.result?.structuredContent?.sum === n + 1

/**
 * Starts the loops against `url` (the example server's tools behind it) and resolves once every
 * session loop has its session: the load is then steady.
 */
export async function startLoad (url: string, options: LoadOptions = {}): Promise<RunningLoad> {
  const { sessions = 2, stateless = 2, initializing = 1, timeout = 5000, pause = 10 } = options
  const outcomes: Outcome[] = []
  const acknowledged: Acknowledged[] = []
  const stopping = new AbortController()
  const own = await Promise.all(Array.from({ length: sessions }, async () => {
    const { id } = await initialize(url, timeout)
    if (id === undefined) throw new Error('a load session could not be opened')
    acknowledged.push({ id, at: Date.now() })
    return id
  }))
  const loop = async (step: (n: number) => Promise<Outcome>): Promise<void> => {
    for (let n = 0; !stopping.signal.aborted; n++) {
      outcomes.push(await step(n))
      await sleep(pause)
    }
  }
  const loops = [
    ...own.map(async (session) => await loop(async (n) => await judge('session call', async () => await sessionCall(url, session, n, timeout), summed(n)))),
    ...Array.from({ length: stateless }, async () => await loop(async (n) => await judge('stateless call', async () => await statelessCall(url, n, timeout), summed(n)))),
    ...Array.from({ length: initializing }, async () => await loop(async () => {
      let id: string | undefined
      const outcome = await judge('initialize', async () => {
        const opened = await initialize(url, timeout)
        id = opened.id
        return opened.answer
      }, (answer) => answer.message?.result?.protocolVersion === LEGACY)
      if (id !== undefined) acknowledged.push({ id, at: outcome.done })
      return outcome
    }))
  ]
  return {
    outcomes,
    acknowledged,
    stop: async () => {
      stopping.abort()
      await Promise.all(loops)
    }
  }
}

/** Counts by kind: how many requests were answered and how many failed. */
export function tally (outcomes: readonly Outcome[]): Record<LoadKind, { ok: number, failed: number }> {
  const counts = { 'session call': { ok: 0, failed: 0 }, 'stateless call': { ok: 0, failed: 0 }, initialize: { ok: 0, failed: 0 } }
  for (const outcome of outcomes) counts[outcome.kind][outcome.ok ? 'ok' : 'failed']++
  return counts
}
