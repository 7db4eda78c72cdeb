// SseConnection on its own, over a stand-in reply (the edges a real socket rarely shows), and the framing of its writes on a real socket.
import t from 'tap'
import { EventEmitter } from 'node:events'
import { connect } from 'node:net'
import { SseConnection } from '../../../lib/http/streams/sse.js'
import { build, listen } from '../../helpers/app.js'
import { MODERN, modernMeta } from '../../helpers/requests.js'
import { sseMessages } from '../../helpers/sse.js'

const CALL = { stream: 'call' } as const

function fakeReply (): { reply: any, raw: any, written: string[], warnings: Array<{ obj: any, msg: string }> } {
  const written: string[] = []
  const warnings: Array<{ obj: any, msg: string }> = []
  const raw: any = Object.assign(new EventEmitter(), {
    destroyed: false,
    writable: true,
    ended: false,
    writableLength: 0,
    destroy () { raw.destroyed = true; setImmediate(() => raw.emit('close')) },
    writeHead () {},
    corked: 0,
    flushed: false,
    cork () { raw.corked++ },
    uncork () { raw.corked-- },
    flushHeaders () { raw.flushed = true },
    write (chunk: string) { written.push(chunk); return true },
    end (chunk?: string) {
      if (chunk !== undefined) written.push(chunk)
      raw.ended = true
    }
  })
  const log = { warn: (obj: any, msg: string) => { warnings.push({ obj, msg }) } }
  const reply = { raw, log, getHeaders: () => ({ 'content-length': '3', 'x-host': 'kept' }), hijack () {} }
  return { reply, raw, written, warnings }
}

t.test('after the end: listeners run at once, writes are refused, a destroyed socket is not ended', async (t) => {
  const { reply, raw, written } = fakeReply()
  const conn = new SseConnection(reply, { keepAlive: 0, maxBuffered: 1 << 20 }, CALL)
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
  const conn = new SseConnection(reply, { keepAlive: 0, maxBuffered: 1 << 20 }, CALL)
  t.equal(conn.send('{"a":1}', 'id-1'), true)
  conn.end()
  conn.end()
  t.equal(raw.ended, true)
  t.same(written, ['id: id-1\ndata: {"a":1}\n\n'], 'the first turn\'s event, with the end')
  t.equal(conn.send('{}'), false)
})

t.test('keep-alives start only for a stream that outlives its first turn', async (t) => {
  const realSetInterval = globalThis.setInterval
  const started: number[] = []
  t.capture(globalThis, 'setInterval', ((fn: () => void, ms: number, ...args: unknown[]) => {
    if (ms !== 25) return Reflect.apply(realSetInterval, globalThis, [fn, ms, ...args])
    started.push(ms)
    return realSetInterval(fn, 60_000).unref()
  }) as typeof setInterval)
  const quick = fakeReply()
  const answered = new SseConnection(quick.reply, { keepAlive: 25, maxBuffered: 1 << 20 }, CALL)
  answered.send('{}')
  answered.end()
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, [], 'a stream ended in its first turn never had a timer')
  t.same(quick.written, ['data: {}\n\n'], 'and wrote its event once, with its end')
  const slow = fakeReply()
  const waiting = new SseConnection(slow.reply, { keepAlive: 25, maxBuffered: 1 << 20 }, CALL)
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, [25], 'a stream still open after its first turn has one')
  t.equal(slow.raw.flushed, true, 'and its headers were flushed, nothing having been written')
  waiting.end()
  t.equal(slow.raw.ended, true)
})

