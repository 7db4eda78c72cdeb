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
import { ClientInputError } from '../../errors.js'
import type { Logger } from '../../spec/types.js'
import type { EventStore } from '../../state/event-store.js'
import type { Liveness } from '../../state/liveness.js'
import type { Call, Channel, Transport } from '../../protocol/call.js'
import type { ClientRequests } from '../../protocol/session/client-requests.js'
import { ResponseStream } from './outbox.js'
import { SseConnection, type SseOptions } from './sse.js'
import type { HttpTransport } from '../transport.js'
import { callerOf } from '../caller.js'
import type { Quota } from '../../state/quota.js'

/** A call whose answer may become an event stream (`CallStreams.deferred`). */
export interface DeferredStream {
  /** The call, with its way to open the stream: a channel, or `openStream`. */
  readonly call: Call
  /** Whether the stream opened: once it has, the answer goes on it. */
  opened (): boolean
  /**
   * The call ended: sends `answer` on its stream and returns true, or returns false when none was
   * opened (the caller answers plainly; `answer` may then be undefined). Nothing opens afterwards.
   */
  end (answer: string | undefined): boolean
}

/** Where a call's notifications and questions go once its answer went out as JSON: nowhere. */
const CLOSED: Channel = {
  notify: () => false,
  request: async (method, _params, options) => {
    throw new ClientInputError(options.key, method, 'cancelled', `the call already answered: ${method} ('${options.key}') can no longer be asked`)
  }
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
  /** Who waits for the resumable streams to have written their answers (`written`). */
  private idle: Array<() => void> = []

  /** `quota`: the open streams each caller holds on this instance (`streams.maxPerCaller`, `streams.maxStreams`). */
  constructor (
    private readonly events: EventStore,
    private readonly questions: ClientRequests,
    private readonly sse: SseOptions,
    private readonly liveness: Liveness,
    private readonly quota: Quota
  ) {}

  /**
   * Settles once every resumable stream open here has written its answer to the event store (at
   * once when none is open). A call's answer is pushed to its stream when the call returns, and
   * written after; the close waits for that before it closes the stores, so that a handed-over
   * stream's answer is in the store before this instance leaves the fleet (and a survivor ends
   * whatever is still owned).
   */
  written (): Promise<void> {
    if (this.live.size === 0) return Promise.resolve()
    return new Promise((resolve) => { this.idle.push(resolve) })
  }

  /**
   * A call answered as JSON unless it has to stream: its answer opens as an event stream at the first
   * thing the call sends (progress, a log message, a question to the client) or, for a `streaming`
   * call still silent after the keep-alive interval, then (headers that never come look like a dead
   * server to a proxy). Whatever is decided before (a refusal, an error, a quick result) is answered
   * as if the call did not stream. A `streaming` call (a tool that streams, or a call that asked for
   * progress or log messages) gets the stream as its channel; any other (a 2025 call that may ask its
   * client something) opens it only to ask (`call.openStream`). A resumable call (2025-11-25)
   * outlives its connection: its `ctx.signal` follows the client's cancels only.
   */
  deferred (request: FastifyRequest, reply: FastifyReply, call: Call, streaming: boolean): DeferredStream {
    let open: Opened | undefined
    let ended = false
    let silence: NodeJS.Timeout | undefined
    const resumable = call.rules.resumable
    const detached = streaming && resumable ? new DetachedTransport(call.transport as HttpTransport) : undefined
    // the caller whose stream quota this call holds: a streaming call from its start (refused
    // before it runs), any other once it opens a stream to ask something
    let held: string | undefined
    const hold = (): void => {
      const caller = callerOf(request)
      const refusal = this.quota.take(caller)
      if (refusal !== undefined) throw this.quota.refused(refusal, caller, request.log)
      held = caller
    }
    if (streaming) hold()
    const opened = (): Channel => {
      if (open !== undefined) return open.stream
      // the answer went out as JSON: a late notification (a tool that ignored its signal) has nowhere to go
      if (ended) return CLOSED
      if (held === undefined) hold()
      clearTimeout(silence)
      open = this.openStream(request, reply, call, held!)
      return open.stream
    }
    // the stream opens at the first thing that goes out on it, once the quotas allow it: a question
    // refused by one is refused before anything was sent, so the call can still answer 429 plainly
    const channel = (): Channel => ({
      // a notification the stream quota has no room for is dropped, as one to a client gone away
      notify: (method, params) => held === undefined && this.quota.check(callerOf(request)) !== undefined ? false : opened().notify(method, params),
      request: async (method, params, options) => {
        this.questions.admit(callerOf(request), request.log)
        return await opened().request!(method, params, options)
      },
      // a connection to close exists only once the stream is open; only a resumable one can be closed
      closeConnection: streaming && resumable ? (retryMs) => opened().closeConnection!(retryMs) : undefined
    })
    let deferredCall: Call
    if (streaming) {
      deferredCall = { ...call, channel: channel(), transport: detached ?? call.transport }
      if (this.sse.keepAlive > 0) {
        silence = setTimeout(opened, this.sse.keepAlive)
        silence.unref()
      }
    } else {
      // most calls that may ask never do: the channel is made when the first question comes
      let asking: Channel | undefined
      deferredCall = { ...call, openStream: () => (asking ??= channel()) }
    }
    return {
      call: deferredCall,
      opened: () => open !== undefined,
      end: (answer) => {
        ended = true
        clearTimeout(silence)
        detached?.done()
        if (held !== undefined) this.quota.give(held)
        held = undefined
        if (open === undefined) return false
        open.finish(answer!)
        return true
      }
    }
  }

  /**
   * Opens a call's answer as an event stream: priming event and replay ids when resumable
   * (2025-11-25). `caller`: whose stream quota it holds, whom its questions are for.
   */
  private openStream (request: FastifyRequest, reply: FastifyReply, call: Call, caller: string): Opened {
    const log = request.log
    const questions = call.era === 'legacy' ? { requests: this.questions, sessionId: call.sessionId!, for: { caller, log } } : undefined
    if (!call.rules.resumable) {
      const conn = new SseConnection(reply, this.sse, { stream: 'call' })
      const stream = new ResponseStream('', undefined, conn, log, Infinity, questions)
      return { stream, finish: (answer) => stream.finish(answer, noop) }
    }
    const streamId = `${call.sessionId!}/${this.streamPrefix}${(this.streamCount++).toString(36)}`
    const conn = new SseConnection(reply, this.sse, { stream: 'call', streamId })
    const stream = new ResponseStream(streamId, this.events, conn, log, this.sse.maxBuffered, questions)
    this.live.set(streamId, stream)
    // a stream that outlives its connection is this instance's to end: if it dies, a survivor ends it
    const owned = { kind: 'stream', streamId, requestId: call.id } as const
    this.ownership(this.liveness.own(owned), log)
    stream.push('') // the priming event: an id to resume from before anything else is sent
    return {
      stream,
      finish: (answer) => stream.finish(answer, (delivered) => {
        this.live.delete(streamId)
        this.ownership(this.liveness.release(owned), log)
        if (this.live.size === 0) for (const resolve of this.idle.splice(0)) resolve()
        if (delivered?.socket != null) this.answeredOn.set(delivered.socket, streamId)
      })
    }
  }

  /** Records or forgets a stream as this instance's without holding it up; a failure is logged. */
  private ownership (pending: void | Promise<void>, log: FastifyRequest['log']): void {
    if (pending instanceof Promise) pending.catch((err: unknown) => log.error({ err }, 'fastify-sake: the liveness store failed while recording a resumable stream (if this instance dies, a client resuming it waits for its events to expire)'))
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

/**
 * A resumable call outlives its connection (2025-11-25: disconnection is not cancellation), so its
 * `ctx.signal` is not tied to the socket: only the client's `notifications/cancelled` aborts it.
 */
class DetachedTransport implements Transport {
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
