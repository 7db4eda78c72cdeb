// SseConnection on its own, over a stand-in reply: the edges a real socket rarely shows.
import t from 'tap'
import { EventEmitter } from 'node:events'
import { SseConnection, acceptsEventStream } from '../../lib/http/sse.js'

function fakeReply (): { reply: any, raw: any, written: string[] } {
  const written: string[] = []
  const raw: any = Object.assign(new EventEmitter(), {
    destroyed: false,
    writable: true,
    ended: false,
    writeHead () {},
    corked: 0,
    flushed: false,
    cork () { raw.corked++ },
    uncork () { raw.corked-- },
    flushHeaders () { raw.flushed = true },
    write (chunk: string) { written.push(chunk); return true },
    end () { raw.ended = true }
  })
  const reply = { raw, getHeaders: () => ({ 'content-length': '3', 'x-host': 'kept' }), hijack () {} }
  return { reply, raw, written }
}

t.test('after the end: listeners run at once, writes are refused, a destroyed socket is not ended', async (t) => {
  const { reply, raw, written } = fakeReply()
  const conn = new SseConnection(reply, { keepAlive: 0 })
  let closed = 0
  conn.onClose(() => closed++)
  raw.destroyed = true
  raw.emit('close')
  t.equal(closed, 1)
  t.equal(conn.open, false)
  t.equal(conn.send('{}'), false)
  t.equal(conn.prime('x'), false)
  t.equal(conn.retry(10), false)
  t.same(written, [])
  conn.onClose(() => closed++)
  t.equal(closed, 2, 'a listener added after the close runs at once')
  conn.end()
  t.equal(raw.ended, false, 'a destroyed socket is not ended again')
})

t.test('end writes nothing more and is idempotent', async (t) => {
  const { reply, raw, written } = fakeReply()
  const conn = new SseConnection(reply, { keepAlive: 0 })
  t.equal(conn.send('{"a":1}', 'id-1'), true)
  conn.end()
  conn.end()
  t.equal(raw.ended, true)
  t.same(written, ['id: id-1\ndata: {"a":1}\n\n'])
})

t.test('acceptsEventStream', async (t) => {
  t.equal(acceptsEventStream(undefined), true)
  t.equal(acceptsEventStream('*/*'), true)
  t.equal(acceptsEventStream('text/event-stream'), true)
  t.equal(acceptsEventStream('application/json'), false)
})

t.test('headers and the first turn\'s events go out as one write; a silent stream still gets its headers', async (t) => {
  const quiet = fakeReply()
  const silent = new SseConnection(quiet.reply, { keepAlive: 0 })
  t.equal(quiet.raw.corked, 1, 'corked while the call runs its first turn')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(quiet.raw.corked, 0)
  t.equal(quiet.raw.flushed, true, 'nothing was written: the headers are flushed on their own')
  silent.end()

  const busy = fakeReply()
  const conn = new SseConnection(busy.reply, { keepAlive: 0 })
  conn.send('{}')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(busy.raw.flushed, false, 'an event carried the headers')
  t.same(busy.written, ['data: {}\n\n'])

  const gone = fakeReply()
  const lost = new SseConnection(gone.reply, { keepAlive: 0 })
  gone.raw.destroyed = true
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(gone.raw.flushed, false, 'a socket already gone is not written to')
  lost.end()
})
