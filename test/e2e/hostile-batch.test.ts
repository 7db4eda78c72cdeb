// Issue 40, as a hostile client found it: with the per-tool limit recipe of docs/fastify.md (the real
// @fastify/rate-limit at preHandler, 2 calls a minute for `report`), single calls got 200, 200, 429,
// and then one 2025-03-26 batch of 9,000 `tools/call` items ran all 9,000. Against the built
// package over a real port, raw HTTP as such a client sends it: a batch counts as the calls it
// holds (at most the limit's calls run, the rest answer the limit's error), and a batch has a cap.
import t, { type Test } from 'tap'
import Fastify, { type FastifyRequest } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import sake from '../../dist/index.js'

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

async function serve (t: Test): Promise<{ url: string, runs: () => number }> {
  const app = Fastify({ logger: false })
  // the recipe of docs/fastify.md, "Per-tool rate limits", as written there
  await app.register(rateLimit, {
    hook: 'preHandler',
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => `${request.ip}|${request.mcp?.method === 'tools/call' ? request.mcp.name : '-'}`,
    max: (request: FastifyRequest) => (request.mcp?.config?.callsPerMinute as number | undefined) ?? 1000
  })
  await app.register(sake, { name: 'limited', version: '1.0.0' })
  let runs = 0
  app.registerTool({ name: 'report', config: { callsPerMinute: 2 }, execute: () => { runs++; return 'an expensive report' } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/mcp`, runs: () => runs }
}

async function openSession (url: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } } })
  })
  const session = res.headers.get('mcp-session-id')
  if (session === null) throw new Error(`no session: ${res.status} ${await res.text()}`)
  await fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  return session
}

const report = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'report', arguments: {} } })

async function post (url: string, session: string, body: unknown): Promise<{ status: number, body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, 'mcp-session-id': session }, body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() }
}

t.test('single calls: 200, 200, 429; then a batch of report calls runs none of them', async (t) => {
  const { url, runs } = await serve(t)
  const session = await openSession(url)
  t.equal((await post(url, session, report(1))).status, 200)
  t.equal((await post(url, session, report(2))).status, 200)
  const third = await post(url, session, report(3))
  t.equal(third.status, 429)
  t.equal(runs(), 2)

  const batch = await post(url, session, Array.from({ length: 10 }, (_, i) => report(100 + i)))
  t.equal(batch.status, 200)
  t.equal(batch.body.length, 10, 'every item answered')
  for (const item of batch.body) {
    t.equal(item.error?.code, -32600, `item ${String(item.id)}: the limit's error`)
    t.match(item.error?.message, /^Too Many Requests: Rate limit exceeded/)
  }
  t.same(batch.body.map((item: { id: number }) => item.id).sort((a: number, b: number) => a - b), Array.from({ length: 10 }, (_, i) => 100 + i), 'each with its own id')
  t.equal(runs(), 2, 'the tool ran no more than the limit allows')
})

t.test('a fresh caller: one batch of 10 report calls runs exactly 2 of them', async (t) => {
  const { url, runs } = await serve(t)
  const session = await openSession(url)
  const batch = await post(url, session, Array.from({ length: 10 }, (_, i) => report(i)))
  t.equal(batch.status, 200)
  const ran = batch.body.filter((item: any) => item.result !== undefined)
  const refused = batch.body.filter((item: any) => item.error !== undefined)
  t.equal(ran.length, 2)
  t.equal(refused.length, 8)
  t.ok(refused.every((item: any) => /^Too Many Requests/.test(item.error.message)))
  t.equal(runs(), 2)
})

t.test('a batch of 9,000 items is refused whole, naming maxBatchItems; nothing runs', async (t) => {
  const { url, runs } = await serve(t)
  const session = await openSession(url)
  const flood = await post(url, session, Array.from({ length: 9000 }, (_, i) => report(i)))
  t.equal(flood.status, 400)
  t.equal(flood.body.error.code, -32600)
  t.match(flood.body.error.message, /the batch holds 9000 messages, more than maxBatchItems \(32\) allows/)
  t.equal(runs(), 0)
  const atCap = await post(url, session, Array.from({ length: 32 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })))
  t.equal(atCap.status, 200)
  t.equal(atCap.body.length, 32, '32 items, the cap, are served')
})
