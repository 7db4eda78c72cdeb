// Streams that cannot swamp the server (issue 40, item 5), against the built package (dist/) over a
// real port: a raw HTTP client that reads one event a second from a tool sending 10,000 a second
// is cut once streams.maxBuffered bytes wait for it, the heap stays bounded while the tool keeps
// sending, and the server keeps answering others; in both eras (2026-07-28, and a resumable
// 2025-11-25 stream that the client then resumes with Last-Event-ID, to the call's answer), and
// with the event store in Redis. And a listChanged fanned out to many open listens yields to the
// event loop. The heap is measured in this process (after a full collection), which also runs the
// clients: their buffers are the sockets' (outside the heap) and a few small strings.
import t, { type Test } from 'tap'
import { connect } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import Fastify, { type FastifyInstance } from 'fastify'
import sake, { type ToolContext } from '../../dist/index.js'
import { captureLog, type CapturedLog, type LogLine } from '../helpers/logs.js'
import { getStream, open, sessionOn, streamPost, type OpenStream } from '../helpers/network.js'
import { MODERN, modernMeta } from '../helpers/requests.js'
import { parseSseBlock, type SseEvent } from '../helpers/sse.js'
import { sleep, until } from '../helpers/until.js'
import { startRedis } from '../helpers/redis.js'

setFlagsFromString('--expose-gc')
/** A full collection, so that heapUsed is what is alive. */
const gc = runInNewContext('gc') as () => void

/** The tool's pace: events a second, for how long. */
const RATE = 10_000
const FLOOD_MS = 4000
/** A progress message that makes each event about 300 bytes on the wire. */
const NOTE = 'x'.repeat(200)
const MAX_BUFFERED = 256 * 1024

interface Flood {
  sent: number
  aborted: boolean
  done: boolean
}

