// Per-tool limits with the real @fastify/rate-limit, keyed on request.mcp, the recipe of
// docs/fastify.md ("Per-tool rate limits"): `hook: 'preHandler'` (the body is read, so a 2025
// session's call, which sends no Mcp-Name, is known too), a key per caller and tool, and a smaller
// `max` for the expensive tool. Both real clients, over a real port: the third call of `report` is
// refused, `add` goes on.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import sake, { Type } from '../../lib/index.js'

// the recipe's declaration: config.callsPerMinute is a number on every definition and on request.mcp.config
declare module '../../lib/index.js' {
  interface McpConfig {
    callsPerMinute?: number
  }
}

async function serve (t: Test): Promise<{ app: FastifyInstance, url: URL, limited: Array<{ status: number, body: any }> }> {
  const app = Fastify({ logger: false })
  await app.register(rateLimit, {
    hook: 'preHandler',
    timeWindow: 60_000,
    // per caller and per tool; everything that is not a tool call shares one generous bucket
    keyGenerator: (request: FastifyRequest) => `${request.ip}|${request.mcp?.method === 'tools/call' ? request.mcp.name ?? '' : '-'}`,
    max: (request: FastifyRequest) => request.mcp?.config?.callsPerMinute ?? 1000
  })
  await app.register(sake, { name: 'limited', version: '1.0.0' })
  app.registerTool({ name: 'report', config: { callsPerMinute: 2 }, execute: () => 'an expensive report' })
  app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => a + b })
  const limited: Array<{ status: number, body: any }> = []
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 429) limited.push({ status: reply.statusCode, body: JSON.parse(payload as string) })
    return payload
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  return { app, url: new URL(`http://127.0.0.1:${port}/mcp`), limited }
}

t.test('a 2026-07-28 client: the third report is refused with 429, add goes on', async (t) => {
  const { url, limited } = await serve(t)
  const client = new ModernClient({ name: 'modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new ModernTransport(url))
  t.teardown(() => client.close())
  for (let i = 0; i < 2; i++) t.same((await client.callTool({ name: 'report', arguments: {} })).content, [{ type: 'text', text: 'an expensive report' }])
  await t.rejects(client.callTool({ name: 'report', arguments: {} }), /429|Too Many Requests|Rate limit/)
  for (let i = 0; i < 3; i++) t.same((await client.callTool({ name: 'add', arguments: { a: i, b: 1 } })).content, [{ type: 'text', text: String(i + 1) }])
  t.equal(limited.length, 1)
  t.match(limited[0].body, { jsonrpc: '2.0', error: { code: -32600, message: /^Too Many Requests: Rate limit exceeded/ } })
  t.type(limited[0].body.id, 'number', 'the request\'s own id: the body was read')
})

t.test('a 2025 session (no Mcp-Name header): the same limit holds', async (t) => {
  const { url, limited } = await serve(t)
  const client = new LegacyClient({ name: 'legacy', version: '1' })
  const transport = new LegacyTransport(url)
  await client.connect(transport)
  t.teardown(async () => { await transport.terminateSession(); await client.close() })
  for (let i = 0; i < 2; i++) t.same((await client.callTool({ name: 'report', arguments: {} })).content, [{ type: 'text', text: 'an expensive report' }])
  await t.rejects(client.callTool({ name: 'report', arguments: {} }), /429|Too Many Requests|Rate limit/)
  t.same((await client.callTool({ name: 'add', arguments: { a: 2, b: 2 } })).content, [{ type: 'text', text: '4' }])
  t.equal(limited.length, 1)
  t.notMatch(limited[0].body.error.message, /Bad Request/)
})
