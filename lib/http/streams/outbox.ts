/**
 * The writing end of one logical event stream. Without an event store it writes straight to its
 * connection. With one (a 2025-11-25 session's resumable stream), every message is appended first,
 * in order and one at a time, and then written with its event id to whatever connection is
 * attached at that moment, if any: a client that reconnects with `Last-Event-ID` is attached anew.
 * A store that answers at once (the in-memory one) is written through when nothing waits before
 * the message; otherwise messages and steps wait their turn on one promise chain.
 */
import type { Logger } from '../../spec/types.js'
import type { EventStore } from '../../state/event-store.js'
import type { SseConnection } from './sse.js'

export class Outbox {
  conn: SseConnection | undefined
  /** The id of the newest message appended. */
  lastId: string | undefined
  /** The last step held back; set whenever `queued` is above 0. */
  private tail: Promise<void> | undefined
  /** Steps on `tail` not yet run: a message may only be written through while there are none. */
  private queued = 0
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

  /** Queues one message (`''`: the priming event); false when it can no longer reach the client. */
  push (message: string): boolean {
    if (this.store === undefined) return this.conn?.send(message) ?? false
    if (this.queued > 0) {
      this.then(async () => { this.deliver(message, await this.append(message)) })
      return true
    }
    const id = this.append(message)
    if (id instanceof Promise) this.then(async () => { this.deliver(message, await id) })
    else this.deliver(message, id)
    return true
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

  /** Runs `step` after every message queued so far: at once when nothing waits (the end of a quick call). */
  then (step: () => void | Promise<void>): void {
    if (this.queued === 0) {
      const running = step()
      // an async step run at once still holds back whatever comes after it
      if (running instanceof Promise) this.hold(running)
      return
    }
    this.hold(this.tail!.then(step))
  }

  private hold (running: Promise<void>): void {
    this.queued++
    this.tail = running.finally(() => { this.queued-- })
  }
}
