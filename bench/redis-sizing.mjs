#!/usr/bin/env node
// What one 2025 session, one task and one stream event cost in Redis (docs/production.md, "Sizing
// Redis"): `npm run build && node bench/redis-sizing.mjs [count]` (default 1000 of each). It starts
// its own redis-server on a free port (nothing persisted), drives the built plugin with the `redis`
// option through app.inject, and reports per item both `MEMORY USAGE` of the item's keys (the
// value, its key and Redis's object overhead) and the growth of `used_memory` (INFO memory), which
// adds what MEMORY USAGE leaves out: the keyspace and expiry dictionaries' entries.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import Fastify from 'fastify'
import { Redis } from 'ioredis'
import sake from '../dist/index.js'

const COUNT = Number(process.argv[2] ?? 1000)

async function freePort () {
  const probe = createServer()
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address()
  await new Promise((resolve) => probe.close(resolve))
  return port
}

const port = await freePort()
const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] })
await new Promise((resolve, reject) => {
  let out = ''
  server.stdout.on('data', (chunk) => { out += chunk; if (out.includes('Ready to accept connections')) resolve() })
  server.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)))
})
server.stdout.resume()
const redis = new Redis({ port, host: '127.0.0.1' })
const url = `redis://127.0.0.1:${port}`

async function usedMemory () {
  const info = await redis.info('memory')
  return Number(/used_memory:(\d+)/.exec(info)[1])
}

/** MEMORY USAGE (all samples) of every key matching `pattern`, summed. */
async function usage (pattern) {
  let total = 0
  let keys = 0
  for (const key of await redis.keys(pattern)) {
    total += Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'))
    keys++
  }
  return { total, keys }
}

const LEGACY = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'sizing', version: '1' } }

const app = Fastify({ logger: false })
await app.register(sake, { name: 'sizing', version: '1.0.0', redis: url, sessions: { maxSessions: COUNT * 2 }, tasks: { maxTasks: COUNT * 2, maxPerCaller: COUNT * 2 }, events: { maxPerStream: COUNT * 2 } })
app.registerTool({ name: 'work', task: 'optional', execute: () => 'done' })
app.registerTool({
  name: 'tick',
  execute: async (_args, ctx) => {
    for (let i = 0; i < COUNT; i++) await ctx.progress(i, COUNT, 'tick')
    return 'ticked'
  }
})
await app.ready()

const report = []

// sessions: initialize + notifications/initialized, as a client does; nothing else
let before = await usedMemory()
let sessionId
for (let i = 0; i < COUNT; i++) {
  const init = await app.inject({ method: 'POST', url: '/mcp', headers: LEGACY, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sizing-client', version: '1.0.0' } } } })
  sessionId = init.headers['mcp-session-id']
  await app.inject({ method: 'POST', url: '/mcp', headers: { ...LEGACY, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }, payload: { jsonrpc: '2.0', method: 'notifications/initialized' } })
}
let after = await usedMemory()
let measured = await usage('sake:session:*')
report.push({ item: '2025 session', keys: measured.keys, memoryUsage: measured.total / COUNT, usedMemory: (after - before) / COUNT })

// tasks: a 2026-07-28 call run as a task, finished, its result kept for its ttl
before = await usedMemory()
for (let i = 0; i < COUNT; i++) {
  await app.inject({ method: 'POST', url: '/mcp', headers: { ...LEGACY, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'work' }, payload: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'work', arguments: {}, _meta: MODERN_META } } })
}
// every task finished (its result stored) before measuring
for (let done = 0; done < COUNT;) {
  done = 0
  for (const key of await redis.keys('sake:task:*')) if ((await redis.hget(key, 'status')) === '"completed"') done++
  if (done < COUNT) await new Promise((resolve) => setTimeout(resolve, 50))
}
after = await usedMemory()
measured = await usage('sake:task:*')
const owners = await usage('sake:owner:*')
report.push({ item: 'task (finished, result kept)', keys: measured.keys, memoryUsage: measured.total / COUNT, usedMemory: (after - before) / COUNT, note: `+ ${owners.total} B for ${owners.keys} owner index(es)` })

// stream events: one 2025-11-25 call that sends COUNT progress notifications on its resumable stream
before = await usedMemory()
await app.inject({ method: 'POST', url: '/mcp', headers: { ...LEGACY, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tick', arguments: {}, _meta: { progressToken: 'p' } } } })
after = await usedMemory()
measured = await usage('sake:events:*')
report.push({ item: 'stream event (a progress notification)', keys: measured.keys, memoryUsage: measured.total / COUNT, usedMemory: (after - before) / COUNT })

console.log(`${COUNT} of each, redis-server ${(await redis.info('server')).match(/redis_version:(\S+)/)[1]}; bytes per item:`)
console.table(report.map((row) => ({ ...row, memoryUsage: Math.round(row.memoryUsage), usedMemory: Math.round(row.usedMemory) })))

await app.close()
redis.disconnect()
server.kill()
