/** The Fastify side of a call: its request, logger, and an abort signal tied to the connection. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Logger, Transport } from '../protocol/context.js'

export class HttpTransport implements Transport {
  readonly request: FastifyRequest
  private readonly reply: FastifyReply

  constructor (request: FastifyRequest, reply: FastifyReply) {
    this.request = request
    this.reply = reply
  }

  get log (): Logger {
    return this.request.log as unknown as Logger
  }

  signal (): AbortSignal {
    const controller = new AbortController()
    const raw = this.reply.raw
    // 'close' after the response finished is the normal end, not a client going away
    const onClose = (): void => {
      if (!raw.writableFinished) controller.abort(new Error('the client closed the connection'))
    }
    if (raw.destroyed) onClose()
    else raw.once('close', onClose)
    return controller.signal
  }
}
