// The DNS-rebinding protection (allowedHosts / allowedOrigins), one group per concern:
// - the default, on a real server listening on loopback: what a rebinding page's requests carry
//   (a foreign Host or Origin) is refused; local clients pass;
// - explicit allowedHosts / allowedOrigins, through app.inject: the lists apply on every connection
//   (an injected request is off loopback when it says so with `remoteAddress`);
// - app.inject gets the decision a socket gets: its fake socket is the loopback connection it
//   simulates, so the default applies (issue 11, item 10);
// - allowedOrigins as the host's function, and as 'cors' with the real @fastify/cors: with
//   hand-written options (issue 11, item 9) and with the recipe of docs/browser-clients.md, mcpCors
//   (issue 31; test/http/cors.test.ts runs mcpCors itself, and from a real browser);
// - what registration accepts and refuses, with the messages, and the helpers the checks are built on.
import t, { type Test } from 'tap'
import { readFile } from 'node:fs/promises'
import Fastify, { type FastifyInstance } from 'fastify'
import cors from '@fastify/cors'
import sake, { Type, mcpCors, type SakeOptions } from '../../lib/index.js'
import { resolveOptions } from '../../lib/options/server.js'
import { isLoopback, splitHost } from '../../lib/http/origin.js'
import { build, listen, portOf, refusesRegister } from '../helpers/app.js'
import { modernRequest, post, rpc, send, sessionPost as legacyRequest } from '../helpers/requests.js'
import { rawRequest } from '../helpers/network.js'
import { captureLog } from '../helpers/logs.js'