/** The app from dist/, listening on 127.0.0.1: a tool that floods progress (ignoring its signal), and a quick one. */
async function serve (t: Test, options: Record<string, unknown> = {}): Promise<{ app: FastifyInstance, url: string, port: number, log: CapturedLog, flood: Flood }> {
  const log = captureLog({ level: 'warn' })
  const app = Fastify({ logger: log.logger })
  await app.register(sake, { name: 'hostile', version: '1.0.0', ...options })
  const flood: Flood = { sent: 0, aborted: false, done: false }
  app.registerTool({
    name: 'flood',
    async execute (_args: unknown, ctx: ToolContext) {
      const signal = ctx.signal
      const started = performance.now()
      // RATE events a second on average, however late the timer fires; and on after the client is gone
      for (let now = started; now - started < FLOOD_MS; now = performance.now()) {
        const due = Math.floor((now - started) * RATE / 1000)
        while (flood.sent < due) ctx.progress(++flood.sent, undefined, NOTE)
        await sleep(5) // the point: the flood's pace
      }
      flood.aborted = signal.aborted
      flood.done = true
      return `sent ${flood.sent}`
    }
  })
  app.registerTool({ name: 'add', execute: () => 'answered' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(async () => {
    const closed = app.close()
    app.server.closeAllConnections()
    await closed
  })
  const port = (app.server.address() as { port: number }).port
  return { app, url: `http://127.0.0.1:${port}/mcp`, port, log, flood }
}

/**
 * A client that sends one request on a raw socket and then reads its answer one event's worth of
 * bytes a second (what is not read waits in the kernel, whose window closes, then in the server);
 * `fast()` makes it read everything at once. It takes the chunked body apart and parses the events.
 */
function slowClient (port: number, request: string): { events: SseEvent[], ended: Promise<void>, closed: () => boolean, fast: () => void } {
  const socket = connect(port, '127.0.0.1')
  socket.write(request)
  const events: SseEvent[] = []
  let raw = ''
  let body = ''
  let headersDone = false
  let ended!: () => void
  const done = new Promise<void>((resolve) => { ended = resolve })
  // the chunked transfer coding taken apart as bytes arrive (a chunk may hold many events, and arrive in pieces)
  let state: 'size' | 'data' | 'crlf' | 'end' = 'size'
  let remaining = 0
  const take = (text: string): void => {
    raw += text
    if (!headersDone) {
      const end = raw.indexOf('\r\n\r\n')
      if (end < 0) return
      raw = raw.slice(end + 4)
      headersDone = true
    }
    for (;;) {
      if (state === 'size') {
        const eol = raw.indexOf('\r\n')
        if (eol < 0) return
        remaining = parseInt(raw.slice(0, eol), 16)
        raw = raw.slice(eol + 2)
        state = remaining === 0 ? 'end' : 'data'
      } else if (state === 'data') {
        if (raw === '') return
        const part = raw.slice(0, remaining)
        raw = raw.slice(part.length)
        remaining -= part.length
        body += part
        for (let at = body.indexOf('\n\n'); at >= 0; at = body.indexOf('\n\n')) {
          events.push(parseSseBlock(body.slice(0, at)))
          body = body.slice(at + 2)
        }
        if (remaining === 0) state = 'crlf'
      } else if (state === 'crlf') {
        if (raw.length < 2) return
        raw = raw.slice(2)
        state = 'size'
      } else {
        return
      }
    }
  }
  socket.setEncoding('latin1')
  const reader = setInterval(() => {
    const text = socket.read(Math.min(socket.readableLength, 320)) as string | null
    if (text !== null) take(text)
  }, 1000)
  // 'readable' keeps the socket in paused mode: Node reads from the kernel only up to its small buffer
  socket.on('readable', () => {})
  let closed = false
  const finish = (): void => { clearInterval(reader); closed = true; ended() }
  socket.once('close', finish)
  socket.on('error', finish)
  return {
    events,
    ended: done,
    closed: () => closed,
    fast: () => {
      clearInterval(reader)
      socket.removeAllListeners('readable')
      socket.on('data', take)
    }
  }
}

/** A POST of tools/call as bytes, with `headers` beside the usual ones. */
function rawCall (port: number, body: unknown, headers: Record<string, string>): string {
  const text = JSON.stringify(body)
  return [
    'POST /mcp HTTP/1.1', `Host: 127.0.0.1:${port}`, 'Content-Type: application/json', 'Accept: application/json, text/event-stream',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Length: ${Buffer.byteLength(text)}`, '', text
  ].join('\r\n')
}

interface Measured {
  baseline: number
  peak: number
  samples: number[]
  answered: number
  failed: number
  slowest: number
}

/**
 * While `pending()`: the live heap every 500 ms (after a full collection), and another
 * client's calls (a quick tool, one at a time), which must all be answered.
 */
async function measure (url: string, pending: () => boolean, baseline: number): Promise<Measured> {
  const samples: number[] = []
  let answered = 0
  let failed = 0
  let slowest = 0
  const sampler = setInterval(() => {
    gc()
    samples.push(process.memoryUsage().heapUsed)
  }, 500)
  while (pending()) {
    const started = performance.now()
    const stream = await streamPost(url, 'tools/call', { name: 'add', arguments: {} })
    const answer = stream.status === 200 ? await stream.message(5000) : undefined
    if (answer?.result?.content?.[0]?.text === 'answered') answered++
    else failed++
    slowest = Math.max(slowest, performance.now() - started)
    await sleep(50) // the point: the other client's pace
  }
  clearInterval(sampler)
  return { baseline, peak: Math.max(...samples), samples, answered, failed, slowest }
}

const MiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(2)} MiB`

/** The live heap now, after a full collection, once the app has served a call of each kind (warm). */
async function warm (url: string): Promise<number> {
  // the other client's calls, as measure() makes them, until the code they run is compiled and its caches full
  for (let i = 0; i < 40; i++) await (await streamPost(url, 'tools/call', { name: 'add', arguments: {} })).json()
  await sleep(100) // what the last calls left (sockets, timers) settles: no single event says it has
  gc()
  return process.memoryUsage().heapUsed
}

function cutLine (log: CapturedLog): LogLine | undefined {
  return log.lines.find((line) => typeof line.msg === 'string' && line.msg.includes('an event stream\'s client reads too slowly'))
}

t.test('2026-07-28: a client reading one event a second from a tool sending 10,000 a second is cut at streams.maxBuffered; the heap stays bounded while the tool goes on, and others are answered', async (t) => {
  const { url, port, log, flood } = await serve(t)
  const baseline = await warm(url)
  const client = slowClient(port, rawCall(port, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'flood', arguments: {}, _meta: modernMeta({ progressToken: 'p' }) } }, {
    'Mcp-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'flood'
  }))
  const measured = await measure(url, () => !flood.done, baseline)
  report(t, measured)
  // the bound: what one connection holds (maxBuffered, 256 KiB, and one event), and the allocation noise
  // of a process that serves calls meanwhile (a few hundred KiB after a full collection). Without the
  // cut, the tool's 3 MB a second pile up in the socket's buffer (less the kernel's few MB): +18 MiB in 4 s, and growing
  t.ok(measured.peak - measured.baseline < 1024 * 1024, `the heap grew ${MiB(measured.peak - measured.baseline)} at most (bound: 1 MiB)`)
  t.equal(measured.failed, 0, 'every other call was answered')
  t.ok(measured.answered >= 10, `${measured.answered} other calls answered meanwhile`)
  const cut = cutLine(log)
  t.match(cut, { level: 40, stream: 'call', maxBuffered: MAX_BUFFERED, msg: /bytes unsent, over streams\.maxBuffered \(262144\); its connection is closed$/ }, 'the connection was cut, and said so at warn')
  t.equal(cut?.streamId, undefined, 'not resumable: no stream id')
  const buffered = cut?.buffered as number
  t.ok(buffered > MAX_BUFFERED && buffered < MAX_BUFFERED + 4096, `cut with ${buffered} bytes unsent: the bound and less than one more event`)
  t.equal(log.lines.filter((line) => line === cut).length, 1, 'one line for the cut')
  const read = client.events.length
  t.ok(read < 100, `the client read ${read} events at its pace`)
  // what the kernel still held for it comes, then the end: the connection is closed
  client.fast()
  await client.ended
  t.comment(`then ${client.events.length - read} more the kernel's buffers held, and the end`)
  t.ok(flood.sent >= RATE * FLOOD_MS / 1000 * 0.95, `the tool kept sending after the cut (${flood.sent} events)`)
  t.equal(flood.aborted, true, 'its ctx.signal aborted, as for any client that went away')
})

t.test('2025-11-25: the slow client of a resumable stream is cut; the events go on to the event store, bounded, and a GET with Last-Event-ID gets the rest, ending with the answer', async (t) => {
  const { url, port, log, flood } = await serve(t)
  const baseline = await warm(url)
  const session = await sessionOn(url)
  const client = slowClient(port, rawCall(port, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'flood', arguments: {}, _meta: { progressToken: 'p' } } }, {
    'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-11-25'
  }))
  const measured = await measure(url, () => !flood.done, baseline)
  report(t, measured)
  // the bound: the connection's maxBuffered (256 KiB) and one event, the event store's 1,000 events of
  // the stream (events.maxPerStream: 300 KB of JSON, up to twice that as V8 strings), and the noise above
  t.ok(measured.peak - measured.baseline < 2 * 1024 * 1024, `the heap grew ${MiB(measured.peak - measured.baseline)} at most (bound: 2 MiB)`)
  t.equal(measured.failed, 0, 'every other call was answered')
  const cut = cutLine(log)
  t.match(cut, { level: 40, stream: 'call', streamId: `${session}/`, maxBuffered: MAX_BUFFERED, msg: /; its connection is closed; its events stay in the event store for Last-Event-ID$/ }, 'cut, and said so')
  t.ok((cut?.buffered as number) < MAX_BUFFERED + 4096, `cut with ${String(cut?.buffered)} bytes unsent`)
  t.equal(flood.aborted, false, 'a resumable call outlives its connection: its signal did not abort')
  client.fast()
  await client.ended
  const ids = client.events.filter((event) => event.id !== undefined)
  t.ok(ids.length > 0, `the client had ${ids.length} events with ids, the priming one first`)
  const lastId = ids.at(-1)!.id!
  t.notOk(client.events.some((event) => event.data?.includes('"result"') === true), 'no answer on the cut connection')

  const resumed = await getStream(url, session, lastId)
  t.equal(resumed.status, 200)
  const rest = await resumed.rest(10_000)
  const numbered = rest.filter((event) => event.id !== undefined)
  const seq = (id: string): number => Number(id.slice(id.lastIndexOf(':') + 1))
  t.ok(numbered.length > 0 && numbered.length <= 1001, `replayed ${numbered.length} events: at most the store's 1,000 of the stream, and the answer`)
  t.comment(`the client's last event was ${seq(lastId)}; the store kept the stream's last 1,000 events (events.maxPerStream), from ${seq(numbered[0]!.id!)}`)
  t.ok(numbered.every((event, i) => seq(event.id!) > seq(lastId) && (i === 0 || seq(event.id!) === seq(numbered[i - 1]!.id!) + 1)), 'after the client\'s last id, in order, none twice')
  t.ok(numbered.every((event) => event.id!.startsWith(cut?.streamId as string)), 'from the stream that was cut')
  const answer = JSON.parse(numbered.at(-1)!.data!)
  t.same(answer, { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: `sent ${flood.sent}` }] } }, 'ending with the call\'s answer')
  t.equal(JSON.parse(numbered.at(-2)!.data!).params.progress, flood.sent, 'right after the last progress the tool sent')
})

