// The POST entry: once the message says what it is, its method and target are bound into the
// request's logger, so Fastify's own "request completed" line names them; an unknown tool, a tool
// that throws and a call refused by scope each leave a line a person can search for.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import sake from '../../lib/index.js'
import { sessionPost as legacyRequest, modernRequest, openSession } from '../helpers/requests.js'

interface Line { level: number, msg: string, mcp?: { method: string, name?: string }, [key: string]: unknown }

async function server (t: Test, options: Record<string, unknown> = {}): Promise<{ app: import('fastify').FastifyInstance, lines: Line[] }> {
  const lines: Line[] = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  await app.register(sake, { name: 'logged', version: '1.0.0', ...options })
  app.registerTool({ name: 'add', execute: () => 3 })
  app.registerTool({ name: 'boom', execute: () => { throw new Error('disk on fire') } })
  app.registerTool({ name: 'admin', scope: 'admin', execute: () => 'ok' })
  await app.ready()
  t.teardown(() => app.close())
  return { app, lines }
}

const completed = (lines: Line[]): Line[] => lines.filter((line) => line.msg === 'request completed')

t.test('"request completed" names the method and the tool, in both eras', async (t) => {
  const { app, lines } = await server(t, { scopes: { admin: 'Admin' } })
  await app.inject(modernRequest('tools/call', { name: 'add', arguments: {} }))
  t.same(completed(lines).at(-1)?.mcp, { method: 'tools/call', name: 'add' })
  await app.inject(modernRequest('server/discover'))
  t.same(completed(lines).at(-1)?.mcp, { method: 'server/discover' }, 'a method without a target: the method alone')
  const session = await openSession(app)
  await app.inject(legacyRequest(session, '2025-11-25', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'add', arguments: {} } }))
  t.same(completed(lines).at(-1)?.mcp, { method: 'tools/call', name: 'add' }, 'a 2025 session call, which sends no Mcp-Name')
})

t.test('a task id never reaches the log: it may be the task\'s only handle', async (t) => {
  const { app, lines } = await server(t, { scopes: { admin: 'Admin' } })
  const taskId = 'a1b2c3d4-secret-handle'
  await app.inject(modernRequest('tasks/get', { taskId }, { 'mcp-name': taskId }))
  t.same(completed(lines).at(-1)?.mcp, { method: 'tasks/get' }, 'the method alone')
  t.notOk(lines.some((line) => JSON.stringify(line).includes(taskId)), 'in no line at all')
})

t.test('an unknown tool and a tool that throws leave a line to search for', async (t) => {
  const { app, lines } = await server(t, { scopes: { admin: 'Admin' } })
  await app.inject(modernRequest('tools/call', { name: 'nope', arguments: {} }))
  const unknown = lines.find((line) => line.msg === "fastify-sake: tools/call of an unknown tool 'nope'")
  t.ok(unknown, 'the unknown tool, by name')
  t.same(unknown?.mcp, { method: 'tools/call', name: 'nope' })
  await app.inject(modernRequest('tools/call', { name: 'boom', arguments: {} }))
  const threw = lines.find((line) => line.msg === "tool 'boom' threw")
  t.equal(threw?.level, 50, 'at error')
  t.same(threw?.mcp, { method: 'tools/call', name: 'boom' })
})

t.test('a call refused by scope leaves one info line naming who and why', async (t) => {
  const { app, lines } = await server(t, {
    scopes: { admin: 'Admin' },
    auth: { resource: 'http://localhost/mcp', authorizationServers: ['https://auth.example.com'], verify: () => ({ subject: 'bob', scopes: [] }) }
  })
  const res = await app.inject(modernRequest('tools/call', { name: 'admin', arguments: {} }, { authorization: 'Bearer t' }))
  t.equal(res.statusCode, 403)
  const refused = lines.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('fastify-sake: refused: '))
  t.equal(refused.length, 1)
  t.match(refused[0], { level: 30, subject: 'bob', reason: 'insufficient_scope', scopes: ['admin'], mcp: { method: 'tools/call', name: 'admin' } })
  t.match(refused[0].msg, /tool 'admin' needs the scope admin/)
})

