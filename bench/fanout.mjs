#!/usr/bin/env node
// How long a listChanged holds the server's event loop with many streams open (issue 40, item 5):
// `npm run build`, then `node bench/fanout.mjs [--streams N] [--kind listen|get] [--bus sliced|sync]`.
//
// The server (this file with --serve, the package as built in dist/) runs in a process of its own
// and measures itself from app.mcp.listChanged('tools') until every stream had the event:
// monitorEventLoopDelay at 1 ms resolution (and the same over an idle moment just before: the
// machine's noise), the CPU time of each turn of its event loop (which a busy machine does not
// stretch, as it does wall time), and each slice of the fan-out (the time from the first listener
// called in a turn to the end of the last one). This process opens the
// streams (2026-07-28 subscriptions/listen, or 2025-11-25 sessions' GET streams) on raw sockets
// and checks that each receives the notification. `--bus sync` serves with a bus that calls every
// listener at once (the memory bus before issue 40), for comparison.
import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values: options } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    streams: { type: 'string', default: '10000' },
    kind: { type: 'string', default: 'listen' },
    bus: { type: 'string', default: 'sliced' }
  }
})

if (options.serve) await serve()
else await drive()

/** The server: prints its port, then answers POST /fanout with what the fan-out cost its event loop. */
async function serve () {
  const { default: Fastify } = await import('fastify')
  const { default: sake, MemoryBus } = await import('../dist/index.js')
  const { monitorEventLoopDelay } = await import('node:perf_hooks')
  const app = Fastify()
  const many = 100_000
  await app.register(sake, {
    name: 'fanout',
    version: '1.0.0',
    bus: timed(options.bus === 'sync' ? syncBus() : new MemoryBus()),
    streams: { maxStreams: many, maxPerCaller: many },
    sessions: { maxSessions: many, maxPerCaller: many }
  })
  app.post('/fanout', async () => {
    // the same measure over an idle moment first: the machine's own noise
    const idle = await measured(async () => { await new Promise((resolve) => setTimeout(resolve, 300)) })
    let delivered = 0
    const fanout = await measured(async () => {
      const started = performance.now()
      await app.mcp.listChanged('tools')
      delivered = performance.now() - started
    })
    const slices = new Map()
    for (const [turn, start, end] of calls.splice(0)) {
      const slice = slices.get(turn) ?? { start, listeners: 0 }
      slice.end = end
      slice.listeners++
      slices.set(turn, slice)
    }
    return { delivered, idle, fanout, slices: [...slices.values()].map(({ start, end, listeners }) => ({ listeners, ms: end - start })) }
  })
  /** What `work` costs the event loop: its delay (1 ms resolution), and the turns it took. */
  const measured = async (work) => {
    const delay = monitorEventLoopDelay({ resolution: 1 })
    delay.enable()
    // the monitor's first sample only starts its clock: a block right after enable() would go unseen
    await new Promise((resolve) => setTimeout(resolve, 50))
    let turns = 0
    let ticking = true
    // the CPU time of each turn of the event loop (the process's: a busy machine stretches wall time, not this)
    const cpu = []
    let before
    const tick = () => {
      turns++
      turn++
      const now = process.cpuUsage()
      cpu.push((now.user + now.system - before.user - before.system) / 1000)
      before = now
      if (ticking) setImmediate(tick)
    }
    before = process.cpuUsage()
    setImmediate(tick)
    await work()
    const during = turns
    // the sockets' writes and whatever waited behind the work, before the measure ends
    await new Promise((resolve) => setTimeout(resolve, 20))
    ticking = false
    delay.disable()
    cpu.sort((a, b) => a - b)
    return { turns: during, maxDelay: delay.max / 1e6, p99: delay.percentile(99) / 1e6, maxCpu: cpu.at(-1), p99Cpu: cpu[Math.floor(cpu.length * 0.99)] }
  }
  await app.listen({ host: '127.0.0.1', port: 0 })
  process.stdout.write(`${app.server.address().port}\n`)
}

/** The turn of the event loop, counted while a measure runs, and each listener call's turn, start and end. */
let turn = 0
const calls = []

/** `bus`, with each listener's call timed. */
function timed (bus) {
  const subscribe = bus.subscribe.bind(bus)
  bus.subscribe = (listener) => subscribe((event) => {
    const start = performance.now()
    listener(event)
    calls.push([turn, start, performance.now()])
  })
  return bus
}

