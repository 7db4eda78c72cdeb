/**
 * Reads a `text/event-stream` body event by event (the WHATWG parsing rules the client needs:
 * `data` lines joined, `id`, comments skipped, CRLF, LF or CR line ends).
 */

export interface SseEvent {
  /** The `data` lines, joined with '\n'. */
  data: string
  /** The event's `id`, when it has one (2025-11-25 streams: the resumption point). */
  id: string | undefined
}

/** The events of `body` as they arrive; ends with the stream. An event without data (a priming event) is yielded with `data: ''`. */
export async function * readEvents (body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  let data: string[] = []
  let id: string | undefined
  let dispatch = false
  const reader = body.getReader()
  let finished = false
  try {
    for (;;) {
      const { value, done } = await reader.read()
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
      for (;;) {
        // a lone '\r' at the end may be the first half of '\r\n': wait for the next chunk
        let at = buffer.search(/\r\n|\r(?!$)|\n/)
        if (at === -1 && !(done && buffer.length > 0)) break
        if (at === -1) at = buffer.length
        const line = buffer.slice(0, at)
        buffer = buffer.slice(at + (buffer.startsWith('\r\n', at) ? 2 : 1))
        if (line === '') {
          if (dispatch) yield { data: data.join('\n'), id }
          data = []
          id = undefined
          dispatch = false
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon === -1 ? line : line.slice(0, colon)
        let value = colon === -1 ? '' : line.slice(colon + 1)
        if (value.startsWith(' ')) value = value.slice(1)
        if (field === 'data') data.push(value)
        else if (field === 'id') id = value
        else continue // event, retry and unknown fields change nothing here
        dispatch = true
      }
      if (done) break
    }
    finished = true
    if (dispatch) yield { data: data.join('\n'), id }
  } finally {
    // left early (the answer came, or a failure): the rest of the stream is not wanted
    if (!finished) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
