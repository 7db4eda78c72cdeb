/**
 * The writing end of one logical event stream. Without an event store it writes straight to its
 * connection. With one (a 2025-11-25 session's resumable stream), every message is appended first,
 * in order and one at a time, and then written with its event id to whatever connection is
 * attached at that moment, if any: a client that reconnects with `Last-Event-ID` is attached anew.
 */
import type { Logger } from '../spec/types.js'
import type { EventStore } from '../state/event-store.js'
import type { SseConnection } from './sse.js'

export class Outbox {
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

  /** Queues one message (`''`: the priming event); false when it can no longer reach the client. */
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