/** Every listener called at once, in publish: the memory bus as it was before issue 40. */
function syncBus () {
  const listeners = new Set()
  return {
    publish (event) { for (const listener of [...listeners]) listener(event) },
    subscribe (listener) {
      const entry = (event) => listener(event)
      listeners.add(entry)
      return () => { listeners.delete(entry) }
    }
  }
}

async function drive () {
  const count = Number(options.streams)
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', '--bus', options.bus], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise((resolve) => child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))))
  try {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
    let received = 0
    const opened = performance.now()
    for (let at = 0; at < count; at += 200) {
      await Promise.all(Array.from({ length: Math.min(200, count - at) }, async (_, i) => {
        const stream = options.kind === 'get'
          ? await getStream(port)
          : raw(port, 'POST', { 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'subscriptions/listen' },
            { jsonrpc: '2.0', id: at + i, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } })
        await stream.seen(options.kind === 'get' ? 'HTTP/1.1 200' : 'acknowledged')
        void stream.seen('list_changed').then(() => { received++ })
      }))
    }
    console.log(`${count} ${options.kind === 'get' ? '2025-11-25 GET streams' : 'listens'} open (${((performance.now() - opened) / 1000).toFixed(1)} s); bus: ${options.bus}`)
    const result = await (await fetch(`http://127.0.0.1:${port}/fanout`, { method: 'POST' })).json()
    const waited = performance.now()
    // eslint-disable-next-line no-unmodified-loop-condition -- the sockets' listeners count `received` while we wait
    while (received < count && performance.now() - waited < 60_000) await new Promise((resolve) => setTimeout(resolve, 50))
    const { delivered, idle, fanout, slices } = result
    const longest = Math.max(...slices.map((slice) => slice.ms))
    const most = Math.max(...slices.map((slice) => slice.listeners))
    console.log(`the bus called the listeners in ${slices.length} slices: the longest held the event loop ${longest.toFixed(1)} ms, the largest called ${most}`)
    console.log(`listChanged delivered to every listener in ${delivered.toFixed(1)} ms, over ${fanout.turns} turns of the server's event loop`)
    console.log(`server event-loop delay during the fan-out: max ${fanout.maxDelay.toFixed(1)} ms, p99 ${fanout.p99.toFixed(1)} ms`)
    console.log(`(the same server idle for 300 ms just before: max ${idle.maxDelay.toFixed(1)} ms, p99 ${idle.p99.toFixed(1)} ms: the machine's noise)`)
    console.log(`CPU time of one turn of the server's event loop: at most ${fanout.maxCpu.toFixed(1)} ms, p99 ${fanout.p99Cpu.toFixed(1)} ms (idle: at most ${idle.maxCpu.toFixed(1)} ms)`)
    console.log(`streams that received notifications/tools/list_changed: ${received} of ${count}`)
  } finally {
    child.kill()
  }
  process.exit(0)
}

/** A 2025-11-25 session (initialize, initialized) and its GET stream. */
async function getStream (port) {
  const init = raw(port, 'POST', {}, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fanout', version: '1' } } })
  const head = await init.seen('\r\n\r\n')
  init.close()
  const session = /mcp-session-id: ([^\r\n]+)/i.exec(head)[1]
  const headers = { 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-11-25' }
  const initialized = raw(port, 'POST', headers, { jsonrpc: '2.0', method: 'notifications/initialized' })
  await initialized.seen('HTTP/1.1 202')
  initialized.close()
  return raw(port, 'GET', { ...headers, Accept: 'text/event-stream' })
}

/** One request on a socket of its own; `seen(text)` resolves with what arrived once it holds `text`. */
function raw (port, method, headers, body) {
  const socket = connect(port, '127.0.0.1')
  const text = body === undefined ? '' : JSON.stringify(body)
  const lines = [`${method} /mcp HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Content-Type: application/json', 'Accept: application/json, text/event-stream']
  for (const [name, value] of Object.entries(headers)) if (name !== 'Accept') lines.push(`${name}: ${value}`)
  if (headers.Accept !== undefined) lines[3] = `Accept: ${headers.Accept}`
  socket.write([...lines, `Content-Length: ${Buffer.byteLength(text)}`, '', text].join('\r\n'))
  socket.setEncoding('utf8')
  let seen = ''
  const waiting = []
  socket.on('data', (chunk) => {
    seen += chunk
    for (const wait of waiting.splice(0)) if (!wait()) waiting.push(wait)
  })
  socket.on('error', () => {})
  return {
    close: () => socket.destroy(),
    seen: (needle) => new Promise((resolve) => {
      const check = () => {
        if (!seen.includes(needle)) return false
        resolve(seen)
        seen = ''
        return true
      }
      if (!check()) waiting.push(check)
    })
  }
}
