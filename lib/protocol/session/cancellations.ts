/**
 * `notifications/cancelled` in 2025 sessions: the client asks the server to stop a request it sent
 * earlier. Calls register here only once their tool reads `ctx.signal`, so a call that never looks
 * pays nothing; a cancel for a call that did not look (or has finished) is simply dropped, as the
 * spec allows. One registry per server (two servers in a process share nothing). A cancel for a
 * call this instance is not running goes on the bus, for the instance of the fleet that runs it.
 */
import type { RequestId } from '../../spec/jsonrpc.js'
import type { Bus } from '../../state/bus.js'

export class Cancellations {
  private readonly live = new Map<string, AbortController>()
  private readonly unsubscribe: () => void

  constructor (private readonly bus: Bus) {
    this.unsubscribe = bus.subscribe((event) => {
      if (event.type === 'cancelled') this.abort(event.sessionId, event.requestId, event.reason)
    })
  }

  private static key (sessionId: string, requestId: RequestId): string {
    // JSON keeps the request ids 1 and "1" apart
    return sessionId + '\n' + JSON.stringify(requestId)
  }

  /** Registers a call's controller; the returned function forgets it (call it when the call ends). */
  track (sessionId: string, requestId: RequestId, controller: AbortController): () => void {
    const key = Cancellations.key(sessionId, requestId)
    this.live.set(key, controller)
    return () => {
      if (this.live.get(key) === controller) this.live.delete(key)
    }
  }

  /**
   * Aborts the signal of a session's call if it is running here and watching its signal; else
   * asks the other instances over the bus (a bus that fails loses the cancel, which the spec allows).
   */
  cancel (sessionId: string, requestId: unknown, reason: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    const text = typeof reason === 'string' ? reason : undefined
    if (this.abort(sessionId, requestId, text)) return
    // a bus that throws at once, or later, alike
    ;(async () => { await this.bus.publish({ type: 'cancelled', sessionId, requestId, reason: text }) })().catch(noop)
  }

  /** Stops the server listening to the bus (it is closing). */
  close (): void {
    this.unsubscribe()
  }

  private abort (sessionId: string, requestId: RequestId, reason: string | undefined): boolean {
    const controller = this.live.get(Cancellations.key(sessionId, requestId))
    if (controller === undefined) return false
    controller.abort(new Error(reason === undefined ? 'cancelled by the client' : `cancelled by the client: ${reason}`))
    return true
  }

  /** How many calls are registered (for tests: nothing may stay behind). */
  get size (): number {
    return this.live.size
  }
}

/** What a 2025 call needs to be cancellable. */
export interface Cancellable {
  readonly cancellations: Cancellations
  readonly sessionId: string
  readonly requestId: RequestId
}

function noop (): void {}
