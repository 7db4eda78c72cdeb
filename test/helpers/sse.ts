// Server-Sent Events as a test reads them: one event block parsed, a whole body split into events, and the JSON messages an answer carried.

/** One SSE event: its fields as the stream readers of network.ts keep them. */
export interface SseEvent { id?: string, data?: string, retry?: number, comment?: string }

/**
 * Parses one event block (the text between blank lines): `:` a comment, `id:`, `retry:`, and
 * `data:` lines, each value trimmed and several data lines joined with nothing in between.
 */
export function parseSseBlock (block: string): SseEvent {
  const event: SseEvent = {}
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) event.comment = line.slice(1).trim()
    else if (line.startsWith('id:')) event.id = line.slice(3).trim()
    else if (line.startsWith('retry:')) event.retry = Number(line.slice(6))
    else if (line.startsWith('data:')) event.data = (event.data ?? '') + line.slice(5).trim()
  }
  return event
}

/** Takes every complete event off the front of `buffer`; `rest` is what is left (an event still arriving). */
export function takeSseEvents (buffer: string): { events: SseEvent[], rest: string } {
  const events: SseEvent[] = []
  let end: number
  while ((end = buffer.indexOf('\n\n')) >= 0) {
    events.push(parseSseBlock(buffer.slice(0, end)))
    buffer = buffer.slice(end + 2)
  }
  return { events, rest: buffer }
}

export interface SseMessagesOptions {
  /**
   * Only `data: ` lines, with the space, count (default: `data:` with one optional space).
   * The 2026-07-28 answers carry the space; this reads them the way a strict reader would.
   */
  space?: 'required' | 'optional'
  /** Only blocks whose first line is `data:` count: a block that starts with `id:` or a comment is dropped (default false). */
  dataFirst?: boolean
}

/**
 * The JSON messages of an SSE body, in order: per event, its data lines (one optional space after
 * `data:` stripped) joined with '\n'; events without data, or with empty data (a priming event),
 * are skipped.
 */
export function sseMessages (text: string, options: SseMessagesOptions = {}): any[] {
  const prefix = options.space === 'required' ? 'data: ' : 'data:'
  const messages: any[] = []
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n')
    if (options.dataFirst === true && !lines[0].startsWith('data:')) continue
    const data = lines.filter((line) => line.startsWith(prefix)).map((line) => {
      const value = line.slice(5)
      return value.startsWith(' ') ? value.slice(1) : value
    })
    if (data.length === 0 || data.join('\n') === '') continue
    messages.push(JSON.parse(data.join('\n')))
  }
  return messages
}

/** The one message of a body that is a single `data: ` event and nothing else (throws otherwise, as JSON.parse would). */
export function sseMessage (text: string): any {
  return JSON.parse(text.replace(/^data: /, ''))
}
