/**
 * Every event stream one server holds open: calls answered as streams (`call-streams.ts`), 2025
 * sessions' GET streams (`session-streams.ts`), and 2026-07-28 listens (`listens.ts`); made
 * together, because the GET of a session resumes a call's stream, and closed together. How the
 * streams are written: `sse.ts` (one connection) and `outbox.ts` (one logical stream).
 */
import type { Bus } from '../../state/bus.js'
import type { EventStore } from '../../state/event-store.js'
import type { Liveness } from '../../state/liveness.js'
import type { SessionStore } from '../../state/session-store.js'
import type { ClientRequests } from '../../protocol/session/client-requests.js'
import type { Quota } from '../../state/quota.js'
import { CallStreams } from './call-streams.js'
import { Listens } from './listens.js'
import { SessionStreams } from './session-streams.js'

export interface StreamsOptions {
  readonly bus: Bus
  readonly events: EventStore
  readonly sessions: SessionStore
  /** The session protocol's questions to 2025 clients, which a call's stream asks. */
  readonly questions: ClientRequests
  /** Milliseconds between SSE keep-alive comments (0: none). */
  readonly keepAlive: number
  /** Bytes one connection may hold unsent before it is cut (`streams.maxBuffered`). */
  readonly maxBuffered: number
  /** Where a resumable stream is recorded as this instance's, for a survivor to end if it dies. */
  readonly liveness: Liveness
  /** The open streams each caller holds here, and all of them (`streams.maxPerCaller`, `streams.maxStreams`). */
  readonly quota: Quota
}

export class Streams {
  readonly calls: CallStreams
  readonly sessions: SessionStreams
  readonly listens: Listens

  private readonly unsubscribe: () => void

  constructor (options: StreamsOptions) {
    const sse = { keepAlive: options.keepAlive, maxBuffered: options.maxBuffered }
    this.calls = new CallStreams(options.events, options.questions, sse, options.liveness, options.quota)
    this.sessions = new SessionStreams(options.bus, options.events, options.sessions, this.calls.live, sse, options.quota)
    this.listens = new Listens(options.bus, sse, options.quota)
    // a session deleted on another instance of the fleet: its GET stream here ends too
    this.unsubscribe = options.bus.subscribe((event) => {
      if (event.type === 'sessionEnded') this.sessions.end(event.sessionId)
    })
  }

  /**
   * Closes the connections of the resumable streams whose calls run here, after a `retry:` of
   * `retryMs` (SEP-1699): the calls go on, their events go to the shared store, and their clients
   * resume on another instance of the fleet (the server is closing).
   */
  handOver (retryMs: number): void {
    for (const stream of this.calls.live.values()) stream.closeConnection(retryMs)
  }

  /**
   * Ends the GET streams (after a `retry:` of `retryMs`: their clients reconnect, elsewhere) and
   * the listens (with their final response): the server is closing. Calls still running finish
   * on their own.
   */
  close (retryMs: number): void {
    this.unsubscribe()
    this.listens.close()
    this.sessions.close(retryMs)
  }
}
