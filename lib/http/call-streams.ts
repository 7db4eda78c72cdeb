/**
 * POSTs answered as event streams: a call reporting progress or log messages (or, in a 2025
 * session, asking its client something), then its response. In a 2025-11-25 session such a stream
 * is resumable: a priming event first, an id on every event, each message written to the event
 * store first, and a dropped connection (or `ctx.closeStream()`) leaves the call running; a GET
 * with `Last-Event-ID` then replays what was missed and carries the rest (`session-streams.ts`).
 *
 * No priming events or ids ever go to sessions below 2025-11-25 (older SDKs fail on them) nor to
 * 2026-07-28 streams (the revision has no resumability).
 */
import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isResumable } from '../spec/eras.js'
import type { ClientAnswer, Logger } from '../spec/types.js'
import type { Bus } from '../state/bus.js'
import type { EventStore } from '../state/event-store.js'
import type { Call, Channel } from '../protocol/call.js'
import { ClientRequests } from './client-requests.js'
import { Outbox } from './outbox.js'
import { ResponseStream } from './response-stream.js'
import { SseConnection, type SseOptions } from './sse.js'
import { DetachedTransport, type HttpTransport } from './transport.js'

/** A call's answer opened as an event stream, and how to end it with the answer. */
interface OpenStream {
  readonly stream: ResponseStream
  readonly resumable: boolean
  finish (answer: string): void
}

export class CallStreams {
  /** Resumable POST streams whose call has not finished, by stream id. */
  readonly live = new Map<string, ResponseStream>()
  /** Questions asked of 2025 clients, waiting for their answers. */
  readonly requests = new ClientRequests()
  /** The resumable stream answered last on each connection, until the client is seen to have read it. */
  private readonly answeredOn = new WeakMap<object, string>()
  /**
   * Resumable stream ids are this random prefix and a counter: unique across the instances of a
   * fleet without a random draw per stream (they need no secrecy: a Last-Event-ID is only replayed
   * to the session whose id starts its stream id).
   */
  private readonly streamPrefix = randomBytes(9).toString('base64url')
  private streamCount = 0
  private readonly unsubscribe: () => void

  constructor (private readonly bus: Bus, private readonly events: EventStore, private readonly sse: SseOptions) {
    // answers POSTed to another instance of the fleet reach the one holding the question here
    this.unsubscribe = bus.subscribe((event) => {
      if (event.type === 'clientResponse') this.requests.answer(event.sessionId, event.id, event.answer)
    })
  }

  /**
   * A 2025 client's response to one of our questions: to the question, when this process asked it;
   * otherwise onto the bus, for the instance that did.
   */
  async answered (sessionId: string, id: unknown, answer: ClientAnswer, log: Logger): Promise<void> {
    // only ids of ours travel: anything else answers no question on any instance
    if (!ClientRequests.mayBeOurs(id) || this.requests.answer(sessionId, id, answer)) return
    try {
      await this.bus.publish({ type: 'clientResponse', sessionId, id, answer })
    } catch (err) {
      log.error({ err }, 'fastify-sake: the bus failed to carry a client response to the instance that asked')
    }
  }

  /**
   * Answers `call` as an event stream: `run` gets the call with its channel and returns the final
   * message (result or error) as JSON text.
   */
  async respond (request: FastifyRequest, reply: FastifyReply, call: Call, run: (call: Call) => Promise<string>): Promise<FastifyReply> {
    const open = this.open(request, reply, call)
    if (!open.resumable) {
      open.finish(await run({ ...call, channel: open.stream }))
      return reply
    }
    // a resumable call is a 2025-11-25 session's, whose transport is always ours
    const transport = new DetachedTransport(call.transport as HttpTransport)
    const answer = await run({ ...call, channel: open.stream, transport })
    transport.done()
    open.finish(answer)
    return reply
  }

  /**
   * A 2025 call answered as JSON unless its handler asks the client something: the first question
   * opens the answer as an event stream (`call.openStream`). `end` sends the answer on that stream
   * and returns true, or returns false when none was opened (the caller answers JSON).
   */
  deferred (request: FastifyRequest, reply: FastifyReply, call: Call): { call: Call, opened: () => boolean, end: (answer: string) => boolean } {
    let open: OpenStream | undefined
    const openStream = (): Channel => (open ??= this.open(request, reply, call)).stream
    return {
      call: { ...call, openStream },
      opened: () => open !== undefined,
      end: (answer) => {
        if (open === undefined) return false
        open.finish(answer)
        return true
      }
    }
  }

  /** Opens a call's answer as an event stream: priming event and replay ids when resumable (2025-11-25). */
  private open (request: FastifyRequest, reply: FastifyReply, call: Call): OpenStream {
    const conn = new SseConnection(reply, this.sse)
    const log = request.log as unknown as Logger
    const questions = call.era === 'legacy' ? { requests: this.requests, sessionId: call.sessionId! } : undefined
    if (!isResumable(call.era, call.protocolVersion)) {
      const stream = new ResponseStream(new Outbox('', undefined, conn, log), false, questions)
      return { stream, resumable: false, finish: (answer) => stream.finish(answer, noop) }
    }
    const streamId = `${call.sessionId!}/${this.streamPrefix}${(this.streamCount++).toString(36)}`
    const stream = new ResponseStream(new Outbox(streamId, this.events, conn, log), true, questions)
    this.live.set(streamId, stream)
    stream.outbox.push('') // the priming event: an id to resume from before anything else is sent
    return {
      stream,
      resumable: true,
      finish: (answer) => stream.finish(answer, (delivered) => {
        this.live.delete(streamId)
        if (delivered?.socket != null) this.answeredOn.set(delivered.socket, streamId)
      })
    }
  }

  /**
   * A request arrived on its connection. An HTTP/1.1 client sends its next request on a connection only
   * once it has read the previous response whole, so the resumable stream answered last there will
   * not be resumed: the store may drop its events now rather than hold them to its bounds (under
   * load, that is what crowded out streams a client could still resume; docs/architecture.md).
   * HTTP/2 gives every request a socket object of its own, so nothing is dropped there.
   */
  received (request: FastifyRequest): void {
    const socket = request.raw.socket
    const streamId = this.answeredOn.get(socket)
    if (streamId === undefined) return
    this.answeredOn.delete(socket)
    const failed = (err: unknown): void => request.log.error({ err }, 'fastify-sake: the event store failed to delete a stream its client had read')
    try {
      const deleted = this.events.delete?.(streamId)
      if (deleted instanceof Promise) deleted.catch(failed)
    } catch (err) {
      failed(err)
    }
  }

  /** The server is closing: no more answers from the bus, and questions still waiting end now. */
  close (): void {
    this.unsubscribe()
    this.requests.cancelAll()
  }
}

function noop (): void {}
