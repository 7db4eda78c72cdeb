// Real clients against the plugin in this process, on a real port: every era and version a
// client can reach us with, and the client-side recovery paths the spec relies on.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, ToolError } from '../../lib/index.js'
import { build, listen } from '../helpers/app.js'
import { legacyClient, modernClient } from '../helpers/clients.js'

interface Seen { method: string, headers: Record<string, string | string[] | undefined>, body: any }

async function serve (t: Test): Promise<{ app: FastifyInstance, url: URL, seen: Seen[] }> {
  const seen: Seen[] = []
  const app = await build({ instructions: 'Test tools.' })
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'POST') seen.push({ method: request.method, headers: request.headers, body: undefined })
  })
  // preValidation: the body is read, and the plugin's own checks (which refuse a mismatch) come after
  app.addHook('preValidation', async (request) => {
    if (request.method === 'POST') seen.push({ method: 'POST', headers: request.headers, body: request.body })
  })
  app.registerTool({
    name: 'add',
    args: {
      a: Type.Number(),
      b: Type.Number(),
      precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, header: 'Precision' }))
    },
    output: { sum: Type.Number() },
    execute: ({ a, b, precision }) => ({ sum: precision === undefined ? a + b : Number((a + b).toFixed(precision)) })
  })
  app.registerTool({
    name: 'fail',
    args: { how: Type.Union([Type.Literal('tool'), Type.Literal('crash')]) },
    execute ({ how }) {
      if (how === 'tool') throw new ToolError('the tool said no')
      throw new Error('secret database password in stack')
    }
  })
  return { app, url: new URL(await listen(t, app)), seen }
}

t.test('modern client in auto mode probes with server/discover and stays modern', async (t) => {
  const { url, seen } = await serve(t)
  const { client } = await modernClient(t, url, { name: 'auto', version: '1' }, { options: { versionNegotiation: { mode: 'auto' } } })
  t.equal(client.getProtocolEra(), 'modern')
  t.equal(seen[0].body.method, 'server/discover')
  t.equal(client.getDiscoverResult()?.instructions, 'Test tools.')
  t.notOk(seen.some((s) => s.body?.method === 'initialize'), 'no initialize in the modern era')
})

t.test('modern client recovers from a header mismatch by listing and retrying', async (t) => {
  const { url, seen } = await serve(t)
  const { client } = await modernClient(t, url, { name: 'pin', version: '1' })
  // no tools/list yet: the client cannot know about Mcp-Param-Precision, so the first POST lacks it
  const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 1.25, precision: 1 } })
  t.same(result.structuredContent, { sum: 2.3 })
  const calls = seen.filter((s) => s.body?.method !== 'server/discover').map((s) => s.body.method)
  t.same(calls, ['tools/call', 'tools/list', 'tools/call'], 'refused, listed, retried')
  t.equal(seen.at(-1)!.headers['mcp-param-precision'], '1')
})

t.test('tool errors reach the modern client as isError results, internals never', async (t) => {
  const { url } = await serve(t)
  const { client } = await modernClient(t, url, { name: 'pin', version: '1' })
  const told = await client.callTool({ name: 'fail', arguments: { how: 'tool' } })
  t.same(told, { content: [{ type: 'text', text: 'the tool said no' }], isError: true, _meta: told._meta })
  const crashed = await client.callTool({ name: 'fail', arguments: { how: 'crash' } })
  t.equal(crashed.isError, true)
  t.notMatch(JSON.stringify(crashed), /secret|password|stack/)
  await t.rejects(client.callTool({ name: 'nope', arguments: {} }), /Unknown tool: nope/)
})

t.test('the same client in legacy mode opens a 2025-11-25 session', async (t) => {
  const { url, seen } = await serve(t)
  const { client, transport } = await modernClient(t, url, { name: 'legacy-v2', version: '1' }, { pin: false })
  t.equal(client.getProtocolEra(), 'legacy')
  t.equal(client.getNegotiatedProtocolVersion(), '2025-11-25')
  t.ok(transport.sessionId, 'the server issued a session')
  const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
  t.same(result.structuredContent, { sum: 5 })
  t.equal(seen.at(-1)!.headers['mcp-session-id'], transport.sessionId)
  t.equal(seen.at(-1)!.headers['mcp-protocol-version'], '2025-11-25')
})

t.test('a 2025-06-18 client gets its own version back', async (t) => {
  const { url, seen } = await serve(t)
  const { client } = await modernClient(t, url, { name: 'v0618', version: '1' }, { pin: false, options: { supportedProtocolVersions: ['2025-06-18'] } })
  t.equal(client.getNegotiatedProtocolVersion(), '2025-06-18')
  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name), ['add', 'fail'])
  const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })
  t.same(result.structuredContent, { sum: 2 })
  t.equal(seen.at(-1)!.headers['mcp-protocol-version'], '2025-06-18')
})

t.test('a 2025-03-26 client (v1 SDK) works without the version header rule', async (t) => {
  const { url, seen } = await serve(t)
  // the v1 client always asks for 2025-11-25; rewrite its initialize the way an older client sends it
  const olderFetch: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"initialize"')) {
      const message = JSON.parse(init.body)
      message.params.protocolVersion = '2025-03-26'
      init = { ...init, body: JSON.stringify(message) }
    }
    return fetch(input, init)
  }
  const { client, transport } = await legacyClient(t, url, { name: 'v0326', version: '1' }, { transport: { fetch: olderFetch } })
  t.equal(transport.protocolVersion, '2025-03-26')
  const result = await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } })
  t.same(result.content, [{ type: 'text', text: '{"sum":42}' }])
  t.equal(seen.at(-1)!.headers['mcp-protocol-version'], '2025-03-26')
})

t.test('v1 client: GET stream refused politely, unknown tool is a JSON-RPC error', async (t) => {
  const { url, seen } = await serve(t)
  const errors: Error[] = []
  const { client } = await legacyClient(t, url, { name: 'v1', version: '1' }, { setup: (client) => { client.onerror = (err) => { errors.push(err) } } })
  await t.rejects(client.callTool({ name: 'nope', arguments: {} }), /Unknown tool: nope/)
  const crashed = await client.callTool({ name: 'fail', arguments: { how: 'crash' } })
  t.equal(crashed.isError, true)
  t.ok(seen.some((s) => s.method === 'GET'), 'the client tried the standalone stream')
  t.same(errors, [], '405 on GET is not an error to the client')
})