t.test('the default on loopback, over a real port (was origin/loopback)', async (t) => {
  const discover = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } })

  /** A server/discover POST (or a bodiless `method`) with exactly the Host and Origin given. */
  async function raw (port: number, headers: Record<string, string>, address = '127.0.0.1', path = '/mcp', method = 'POST'): Promise<{ status: number, body: any }> {
    return rawRequest({
      port,
      address,
      path,
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover', ...headers },
      body: method === 'POST' ? discover : undefined
    })
  }

  /** An app with a /health route of the host's, listening on `host` until `t` ends. */
  async function listening (t: Test, options: Record<string, unknown> = {}, host = '127.0.0.1'): Promise<{ app: FastifyInstance, port: number }> {
    const app = await build(options)
    app.get('/health', async () => ({ ok: true }))
    await listen(t, app, { host })
    return { app, port: portOf(app) }
  }

  t.test('default on loopback: loopback Host names on any port pass', async (t) => {
    const { port } = await listening(t)
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost', '[::1]:1234', 'LOCALHOST:9']) {
      const answer = await raw(port, { host })
      t.equal(answer.status, 200, host)
      t.ok(answer.body.result.supportedVersions)
    }
  })

  t.test('default on loopback: a foreign Host is 403 with a JSON-RPC error', async (t) => {
    const { port } = await listening(t)
    for (const host of ['evil.example.com', `evil.example.com:${port}`, '127.0.0.2', 'localhost.evil.example.com', '0.0.0.0']) {
      const answer = await raw(port, { host })
      t.equal(answer.status, 403, host)
      t.same(answer.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Forbidden: Host ${JSON.stringify(host)} is not allowed` } })
    }
  })

  t.test('default on loopback: Origin, when sent, must be an http(s) loopback origin', async (t) => {
    const { port } = await listening(t)
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
    const { port } = await listening(t)
    t.equal((await raw(port, { host: 'evil.example.com', origin: 'http://evil.example.com' })).status, 403)
    t.equal((await raw(port, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).status, 200)
  })

  t.test('GET and DELETE are guarded too; the host\'s routes never are', async (t) => {
    const { port } = await listening(t)
    t.equal((await raw(port, { host: 'evil.example.com' }, '127.0.0.1', '/mcp', 'GET')).status, 403)
    t.equal((await raw(port, { host: 'evil.example.com' }, '127.0.0.1', '/mcp', 'DELETE')).status, 403)
    t.equal((await raw(port, { host: 'localhost' }, '127.0.0.1', '/mcp', 'GET')).status, 405)
    const health = await raw(port, { host: 'evil.example.com', origin: 'http://evil.example.com' }, '127.0.0.1', '/health', 'GET')
    t.same(health, { status: 200, body: { ok: true } })
  })

  t.test('explicit lists replace the default on loopback', async (t) => {
    const { port } = await listening(t, { allowedHosts: ['mcp.internal'], allowedOrigins: ['https://app.example.com'] })
    t.equal((await raw(port, { host: `localhost:${port}` })).status, 403, 'localhost is no longer implied')
    t.equal((await raw(port, { host: 'mcp.internal:8080', origin: 'https://app.example.com' })).status, 200)
    t.equal((await raw(port, { host: 'mcp.internal', origin: 'http://localhost' })).status, 403)
  })

  t.test('false turns one check off, the other keeps its default', async (t) => {
    const { port } = await listening(t, { allowedHosts: false })
    t.equal((await raw(port, { host: 'mcp.example.com' })).status, 200, 'any Host')
    t.equal((await raw(port, { host: 'mcp.example.com', origin: 'http://evil.example.com' })).status, 403, 'Origin still checked')
    const other = await listening(t, { allowedOrigins: false })
    t.equal((await raw(other.port, { host: 'localhost', origin: 'http://evil.example.com' })).status, 200, 'any Origin')
    t.equal((await raw(other.port, { host: 'evil.example.com' })).status, 403, 'Host still checked')
  })

  t.test('a dual-stack listener sees IPv4 loopback as ::ffff:127.0.0.1, and still guards it', async (t) => {
    let server: { app: FastifyInstance, port: number }
    try {
      server = await listening(t, {}, '::')
    } catch {
      t.skip('no IPv6 on this machine', () => {})
      return
    }
    t.equal((await raw(server.port, { host: 'evil.example.com' })).status, 403)
    t.equal((await raw(server.port, { host: 'localhost' })).status, 200)
  })
})

// ---- through app.inject

const discover = { jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }
const discoverHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }

/** A server/discover with these headers, from `remoteAddress` (by default inject's own, 127.0.0.1). */
async function status (app: FastifyInstance, headers: Record<string, string | undefined>, remoteAddress?: string): Promise<{ status: number, body: any }> {
  return send(app, { ...post(discover, { ...discoverHeaders, ...headers }), remoteAddress })
}

/** A client elsewhere on the network: the connection is not a loopback one. */
const REMOTE = '203.0.113.7'

t.test('explicit lists, through app.inject (was origin/explicit-lists)', async (t) => {
  t.test('the Host default never applies off loopback: any Host passes', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    t.equal((await status(app, { host: 'evil.example.com' }, REMOTE)).status, 200)
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
    // an explicit Host list leaves the Origin default: off loopback it welcomes the listed hosts' origins only
    t.equal((await status(app, { host: 'mcp.example.com', origin: 'https://mcp.example.com' }, REMOTE)).status, 200, 'a listed host\'s origin off loopback')
    t.equal((await status(app, { host: 'mcp.example.com', origin: 'http://evil.example.com' }, REMOTE)).status, 403, 'another Origin off loopback')
    t.equal((await status(app, { host: 'mcp.example.com', origin: 'http://evil.example.com' })).status, 403, 'and on loopback')
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
    t.equal((await status(app, { host: 'evil.example.com' }, REMOTE)).status, 200, 'Host unchecked off loopback')
    t.equal((await status(app, { host: 'evil.example.com' })).status, 403, 'and checked on loopback')
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
    const { logger, lines } = captureLog({ level: 'info' })
    const app = await build({ allowedOrigins: ['https://app.example.com'] }, { logger })
    t.teardown(() => app.close())
    await status(app, { origin: 'https://evil.example.com' })
    const line = lines.find((l) => /DNS-rebinding/.test(l.msg ?? ''))
    t.match(line, { level: 30, origin: 'https://evil.example.com', msg: 'fastify-sake: refused a request whose Origin is not allowed (DNS-rebinding protection)' })
  })
})

/** The 403 the Origin default answers off loopback: it names the options that welcome an origin. */
function refusedElsewhere (origin: string): string {
  const hint = origin === 'null'
    ? 'an opaque origin (a sandboxed frame, a file: page) is accepted only by an allowedOrigins function'
    : "list it in allowedOrigins (or set allowedOrigins: 'cors' to follow @fastify/cors), or its host in allowedHosts if it is this service's own name"
  return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed; ${hint} (DNS-rebinding protection)`
}

// the finding itself over a real connection from another network namespace: test/e2e/hostile-origin.test.ts
t.test('the Origin default off loopback, through app.inject (issue 40, item 4)', async (t) => {
  t.test('an Origin nothing welcomes is 403 naming the options; without Origin any Host passes', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    for (const origin of ['http://evil.example', 'https://evil.example:8443', 'http://localhost:5173', 'http://127.0.0.1', 'null']) {
      const answer = await status(app, { host: 'evil.example', origin }, REMOTE)
      t.equal(answer.status, 403, origin)
      t.same(answer.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: refusedElsewhere(origin) } }, origin)
    }
    t.equal((await status(app, { host: 'evil.example' }, REMOTE)).status, 200, 'no Origin: a non-browser client')
    t.equal((await status(app, { host: 'mcp.example.com' }, '::ffff:10.0.0.1')).status, 200)
  })

  t.test('malformed and repeated Origins are refused as any other', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    for (const origin of ['', 'not an origin', 'http://evil.example/', 'http://evil.example/path', 'http://user@evil.example', '*', 'file:///etc/passwd']) {
      const answer = await status(app, { origin }, REMOTE)
      t.equal(answer.status, 403, JSON.stringify(origin))
      t.equal(answer.body.error.message, refusedElsewhere(origin))
    }
    // two Origin lines arrive joined (Node joins a repeated header it has no rule for): not one origin
    const request = post(discover, discoverHeaders)
    const headers: Record<string, string | string[]> = { ...request.headers as Record<string, string>, origin: ['https://mcp.example.com', 'http://evil.example'] }
    const twice = await send(app, { ...request, headers, remoteAddress: REMOTE })
    t.equal(twice.status, 403)
    t.equal(twice.body.error.message, refusedElsewhere('https://mcp.example.com, http://evil.example'))
  })

  t.test('allowedHosts welcomes the origins of its hosts: the name on any port, name:port on that port (the scheme\'s default included)', async (t) => {
    const app = await build({ allowedHosts: ['mcp.example.com', 'api.example.com:443', 'admin.example.com:8443', '10.0.0.5', '[fd00::5]:3000'] })
    t.teardown(() => app.close())
    const host = 'mcp.example.com'
    for (const origin of ['https://mcp.example.com', 'http://mcp.example.com', 'http://mcp.example.com:8080', 'HTTPS://MCP.Example.com', 'https://api.example.com', 'https://admin.example.com:8443', 'http://10.0.0.5:3000', 'http://[fd00::5]:3000']) {
      t.equal((await status(app, { host, origin }, REMOTE)).status, 200, origin)
    }
    for (const origin of ['http://api.example.com', 'https://api.example.com:8443', 'https://admin.example.com', 'https://mcp.example.com.evil.example', 'https://evil.mcp.example.com', 'ftp://mcp.example.com', 'ws://mcp.example.com', 'http://[fd00::5]', 'https://mcp.example.com/app', 'null']) {
      const answer = await status(app, { host, origin }, REMOTE)
      t.equal(answer.status, 403, origin)
      t.equal(answer.body.error.message, refusedElsewhere(origin))
    }
  })

  t.test('allowedHosts: false leaves no name to welcome: every Origin off loopback is refused', async (t) => {
    const app = await build({ allowedHosts: false })
    t.teardown(() => app.close())
    t.equal((await status(app, { host: 'mcp.example.com', origin: 'https://mcp.example.com' }, REMOTE)).status, 403)
    t.equal((await status(app, { host: 'mcp.example.com' }, REMOTE)).status, 200)
  })

  t.test('an explicit allowedOrigins decides alone, as before: allowedHosts adds no origin to it', async (t) => {
    const app = await build({ allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] })
    t.teardown(() => app.close())
    const host = 'mcp.example.com'
    t.equal((await status(app, { host, origin: 'https://app.example.com' }, REMOTE)).status, 200)
    const answer = await status(app, { host, origin: 'https://mcp.example.com' }, REMOTE)
    t.equal(answer.status, 403)
    t.equal(answer.body.error.message, 'Forbidden: Origin "https://mcp.example.com" is not allowed', 'the list the operator gave is the one refusing')
  })

  t.test("allowedOrigins: 'cors' welcomes off loopback what @fastify/cors allows", async (t) => {
    const app = await browserApp()
    t.teardown(() => app.close())
    t.equal((await status(app, { host: 'mcp.example.com', origin: 'https://app.example.com' }, REMOTE)).status, 200)
    t.equal((await status(app, { host: 'mcp.example.com', origin: 'https://evil.example' }, REMOTE)).status, 403)
  })

  t.test('allowedOrigins: false still turns the Origin check off, off loopback too', async (t) => {
    const app = await build({ allowedOrigins: false })
    t.teardown(() => app.close())
    t.equal((await status(app, { host: 'evil.example', origin: 'http://evil.example' }, REMOTE)).status, 200)
  })

  t.test('loopback is as it was: loopback origins only, even for an allowedHosts name, with the message of before', async (t) => {
    const app = await build({ allowedHosts: ['mcp.example.com', 'localhost'] })
    t.teardown(() => app.close())
    t.equal((await status(app, { host: 'localhost', origin: 'http://localhost:5173' })).status, 200)
    const answer = await status(app, { host: 'mcp.example.com', origin: 'https://mcp.example.com' })
    t.equal(answer.status, 403)
    t.equal(answer.body.error.message, 'Forbidden: Origin "https://mcp.example.com" is not allowed')
  })

  t.test('a refusal off loopback is logged at info, naming the options', async (t) => {
    const { logger, lines } = captureLog({ level: 'info' })
    const app = await build({}, { logger })
    t.teardown(() => app.close())
    await status(app, { origin: 'http://evil.example' }, REMOTE)
    const line = lines.find((l) => /DNS-rebinding/.test(l.msg ?? ''))
    t.match(line, { level: 30, origin: 'http://evil.example', msg: /^fastify-sake: refused a request whose Origin is not allowed on a connection from another machine: welcome it with allowedOrigins \(a list, 'cors' or a function\) or name the service's own hosts in allowedHosts/ })
  })
})

