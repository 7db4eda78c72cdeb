// request.mcp: what an MCP request is, for the host's hooks. A root hook added before the plugin
// sees it in onRequest from a 2026-07-28 request's headers (unverified) and from preValidation on
// from the body, in both eras; it is null on the host's other routes.
import t, { type Test } from 'tap'
import Fastify, { type FastifyRequest } from 'fastify'
import sake, { Type, definePrompt, type McpRequestInfo } from '../../lib/index.js'
import { sessionPost as legacyRequest, modernRequest, openSession, rpc } from '../helpers/requests.js'

interface Seen { hook: string, mcp: McpRequestInfo | null }

async function server (t: Test): Promise<{ app: import('fastify').FastifyInstance, seen: Seen[] }> {
  const app = Fastify({ logger: false })
  const seen: Seen[] = []
  for (const hook of ['onRequest', 'preValidation', 'preHandler'] as const) {
    app.addHook(hook, async (request: FastifyRequest) => { seen.push({ hook, mcp: request.mcp }) })
  }
  app.get('/health', async (request) => ({ mcp: request.mcp }))
  await app.register(sake, { name: 'info', version: '1.0.0' })
  app.registerTool({ name: 'add', config: { cost: 5 }, args: { a: Type.Number(), b: Type.Optional(Type.Integer({ header: 'B' })) }, execute: ({ a, b }) => a + (b ?? 0) })
  app.registerResource({ uriTemplate: 'notes://{id}', name: 'note', config: { tier: 'free' }, read: (_uri, { id }) => `note ${id}` })
  app.registerPrompt(definePrompt({ name: 'greet', args: { who: Type.String() }, get: ({ who }) => `hi ${who}` }))
  await app.ready()
  t.teardown(() => app.close())
  return { app, seen }
}

