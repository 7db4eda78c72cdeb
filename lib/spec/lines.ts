/**
 * Newline-delimited messages from a byte stream (the stdio binding's framing, for both ends: the
 * server's stdin in `stdio/connection.ts`, a `{ command }` client's view of the server's stdout in
 * `client/stdio.ts`): each line is one JSON-RPC message, at most `limit` bytes (the server's
 * `bodyLimit`, as for an HTTP body; the client sets none). A line
 * over the limit is not kept whole: its bytes are dropped as they come, and the line is reported
 * once its end arrives, so a client that sends too much costs no memory.
 */

export interface LineHandlers {
  /** A line's text, without its `\n` (nor a `\r` before it). Blank lines are skipped. */
  line (text: string): void
  /** A line longer than the limit ended; `bytes`: its length. */
  overlong (bytes: number): void
}

export class LineSplitter {
  private pending: Buffer[] = []
  private size = 0
  /** Whether the line being read went over the limit (its bytes are dropped). */
  private dropping = false

  constructor (private readonly limit: number, private readonly handlers: LineHandlers) {}

  /** Takes a chunk of the stream; the lines it completes are handed over in order. */
  push (chunk: Buffer): void {
    let from = 0
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, from)) {
      this.take(chunk, from, at)
      this.complete()
      from = at + 1
    }
    this.take(chunk, from, chunk.length)
  }

  /** The stream ended: a last line without its newline is still a message. */
  end (): void {
    if (this.size > 0 || this.dropping) this.complete()
  }

  private take (chunk: Buffer, from: number, to: number): void {
    if (to === from) return
    this.size += to - from
    if (this.dropping) return
    if (this.size > this.limit) {
      this.dropping = true
      this.pending = []
      return
    }
    this.pending.push(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to))
  }

  private complete (): void {
    const { size, dropping } = this
    const parts = this.pending
    this.pending = []
    this.size = 0
    this.dropping = false
    if (dropping) {
      this.handlers.overlong(size)
      return
    }
    let text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8')
    if (text.endsWith('\r')) text = text.slice(0, -1)
    if (text.trim() !== '') this.handlers.line(text)
  }
}
