/**
 * Server-Sent Events on `reply.raw`: one HTTP connection of an event stream. Headers the host's
 * hooks already set on the reply (CORS, request ids) are kept; the event-stream headers are added
 * over them. What one turn of the event loop writes goes out as one chunk. What the events mean (a call's answer, a session's notifications, a subscription) is
 * `streams.ts`'s business; this file only writes.
 *
 * A client that reads slower than the server writes is cut, never waited for: a write that finds
 * more than `maxBuffered` bytes still unsent (what Node holds for the socket, and what this turn
 * holds) destroys the connection, and every later write is dropped. So one connection holds at
 * most `maxBuffered` bytes and one message, however long its tool keeps sending.
 */
import type { FastifyReply } from 'fastify'
import { ProtocolError } from '../../errors.js'
import { INVALID_REQUEST } from '../../spec/jsonrpc.js'

export interface SseOptions {
  /** Milliseconds between `:` keep-alive comments; 0 turns them off. */
  readonly keepAlive: number
  /** Bytes a connection may hold unsent (`streams.maxBuffered`); a write that finds more cuts it. */
  readonly maxBuffered: number
}

/** What a connection carries, for the line logged when it is cut. */
export interface StreamName {
  /** `call` (a POST's answer), `get` (a 2025 session's GET stream, or a resumption), `listen` (2026-07-28). */
  readonly stream: 'call' | 'get' | 'listen'
  /** A resumable stream's id: its events stay in the event store after a cut. */
  readonly streamId?: string | undefined
}

export class SseConnection {
  private readonly reply: FastifyReply
  private timer: NodeJS.Timeout | undefined
  private ended = false
  /**
   * What this turn of the event loop wrote, held until its end (the `setImmediate`) or the stream's
   * (`end`), then written as one chunk; undefined once the stream writes straight through.
   */
  private pending: string | undefined = ''
  /** That `setImmediate`, which also starts the keep-alives. */
  private flush: NodeJS.Immediate | undefined
  private readonly closeListeners: Array<() => void> = []
  /** Characters of the events replayed on this connection, which the bound allows on top of `maxBuffered`. */
  private replayed = 0
  /** The connection's socket, kept: Node lets go of it once the response has finished. */
  readonly socket: object | null

  constructor (reply: FastifyReply, private readonly options: SseOptions, private readonly name: StreamName) {
    this.reply = reply
    const raw = reply.raw
    this.socket = raw.socket
    // a copy already (Fastify builds it from the raw response's headers and its own): ours to change
    const headers: Record<string, number | string | string[] | undefined> = reply.getHeaders()
    delete headers['content-length']
    headers['content-type'] = 'text/event-stream'
    headers['cache-control'] = 'no-cache'
    // proxies such as nginx would otherwise hold events back until the buffer fills
    headers['x-accel-buffering'] = 'no'
    reply.hijack()
    try {
      raw.writeHead(200, headers as Record<string, string>)
    } catch (err) {
      // a header a host hook set that Node refuses (a value with a newline): the reply is ours now,
      // and no answer can go out on it; the client must not wait for one
      raw.destroy()
      throw err
    }
    // Hold whatever this turn of the event loop writes (progress, the answer of a quick call, the
    // end) and send it with the headers as one chunk: one write for Node's HTTP layer instead of one
    // per event (a chunk header, the event and a CRLF each), and one syscall. A slower call gets its
    // first turn's events, or its headers alone, right after. Not run when the stream ends first
    // (`stop` clears it): a quick call's stream never needs the flush nor a keep-alive timer.
    this.flush = setImmediate(() => {
      const pending = this.pending!
      this.pending = undefined
      if (raw.destroyed) return
      if (pending !== '') raw.write(pending)
      else raw.flushHeaders()
      if (options.keepAlive > 0) {
        this.timer = setInterval(() => this.write(': keep-alive\n\n'), options.keepAlive)
        this.timer.unref()
      }
    })
    // a call that opens its stream after its client went away writes nothing
    if (raw.destroyed) this.stop()
    else raw.once('close', () => this.stop())
  }