t.test('a 2026-07-28 tools/call: the headers in onRequest (unverified), the body from preValidation on', async (t) => {
  const { app, seen } = await server(t)
  const request = modernRequest('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, { 'mcp-param-b': '2' })
  const res = await app.inject(request)
  t.equal(res.statusCode, 200)
  const [onRequest, preValidation, preHandler] = seen
  t.equal(onRequest.hook, 'onRequest')
  t.match(onRequest.mcp, { verified: false, era: 'modern', protocolVersion: '2026-07-28', method: 'tools/call', name: 'add', id: undefined, sessionId: undefined, params: { b: '2' }, config: { cost: 5 } })
  t.equal(onRequest.mcp?.tool?.name, 'add', 'the tool as listed')
  t.match(preValidation.mcp, { verified: true, era: 'modern', method: 'tools/call', name: 'add', id: JSON.parse(request.payload as string).id, params: { b: '2' }, config: { cost: 5 } })
  t.equal(preHandler.mcp, preValidation.mcp, 'the same object once the body is read')
  t.ok(Object.isFrozen(preValidation.mcp))
  t.same(JSON.parse((await app.inject('/health')).body), { mcp: null }, 'null on the host\'s other routes')
})

t.test('a 2025 session: the body tells what the headers do not', async (t) => {
  const { app, seen } = await server(t)
  const session = await openSession(app)
  seen.length = 0
  const res = await app.inject(legacyRequest(session, '2025-11-25', { jsonrpc: '2.0', id: 'x1', method: 'tools/call', params: { name: 'add', arguments: { a: 3, b: 4 } } }))
  t.equal(rpc(res).result.content[0].text, '7')
  t.match(seen[0].mcp, { verified: false, era: 'legacy', method: undefined, name: undefined, sessionId: session })
  t.match(seen[1].mcp, { verified: true, era: 'legacy', protocolVersion: '2025-11-25', method: 'tools/call', name: 'add', id: 'x1', sessionId: session, params: { b: '4' } })
})

t.test('initialize, resources, prompts, notifications, batches and malformed bodies', async (t) => {
  const { app, seen } = await server(t)
  const last = (): McpRequestInfo | null => seen.filter((one) => one.hook === 'preValidation').at(-1)!.mcp
  await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2030-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } })
  t.match(last(), { era: 'legacy', method: 'initialize', protocolVersion: '2025-11-25', id: 0 }, 'the version initialize will negotiate')
  await app.inject(modernRequest('resources/read', { uri: 'notes://7' }, { 'mcp-name': 'notes://7' }))
  t.match(last(), { method: 'resources/read', name: 'notes://7', config: { tier: 'free' } })
  t.equal(last()?.resource?.uriTemplate, 'notes://{id}', 'the template as listed')
  await app.inject(modernRequest('prompts/get', { name: 'greet', arguments: { who: 'Ada' } }, { 'mcp-name': 'greet' }))
  t.match(last(), { method: 'prompts/get', name: 'greet', config: undefined })
  t.equal(last()?.prompt?.name, 'greet')
  await app.inject(modernRequest('tools/call', { name: 'nope', arguments: {} }))
  t.match(last(), { method: 'tools/call', name: 'nope', tool: undefined, params: {} }, 'an unknown tool: its name, no definition')
  const session = await openSession(app, '2025-03-26')
  seen.length = 0
  await app.inject(legacyRequest(session, '2025-03-26', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]))
  t.match(seen.find((one) => one.hook === 'preValidation')!.mcp, { era: 'legacy', method: undefined, id: undefined, sessionId: session }, 'a batch')
  t.match(seen.filter((one) => one.hook === 'preValidation')[1]!.mcp, { era: 'legacy', method: 'ping', id: 1, sessionId: session }, 'and its item, a POST of its own')
  await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: '"just a string"' })
  t.match(last(), { era: undefined, method: undefined, name: undefined })
  await app.inject({ ...modernRequest('tools/list'), headers: { 'content-type': 'application/json', 'mcp-method': 'tools/call', 'mcp-name': '=?base64?***?=' } })
  const before = seen.filter((one) => one.hook === 'onRequest').at(-1)!.mcp
  t.match(before, { verified: false, era: undefined, method: 'tools/call', name: undefined }, 'an undecodable Mcp-Name is not guessed at')
  await app.inject(modernRequest('tools/call', { name: 'add', arguments: { a: 1 } }, { 'mcp-param-b': '=?base64?***?=' }))
  t.same(seen.filter((one) => one.hook === 'onRequest').at(-1)!.mcp?.params, {}, 'nor an undecodable Mcp-Param')
  await app.inject(modernRequest('tools/call', { name: 'add', arguments: { a: 1 } }))
  t.same(seen.filter((one) => one.hook === 'onRequest').at(-1)!.mcp?.params, {}, 'a mirrored argument not sent: no entry')
})

t.test('versions that are not ones: what cannot be told stays undefined', async (t) => {
  const { app, seen } = await server(t)
  const last = (hook: string): McpRequestInfo | null => seen.filter((one) => one.hook === hook).at(-1)!.mcp
  // a _meta version that is not a string: still the modern era (the server answers -32602), no version
  await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 2026 } } } })
  t.match(last('preValidation'), { era: 'modern', protocolVersion: undefined })
  // a session request whose MCP-Protocol-Version is no 2025 version
  await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', 'mcp-session-id': 'nope', 'mcp-protocol-version': '1999-01-01' }, payload: { jsonrpc: '2.0', id: 2, method: 'ping' } })
  t.match(last('onRequest'), { era: 'legacy', sessionId: 'nope', protocolVersion: '1999-01-01' }, 'before the body: the header as sent')
  t.match(last('preValidation'), { era: 'legacy', sessionId: 'nope', protocolVersion: undefined }, 'from the body on: only a version the era has')
  // no era at all before the body: no version either
  await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', 'mcp-protocol-version': '1999-01-01' }, payload: { jsonrpc: '2.0', id: 3, method: 'ping' } })
  t.match(last('onRequest'), { era: undefined, protocolVersion: undefined })
})
