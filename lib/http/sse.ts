/**
 * Server-Sent Events on `reply.raw`, for the answers that must talk before they finish (progress,
 * log messages) and for long-lived streams. Headers the host's hooks already set on the reply
 * (CORS, request ids) are kept; the event-stream headers are added over them.
 */
import type { FastifyReply } from 'fastify'
import type { Channel } from '../protocol/context.js'

export interface SseOptions {
  /** Milliseconds between `:` keep-alive comments; 0 turns them off. */
  readonly keepAlive: number
}

export class SseStream implements Channel {
  private readonly reply: FastifyReply
  private timer: NodeJS.Timeout | undefined
  private ended = false

  constructor (reply: FastifyReply, options: SseOptions) {
    this.reply = reply
    const raw = reply.raw
    const headers: Record<string, number | string | string[] | undefined> = { ...reply.getHeaders() }
    delete headers['content-length']
    headers['content-type'] = 'text/event-stream'
    headers['cache-control'] = 'no-cache'
    // proxies such as nginx would otherwise hold events back until the buffer fills
    headers['x-accel-buffering'] = 'no'
    reply.hijack()
    raw.writeHead(200, headers as Record<string, string>)
    raw.flushHeaders()
    raw.once('close', () => this.stop())
    if (options.keepAlive > 0) {
      this.timer = setInterval(() => this.write(': keep-alive\n\n'), options.keepAlive)
      this.timer.unref()
    }
  }

  /** False once the stream ended or the client went away: nothing more may be written. */
  get open (): boolean {
    return !this.ended && !this.reply.raw.destroyed && this.reply.raw.writable
  }

  private write (chunk: string): boolean {
    if (!this.open) return false
    this.reply.raw.write(chunk)
    return true
  }

  /** Writes one message (already JSON text) as an event, with an `id:` when given. */
  send (json: string, id?: string): boolean {
    return this.write(id === undefined ? `data: ${json}\n\n` : `id: ${id}\ndata: ${json}\n\n`)
  }

  notify (method: string, params: Record<string, unknown>): boolean {
    return this.send(JSON.stringify({ jsonrpc: '2.0', method, params }))
  }

  private stop (): void {
    clearInterval(this.timer)
    this.timer = undefined
    this.ended = true
  }

  /** Ends the stream (after the final response); safe to call twice. */
  end (): void {
    if (this.ended) return
    this.stop()
    if (!this.reply.raw.destroyed) this.reply.raw.end()
  }
}

/** Whether the client accepts an event stream: required to answer with one. */
export function acceptsEventStream (accept: string | undefined): boolean {
  return accept === undefined || accept.includes('text/event-stream') || accept.includes('*/*')
}