t.test('app.inject gets the decision a socket gets (issue 11, item 10)', async (t) => {
  t.test('what light-my-request\'s fake socket has: no localAddress, remoteAddress 127.0.0.1 unless told', async (t) => {
    const app = Fastify({ logger: false })
    app.get('/socket', async (request) => ({ localAddress: request.socket.localAddress ?? null, remoteAddress: request.socket.remoteAddress ?? null, host: request.host }))
    t.teardown(() => app.close())
    t.same((await app.inject({ url: '/socket' })).json(), { localAddress: null, remoteAddress: '127.0.0.1', host: 'localhost:80' })
    t.same((await app.inject({ url: '/socket', remoteAddress: REMOTE })).json(), { localAddress: null, remoteAddress: REMOTE, host: 'localhost:80' })
  })

  t.test('by default an injected request is the loopback connection it simulates: a foreign Host is 403', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    const answer = await status(app, { host: 'evil.example' })
    t.equal(answer.status, 403)
    t.same(answer.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Forbidden: Host "evil.example" is not allowed' } })
    t.equal((await status(app, {})).status, 200, "inject's own Host, localhost:80, passes")
    t.equal((await status(app, { host: '127.0.0.1:3000' })).status, 200)
  })

  t.test('and a foreign Origin is 403; a loopback one passes', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    const answer = await status(app, { origin: 'http://evil.example' })
    t.equal(answer.status, 403)
    t.same(answer.body.error, { code: -32600, message: 'Forbidden: Origin "http://evil.example" is not allowed' })
    t.equal((await status(app, { origin: 'http://localhost:5173' })).status, 200)
  })

  t.test('remoteAddress decides as a real peer would: IPv6 loopback is checked, another address is not', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    for (const address of ['::1', '::ffff:127.0.0.1', '127.0.0.2']) t.equal((await status(app, { host: 'evil.example' }, address)).status, 403, address)
    for (const address of [REMOTE, '::ffff:10.0.0.1', 'fe80::1']) t.equal((await status(app, { host: 'evil.example' }, address)).status, 200, address)
  })
})

