/**
 * The writing end of one logical event stream. Without an event store it writes straight to its
 * connection. With one (a 2025-11-25 session's resumable stream), every message is appended first,
 * in order and one at a time, and then written with its event id to whatever connection is
 * attached at that moment, if any: a client that reconnects with `Last-Event-ID` is attached anew.
 * A store that answers at once (the in-memory one) is written through when nothing waits before
 * the message; otherwise messages and steps wait their turn in one queue, which one loop empties.
 *
 * A store slower than the tool (a round trip per append to Redis, against a tool sending 10,000
 * progress notifications a second) would let that queue grow without bound: while more than
 * `maxWaiting` bytes wait for the store, notifications are dropped (responses and questions never
 * are), logged when it starts and once nothing waits any more. A message waiting costs its text and
 * a slot of the queue (a promise chain, before, cost about six times the text).
 *
 * A POST's answer as an event stream is an outbox too (`ResponseStream`, here so that a call's
 * events cross no file boundary between the stream and its storage): the call's notifications and,
 * in a 2025 session, its questions to the client, then its response. The protocol core sees it as
 * the call's `Channel`.
 */
import { notificationText } from '../../spec/jsonrpc.js'
import type { ClientAnswer, Logger } from '../../spec/types.js'
import type { EventStore } from '../../state/event-store.js'
import type { Channel, ClientRequestOptions } from '../../protocol/call.js'
import type { AskedFor, ClientRequests } from '../../protocol/session/client-requests.js'
import type { SseConnection } from './sse.js'

/** Something to do in turn: a message to append and send, or a step. */
type Item = string | (() => void)

/** Taken items the queue keeps before it lets go of their slots. */
const COMPACT_AT = 1024

export class Outbox {
  conn: SseConnection | undefined
  /** The id of the newest message appended. */
  lastId: string | undefined
  /** Whether an append the store answers later, or a step, is under way: what comes meanwhile waits in `queue`. */
  private busy = false
  /** What waits, oldest first from `head`. */
  private queue: Array<Item | undefined> = []
  private head = 0
  /** Ids a resumed connection already received by replay. */
  private sent: Set<string> | undefined
  /** Bytes of the messages waiting in `queue`. */
  private waiting = 0
  /** Notifications dropped since the bytes waiting went over `maxWaiting`; undefined while they are not. */
  private dropped: number | undefined

  /** `maxWaiting`: bytes that may wait for a slow store (`streams.maxBuffered`) before notifications are dropped. */
  constructor (
    readonly streamId: string,
    private readonly store: EventStore | undefined,
    conn: SseConnection,
    private readonly log: Logger,
    private readonly maxWaiting = Infinity
  ) {
    this.attach(conn)
  }

  attach (conn: SseConnection, sent?: Set<string>): void {
    // a second resumption of the same stream replaces the first connection
    this.conn?.end()
    this.conn = conn
    this.sent = sent
    conn.onClose(() => { if (this.conn === conn) this.conn = undefined })
  }

  /**
   * Queues one message (`''`: the priming event); false when it can no longer reach the client, or
   * when it is a `droppable` notification and too much already waits for the store.
   */
  push (message: string, droppable = false): boolean {
    if (this.store === undefined) return this.conn?.send(message) ?? false
    if (droppable && this.over()) return false
    if (this.busy) {
      this.queue.push(message)
      this.waiting += message.length
      return true
    }
    const id = this.append(message)
    if (id instanceof Promise) this.hold(id.then((id) => { this.deliver(message, id) }))
    else this.deliver(message, id)
    return true
  }

  /** Runs `step` after every message queued so far: at once when nothing waits (the end of a quick call). */
  then (step: () => void): void {
    if (this.busy) this.queue.push(step)
    else step()
  }

  /**
   * Whether more than `maxWaiting` bytes wait for the store: counts a dropped notification. Logged
   * when dropping starts, and once nothing waits any more (not each time the bytes waiting dip
   * under the bound and go over it again: a tool that keeps sending does that all the time).
   */
  private over (): boolean {
    if (this.waiting > this.maxWaiting) {
      if (this.dropped === undefined) {
        this.dropped = 0
        this.log.warn({ streamId: this.streamId, waiting: this.waiting, maxBuffered: this.maxWaiting },
          `fastify-sake: the event store is slower than this stream's messages: ${this.waiting} bytes wait to be appended, over streams.maxBuffered (${this.maxWaiting}); its notifications are dropped until the store catches up (responses are not)`)
      }
      this.dropped++
      return true
    }
    if (this.dropped !== undefined && !this.busy) {
      this.log.warn({ streamId: this.streamId, dropped: this.dropped }, `fastify-sake: the event store caught up with this stream; ${this.dropped} notifications were dropped`)
      this.dropped = undefined
    }
    return false
  }

