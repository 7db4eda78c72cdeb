import t from 'tap'
import { readEvents } from '../../lib/client/sse.js'

function body (...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({ start (controller) { for (const chunk of chunks) controller.enqueue(encoder.encode(chunk)); controller.close() } })
}

async function all (stream: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const events: unknown[] = []
  for await (const event of readEvents(stream)) events.push(event)
  return events
}

t.test('events: data lines joined, ids, comments and other fields skipped, any line end', async (t) => {
  t.same(await all(body('data: a\ndata: b\n\n: keep-alive\n\nid: 7\nevent: message\nretry: 10\ndata:c\n\n')), [
    { data: 'a\nb', id: undefined },
    { data: 'c', id: '7' }
  ])
  t.same(await all(body('data: x\r\n\r\ndata: y\r', '\r', 'data: z\r\rid\n\n')), [
    { data: 'x', id: undefined }, { data: 'y', id: undefined }, { data: 'z', id: undefined }, { data: '', id: '' }
  ], 'CRLF, a CR split across chunks, lone CRs, a field without a colon')
  t.same(await all(body('id: 1\ndata:\n\n')), [{ data: '', id: '1' }], 'a priming event')
  t.same(await all(body('data: last')), [{ data: 'last', id: undefined }], 'an event the stream ends without a blank line after')
  t.same(await all(body('unknown: x\n\n')), [], 'only unknown fields: nothing to dispatch')
  t.same(await all(body('é'.slice(0, 1), '\n')), [], 'multi-byte text decoded across chunks')
})

t.test('leaving early cancels the rest of the stream', async (t) => {
  let cancelled = false
  const stream = new ReadableStream<Uint8Array>({
    pull (controller) { controller.enqueue(new TextEncoder().encode('data: 1\n\n')) },
    cancel () { cancelled = true }
  })
  const events = readEvents(stream)
  t.equal((await events.next()).value?.data, '1')
  await events.return(undefined)
  t.ok(cancelled)
})