t.test('backpressure: a write that finds more than maxBuffered unsent cuts the connection, logged once; later writes are dropped', async (t) => {
  const { reply, raw, written, warnings } = fakeReply()
  const conn = new SseConnection(reply, { keepAlive: 0, maxBuffered: 100 }, CALL)
  let closed = 0
  conn.onClose(() => closed++)
  await new Promise((resolve) => setImmediate(resolve))
  raw.writableLength = 100
  t.equal(conn.send('"at the bound"'), true, 'exactly maxBuffered unsent: still written')
  raw.writableLength = 40
  const big = JSON.stringify('x'.repeat(500))
  t.equal(conn.send(big), true, 'one message larger than the bound, onto a buffer under it: written')
  raw.writableLength = 101
  t.equal(conn.send('"one too many"'), false, 'over the bound: cut')
  t.equal(raw.destroyed, true, 'the connection is destroyed, not ended')
  t.equal(raw.ended, false)
  t.equal(closed, 1, 'its close listeners ran at once')
  t.equal(conn.open, false)
  t.same(written, ['data: "at the bound"\n\n', `data: ${big}\n\n`], 'the event that found the buffer full was not written')
  t.equal(conn.send('"later"'), false, 'a later write is dropped')
  t.equal(conn.retry(1), false)
  t.equal(written.length, 2)
  t.equal(warnings.length, 1, 'one line per cut')
  t.same(warnings[0]!.obj, { stream: 'call', streamId: undefined, buffered: 101, maxBuffered: 100, replayed: 0 })
  t.equal(warnings[0]!.msg, 'fastify-sake: an event stream\'s client reads too slowly: 101 bytes unsent, over streams.maxBuffered (100); its connection is closed')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(closed, 1, 'the socket\'s own close changes nothing more')
  conn.end()
  t.equal(raw.ended, false, 'ending a cut connection writes nothing')
})

t.test('backpressure: what the first turn holds counts too; a cut in the first turn sends nothing, and a resumable stream says its events are kept', async (t) => {
  const { reply, raw, written, warnings } = fakeReply()
  const conn = new SseConnection(reply, { keepAlive: 10, maxBuffered: 1024 }, { stream: 'get', streamId: 's/get' })
  let sent = 0
  while (conn.send(`{"n":${sent}}`, `s/get:${sent}`)) sent++
  t.ok(sent > 30 && sent < 60, `a tool looping within one turn is cut at the bound (${sent} events held)`)
  t.equal(raw.destroyed, true)
  await new Promise((resolve) => setImmediate(resolve))
  t.same(written, [], 'the held events are dropped, never flushed')
  t.equal(raw.flushed, false)
  t.match(warnings[0]!.obj, { stream: 'get', streamId: 's/get', maxBuffered: 1024 })
  t.ok(warnings[0]!.obj.buffered > 1024)
  t.match(warnings[0]!.msg, /; its connection is closed; its events stay in the event store for Last-Event-ID$/)
})

t.test('backpressure: a replay raises the bound by its size (the store holds it already): the live events after it go out, and a client that reads none of it is cut at the sum', async (t) => {
  const { reply, raw, written, warnings } = fakeReply()
  const conn = new SseConnection(reply, { keepAlive: 0, maxBuffered: 1024 }, { stream: 'get', streamId: 's/1' })
  for (let i = 0; i < 100; i++) t.equal(conn.replay(`{"n":${i}}`, `s/1:${i}`), true)
  const replayed = 100 * 'id: s/1:00\ndata: {"n":00}\n\n'.length - 10 * 2 // ids and numbers under 10 are a digit shorter
  t.equal(conn.send('{"live":1}', 's/1:100'), true, 'a live event right after a replay larger than the bound: written')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(written.length, 1, 'the whole replay went out, with the live event, as one chunk')
  t.equal(written[0]!.split('\n\n').length - 1, 101)
  raw.writableLength = 1024 + replayed
  t.equal(conn.send('{"live":2}', 's/1:101'), true, 'unsent: the bound and the replay, not more')
  raw.writableLength = 1024 + replayed + 1
  t.equal(conn.send('{"live":3}', 's/1:102'), false, 'the client does not read: cut at that sum')
  t.equal(warnings.length, 1)
  t.same(warnings[0]!.obj, { stream: 'get', streamId: 's/1', buffered: 1024 + replayed + 1, maxBuffered: 1024, replayed })
  t.match(warnings[0]!.msg, new RegExp(`bytes unsent, over streams\\.maxBuffered \\(1024\\) and the ${replayed} replayed; its connection is closed; its events stay`))
  t.equal(conn.replay('{}', 's/1:0'), false, 'and a cut connection takes no replay either')
})

