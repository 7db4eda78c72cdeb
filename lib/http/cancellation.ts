/**
 * `notifications/cancelled` in 2025 sessions: the client asks the server to stop a request it sent
 * earlier. Calls register here only once their tool reads `ctx.signal`, so a call that never looks
 * pays nothing; a cancel for a call that did not look (or has finished) is simply dropped, as the
 * spec allows. One registry per server (two servers in a process share nothing); per process: a
 * cancel that reaches another instance of a fleet finds nothing.
 */
import type { RequestId } from '../spec/jsonrpc.js'

export class Cancellations {
  private readonly live = new Map<string, AbortController>()

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

  /** Aborts the signal of a session's call, if it is running here and watching its signal. */
  cancel (sessionId: string, requestId: unknown, reason: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    const controller = this.live.get(Cancellations.key(sessionId, requestId))
    controller?.abort(new Error(typeof reason === 'string' ? `cancelled by the client: ${reason}` : 'cancelled by the client'))
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