t.test('allowedOrigins as a function of the origin and the request', async (t) => {
  t.test('it gets the Origin as sent and the request; true passes, false is the usual 403', async (t) => {
    const calls: Array<[string, string]> = []
    const app = await build({
      allowedOrigins: (origin, request) => {
        calls.push([origin, request.url])
        return origin === 'https://app.example.com' || origin.endsWith('.preview.example.com')
      }
    })
    t.teardown(() => app.close())
    t.equal((await status(app, { origin: 'https://app.example.com' })).status, 200)
    t.equal((await status(app, { origin: 'https://pr-7.preview.example.com' })).status, 200)
    const answer = await status(app, { origin: 'https://evil.example' })
    t.equal(answer.status, 403)
    t.same(answer.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Forbidden: Origin "https://evil.example" is not allowed' } })
    t.same(calls, [['https://app.example.com', '/mcp'], ['https://pr-7.preview.example.com', '/mcp'], ['https://evil.example', '/mcp']])
    t.equal((await status(app, {})).status, 200, 'no Origin: passes')
    t.equal(calls.length, 3, 'and the function is not called')
  })

  t.test('it applies on every connection; the Host default still guards loopback, first', async (t) => {
    let called = 0
    const app = await build({ allowedOrigins: () => { called++; return false } })
    t.teardown(() => app.close())
    t.equal((await status(app, { origin: 'https://app.example.com' }, REMOTE)).status, 403, 'off loopback too')
    const answer = await status(app, { host: 'evil.example', origin: 'https://app.example.com' })
    t.equal(answer.body.error.message, 'Forbidden: Host "evil.example" is not allowed')
    t.equal(called, 1, 'a refused Host never reaches the function')
  })

  t.test('a function that returns anything but a boolean, or throws, is a bug: 500, logged, never a yes', async (t) => {
    const log = captureLog()
    const verdicts: unknown[] = ['yes', 1, null, undefined, Promise.resolve(true)]
    let next = 0
    const app = await build({
      allowedOrigins: ((origin: string) => {
        if (origin === 'https://throws.example') throw new Error('origin table not loaded')
        return verdicts[next++]
      }) as never
    }, { logger: log.logger })
    t.teardown(() => app.close())
    for (const shown of ['"yes" (string)', '1 (number)', 'null (null)', 'nothing', 'a promise']) {
      const answer = await status(app, { origin: 'https://app.example.com' })
      t.equal(answer.status, 500, shown)
      t.same(answer.body, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } })
      const logged = log.errors().at(-1) as any
      t.equal(logged.msg, 'fastify-sake: unexpected error on the MCP endpoint')
      t.equal(logged.err.message, `fastify-sake: the allowedOrigins function returned ${shown} for Origin "https://app.example.com"; it must return true or false, synchronously`)
    }
    const answer = await status(app, { origin: 'https://throws.example' })
    t.equal(answer.status, 500)
    t.equal((log.errors().at(-1) as any).err.message, 'origin table not loaded')
  })
})

