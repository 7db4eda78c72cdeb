// Explicit allowedHosts / allowedOrigins, through app.inject: the lists apply on every connection
// (inject's fake socket has no local address, so the loopback default never applies here).
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers/app.js'
import { post, send } from '../helpers/http.js'

const discover = { jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }
const discoverHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }

async function status (app: FastifyInstance, headers: Record<string, string | undefined>): Promise<{ status: number, body: any }> {
  return send(app, post(discover, { ...discoverHeaders, ...headers }))
}

t.test('the default never applies off loopback: any Host and Origin pass', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  t.equal((await status(app, { host: 'evil.example.com', origin: 'http://evil.example.com' })).status, 200)
})

t.test('allowedHosts: names match any port, name:port only that port, case-insensitively', async (t) => {
  const app = await build({ allowedHosts: ['mcp.example.com', 'api.example.com:8443', '[::1]:3000'] })
  t.teardown(() => app.close())
  for (const host of ['mcp.example.com', 'MCP.example.com:443', 'mcp.example.com:8080', 'api.example.com:8443', '[::1]:3000']) {
    t.equal((await status(app, { host })).status, 200, `${host} passes`)
  }
  for (const host of ['api.example.com', 'api.example.com:443', 'localhost', 'evil.example.com', '[::1]', 'mcp.example.com.evil.com', 'bad host']) {
    const answer = await status(app, { host })
    t.equal(answer.status, 403, `${host} refused`)
    t.same(answer.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Forbidden: Host ${JSON.stringify(host)} is not allowed` } })
  }
  // an explicit Host list leaves the Origin default, which guards loopback connections only
  t.equal((await status(app, { host: 'mcp.example.com', origin: 'http://evil.example.com' })).status, 200, 'Origin unchecked off loopback')
})

t.test('allowedOrigins: exact origins; a request without Origin passes', async (t) => {
  const app = await build({ allowedOrigins: ['https://app.example.com', 'http://localhost:5173'] })
  t.teardown(() => app.close())
  for (const origin of ['https://app.example.com', 'http://localhost:5173', undefined]) {
    t.equal((await status(app, { origin })).status, 200, `${origin} passes`)
  }
  for (const origin of ['http://app.example.com', 'https://app.example.com:8443', 'http://localhost:3000', 'null', 'https://evil.example.com', 'not an origin', 'https://app.example.com/']) {
    const answer = await status(app, { origin })
    t.equal(answer.status, 403, `${origin} refused`)
    t.same(answer.body.error, { code: -32600, message: `Forbidden: Origin ${JSON.stringify(origin)} is not allowed` })
  }
  t.equal((await status(app, { host: 'evil.example.com' })).status, 200, 'Host unchecked off loopback')
})

t.test('the checks run before anything else, on every MCP method and route', async (t) => {
  const app = await build({ allowedHosts: ['localhost'] })
  t.teardown(() => app.close())
  const evil = { host: 'evil.example.com' }
  t.equal((await send(app, post('{not json', evil))).status, 403, 'before the body is parsed')
  for (const method of ['GET', 'DELETE', 'PUT', 'PATCH'] as const) {
    const answer = await send(app, { method, url: '/mcp', headers: { ...evil, 'mcp-session-id': 'x' } })
    t.equal(answer.status, 403, method)
    t.equal(answer.body.error.code, -32600)
  }
  t.equal((await send(app, { method: 'DELETE', url: '/mcp', headers: { host: 'localhost' } })).status, 405, 'an allowed Host reaches the route')
})

t.test('never on the host\'s routes', async (t) => {
  const app = await build({ allowedHosts: ['localhost'], allowedOrigins: ['http://localhost'] })
  app.get('/health', async () => ({ ok: true }))
  app.post('/mcp-like', async () => ({ ok: true }))
  t.teardown(() => app.close())
  for (const url of ['/health']) {
    const res = await app.inject({ method: 'GET', url, headers: { host: 'evil.example.com', origin: 'http://evil.example.com' } })
    t.equal(res.statusCode, 200, url)
  }
  const res = await app.inject({ method: 'POST', url: '/mcp-like', headers: { host: 'evil.example.com', origin: 'http://evil.example.com' }, payload: {} })
  t.equal(res.statusCode, 200)
})

t.test('false for both: no hook at all', async (t) => {
  const app = await build({ allowedHosts: false, allowedOrigins: false })
  t.teardown(() => app.close())
  await app.ready()
  t.equal((await status(app, { host: 'evil.example.com', origin: 'http://evil.example.com' })).status, 200)
})

t.test('a refused request is logged at info, naming the value', async (t) => {
  const lines: any[] = []
  const app = await build({ allowedOrigins: ['https://app.example.com'] }, { logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  await status(app, { origin: 'https://evil.example.com' })
  const line = lines.find((l) => /DNS-rebinding/.test(l.msg))
  t.match(line, { level: 30, origin: 'https://evil.example.com', msg: 'fastify-sake: refused a request whose Origin is not allowed (DNS-rebinding protection)' })
})
