/**
 * Server-Sent Events on `reply.raw`: one HTTP connection of an event stream. Headers the host's
 * hooks already set on the reply (CORS, request ids) are kept; the event-stream headers are added
 * over them. What the events mean (a call's answer, a session's notifications, a subscription) is
 * `streams.ts`'s business; this file only writes.
 */
import type { FastifyReply } from 'fastify'
import { ProtocolError } from '../../errors.js'
import { INVALID_REQUEST } from '../../spec/jsonrpc.js'

export interface SseOptions {
  /** Milliseconds between `:` keep-alive comments; 0 turns them off. */
  readonly keepAlive: number
}

export class SseConnection {
  private readonly reply: FastifyReply
  private timer: NodeJS.Timeout | undefined
  private ended = false
  private wrote = false
  /** True from the constructor's `cork()` until its one `uncork()` (on `setImmediate`, or in `end`). */
  private corked = false
  /** That `setImmediate`, which also starts the keep-alives. */
  private flush: NodeJS.Immediate | undefined
  private readonly closeListeners: Array<() => void> = []
  /** The connection's socket, kept: Node lets go of it once the response has finished. */
  readonly socket: object | null

  constructor (reply: FastifyReply, options: SseOptions) {
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
    raw.writeHead(200, headers as Record<string, string>)
    // Hold the headers and whatever this turn of the event loop writes (progress, the answer of a
    // quick call, the end) and send them as one write; a slower call gets its headers right after.
    raw.cork()
    this.corked = true
    // Not run when the stream ends first (`stop` clears it): a quick call's stream never needs the
    // uncork, the flush, nor a keep-alive timer.
    this.flush = setImmediate(() => {
      this.uncork()
      if (!this.wrote && !raw.destroyed) raw.flushHeaders()
      if (options.keepAlive > 0) {
        this.timer = setInterval(() => this.write(': keep-alive\n\n'), options.keepAlive)
        this.timer.unref()
      }
    })
    raw.once('close', () => this.stop())
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
    this.wrote = true
    this.reply.raw.write(chunk)
    return true
  }

  /** Writes one message (already JSON text) as an event, with an `id:` when given. */
  send (json: string, id?: string): boolean {
    return this.write(id === undefined ? `data: ${json}\n\n` : `id: ${id}\ndata: ${json}\n\n`)
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

  /** Runs once: from the `setImmediate`, or from `end` (whose `stop` cleared it). */
  private uncork (): void {
    this.corked = false
    this.reply.raw.uncork()
  }

  /** Ends the connection; safe to call twice. */
  end (): void {
    if (this.ended) return
    this.stop()
    const raw = this.reply.raw
    if (raw.destroyed) return
    // Never end a corked response. Since Node 21 (nodejs/node#50167) chunks written to a corked
    // response wait in a buffer of its own, and `end()` writes the terminating chunk (`0\r\n\r\n`)
    // before it flushes that buffer: a call answered within its first turn would reach the client
    // as its first event, then the end of the body, then the rest as bytes after the response (the
    // client never sees the answer). Uncorked first, they leave in order; the socket is corked
    // around it so that headers, events and the end still go out as one write (`end()` uncorks it).
    if (this.corked) {
      raw.socket?.cork()
      this.uncork()
    }
    raw.end()
  }
}

/** Whether the client accepts an event stream: required to answer with one. */
export function acceptsEventStream (accept: string | undefined): boolean {
  return accept === undefined || accept.includes('text/event-stream') || accept.includes('*/*')
}

/** The refusal of a request that can only be answered as an event stream by a client that accepts none. */
export const streamNotAcceptable = new ProtocolError(INVALID_REQUEST, 'Not Acceptable: this request answers with an event stream; the Accept header must allow text/event-stream', 406)