  /** False once the stream ended or the client went away: nothing more may be written. */
  get open (): boolean {
    return !this.ended && !this.reply.raw.destroyed && this.reply.raw.writable
  }

  /** Runs `listener` once, when the connection ends for whatever reason (at once if it has). */
  onClose (listener: () => void): void {
    if (this.ended) listener()
    else this.closeListeners.push(listener)
  }

  private write (chunk: string): boolean {
    if (!this.open) return false
    const raw = this.reply.raw
    // Node counts a string written to a socket by its length, as `pending` is counted here
    const buffered = raw.writableLength + (this.pending?.length ?? 0)
    if (buffered > this.options.maxBuffered + this.replayed) {
      this.cut(buffered)
      return false
    }
    if (this.pending === undefined) raw.write(chunk)
    else this.pending += chunk
    return true
  }

  /**
   * The client reads slower than the server writes: the connection is destroyed (what it holds is
   * dropped) and closes as if the client had gone away. A non-resumable call's `ctx.signal` aborts
   * then; a resumable stream's events go on to the event store.
   */
  private cut (buffered: number): void {
    const { stream, streamId } = this.name
    const { maxBuffered } = this.options
    const replayed = this.replayed
    const allowed = replayed === 0 ? '' : ` and the ${replayed} replayed`
    const kept = streamId === undefined ? '' : '; its events stay in the event store for Last-Event-ID'
    this.reply.log.warn({ stream, streamId, buffered, maxBuffered, replayed },
      `fastify-sake: an event stream's client reads too slowly: ${buffered} bytes unsent, over streams.maxBuffered (${maxBuffered})${allowed}; its connection is closed${kept}`)
    this.pending = undefined
    this.stop()
    this.reply.raw.destroy()
  }

  /** Writes one message (already JSON text) as an event, with an `id:` when given. */
  send (json: string, id?: string): boolean {
    return this.write(id === undefined ? `data: ${json}\n\n` : `id: ${id}\ndata: ${json}\n\n`)
  }

  /**
   * Writes one event the event store kept, on a resumption. The bound grows by what is replayed:
   * the store holds those events already, within its own bounds, and a client that resumes in the
   * middle of a call must get the replay and the live events after it even when the replay alone
   * is over `maxBuffered`. A client that does not read them is cut all the same, at that sum.
   */
  replay (json: string, id: string): boolean {
    const event = `id: ${id}\ndata: ${json}\n\n`
    this.replayed += event.length
    return this.write(event)
  }

  /** The 2025-11-25 priming event: an id and an empty `data`, so the client can resume from it. */
  prime (id: string): boolean {
    return this.write(`id: ${id}\ndata:\n\n`)
  }

  /** A `retry:` field: how long the client waits before it reconnects. */
  retry (ms: number): boolean {
    return this.write(`retry: ${ms}\n\n`)
  }

  private stop (): void {
    if (this.ended) return
    clearImmediate(this.flush)
    clearInterval(this.timer)
    this.timer = undefined
    this.ended = true
    for (const listener of this.closeListeners.splice(0)) listener()
  }

  /** Ends the connection, with whatever this turn wrote; safe to call twice. */
  end (): void {
    if (this.ended) return
    this.stop()
    const raw = this.reply.raw
    if (raw.destroyed) return
    const pending = this.pending
    this.pending = undefined
    // headers, the held events and the end of the body in one write
    if (pending === undefined || pending === '') raw.end()
    else raw.end(pending)
  }
}

/** The refusal of a request that can only be answered as an event stream by a client that accepts none. */
export const streamNotAcceptable = new ProtocolError(INVALID_REQUEST, 'Not Acceptable: this request answers with an event stream; the Accept header must allow text/event-stream', 406)
