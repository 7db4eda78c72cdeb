/**
 * The Fastify side of a call (the protocol core's `Transport`): its request, logger (Fastify's
 * request logger, a pino child, is the core's `Logger` as it is), and an abort signal tied to the
 * connection (a resumable call's, which outlives its connection, is `call-streams.ts`'s).
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
