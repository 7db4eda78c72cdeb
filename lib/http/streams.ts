/**
 * Every event stream the endpoint holds open, and what each one means:
 *
 * - a POST answered as SSE (a call reporting progress or log messages, then its response). In a
 *   2025-11-25 session it is resumable: a priming event first, an id on every event, each message
 *   written to the event store first, and a dropped connection (or `ctx.closeStream()`) leaves the
 *   call running; GET with `Last-Event-ID` replays what was missed and carries the rest;
 * - a 2025 session's GET stream (one per session): list changes, and updates of the resources the
 *   session subscribed to;
 * - a 2026-07-28 `subscriptions/listen`: the notifications its filter opted into, each tagged with
 *   the subscription id, and a final response when the server closes.
 *
 * No priming events or ids ever go to sessions below 2025-11-25 (older SDKs fail on them) nor to
 * 2026-07-28 streams (the revision has no resumability).
 */
import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { INVALID_REQUEST, type RequestId } from '../protocol/jsonrpc.js'
import { ProtocolError } from '../errors.js'
import { isLegacyVersion, rulesOf } from '../protocol/eras.js'
import { readFilter } from '../protocol/methods/subscriptions.js'
import type { Call, Channel, ClientRequestOptions, Logger, Transport } from '../protocol/context.js'
import type { ClientAnswer } from '../protocol/input.js'
import { ClientRequests } from './client-requests.js'
import type { Bus, BusEvent } from '../state/bus.js'
import type { EventStore, Replay } from '../state/event-store.js'
import type { Session, SessionStore } from '../state/session-store.js'
import { SseConnection, acceptsEventStream, type SseOptions } from './sse.js'
import { headerValue } from './headers.js'
import { sendError } from './respond.js'
import type { HttpTransport } from './transport.js'

export interface StreamsOptions {
  readonly bus: Bus
  readonly events: EventStore
  readonly sessions: SessionStore
  /** Milliseconds between SSE keep-alive comments (0: none). */
  readonly keepAlive: number
}

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'

/** Whether streams of this call or session carry event ids and can be resumed (2025-11-25). */
function resumable (era: string, version: string): boolean {
  return era === 'legacy' && isLegacyVersion(version) && rulesOf(version).resumable
}

function notification (method: string, params?: Record<string, unknown>): string {
  return JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params })
}

/**
 * The writing end of one logical stream. Without an event store it writes straight to its
 * connection. With one, every message is appended first (in order, one at a time) and then written
 * with its event id to whatever connection is attached at that moment, if any.
 */
class Outbox {
  conn: SseConnection | undefined
  /** The id of the newest message appended. */
  lastId: string | undefined
  private tail: Promise<void> = Promise.resolve()
  /** Ids a resumed connection already received by replay. */
  private sent: Set<string> | undefined

  constructor (readonly streamId: string, private readonly store: EventStore | undefined, conn: SseConnection, private readonly log: Logger) {
    this.attach(conn)
  }

  attach (conn: SseConnection, sent?: Set<string>): void {
    // a second resumption of the same stream replaces the first connection
    this.conn?.end()
    this.conn = conn
    this.sent = sent
    conn.onClose(() => { if (this.conn === conn) this.conn = undefined })
  }

  /** Queues one message; false when it can no longer reach the client. */
  push (message: string): boolean {
    if (this.store === undefined) return this.conn?.send(message) ?? false
    const store = this.store
    this.then(async () => {
      let id: string
      try {
        id = await store.append(this.streamId, message)
      } catch (err) {
        // the message still goes out, without an id: it just cannot be replayed
        this.log.error({ err }, 'fastify-sake: the event store failed to append an SSE event')
        if (message !== '') this.conn?.send(message)
        return
      }
      this.lastId = id
      if (this.sent?.has(id) === true) return
      if (message === '') this.conn?.prime(id)
      else this.conn?.send(message, id)
    })
    return true
  }

  /** Runs `step` after every message queued so far. */
  then (step: () => void | Promise<void>): void {
    this.tail = this.tail.then(step)
  }
}

