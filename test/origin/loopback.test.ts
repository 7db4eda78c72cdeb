// The default DNS-rebinding protection, on a real server listening on loopback: what a rebinding
// page's requests carry (a foreign Host or Origin) is refused; local clients pass.
import t from 'tap'
import { request as httpRequest } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers/app.js'

const discover = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } })

interface Answer { status: number, body: any }

/** A raw POST with exactly the Host and Origin given (fetch would not let us set Host). */
async function raw (port: number, headers: Record<string, string>, address = '127.0.0.1', path = '/mcp', method = 'POST'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: address,
      port,
      path,
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover', ...headers }
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode!, body: text === '' ? undefined : JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(method === 'POST' ? discover : undefined)
  })
}

async function listening (options: Record<string, unknown> = {}, host = '127.0.0.1'): Promise<{ app: FastifyInstance, port: number }> {
  const app = await build(options)
  app.get('/health', async () => ({ ok: true }))
  await app.listen({ host, port: 0 })
  return { app, port: (app.server.address() as { port: number }).port }
}

t.test('default on loopback: loopback Host names on any port pass', async (t) => {
  const { app, port } = await listening()
  t.teardown(() => app.close())
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost', '[::1]:1234', 'LOCALHOST:9']) {
    const answer = await raw(port, { host })
    t.equal(answer.status, 200, host)
    t.ok(answer.body.result.supportedVersions)
  }
})

t.test('default on loopback: a foreign Host is 403 with a JSON-RPC error', async (t) => {
  const { app, port } = await listening()
  t.teardown(() => app.close())
  for (const host of ['evil.example.com', `evil.example.com:${port}`, '127.0.0.2', 'localhost.evil.example.com', '0.0.0.0']) {
    const answer = await raw(port, { host })
    t.equal(answer.status, 403, host)
    t.same(answer.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Forbidden: Host ${JSON.stringify(host)} is not allowed` } })
  }
})

t.test('default on loopback: Origin, when sent, must be an http(s) loopback origin', async (t) => {
  const { app, port } = await listening()
  t.teardown(() => app.close())
  const host = `127.0.0.1:${port}`
  for (const origin of [`http://127.0.0.1:${port}`, 'http://localhost:5173', 'https://localhost', 'http://[::1]:8080']) {
    t.equal((await raw(port, { host, origin })).status, 200, origin)
  }
  for (const origin of ['http://evil.example.com', `http://evil.example.com:${port}`, 'null', 'ftp://localhost', 'http://localhost.evil.example.com', 'http://localhost/path']) {
    const answer = await raw(port, { host, origin })
    t.equal(answer.status, 403, origin)
    t.same(answer.body.error, { code: -32600, message: `Forbidden: Origin ${JSON.stringify(origin)} is not allowed` })
  }
})

t.test('the rebinding request the conformance suite sends: evil Host and Origin, then its own', async (t) => {
  const { app, port } = await listening()
  t.teardown(() => app.close())
  t.equal((await raw(port, { host: 'evil.example.com', origin: 'http://evil.example.com' })).status, 403)
  t.equal((await raw(port, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).status, 200)
})

t.test('GET and DELETE are guarded too; the host\'s routes never are', async (t) => {
  const { app, port } = await listening()
  t.teardown(() => app.close())
  t.equal((await raw(port, { host: 'evil.example.com' }, '127.0.0.1', '/mcp', 'GET')).status, 403)
  t.equal((await raw(port, { host: 'evil.example.com' }, '127.0.0.1', '/mcp', 'DELETE')).status, 403)
  t.equal((await raw(port, { host: 'localhost' }, '127.0.0.1', '/mcp', 'GET')).status, 405)
  const health = await raw(port, { host: 'evil.example.com', origin: 'http://evil.example.com' }, '127.0.0.1', '/health', 'GET')
  t.same(health, { status: 200, body: { ok: true } })
})

t.test('explicit lists replace the default on loopback', async (t) => {
  const { app, port } = await listening({ allowedHosts: ['mcp.internal'], allowedOrigins: ['https://app.example.com'] })
  t.teardown(() => app.close())
  t.equal((await raw(port, { host: `localhost:${port}` })).status, 403, 'localhost is no longer implied')
  t.equal((await raw(port, { host: 'mcp.internal:8080', origin: 'https://app.example.com' })).status, 200)
  t.equal((await raw(port, { host: 'mcp.internal', origin: 'http://localhost' })).status, 403)
})

t.test('false turns one check off, the other keeps its default', async (t) => {
  const { app, port } = await listening({ allowedHosts: false })
  t.teardown(() => app.close())
  t.equal((await raw(port, { host: 'mcp.example.com' })).status, 200, 'any Host')
  t.equal((await raw(port, { host: 'mcp.example.com', origin: 'http://evil.example.com' })).status, 403, 'Origin still checked')
  const other = await listening({ allowedOrigins: false })
  t.teardown(() => other.app.close())
  t.equal((await raw(other.port, { host: 'localhost', origin: 'http://evil.example.com' })).status, 200, 'any Origin')
  t.equal((await raw(other.port, { host: 'evil.example.com' })).status, 403, 'Host still checked')
})

t.test('a dual-stack listener sees IPv4 loopback as ::ffff:127.0.0.1, and still guards it', async (t) => {
  let server: { app: FastifyInstance, port: number }
  try {
    server = await listening({}, '::')
  } catch {
    t.skip('no IPv6 on this machine', () => {})
    return
  }
  t.teardown(() => server.app.close())
  t.equal((await raw(server.port, { host: 'evil.example.com' })).status, 403)
  t.equal((await raw(server.port, { host: 'localhost' })).status, 200)
})