/** The origins of docs/browser-clients.md's recipe, and the hand-written @fastify/cors options its "By hand" gives: keep them in step. */
const BROWSER_ORIGINS = ['https://app.example.com', 'http://localhost:5173']
const ALLOWED_HEADERS = ['Content-Type', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID', 'Mcp-Param-Precision']
const EXPOSED_HEADERS = ['Mcp-Session-Id', 'MCP-Protocol-Version', 'WWW-Authenticate']
const METHODS = ['GET', 'POST', 'DELETE']

/** @fastify/cors by hand with the one list of origins, and the plugin deferring to it. */
async function browserApp (corsOptions: Record<string, unknown> = {}, sakeOptions: Partial<SakeOptions> = {}, fastifyOptions: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, ...fastifyOptions })
  await app.register(cors, { origin: BROWSER_ORIGINS, methods: METHODS, allowedHeaders: ALLOWED_HEADERS, exposedHeaders: EXPOSED_HEADERS, ...corsOptions })
  await app.register(sake, { name: 'my-service', version: '1.0.0', allowedOrigins: 'cors', ...sakeOptions })
  app.registerTool({
    name: 'add',
    args: { a: Type.Number(), b: Type.Number(), precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, header: 'Precision' })) },
    execute: ({ a, b }) => ({ sum: a + b })
  })
  app.registerTool({ name: 'count', stream: true, execute: async (_args, ctx) => { await ctx.progress(1, 2); return 'counted' } })
  return app
}