/** Where a 2025 call's stream sends its questions: the session, and the questions waiting for answers. */
interface Questions {
  readonly requests: ClientRequests
  readonly sessionId: string
}

/** The answer of one POST, as an event stream: the call's notifications (and 2025 questions), then its response. */
class ResponseStream implements Channel {
  private finished = false
  /** The questions this call asked that still wait for an answer. */
  private readonly asked = new Set<string>()

  constructor (readonly outbox: Outbox, private readonly resumable: boolean, private readonly questions: Questions | undefined) {}

  notify (method: string, params: Record<string, unknown>): boolean {
    if (this.finished) return false
    return this.outbox.push(notification(method, params))
  }

  /** A question to the client, on this stream; only 2025 calls ask this way (2026-07-28 uses round trips). */
  async request (method: string, params: Record<string, unknown>, options: ClientRequestOptions): Promise<ClientAnswer> {
    const { requests, sessionId } = this.questions!
    return requests.send(sessionId, (message) => !this.finished && this.outbox.push(message), method, params, options, this.asked)
  }

  /** SEP-1699 polling: `retry:` then close the connection; the logical stream goes on. */
  closeConnection (retryMs: number): void {
    if (!this.resumable || this.finished) return
    this.outbox.then(() => {
      const conn = this.outbox.conn
      if (conn === undefined) return
      conn.retry(retryMs)
      conn.end()
    })
  }

  finish (answer: string, done: () => void): void {
    this.finished = true
    // a question still open (a handler that stopped waiting for it) can no longer matter
    if (this.asked.size > 0) this.questions!.requests.cancel(this.asked, 'the call answered')
    this.outbox.push(answer)
    this.outbox.then(() => {
      this.outbox.conn?.end()
      done()
    })
  }
}

/**
 * A resumable call outlives its connection (2025-11-25: disconnection is not cancellation), so its
 * `ctx.signal` is not tied to the socket.
 */
class DetachedTransport implements Transport {
  private release: (() => void) | undefined
  constructor (private readonly inner: HttpTransport) {}
  get request (): unknown { return this.inner.request }
  get log (): Logger { return this.inner.log }
  // only the client's notifications/cancelled aborts it
  signal (): AbortSignal {
    const watched = this.inner.cancelSignal()
    this.release = watched.release
    return watched.signal
  }

  /** The call ended: stop watching for its cancellation. */
  done (): void {
    this.release?.()
  }
}

interface Closable { end (): void }

/** A call's answer opened as an event stream, and how to end it with the answer. */
interface OpenStream {
  readonly stream: ResponseStream
  readonly resumable: boolean
  finish (answer: string): void
}

const conflict = new ProtocolError(INVALID_REQUEST, 'Conflict: this session already has an open GET stream; close it before opening another', 409)
const notAcceptable = new ProtocolError(INVALID_REQUEST, 'Not Acceptable: this request answers with an event stream; the Accept header must allow text/event-stream', 406)

export class Streams {
  private readonly bus: Bus
  private readonly events: EventStore
  private readonly sessions: SessionStore
  private readonly sse: SseOptions
  /** Resumable POST streams whose call has not finished, by stream id. */
  private readonly live = new Map<string, ResponseStream>()
  /** Open GET streams, by session id. */
  private readonly standalone = new Map<string, Closable>()
  /** Open `subscriptions/listen` streams. */
  private readonly listens = new Set<Closable>()
  /** Questions asked of 2025 clients, waiting for their answers. */
  private readonly requests = new ClientRequests()
  private readonly unsubscribe: () => void