  /** Holds back what comes until `running` settled, then does what waited, in order, until nothing does. */
  private hold (running: Promise<void>): void {
    this.busy = true
    void this.drain(running)
  }

  private async drain (running: Promise<void>): Promise<void> {
    await running
    while (this.head < this.queue.length) {
      const item = this.queue[this.head]!
      this.queue[this.head++] = undefined
      // a queue that keeps filling while it is emptied lets go of the slots it has taken, now and then
      if (this.head >= COMPACT_AT && this.head * 2 >= this.queue.length) {
        this.queue = this.queue.slice(this.head)
        this.head = 0
      }
      if (typeof item === 'string') {
        const id = await this.append(item)
        this.waiting -= item.length
        this.deliver(item, id)
      } else {
        item()
      }
    }
    this.queue = []
    this.head = 0
    this.busy = false
  }

  /** Appends one message; undefined when the store failed (logged). */
  private append (message: string): string | undefined | Promise<string | undefined> {
    try {
      const id = this.store!.append(this.streamId, message)
      return id instanceof Promise ? id.catch((err: unknown) => this.failed(err)) : id
    } catch (err) {
      return this.failed(err)
    }
  }

  private failed (err: unknown): undefined {
    this.log.error({ err }, 'fastify-sake: the event store failed to append an SSE event')
    return undefined
  }

  private deliver (message: string, id: string | undefined): void {
    // a message the store failed to keep still goes out, without an id: it just cannot be replayed
    if (id === undefined) {
      if (message !== '') this.conn?.send(message)
      return
    }
    this.lastId = id
    if (this.sent?.has(id) === true) return
    if (message === '') this.conn?.prime(id)
    else this.conn?.send(message, id)
  }
}

/** Where a 2025 call's stream sends its questions: the session, the questions waiting for answers, and who they are for. */
export interface Questions {
  readonly requests: ClientRequests
  readonly sessionId: string
  readonly for: AskedFor
}

export class ResponseStream extends Outbox implements Channel {
  private finished = false
  /** The questions this call asked that still wait for an answer (made at the first: most calls ask none). */
  private asked: Set<string> | undefined

  /** `store`: the event store of a resumable stream (2025-11-25), undefined otherwise; `questions`: a 2025 call's. */
  constructor (
    streamId: string, store: EventStore | undefined, conn: SseConnection, log: Logger, maxWaiting: number,
    private readonly questions: Questions | undefined
  ) {
    super(streamId, store, conn, log, maxWaiting)
  }

  notify (method: string, params: Record<string, unknown>): boolean {
    if (this.finished) return false
    // a notification may be dropped when the event store lags (outbox.ts); the answer and questions never are
    return this.push(notificationText(method, params), true)
  }

  /** A question to the client, on this stream; only 2025 calls ask this way (2026-07-28 uses round trips). */
  async request (method: string, params: Record<string, unknown>, options: ClientRequestOptions): Promise<ClientAnswer> {
    const { requests, sessionId } = this.questions!
    this.asked ??= new Set()
    return requests.send(sessionId, (message) => !this.finished && this.push(message), method, params, options, this.questions!.for, this.asked)
  }

  /**
   * SEP-1699 polling: `retry:` then close the connection; the logical stream goes on. Only a
   * resumable stream's channel offers it (`CallStreams.deferred`); after the answer it does nothing.
   */
  closeConnection (retryMs: number): void {
    if (this.finished) return
    this.then(() => {
      const conn = this.conn
      if (conn === undefined) return
      conn.retry(retryMs)
      conn.end()
    })
  }

  /**
   * Sends the answer and ends the stream; `done` runs once the end is written, with the connection
   * that carried the answer (none when no client was attached to receive it).
   */
  finish (answer: string, done: (delivered: SseConnection | undefined) => void): void {
    this.finished = true
    // a question still open (a handler that stopped waiting for it) can no longer matter
    if (this.asked !== undefined && this.asked.size > 0) this.questions!.requests.cancel(this.asked, 'the call answered')
    this.push(answer)
    this.then(() => {
      const conn = this.conn
      conn?.end()
      done(conn)
    })
  }
}