t.test("allowedOrigins: 'cors', with the real @fastify/cors (issue 11, item 9)", async (t) => {
  const app = await browserApp()
  t.teardown(() => app.close())

  t.test('a preflight on the endpoint is answered by the host\'s CORS plugin, with the methods and headers', async (t) => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization, mcp-protocol-version, mcp-method, mcp-name, mcp-param-precision' }
    })
    t.equal(res.statusCode, 204)
    t.equal(res.headers['access-control-allow-origin'], 'https://app.example.com')
    t.equal(res.headers['access-control-allow-methods'], 'GET, POST, DELETE')
    t.equal(res.headers['access-control-allow-headers'], ALLOWED_HEADERS.join(', '))
    const other = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })
    t.equal(other.headers['access-control-allow-origin'], undefined, 'a disallowed origin gets no Access-Control-Allow-Origin: the browser stops there')
  })

  t.test('a 2026-07-28 call from an allowed origin is answered, with the CORS headers', async (t) => {
    for (const origin of BROWSER_ORIGINS) {
      const res = await app.inject(modernRequest('tools/call', { name: 'add', arguments: { a: 1, b: 2, precision: 0 } }, { origin, 'mcp-param-precision': '0' }))
      t.equal(res.statusCode, 200, origin)
      t.same(rpc(res).result.structuredContent, { sum: 3 })
      t.equal(res.headers['access-control-allow-origin'], origin)
      t.equal(res.headers['access-control-expose-headers'], EXPOSED_HEADERS.join(', '))
    }
  })

  t.test('a 2025 session from an allowed origin: initialize exposes Mcp-Session-Id, the session\'s requests pass', async (t) => {
    const origin = 'https://app.example.com'
    const init = await app.inject(post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } } }, { origin }))
    t.equal(init.statusCode, 200)
    const sessionId = init.headers['mcp-session-id']
    t.type(sessionId, 'string')
    t.equal(init.headers['access-control-allow-origin'], origin)
    t.match(init.headers['access-control-expose-headers'], /(^|, )Mcp-Session-Id(,|$)/, 'the browser may read Mcp-Session-Id')
    const list = await app.inject(legacyRequest(sessionId as string, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin }))
    t.equal(list.statusCode, 200)
    t.same(rpc(list).result.tools.map((tool: { name: string }) => tool.name), ['add', 'count'])
    t.equal(list.headers['access-control-allow-origin'], origin)
    const end = await app.inject({ method: 'DELETE', url: '/mcp', headers: { origin, 'mcp-session-id': sessionId as string, 'mcp-protocol-version': '2025-11-25' } })
    t.equal(end.statusCode, 204)
    t.equal(end.headers['access-control-allow-origin'], origin)
  })

  t.test('a streamed answer keeps the CORS headers the host\'s hook set', async (t) => {
    const origin = 'http://localhost:5173'
    const res = await app.inject(modernRequest('tools/call', { name: 'count', arguments: {}, _meta: { progressToken: 1 } }, { origin }))
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'text/event-stream')
    t.equal(res.headers['access-control-allow-origin'], origin)
    t.equal(res.headers['access-control-expose-headers'], EXPOSED_HEADERS.join(', '))
    t.match(res.body, /^data: .*"text":"counted"/m)
  })

  t.test('a disallowed origin is refused by the plugin: 403 naming it, and the reason logged', async (t) => {
    const log = captureLog()
    const logged = await browserApp({}, {}, { logger: log.logger })
    t.teardown(() => logged.close())
    for (const origin of ['https://evil.example', 'https://app.example.com:8443', 'null']) {
      const answer = await send(logged, modernRequest('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, { origin }))
      t.equal(answer.status, 403, origin)
      t.same(answer.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Forbidden: Origin ${JSON.stringify(origin)} is not allowed` } })
      t.equal(answer.headers['access-control-allow-origin'], undefined)
    }
    t.match(log.lines.find((line) => line.origin === 'https://evil.example'), {
      level: 30,
      msg: "fastify-sake: refused a request whose Origin the host's CORS setup does not allow (allowedOrigins: 'cors': no Access-Control-Allow-Origin for it on the reply, as @fastify/cors sets in its onRequest hook; DNS-rebinding protection)"
    })
  })

  t.test('no Origin (a non-browser client) passes; the Host check stays as it was', async (t) => {
    t.equal((await status(app, {})).status, 200)
    const answer = await status(app, { host: 'evil.example', origin: 'https://app.example.com' })
    t.equal(answer.status, 403)
    t.equal(answer.body.error.message, 'Forbidden: Host "evil.example" is not allowed')
  })
})

t.test("allowedOrigins: 'cors' follows whatever @fastify/cors decided", async (t) => {
  t.test("origin '*' (its default) and origin: true let every origin through", async (t) => {
    for (const origin of ['*', true]) {
      const app = await browserApp({ origin })
      t.teardown(() => app.close())
      t.equal((await status(app, { origin: 'https://anyone.example' })).status, 200, String(origin))
    }
  })

  t.test('a fixed origin string: only that origin, compared exactly, as the browser does', async (t) => {
    const app = await browserApp({ origin: 'https://app.example.com' })
    t.teardown(() => app.close())
    t.equal((await status(app, { origin: 'https://app.example.com' })).status, 200)
    t.equal((await status(app, { origin: 'https://other.example' })).status, 403, 'the header names another origin')
    t.equal((await status(app, { origin: 'https://APP.example.com' })).status, 403, 'not the exact origin')
  })

  t.test('an async origin function and a RegExp', async (t) => {
    const app = await browserApp({ origin: async (origin: string | undefined) => origin === 'https://app.example.com' })
    t.teardown(() => app.close())
    t.equal((await status(app, { origin: 'https://app.example.com' })).status, 200)
    t.equal((await status(app, { origin: 'https://evil.example' })).status, 403)
    const pattern = await browserApp({ origin: /^https:\/\/[a-z0-9-]+\.example\.com$/ })
    t.teardown(() => pattern.close())
    t.equal((await status(pattern, { origin: 'https://pr-7.example.com' })).status, 200)
    t.equal((await status(pattern, { origin: 'https://evil.example' })).status, 403)
  })

  t.test('@fastify/cors registered after the plugin still decides: a root hook runs before the route\'s', async (t) => {
    const app = Fastify({ logger: false })
    await app.register(sake, { name: 'my-service', version: '1.0.0', allowedOrigins: 'cors' })
    await app.register(cors, { origin: BROWSER_ORIGINS })
    t.teardown(() => app.close())
    t.equal((await status(app, { origin: 'https://app.example.com' })).status, 200)
    t.equal((await status(app, { origin: 'https://evil.example' })).status, 403)
  })

  t.test('without @fastify/cors, or with its hook after onRequest, nothing is allowed: every Origin is 403', async (t) => {
    const bare = await build({ allowedOrigins: 'cors' })
    t.teardown(() => bare.close())
    t.equal((await status(bare, { origin: 'https://app.example.com' })).status, 403)
    t.equal((await status(bare, {})).status, 200, 'no Origin still passes')
    const late = await browserApp({ hook: 'preHandler' })
    t.teardown(() => late.close())
    t.equal((await status(late, { origin: 'https://app.example.com' })).status, 403, 'preHandler runs after the check')
  })
})

t.test("docs/browser-clients.md's recipe: @fastify/cors with mcpCors, the plugin following its origins", async (t) => {
  const app = Fastify({ logger: false })
  await app.register(cors, mcpCors({ origin: BROWSER_ORIGINS }))
  await app.register(sake, { name: 'my-service', version: '1.0.0', allowedOrigins: 'cors' })
  app.registerTool({
    name: 'add',
    args: { a: Type.Number(), b: Type.Number(), precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, header: 'Precision' })) },
    execute: ({ a, b }) => ({ sum: a + b })
  })
  t.teardown(() => app.close())
  const origin = 'http://localhost:5173'
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/mcp',
    headers: { origin, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'content-type, mcp-session-id, mcp-protocol-version, mcp-param-precision' }
  })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], origin)
  t.equal(preflight.headers['access-control-allow-methods'], METHODS.join(', '), 'DELETE among them: a 2025 session ends with one')
  t.equal(preflight.headers['access-control-allow-headers'], 'content-type, mcp-session-id, mcp-protocol-version, mcp-param-precision', "the quick start's Mcp-Param-Precision too")
  const init = await app.inject(post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } } }, { origin }))
  t.equal(init.statusCode, 200)
  t.match(init.headers['access-control-expose-headers'], /(^|, )Mcp-Session-Id(,|$)/, 'the page may read its session')
  const call = await app.inject(modernRequest('tools/call', { name: 'add', arguments: { a: 1, b: 2, precision: 0 } }, { origin: BROWSER_ORIGINS[0]!, 'mcp-param-precision': '0' }))
  t.same(rpc(call).result.structuredContent, { sum: 3 })
  const end = await app.inject({ method: 'DELETE', url: '/mcp', headers: { origin, 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' } })
  t.equal(end.statusCode, 204)
  const refused = await send(app, modernRequest('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, { origin: 'https://evil.example' }))
  t.equal(refused.status, 403, 'an origin not in the list: refused by the plugin, as CORS would')
})

t.test('docs/browser-clients.md shows the recipe these tests run, and the hand-written options', async (t) => {
  // whitespace as one space: a code span may wrap across lines
  const page = (await readFile(new URL('../../docs/browser-clients.md', import.meta.url), 'utf8')).replace(/\s+/g, ' ')
  const list = (items: string[]): string => `[${items.map((item) => `'${item}'`).join(', ')}]`
  for (const line of [
    `await app.register(cors, mcpCors({ origin: ${list(BROWSER_ORIGINS)} }))`,
    "await app.register(sake, { name: 'my-service', version: '1.0.0', allowedOrigins: 'cors' })",
    `methods: ${list(METHODS)}`,
    `exposedHeaders: ${list(EXPOSED_HEADERS)}`
  ]) t.ok(page.includes(line), line)
})

t.test('the options and the helpers behind the checks (was origin/options)', async (t) => {
  const base = { name: 'test-server', version: '1.0.0' }

  /** Registration with `options` over name and version fails with `message`. */
  async function refused (t: Test, options: Record<string, unknown>, message: RegExp | string): Promise<void> {
    await refusesRegister(t, { ...base, ...options }, message)
  }

  t.test('defaults: undefined (the loopback default) for both', async (t) => {
    const resolved = resolveOptions(base)
    t.equal(resolved.allowedHosts, undefined)
    t.equal(resolved.allowedOrigins, undefined)
  })

  t.test('false turns a check off', async (t) => {
    const resolved = resolveOptions({ ...base, allowedHosts: false, allowedOrigins: false })
    t.equal(resolved.allowedHosts, false)
    t.equal(resolved.allowedOrigins, false)
  })

  t.test('lists are normalised and frozen', async (t) => {
    const resolved = resolveOptions({
      ...base,
      allowedHosts: ['LocalHost', 'mcp.example.com:8443', '[::1]', '[::1]:3000', '10.0.0.1', ' spaced.example '],
      allowedOrigins: ['https://App.Example.com', 'http://localhost:5173', 'http://[::1]:8080']
    })
    t.same(resolved.allowedHosts, ['localhost', 'mcp.example.com:8443', '[::1]', '[::1]:3000', '10.0.0.1', 'spaced.example'])
    t.same(resolved.allowedOrigins, ['https://app.example.com', 'http://localhost:5173', 'http://[::1]:8080'])
    t.ok(Object.isFrozen(resolved.allowedHosts) && Object.isFrozen(resolved.allowedOrigins))
  })

  t.test('allowedHosts refusals', async (t) => {
    const accepts = "must be a non-empty array of host names \\('localhost', 'mcp.example.com:8443'\\), or false to turn the check off"
    await refused(t, { allowedHosts: [] }, new RegExp(`^fastify-sake: option 'allowedHosts' ${accepts}, got \\[\\] \\(array\\)$`))
    await refused(t, { allowedHosts: true }, new RegExp(`option 'allowedHosts' ${accepts}, got true \\(boolean\\)$`))
    await refused(t, { allowedHosts: 'localhost' }, new RegExp(`option 'allowedHosts' ${accepts}, got "localhost" \\(string\\)$`))
    await refused(t, { allowedHosts: null }, /option 'allowedHosts' must be .* got null \(null\)$/)
    await refused(t, { allowedHosts: ['localhost', 42] }, "fastify-sake: option 'allowedHosts[1]' is not a non-empty string; got 42 (number)")
    await refused(t, { allowedHosts: [''] }, "fastify-sake: option 'allowedHosts[0]' is not a non-empty string; got \"\" (string)")
    await refused(t, { allowedHosts: ['http://localhost:3000'] }, /^fastify-sake: option 'allowedHosts\[0\]' is a URL; give a host name such as localhost or localhost:3000 \(full origins go in allowedOrigins\); got "http:\/\/localhost:3000" \(string\)$/)
    const notHost = /option 'allowedHosts\[0\]' is not a host name with an optional port \(IPv6 addresses in brackets: \[::1\]:3000\)/
    for (const bad of ['local host', 'localhost:', 'localhost:99999', 'localhost:abc', '::1', '[::1', 'a..b', '-a.com', 'a.com/path', 'a.com:80:80']) {
      await refused(t, { allowedHosts: [bad] }, notHost)
    }
  })

  t.test('allowedOrigins refusals', async (t) => {
    await refused(t, { allowedOrigins: [] }, /^fastify-sake: option 'allowedOrigins' must be a non-empty array of origins \('https:\/\/app\.example\.com'\), 'cors' to accept what @fastify\/cors allows, a function \(origin, request\) => boolean, or false to turn the check off, got \[\] \(array\)$/)
    await refused(t, { allowedOrigins: [7] }, "fastify-sake: option 'allowedOrigins[0]' is not a non-empty string; got 7 (number)")
    const notOrigin = /^fastify-sake: option 'allowedOrigins\[0\]' is not an origin: give a scheme, a host and an optional port, such as https:\/\/app\.example\.com or http:\/\/localhost:5173, with no path, no trailing slash and no default port; got /
    for (const bad of ['localhost:3000', 'app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'https://app.example.com:443', 'null', 'file:///tmp/x', 'https://user@app.example.com', 'https://app.example.com?x', '*']) {
      await refused(t, { allowedOrigins: [bad] }, notOrigin)
    }
  })

  t.test('splitHost', async (t) => {
    t.same(splitHost('LOCALHOST:3000'), { name: 'localhost', port: '3000' })
    t.same(splitHost('127.0.0.1'), { name: '127.0.0.1', port: '' })
    t.same(splitHost('[::1]:8080'), { name: '[::1]', port: '8080' })
    t.same(splitHost('[::1]'), { name: '[::1]', port: '' })
    for (const bad of ['', ':80', '[::1]x', 'a b', 'localhost:65536', 'evil.example.com@localhost']) t.equal(splitHost(bad), undefined, JSON.stringify(bad))
  })

  t.test('isLoopback', async (t) => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) t.ok(isLoopback(address), address)
    for (const address of [undefined, '10.0.0.1', '::', '::ffff:10.0.0.1', '0.0.0.0', '127.example', 'fe80::1']) t.notOk(isLoopback(address), String(address))
  })
})