  constructor (options: StreamsOptions) {
    this.bus = options.bus
    this.events = options.events
    this.sessions = options.sessions
    this.sse = { keepAlive: options.keepAlive }
    // answers POSTed to another instance of the fleet reach the one holding the question here
    this.unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'clientResponse') this.requests.answer(event.sessionId, event.id, event.answer)
    })
  }

  /**
   * A 2025 client's response to one of our questions: to the question, when this process asked it;
   * otherwise onto the bus, for the instance that did.
   */
  async answered (sessionId: string, id: unknown, answer: ClientAnswer, log: Logger): Promise<void> {
    // only ids of ours travel: anything else answers no question on any instance
    if (!ClientRequests.mayBeOurs(id) || this.requests.answer(sessionId, id, answer)) return
    try {
      await this.bus.publish({ type: 'clientResponse', sessionId, id, answer })
    } catch (err) {
      log.error({ err }, 'fastify-sake: the bus failed to carry a client response to the instance that asked')
    }
  }

  /**
   * Answers `call` as an event stream: `run` gets the call with its channel and returns the final
   * message (result or error) as JSON text.
   */
  async respond (request: FastifyRequest, reply: FastifyReply, call: Call, run: (call: Call) => Promise<string>): Promise<FastifyReply> {
    const open = this.open(request, reply, call)
    if (!open.resumable) {
      open.finish(await run({ ...call, channel: open.stream }))
      return reply
    }
    // a resumable call is a 2025-11-25 session's, whose transport is always ours
    const transport = new DetachedTransport(call.transport as HttpTransport)
    const answer = await run({ ...call, channel: open.stream, transport })
    transport.done()
    open.finish(answer)
    return reply
  }

  /**
   * A 2025 call answered as JSON unless its handler asks the client something: the first question
   * opens the answer as an event stream (`call.openStream`). `end` sends the answer on that stream
   * and returns true, or returns false when none was opened (the caller answers JSON).
   */
  deferred (request: FastifyRequest, reply: FastifyReply, call: Call): { call: Call, opened: () => boolean, end: (answer: string) => boolean } {
    let open: OpenStream | undefined
    const openStream = (): Channel => (open ??= this.open(request, reply, call)).stream
    return {
      call: { ...call, openStream },
      opened: () => open !== undefined,
      end: (answer) => {
        if (open === undefined) return false
        open.finish(answer)
        return true
      }
    }
  }

  /** Opens a call's answer as an event stream: priming event and replay ids when resumable (2025-11-25). */
  private open (request: FastifyRequest, reply: FastifyReply, call: Call): OpenStream {
    const conn = new SseConnection(reply, this.sse)
    const log = request.log as unknown as Logger
    const questions = call.era === 'legacy' ? { requests: this.requests, sessionId: call.sessionId! } : undefined
    if (!resumable(call.era, call.protocolVersion)) {
      const stream = new ResponseStream(new Outbox('', undefined, conn, log), false, questions)
      return { stream, resumable: false, finish: (answer) => stream.finish(answer, noop) }
    }
    const streamId = `${call.sessionId!}/${randomBytes(9).toString('base64url')}`
    const stream = new ResponseStream(new Outbox(streamId, this.events, conn, log), true, questions)
    this.live.set(streamId, stream)
    stream.outbox.push('') // the priming event: an id to resume from before anything else is sent
    return { stream, resumable: true, finish: (answer) => stream.finish(answer, () => this.live.delete(streamId)) }
  }

  /**
   * A 2025 session's GET: resumes the stream `Last-Event-ID` names (2025-11-25), or opens the
   * session's standalone stream (one at a time: a second is 409).
   */
  async get (request: FastifyRequest, reply: FastifyReply, session: Session): Promise<FastifyReply> {
    if (!acceptsEventStream(request.headers.accept) || request.headers.accept === undefined) return sendError(reply, null, notAcceptable)
    const canResume = resumable('legacy', session.protocolVersion)
    const ownStream = `${session.id}/get`
    let missed: Replay | undefined
    const lastEventId = headerValue(request.headers, 'last-event-id')
    if (canResume && lastEventId !== undefined) {
      const replay = await this.events.replay(lastEventId)
      // an id of another session's stream is treated as unknown: never replay someone else's events
      if (replay !== undefined && replay.streamId.startsWith(`${session.id}/`)) {
        if (replay.streamId !== ownStream) return this.resume(reply, replay, lastEventId)
        missed = replay
      }
    }
    if (this.standalone.has(session.id)) return sendError(reply, null, conflict)
    const conn = new SseConnection(reply, this.sse)
    const outbox = new Outbox(ownStream, canResume ? this.events : undefined, conn, request.log as unknown as Logger)
    for (const event of missed?.events ?? []) if (event.message !== '') conn.send(event.message, event.id)
    if (canResume) outbox.push('')
    const unsubscribe = this.bus.subscribe((event) => this.toSession(session.id, outbox, event, request.log as unknown as Logger))
    const entry: Closable = { end: () => conn.end() }
    this.standalone.set(session.id, entry)
    conn.onClose(() => {
      unsubscribe()
      this.standalone.delete(session.id)
    })
    return reply
  }

  /** Replays a POST stream after `lastEventId` on this GET, then carries the rest of it if the call still runs. */
  private async resume (reply: FastifyReply, replay: Replay, lastEventId: string): Promise<FastifyReply> {
    const conn = new SseConnection(reply, this.sse)
    const sent = new Set<string>()
    let last = lastEventId
    let events = replay.events
    for (;;) {
      for (const event of events) {
        if (event.message !== '') conn.send(event.message, event.id)
        sent.add(event.id)
        last = event.id
      }
      const live = this.live.get(replay.streamId)
      if (live === undefined) {
        conn.end() // the call finished: its response was in the replay
        return reply
      }
      // caught up (or the store has nothing newer): from here on, events come live
      if (events.length === 0 || live.outbox.lastId === last) {
        live.outbox.attach(conn, sent)
        return reply
      }
      events = (await this.events.replay(last))?.events ?? []
    }
  }

  /** A bus event for a session's GET stream: list changes always, resource updates if subscribed. */
  private toSession (sessionId: string, outbox: Outbox, event: BusEvent, log: Logger): void {
    if (event.type === 'listChanged') {
      outbox.push(notification(`notifications/${event.list}/list_changed`))
      return
    }
    if (event.type !== 'resourceUpdated') return
    // subscriptions live in the session, which another instance may have changed: read it again
    Promise.resolve(this.sessions.get(sessionId)).then((session) => {
      if (session?.subscriptions?.includes(event.uri) === true) outbox.push(notification('notifications/resources/updated', { uri: event.uri }))
    }, (err: unknown) => log.error({ err }, 'fastify-sake: the session store failed while delivering a resource update'))
  }

  /** A 2026-07-28 `subscriptions/listen`: acknowledged at once, then open until either side closes it. */
  listen (request: FastifyRequest, reply: FastifyReply, call: Call): FastifyReply {
    const filter = readFilter(call.params)
    if (!acceptsEventStream(request.headers.accept)) throw notAcceptable
    const conn = new SseConnection(reply, this.sse)
    const id: RequestId = call.id
    const meta = { [SUBSCRIPTION_ID]: id }
    conn.send(notification('notifications/subscriptions/acknowledged', { _meta: meta, notifications: filter }))
    const uris = new Set(filter.resourceSubscriptions)
    const unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'listChanged') {
        if (filter[`${event.list}ListChanged`] === true) conn.send(notification(`notifications/${event.list}/list_changed`, { _meta: meta }))
      } else if (event.type === 'resourceUpdated' && uris.has(event.uri)) {
        conn.send(notification('notifications/resources/updated', { _meta: meta, uri: event.uri }))
      }
    })
    const entry: Closable = {
      end: () => {
        // a graceful end: the response to the listen request, then close
        conn.send(JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: meta } }))
        conn.end()
      }
    }
    this.listens.add(entry)
    conn.onClose(() => {
      unsubscribe()
      this.listens.delete(entry)
    })
    return reply
  }

  /** Ends a session's GET stream (the session was deleted). */
  endSession (sessionId: string): void {
    this.standalone.get(sessionId)?.end()
    this.requests.cancelSession(sessionId, 'the session ended')
  }

  /**
   * Ends the GET and listen streams (the server is closing), and the waits of questions asked of
   * 2025 clients; calls still running finish on their own.
   */
  close (): void {
    this.unsubscribe()
    this.requests.cancelAll()
    for (const entry of [...this.listens, ...this.standalone.values()]) entry.end()
  }
}

function noop (): void {}