t.test('2025-11-25 over Redis: a slow client, a tool sending 10,000 events a second, and an event store a round trip away: the heap stays bounded, and the client gets the answer', async (t) => {
  // Whether Redis keeps up with the tool, and so whether the client is cut, depends on the machine:
  // what waits for the store is bounded (outbox.ts), what waits for the client too (sse.ts)
  const redis = await startRedis(t)
  const { url, port, log, flood } = await serve(t, { redis: redis.url })
  const baseline = await warm(url)
  const session = await sessionOn(url)
  const client = slowClient(port, rawCall(port, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'flood', arguments: {}, _meta: { progressToken: 'p' } } }, {
    'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-11-25'
  }))
  const measured = await measure(url, () => !flood.done, baseline)
  report(t, measured)
  for (const line of log.lines) if (/event store is slower|reads too slowly/.test(String(line.msg))) t.comment(line.msg)
  // the bound: maxBuffered waiting for the store and maxBuffered for the client (with what the queue
  // and Node keep beside the text), the Redis connection's buffers, and the noise of the other calls.
  // Measured: 2.2 to 2.9 MiB on Node 20 and 22, 3.6 to 4.6 MiB on Node 24 (flat from the flood's first
  // sample; the same on the main before issue 42's changes), where keeping what the tool sends would
  // grow it by the flood's 12 MB (40,000 events of 300 bytes), twice the bound
  t.ok(measured.peak - measured.baseline < 6 * 1024 * 1024, `the heap grew ${MiB(measured.peak - measured.baseline)} at most (bound: 6 MiB)`)
  t.equal(measured.failed, 0, 'every other call was answered')
  client.fast()
  const answer = (events: SseEvent[]): any => events.map((event) => event.data === undefined || event.data === '' ? undefined : JSON.parse(event.data)).find((m) => m?.id === 8)
  const done = { jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: `sent ${flood.sent}` }] } }
  // the answer on the stream, or the end of a cut connection (after what the kernel still held)
  await until(() => answer(client.events) !== undefined || client.closed(), { what: 'the answer or the end of the connection', timeout: 20_000 })
  const direct = answer(client.events)
  if (direct !== undefined) {
    t.same(direct, done, 'not cut: the answer came on the stream')
    return
  }
  t.ok(cutLine(log), 'cut: said so')
  const lastId = client.events.filter((event) => event.id !== undefined).at(-1)!.id!
  const resumed = await getStream(url, session, lastId)
  t.same(answer(await resumed.rest(10_000)), done, 'cut: the answer came on the resumption')
})

