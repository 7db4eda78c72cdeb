/**
 * The client's transport: one endpoint reached with a `fetch` (HTTP, `app.inject`, or a server
 * process's stdio), each request in the envelope of its era (2026-07-28 `_meta` on each request; a
 * 2025 session's id) with the `Mcp-*` headers, and the answer read as JSON or as an event stream.
 * The era and the session are the handshake's to set (handshake.ts); the server's questions on a
 * stream are handed to an `Answerer` (questions.ts).
 */
import { AuthChallengeError, HttpError, RpcError, UnansweredInputError } from './errors.js'
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from '../spec/meta-keys.js'
import { MODERN_VERSIONS } from '../spec/eras.js'
import {
  LAST_EVENT_ID, METHOD, NAME, PROTOCOL_VERSION, SESSION_ID, WWW_AUTHENTICATE, encodeHeaderValue
} from '../spec/headers.js'
import { NAME_SOURCE } from '../spec/methods.js'
import { TASKS_EXTENSION } from '../spec/tasks.js'
import { isObject } from '../values.js'
import type { FetchLike, ResolvedOptions } from './client-options.js'
import { injectFetch } from './inject.js'
import { StdioTransport } from './stdio.js'
import { readEvents } from './sse.js'
import { parseChallenges } from './www-authenticate.js'
import { capabilitiesFor } from './input.js'
import type { CallOptions } from './request-options.js'
import type { LogLevel, LogMessage, Progress } from './types.js'

export const MODERN = MODERN_VERSIONS[0]
/** How many times a 2025-11-25 stream that closed early is resumed with `Last-Event-ID`. */
const MAX_RESUMES = 5

export type Message = Record<string, unknown>
type HeaderMap = Record<string, string>
/**
 * A progress token its request's caller chose, rather than the fresh one `send` makes for a call
 * with `onProgress`: a 2025 task's. The task's progress keeps its `tools/call`'s token for the
 * task's life, so `tasks/result` follows that token (`sent: false`) instead of sending one of its
 * own, which the task's progress would never carry (and a token must be unique among active requests).
 */
export interface ChosenToken { readonly token: string, readonly sent: boolean }
/** What a request may carry besides its params: `Mcp-Param-*` headers, the tasks extension, a chosen token. */
export interface Extras { headers?: HeaderMap, tasks?: boolean, chosen?: ChosenToken }
/** A request and its answer's result. */
export type Send = (method: string, params: Message, call: CallOptions, extras?: Extras) => Promise<Message>
/** A request under way, as its answer's stream is read. */
export interface Exchange {
  readonly call: CallOptions
  readonly signal: AbortSignal
  readonly progressToken: string | undefined
}
/** Who answers the server's questions: on a request's stream, and over stdio while no request waits. */
export interface Answerer {
  answer: (message: Message, exchange: Exchange) => Promise<void>
  unprompted: (message: Message) => void
}

export function rpcErrorOf (error: Message, status: number | undefined): RpcError {
  const { code, message, data } = error
  const text = typeof message === 'string' ? message : 'the server sent an error without a message'
  return new RpcError(typeof code === 'number' ? code : -32603, text, data, status)
}

