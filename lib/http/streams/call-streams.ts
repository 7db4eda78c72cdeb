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
import { isResumable } from '../../spec/eras.js'
import type { EventStore } from '../../state/event-store.js'
import type { Call, Channel } from '../../protocol/call.js'
import type { ClientRequests } from '../../protocol/session/client-requests.js'
import { Outbox } from './outbox.js'
import { ResponseStream } from './response-stream.js'
import { SseConnection, type SseOptions } from './sse.js'
import { DetachedTransport, type HttpTransport } from '../transport.js'

/** A call's answer opened as an event stream: the call, now with its channel, and how to end the stream with the answer. */
export interface OpenStream {
  readonly call: Call
  finish (answer: string): void
}

/** A stream just opened, and how to end it with the answer. */
interface Opened {
  readonly stream: ResponseStream
  finish (answer: string): void
}

export class CallStreams {
  /** Resumable POST streams whose call has not finished, by stream id. */
  readonly live = new Map<string, ResponseStream>()
  /** The resumable stream answered last on each connection, until the client is seen to have read it. */
  private readonly answeredOn = new WeakMap<object, string>()
  /**
   * Resumable stream ids are this random prefix and a counter: unique across the instances of a
   * fleet without a random draw per stream (they need no secrecy: a Last-Event-ID is only replayed
   * to the session whose id starts its stream id).
   */
  private readonly streamPrefix = randomBytes(9).toString('base64url')
  private streamCount = 0

  /** `questions`: the session protocol's, where a 2025 call's questions wait for their answers. */
  constructor (private readonly events: EventStore, private readonly questions: ClientRequests, private readonly sse: SseOptions) {}

  /**
   * Opens `call`'s answer as an event stream: its notifications go out on it while it runs, then
   * `finish` sends its answer (result or error, as JSON text) and ends it. A resumable call
   * (2025-11-25) outlives its connection: its `ctx.signal` follows the client's cancels only.
   */
  open (request: FastifyRequest, reply: FastifyReply, call: Call): OpenStream {
    const { stream, finish } = this.openStream(request, reply, call)
    if (!stream.resumable) return { call: { ...call, channel: stream }, finish }
    // a resumable call is a 2025-11-25 session's, whose transport is always ours
    const transport = new DetachedTransport(call.transport as HttpTransport)
    return {
      call: { ...call, channel: stream, transport },
      finish: (answer) => {
        transport.done()
        finish(answer)
      }
    }
  }

  /**
   * A 2025 call answered as JSON unless its handler asks the client something: the first question
   * opens the answer as an event stream (`call.openStream`). `end` sends the answer on that stream
   * and returns true, or returns false when none was opened (the caller answers JSON).
   */
  deferred (request: FastifyRequest, reply: FastifyReply, call: Call): { call: Call, opened: () => boolean, end: (answer: string) => boolean } {
    let open: Opened | undefined
    const openStream = (): Channel => (open ??= this.openStream(request, reply, call)).stream
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
  private openStream (request: FastifyRequest, reply: FastifyReply, call: Call): Opened {
    const conn = new SseConnection(reply, this.sse)
    const log = request.log
    const questions = call.era === 'legacy' ? { requests: this.questions, sessionId: call.sessionId! } : undefined
    if (!isResumable(call.era, call.protocolVersion)) {
      const stream = new ResponseStream(new Outbox('', undefined, conn, log), false, questions)
      return { stream, finish: (answer) => stream.finish(answer, noop) }
    }
    const streamId = `${call.sessionId!}/${this.streamPrefix}${(this.streamCount++).toString(36)}`
    const stream = new ResponseStream(new Outbox(streamId, this.events, conn, log), true, questions)
    this.live.set(streamId, stream)
    stream.outbox.push('') // the priming event: an id to resume from before anything else is sent
    return {
      stream,
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
}

function noop (): void {}