t.test('the checks are route hooks: the host\'s hooks of a stage run first, and a refusal stops the rest', async (t) => {
  const stages: string[] = []
  const app = Fastify({ logger: false })
  app.addHook('preValidation', async (request) => { stages.push(`host preValidation ${request.mcp?.name ?? '-'}`) })
  app.addHook('preHandler', async (request) => { stages.push(`host preHandler ${request.mcp?.name ?? '-'}`) })
  await app.register(sake, {
    name: 'hooked',
    version: '1.0.0',
    scopes: { admin: 'Admin' },
    auth: { resource: 'http://localhost/mcp', authorizationServers: ['https://auth.example.com'], verify: () => ({ subject: 'bob', scopes: [] }) },
    routeOptions: { preValidation: async () => { stages.push('route preValidation') }, preHandler: async () => { stages.push('route preHandler') } }
  })
  app.registerTool({ name: 'add', execute: () => { stages.push('handler'); return 3 } })
  app.registerTool({ name: 'admin', scope: 'admin', execute: () => { stages.push('handler'); return 'ok' } })
  await app.ready()
  t.teardown(() => app.close())
  const token = { authorization: 'Bearer t' }

  const ok = await app.inject(modernRequest('tools/call', { name: 'add', arguments: {} }, token))
  t.equal(ok.statusCode, 200)
  t.same(stages, ['host preValidation add', 'route preValidation', 'host preHandler add', 'route preHandler', 'handler'], 'the plugin\'s checks run before the user\'s route hooks, after the host\'s')

  stages.length = 0
  const mismatch = await app.inject(modernRequest('tools/call', { name: 'add', arguments: {} }, { ...token, 'mcp-name': 'other' }))
  t.equal(mismatch.statusCode, 400)
  t.equal(JSON.parse(mismatch.body).error.code, -32020)
  t.same(stages, ['host preValidation add'], 'a header that differs from the body is refused in preValidation: nothing after it runs')

  stages.length = 0
  const forbidden = await app.inject(modernRequest('tools/call', { name: 'admin', arguments: {} }, token))
  t.equal(forbidden.statusCode, 403)
  t.match(forbidden.headers['www-authenticate'], /error="insufficient_scope", scope="admin"/)
  t.same(stages, ['host preValidation admin', 'route preValidation', 'host preHandler admin'], 'a forbidden call is refused in preHandler, before the handler')
})

t.test('Accept must allow JSON, q-values honoured: refused with 406 in preValidation, before the body is read as a message', async (t) => {
  const { app, lines } = await server(t, { scopes: { admin: 'Admin' } })
  for (const accept of ['application/json;q=0, */*', 'text/event-stream', 'text/html, application/*;q=0']) {
    const res = await app.inject(modernRequest('tools/call', { name: 'add', arguments: {} }, { accept }))
    t.equal(res.statusCode, 406, `Accept: ${accept}`)
    t.same(JSON.parse(res.body).error, { code: -32600, message: 'Not Acceptable: the Accept header must allow application/json (MCP clients send "Accept: application/json, text/event-stream")' })
  }
  t.notOk(completed(lines).some((line) => line.mcp !== undefined), 'refused before the message was bound into the log')
  t.equal((await app.inject(modernRequest('tools/call', { name: 'add', arguments: {} }, { accept: '*/*;q=0.1' }))).statusCode, 200)
  t.equal((await app.inject(modernRequest('tools/call', { name: 'add', arguments: {} }, { accept: undefined }))).statusCode, 200, 'no Accept: anything (RFC 9110)')
})

t.test('an Accept a host hook set as an array is read as the one value it joins to', async (t) => {
  const app = Fastify({ logger: false })
  app.addHook('onRequest', async (request) => { request.headers.accept = ['application/json;q=0', '*/*'] as unknown as string })
  await app.register(sake, { name: 'arrays', version: '1.0.0' })
  await app.ready()
  t.teardown(() => app.close())
  const res = await app.inject(modernRequest('server/discover'))
  t.equal(res.statusCode, 406, "'application/json;q=0, */*': JSON refused")
})