function parse (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export class Wire {
  /** `'modern'` or `'legacy'` once the handshake has decided; undefined before. */
  era: 'modern' | 'legacy' | undefined
  /** The protocol version in use (`2026-07-28`, or the one the 2025 session negotiated). */
  version: string | undefined
  /** The 2025 session's `Mcp-Session-Id`, from `initialize`'s answer. */
  session: string | undefined
  readonly #fetch: FetchLike
  /** The server process of a `{ command }` client. */
  readonly #stdio: StdioTransport | undefined
  #endpoint: string | undefined
  #nextId = 1
  #nextToken = 1

  constructor (private readonly options: ResolvedOptions, private readonly answerer: Answerer) {
    this.#stdio = options.process === undefined ? undefined : new StdioTransport(options.process, answerer.unprompted)
    const inject = options.app === undefined ? undefined : injectFetch(options.app)
    this.#fetch = this.#stdio?.fetch ?? inject ?? options.fetch ?? (async (url, init) => await fetch(url, init))
    // the stdio transport reads no URL: any will do
    this.#endpoint = options.url ?? (this.#stdio === undefined ? undefined : 'stdio:')
  }

  /** Sets the era and its protocol version (the handshake's doing). */
  use (era: 'modern' | 'legacy' | undefined, version: string | undefined): void {
    this.era = era
    this.version = version
  }

  async #url (): Promise<string> {
    if (this.#endpoint !== undefined) return this.#endpoint
    const app = this.options.app!
    await app.ready()
    const path = this.options.path ?? (app as unknown as { mcp?: { path?: string } }).mcp?.path ?? '/mcp'
    this.#endpoint = `http://localhost${path}`
    return this.#endpoint
  }

  async token (): Promise<string | undefined> {
    const { token } = this.options
    return typeof token === 'function' ? await token() : token
  }

  async #baseHeaders (extra: HeaderMap): Promise<HeaderMap> {
    const headers: HeaderMap = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const given = { ...this.options.headers, ...extra }
    for (const [name, value] of Object.entries(given)) headers[name.toLowerCase()] = value
    if (this.version !== undefined) headers[PROTOCOL_VERSION] = this.version
    if (this.session !== undefined) headers[SESSION_ID] = this.session
    const token = await this.token()
    if (token !== undefined) headers.authorization = `Bearer ${token}`
    return headers
  }

  /** The headers of a request: the era's, then `Mcp-Method`, `Mcp-Name` and the call's `Mcp-Param-*`. */
  async #headers (method: string, params: Message, extra: HeaderMap): Promise<HeaderMap> {
    const headers = await this.#baseHeaders(extra)
    headers[METHOD] = method
    const field = NAME_SOURCE[method]
    const name = field === undefined ? undefined : params[field]
    if (typeof name === 'string') headers[NAME] = encodeHeaderValue(name)
    return headers
  }

  logLevel (call: CallOptions): LogLevel | undefined {
    return call.logLevel ?? this.options.logLevel ?? (call.onLog === undefined ? undefined : 'debug')
  }

  /** `params` with the era's `_meta`. */
  #envelope (params: Message, call: CallOptions, progressToken: string | undefined, tasks?: boolean): Message {
    const meta: Record<string, unknown> = {}
    if (this.era === 'modern') {
      const o = this.options
      const caps = capabilitiesFor([call.onInput, o.onInput], call.unanswered ?? o.unanswered, o.capabilities)
      const extensions = isObject(caps.extensions) ? caps.extensions : {}
      if (tasks === true) caps.extensions = { ...extensions, [TASKS_EXTENSION]: {} }
      meta[META_PROTOCOL_VERSION] = MODERN
      meta[META_CLIENT_CAPABILITIES] = caps
      meta[META_CLIENT_INFO] = o.clientInfo
      const level = this.logLevel(call)
      if (level !== undefined) meta[META_LOG_LEVEL] = level
    }
    if (progressToken !== undefined) meta.progressToken = progressToken
    Object.assign(meta, call.meta)
    return Object.keys(meta).length === 0 ? params : { ...params, _meta: meta }
  }

  freshToken (): string {
    return `fastify-sake-client-${this.#nextToken++}`
  }

  /** One request and its answer, as it is (the handshake's `request` keeps the era). */
  async send (method: string, params: Message, call: CallOptions, extras: Extras = {}): Promise<Message> {
    const { chosen } = extras
    const id = this.#nextId++
    const progressToken = chosen?.token ?? (call.onProgress === undefined ? undefined : this.freshToken())
    const envelope = this.#envelope(params, call, chosen?.sent === false ? undefined : progressToken, extras.tasks)
    const body = { jsonrpc: '2.0', id, method, params: envelope }
    const timeout = AbortSignal.timeout(call.timeout ?? this.options.timeout)
    const signal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout])
    const headers = await this.#headers(method, params, { ...call.headers, ...extras.headers })
    try {
      const res = await this.#fetch(await this.#url(), { method: 'POST', headers, body: JSON.stringify(body), signal })
      return await this.#read(res, id, method, { call, signal, progressToken })
    } catch (err) {
      // a 2025 call ends on the server when told so (2026-07-28: the closed stream is the cancellation);
      // a question the client refused to answer leaves its call waiting there too
      const asked = signal.aborted || err instanceof UnansweredInputError
      if (asked && this.era === 'legacy' && this.session !== undefined && method !== 'initialize') {
        const reason = signal.aborted ? String(signal.reason) : (err as Error).message
        await this.notify('notifications/cancelled', { requestId: id, reason }).catch(() => {})
      }
      throw signal.aborted ? signal.reason : err
    }
  }

  /** A notification (no answer but the 202). */
  async notify (method: string, params?: Message): Promise<void> {
    await this.post({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }, method)
  }

  /** POSTs a message that gets no JSON-RPC answer (a notification, or our response to a server request). */
  async post (message: Message, method: string | undefined): Promise<void> {
    const headers = method === undefined ? await this.#baseHeaders({}) : await this.#headers(method, {}, {})
    const signal = AbortSignal.timeout(this.options.timeout)
    const res = await this.#fetch(await this.#url(), { method: 'POST', headers, body: JSON.stringify(message), signal })
    const text = await res.text()
    if (res.status === 401 || res.status === 403) throw this.#challenge(res, text)
    if (res.ok) return
    const answer = parse(text)
    if (isObject(answer) && isObject(answer.error)) throw rpcErrorOf(answer.error, res.status)
    const to = method ?? 'a response of the client'
    throw new HttpError(res.status, `the server answered ${res.status} to ${to}`, text)
  }

  #challenge (res: Response, text: string): AuthChallengeError {
    const body = parse(text)
    const rpc = isObject(body) && isObject(body.error) ? rpcErrorOf(body.error, res.status) : undefined
    const error = rpc === undefined ? undefined : { code: rpc.code, message: rpc.message, data: rpc.data }
    return new AuthChallengeError(res.status, parseChallenges(res.headers.get(WWW_AUTHENTICATE)), error)
  }

  /** The answer to request `id`: one JSON body, or the response at the end of an event stream. */
  async #read (res: Response, id: number, method: string, exchange: Exchange): Promise<Message> {
    if (res.status === 401 || res.status === 403) throw this.#challenge(res, await res.text())
    if (method === 'initialize') this.session = res.headers.get(SESSION_ID) ?? undefined
    const type = res.headers.get('content-type') ?? ''
    const stream = res.ok && type.startsWith('text/event-stream') ? res.body : null
    if (stream !== null) return await this.#readStream(stream, id, method, exchange)
    const text = await res.text()
    const answer = parse(text)
    if (isObject(answer) && isObject(answer.error)) throw rpcErrorOf(answer.error, res.status)
    const answered = res.ok && isObject(answer) && answer.id === id
    if (answered && isObject(answer.result)) return answer.result
    const what = res.ok ? 'no JSON-RPC response to the request' : 'no JSON-RPC error'
    const shown = type === '' ? '' : ` (${type})`
    throw new HttpError(res.status, `${method}: the server answered HTTP ${res.status}${shown} with ${what}`, text)
  }

  async #readStream (
    body: ReadableStream<Uint8Array>, id: number, method: string, exchange: Exchange
  ): Promise<Message> {
    let lastEventId: string | undefined
    let stream = body
    for (let resumes = 0; ; resumes++) {
      for await (const event of readEvents(stream)) {
        if (event.id !== undefined && event.id !== '') lastEventId = event.id
        const message = parse(event.data)
        if (!isObject(message)) continue
        if (typeof message.method === 'string') {
          if ('id' in message) await this.answerer.answer(message, exchange)
          else notification(message, exchange)
        } else if (message.id === id) {
          if (isObject(message.error)) throw rpcErrorOf(message.error, undefined)
          if (isObject(message.result)) return message.result
        }
      }
      // a 2025-11-25 stream may close before its answer (the server's polling): resumed where it stopped
      const resumable = this.era === 'legacy' && this.session !== undefined && resumes !== MAX_RESUMES
      if (!resumable || lastEventId === undefined) break
      const headers = await this.#baseHeaders({ [LAST_EVENT_ID]: lastEventId, accept: 'text/event-stream' })
      delete headers['content-type']
      const res = await this.#fetch(await this.#url(), { method: 'GET', headers, signal: exchange.signal })
      if (!res.ok || res.body === null) {
        const what = `${method}: resuming the event stream after event ${lastEventId} was answered HTTP ${res.status}`
        throw new HttpError(res.status, what, await res.text())
      }
      stream = res.body
    }
    throw new HttpError(200, `${method}: the event stream ended before the response to the request`, '')
  }

  /** Stops the server process of a `{ command }` client, and ends a 2025 `session` (DELETE). */
  async close (session: string | undefined): Promise<void> {
    await this.#stdio?.close()
    if (session === undefined) return
    const headers = await this.#baseHeaders({})
    headers[SESSION_ID] = session
    delete headers['content-type']
    try {
      const signal = AbortSignal.timeout(this.options.timeout)
      const res = await this.#fetch(await this.#url(), { method: 'DELETE', headers, signal })
      // 204 from fastify-sake; whatever another server says, the session is ours no more
      await res.arrayBuffer()
    } catch {
      // the server is gone already (closed, unreachable): the session ends with it, and close() is
      // what a teardown calls after app.close(), so it must not throw for that
    }
  }
}

/** A notification on a request's stream: its progress or a log message, to the call's callbacks. */
function notification (message: Message, exchange: Exchange): void {
  const params = isObject(message.params) ? message.params : {}
  const { method } = message
  const ours = method === 'notifications/progress' && params.progressToken === exchange.progressToken
  if (ours && typeof params.progress === 'number') {
    const progress: Progress = { progress: params.progress }
    if (typeof params.total === 'number') progress.total = params.total
    if (typeof params.message === 'string') progress.message = params.message
    exchange.call.onProgress?.(progress)
  } else if (method === 'notifications/message' && typeof params.level === 'string') {
    const log: LogMessage = { level: params.level as LogLevel, data: params.data }
    if (typeof params.logger === 'string') log.logger = params.logger
    exchange.call.onLog?.(log)
  }
}