t.test('headers and the first turn\'s events go out as one write; a silent stream still gets its headers', async (t) => {
  const quiet = fakeReply()
  const silent = new SseConnection(quiet.reply, { keepAlive: 0, maxBuffered: 1 << 20 }, CALL)
  t.same(quiet.written, [], 'nothing written while the call runs its first turn')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(quiet.raw.flushed, true, 'nothing was written: the headers are flushed on their own')
  silent.end()
  t.same(quiet.written, [])

  const busy = fakeReply()
  const conn = new SseConnection(busy.reply, { keepAlive: 0, maxBuffered: 1 << 20 }, CALL)
  conn.send('{}')
  conn.prime('p-1')
  t.same(busy.written, [], 'held for the end of the turn')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(busy.raw.flushed, false, 'an event carried the headers')
  t.same(busy.written, ['data: {}\n\nid: p-1\ndata:\n\n'], 'the turn\'s events as one write')
  conn.retry(5)
  t.same(busy.written.at(-1), 'retry: 5\n\n', 'after the first turn, straight through')
  conn.end()

  const gone = fakeReply()
  const lost = new SseConnection(gone.reply, { keepAlive: 0, maxBuffered: 1 << 20 }, CALL)
  gone.raw.destroyed = true
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(gone.raw.flushed, false, 'a socket already gone is not written to')
  lost.end()
})

t.test('a stream ended in its first turn ends with its events in the same call: one write, never a cork', async (t) => {
  const { reply, raw, written } = fakeReply()
  const calls: string[] = []
  raw.cork = () => { calls.push('cork') }
  raw.write = (chunk: string) => { calls.push(`write ${chunk}`); return true }
  raw.end = (chunk?: string) => { calls.push(`end ${chunk ?? ''}`); raw.ended = true }
  const conn = new SseConnection(reply, { keepAlive: 0, maxBuffered: 1 << 20 }, CALL)
  conn.send('{}')
  conn.send('{"b":2}', 'e-2')
  conn.end()
  t.same(calls, ['end data: {}\n\nid: e-2\ndata: {"b":2}\n\n'], 'no cork, no write of its own: the end carries the events')
  await new Promise((resolve) => setImmediate(resolve))
  t.same(calls.length, 1, 'the first turn\'s flush does not run after the end')
  t.same(written, [])
})

/** Splits a chunked HTTP/1.1 body into its chunks; throws on bad framing, and on bytes after the last chunk. */
function dechunk (body: string): string[] {
  const chunks: string[] = []
  for (let at = 0; ;) {
    const eol = body.indexOf('\r\n', at)
    if (eol < 0) throw new Error(`no chunk size at ${at}`)
    const size = parseInt(body.slice(at, eol), 16)
    if (size === 0) {
      if (body.slice(eol) !== '\r\n\r\n') throw new Error(`bytes after the last chunk: ${JSON.stringify(body.slice(eol + 4))}`)
      return chunks
    }
    chunks.push(body.slice(eol + 2, eol + 2 + size))
    at = eol + 2 + size
    if (body.slice(at, at + 2) !== '\r\n') throw new Error(`no CRLF after the chunk at ${at}`)
    at += 2
  }
}

t.test('over a real socket, a call answered within its first turn arrives whole: every event before the last chunk', async (t) => {
  // Node >= 21 (nodejs/node#50167) wrote the last chunk of a response ended while corked before the
  // chunks it was holding: the client saw the first event, the end of the body, then stray bytes
  const app = await build({ keepAlive: 0 })
  app.registerTool({
    name: 'quick',
    execute (_args, ctx) {
      ctx.notify('info', 'started')
      ctx.progress(1, 2)
      ctx.progress(2, 2)
      return 'done'
    }
  })
  const url = new URL(await listen(t, app))
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quick', arguments: {}, _meta: modernMeta({ 'io.modelcontextprotocol/logLevel': 'info', progressToken: 't' }) } })
  const response = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.end([
        'POST /mcp HTTP/1.1', `Host: ${url.host}`, 'Connection: close', 'Content-Type: application/json',
        'Accept: application/json, text/event-stream', `Mcp-Protocol-Version: ${MODERN}`, 'Mcp-Method: tools/call', 'Mcp-Name: quick',
        `Content-Length: ${Buffer.byteLength(body)}`, '', body
      ].join('\r\n'))
    })
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => { text += chunk })
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
  const [head, ...rest] = response.split('\r\n\r\n')
  t.match(head, /\r\ntransfer-encoding: chunked/i)
  const events = sseMessages(dechunk(rest.join('\r\n\r\n')).join(''))
  t.same(events.map((m: any) => m.method ?? 'answer'), ['notifications/message', 'notifications/progress', 'notifications/progress', 'answer'])
  t.same(events[3].result.content, [{ type: 'text', text: 'done' }])
})
