/**
 * What goes out to the client: one message a line, on the one channel that responses, questions
 * and notifications share. Nothing is written once the connection closed.
 */
import { ProtocolError } from '../errors.js'
import { INVALID_REQUEST, errorBody, type RequestId } from '../spec/jsonrpc.js'
import type { StdioSettings } from './settings.js'

/** The text of the error response that answers a message (`id` null: it has none that can be read). */
export function errorText (id: RequestId | null, error: ProtocolError): string {
  return JSON.stringify(errorBody(id, error))
}

/** A `-32600` refusal; `what` says what was wrong. */
export function invalidRequest (what: string): ProtocolError {
  return new ProtocolError(INVALID_REQUEST, `Invalid Request: ${what}`)
}

export class StdioOutput {
  /** Set once the connection closed. */
  closed = false
  /** Notifications dropped since the output went over `maxBuffered`; undefined while it is not. */
  private dropped: number | undefined

  constructor (private readonly settings: StdioSettings) {}

  /** Writes one message; nothing once the connection closed. */
  send (text: string): boolean {
    if (this.closed) return false
    return this.settings.write(text + '\n')
  }

  /**
   * Writes a notification (progress, a log message, a list change, a listen's), unless the client
   * is not reading: while the output holds more than `maxBuffered` bytes unsent, notifications are
   * dropped, so a tool that keeps sending does not grow memory. Responses and questions are never
   * dropped (a request would wait for its answer forever). Logged when dropping starts, and once
   * the output drained whole (not each time a host that reads steadily brings it under the bound).
   */
  notify (text: string): boolean {
    const { buffered, maxBuffered, log } = this.settings
    const unsent = buffered()
    if (unsent > maxBuffered) {
      if (this.dropped === undefined) {
        this.dropped = 0
        log.warn({ buffered: unsent, maxBuffered },
          `fastify-sake: the stdio client reads too slowly: ${unsent} bytes unsent, over streams.maxBuffered ` +
          `(${maxBuffered}); notifications are dropped until it catches up (responses are not)`)
      }
      this.dropped++
      return false
    }
    const { dropped } = this
    if (dropped !== undefined && unsent === 0) {
      log.warn({ dropped }, `fastify-sake: the stdio client caught up; ${dropped} notifications were dropped`)
      this.dropped = undefined
    }
    return this.send(text)
  }
}
