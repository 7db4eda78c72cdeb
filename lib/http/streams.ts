/**
 * Every event stream one server holds open: calls answered as streams (`call-streams.ts`), 2025
 * sessions' GET streams (`session-streams.ts`), and 2026-07-28 listens (`listens.ts`); made
 * together, because the GET of a session resumes a call's stream, and closed together.
 */
import type { Bus } from '../state/bus.js'
import type { EventStore } from '../state/event-store.js'
import type { SessionStore } from '../state/session-store.js'
import { CallStreams } from './call-streams.js'
import { Listens } from './listens.js'
import { SessionStreams } from './session-streams.js'

export interface StreamsOptions {
  readonly bus: Bus
  readonly events: EventStore
  readonly sessions: SessionStore
  /** Milliseconds between SSE keep-alive comments (0: none). */
  readonly keepAlive: number
}

export class Streams {
  readonly calls: CallStreams
  readonly sessions: SessionStreams
  readonly listens: Listens

  private readonly bus: Bus
  private readonly unsubscribe: () => void

  constructor (options: StreamsOptions) {
    const sse = { keepAlive: options.keepAlive }
    this.bus = options.bus
    this.calls = new CallStreams(options.bus, options.events, sse)
    this.sessions = new SessionStreams(options.bus, options.events, options.sessions, this.calls, sse)
    this.listens = new Listens(options.bus, sse)
    // a session deleted on another instance of the fleet: its streams here end too
    this.unsubscribe = options.bus.subscribe((event) => {
      if (event.type === 'sessionEnded') this.endLocal(event.sessionId)
    })
  }

  /**
   * A session was deleted: its GET stream ends, and so do the waits of its questions (their
   * answers cannot come), here and, through the bus, on every other instance.
   */
  async endSession (sessionId: string): Promise<void> {
    this.endLocal(sessionId)
    await this.bus.publish({ type: 'sessionEnded', sessionId })
  }

  private endLocal (sessionId: string): void {
    this.sessions.end(sessionId)
    this.calls.requests.cancelSession(sessionId, 'the session ended')
  }

  /**
   * Ends the GET and listen streams (the server is closing), and the waits of questions asked of
   * 2025 clients; calls still running finish on their own.
   */
  close (): void {
    this.unsubscribe()
    this.calls.close()
    this.listens.close()
    this.sessions.close()
  }
}
