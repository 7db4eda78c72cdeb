/**
 * The Fastify side of a call (the protocol core's `Transport`): its request, logger (Fastify's
 * request logger, a pino child, is the core's `Logger` as it is), and an abort signal tied to the
 * connection; and the transport of a resumable call, which outlives its connection.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Logger } from '../spec/types.js'
import type { Transport } from '../protocol/call.js'
import type { Cancellable } from '../protocol/session/cancellations.js'
import { callerOf } from './caller.js'
import type { Shutdown } from './shutdown.js'

export class HttpTransport implements Transport {
  readonly request: FastifyRequest
  private readonly reply: FastifyReply
  private readonly cancellable: Cancellable | undefined
  /** The endpoint's shutdown, which aborts the signal of a call still running at the end of `closeTimeout`. */
  readonly shutdown: Shutdown

  /** `cancellable`: a 2025 call, which `notifications/cancelled` may abort too. */
  constructor (request: FastifyRequest, reply: FastifyReply, shutdown: Shutdown, cancellable?: Cancellable) {
    this.request = request
    this.reply = reply
    this.shutdown = shutdown
    this.cancellable = cancellable
  }

  /**
   * A signal that only a client's `notifications/cancelled` (or the end of `closeTimeout`) aborts,
   * with the function that stops watching for it. Only for 2025 calls (only they stream
   * resumably), which are always cancellable.
   */
  cancelSignal (): { signal: AbortSignal, release: () => void } {
    const controller = new AbortController()
    const { cancellations, sessionId, requestId } = this.cancellable!
    const untrack = cancellations.track(sessionId, requestId, controller)
    const unwatch = this.shutdown.watch(controller)
    return { signal: controller.signal, release: () => { untrack(); unwatch() } }
  }

  get log (): Logger {
    return this.request.log
  }

  get caller (): string {
    return callerOf(this.request)
  }

  signal (): AbortSignal {
    const controller = new AbortController()
    const raw = this.reply.raw
    // 'close' after the response finished is the normal end, not a client going away
    const onClose = (): void => {
      if (!raw.writableFinished) controller.abort(new Error('the client closed the connection'))
    }
    if (raw.destroyed) onClose()
    else {
      raw.once('close', onClose)
      raw.once('close', this.shutdown.watch(controller))
    }
    if (this.cancellable !== undefined && !raw.destroyed) {
      const { cancellations, sessionId, requestId } = this.cancellable
      raw.once('close', cancellations.track(sessionId, requestId, controller))
    }
    return controller.signal
  }
}

/**
 * A resumable call outlives its connection (2025-11-25: disconnection is not cancellation), so its
 * `ctx.signal` is not tied to the socket: only the client's `notifications/cancelled` aborts it.
 */
export class DetachedTransport implements Transport {
  private release: (() => void) | undefined
  constructor (private readonly inner: HttpTransport) {}
  get request (): unknown { return this.inner.request }
  get caller (): string { return this.inner.caller }
  get log (): Logger { return this.inner.log }

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
