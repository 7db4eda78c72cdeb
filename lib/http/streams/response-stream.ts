/**
 * The answer of one POST as an event stream: the call's notifications (progress, log messages)
 * and, in a 2025 session, its questions to the client, then its response. The protocol core sees
 * it as the call's `Channel`.
 */
import { notificationText } from '../../spec/jsonrpc.js'
import type { ClientAnswer } from '../../spec/types.js'
import type { Channel, ClientRequestOptions } from '../../protocol/call.js'
import type { AskedFor, ClientRequests } from '../../protocol/session/client-requests.js'
import type { Outbox } from './outbox.js'
import type { SseConnection } from './sse.js'

/** Where a 2025 call's stream sends its questions: the session, the questions waiting for answers, and who they are for. */
export interface Questions {
  readonly requests: ClientRequests
  readonly sessionId: string
  readonly for: AskedFor
}

export class ResponseStream implements Channel {
  private finished = false
  /** The questions this call asked that still wait for an answer (made at the first: most calls ask none). */
  private asked: Set<string> | undefined

  constructor (readonly outbox: Outbox, readonly resumable: boolean, private readonly questions: Questions | undefined) {}

  notify (method: string, params: Record<string, unknown>): boolean {
    if (this.finished) return false
    // a notification may be dropped when the event store lags (outbox.ts); the answer and questions never are
    return this.outbox.push(notificationText(method, params), true)
  }

  /** A question to the client, on this stream; only 2025 calls ask this way (2026-07-28 uses round trips). */
  async request (method: string, params: Record<string, unknown>, options: ClientRequestOptions): Promise<ClientAnswer> {
    const { requests, sessionId } = this.questions!
    this.asked ??= new Set()
    return requests.send(sessionId, (message) => !this.finished && this.outbox.push(message), method, params, options, this.questions!.for, this.asked)
  }

  /**
   * SEP-1699 polling: `retry:` then close the connection; the logical stream goes on. Only a
   * resumable stream's channel offers it (`CallStreams.deferred`); after the answer it does nothing.
   */
  closeConnection (retryMs: number): void {
    if (this.finished) return
    this.outbox.then(() => {
      const conn = this.outbox.conn
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
    this.outbox.push(answer)
    this.outbox.then(() => {
      const conn = this.outbox.conn
      conn?.end()
      done(conn)
    })
  }
}