t.test('listChanged to 2,000 open listens: every listen gets it, and the fan-out yields to the event loop instead of holding it', async (t) => {
  // 10,000 real streams are too many for a test file beside others on 2 cores: bench/fanout.mjs measures those
  const { app, url } = await serve(t, { streams: { maxStreams: 5000, maxPerCaller: 5000 } })
  const listens: OpenStream[] = []
  t.teardown(() => { for (const stream of listens) stream.close() })
  for (let at = 0; at < 2000; at += 100) {
    listens.push(...await Promise.all(Array.from({ length: 100 }, async (_, i) => await open(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: at + i, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: modernMeta() } })
    }))))
  }
  const acknowledged = await Promise.all(listens.map(async (stream) => (await stream.message(10_000)).method))
  t.ok(acknowledged.every((method) => method === 'notifications/subscriptions/acknowledged'), '2,000 listens open')
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  await sleep(50) // the monitor's first sample only starts its clock
  let turns = 0
  let ticking = true
  const tick = (): void => { turns++; if (ticking) setImmediate(tick) }
  setImmediate(tick)
  const started = performance.now()
  await app.mcp.listChanged('tools')
  ticking = false
  const took = performance.now() - started
  await sleep(20) // the point: the monitor samples on its own timer; one more sample after the fan-out
  delay.disable()
  t.comment(`2,000 listens: the fan-out took ${took.toFixed(1)} ms over ${turns} turns of the event loop; worst event-loop delay ${(delay.max / 1e6).toFixed(1)} ms (this process also runs the 2,000 clients)`)
  // slices of at most 64 listeners (lib/state/memory-bus.ts): 2,000 listens and the server's own few
  // listeners are 32 slices, the first within publish, each of the others after a turn
  t.ok(turns >= 31, 'the event loop turned between its slices')
  const notified = await Promise.all(listens.map(async (stream) => (await stream.message(10_000)).method))
  t.ok(notified.every((method) => method === 'notifications/tools/list_changed'), 'every listen got the notification, once')
})

function report (t: Test, m: Measured): void {
  t.comment(`heap: ${MiB(m.baseline)} before; during the flood ${m.samples.map(MiB).join(', ')}; growth at most ${MiB(m.peak - m.baseline)}`)
  t.comment(`other calls: ${m.answered} answered, ${m.failed} failed, slowest ${m.slowest.toFixed(0)} ms`)
}
