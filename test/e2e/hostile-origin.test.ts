// DNS rebinding off loopback (issue 40, item 4), against the built package over a real connection
// that is not loopback: a client in a network namespace of its own (test/helpers/netns.ts), as one
// on the LAN or on a container bridge would be. Before, such a connection was not checked at all:
// `Host` and `Origin` evil.example got 200 and the tool ran. Both spec revisions say a server MUST
// validate `Origin` on all incoming connections. Now an `Origin` nothing welcomes is 403 naming the
// options to set, and the tool does not run (counted); a request without `Origin` is served as before;
// allowedOrigins (a list, a function, 'cors') and allowedHosts welcome; loopback is as it was.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import cors from '@fastify/cors'
import sake, { mcpCors, type SakeOptions } from '../../dist/index.js'
import { createNetns, type Netns, type NetnsResponse } from '../helpers/netns.js'
import { closeListening, portOf } from '../helpers/app.js'
import { modernRequest } from '../helpers/requests.js'
import { captureLog } from '../helpers/logs.js'
import { rawRequest } from '../helpers/network.js'

const ns: Netns = await createNetns(t)

interface Served {
  /** The endpoint as the namespace reaches it, or as loopback does. */
  url: string
  port: number
  /** How many times the tool ran. */
  runs: () => number
}

/** The built plugin with a tool that counts its runs, listening on `host` (by default our end of the pair) until `t` ends. */
async function serve (t: Test, options: Partial<SakeOptions> = {}, setup: (app: FastifyInstance) => Promise<void> = async () => {}, host = ns.hostAddress): Promise<Served> {
  const app = Fastify({ logger: false })
  await setup(app)
  await app.register(sake, { name: 'hostile-origin', version: '1.0.0', ...options })
  let runs = 0
  app.registerTool({ name: 'run', execute: () => { runs++; return 'ran' } })
  const close = closeListening(app)
  await app.listen({ host, port: 0 })
  t.teardown(close)
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${portOf(app)}/mcp`, port: portOf(app), runs: () => runs }
}

/** A 2026-07-28 tools/call of `run` from inside the namespace, with these headers over the client's own (Host and Origin, say). */
async function call (url: string, headers: Record<string, string | string[]> = {}): Promise<NetnsResponse> {
  const request = modernRequest('tools/call', { name: 'run', arguments: {} })
  return ns.request({ url, method: 'POST', headers: { ...request.headers as Record<string, string>, ...headers }, body: request.payload as string })
}

/** The 403 the default answers off loopback, naming the options that welcome an origin. */
function refusal (origin: string): string {
  const hint = origin === 'null'
    ? 'an opaque origin (a sandboxed frame, a file: page) is accepted only by an allowedOrigins function'
    : "list it in allowedOrigins (or set allowedOrigins: 'cors' to follow @fastify/cors), or its host in allowedHosts if it is this service's own name"
  return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed; ${hint} (DNS-rebinding protection)`
}

t.test('the connection really is not loopback: the server sees the namespace\'s address', async (t) => {
  const seen: string[] = []
  const app = Fastify({ logger: false })
  app.get('/peer', async (request) => { seen.push(request.socket.remoteAddress!, request.socket.localAddress!); return {} })
  const close = closeListening(app)
  await app.listen({ host: ns.hostAddress, port: 0 })
  t.teardown(close)
  t.equal((await ns.request({ url: `http://${ns.hostAddress}:${portOf(app)}/peer` })).status, 200)
  t.same(seen, [ns.address, ns.hostAddress])
})

t.test('the finding: Host and Origin evil.example from another machine are refused, 403 naming the option; the tool never runs', async (t) => {
  const server = await serve(t)
  const answer = await call(server.url, { host: 'evil.example', origin: 'http://evil.example' })
  t.equal(answer.status, 403)
  t.same(answer.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: refusal('http://evil.example') } })
  t.match(answer.body.error.message, /allowedOrigins/, 'the message names the option to set')
  for (const origin of ['http://evil.example:8080', 'https://evil.example', `http://${ns.hostAddress}:${server.port}`, 'http://localhost', 'null', 'not an origin']) {
    const refused = await call(server.url, { origin })
    t.equal(refused.status, 403, origin)
    t.equal(refused.body.error.message, refusal(origin))
  }
  const twice = await call(server.url, { origin: [`http://${ns.hostAddress}:${server.port}`, 'http://evil.example'] })
  t.equal(twice.status, 403, 'two Origin lines: not one origin')
  t.equal(server.runs(), 0, 'the tool never ran')
})

t.test('over IPv6 alike: a foreign Origin refused, the service\'s own bracketed address welcomed by allowedHosts', async (t) => {
  const own = `[${ns.hostAddress6}]`
  const server = await serve(t, { allowedHosts: [own] }, async () => {}, ns.hostAddress6)
  const refused = await call(server.url, { host: `${own}:${server.port}`, origin: 'http://evil.example' })
  t.equal(refused.status, 403)
  t.equal(refused.body.error.message, refusal('http://evil.example'))
  t.equal((await call(server.url, { host: `${own}:${server.port}`, origin: `http://${own}:${server.port}` })).status, 200)
  t.equal(server.runs(), 1)
})

t.test('a 2025 initialize with a foreign Origin opens no session', async (t) => {
  const server = await serve(t)
  const answer = await ns.request({
    url: server.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } })
  })
  t.equal(answer.status, 403)
  t.equal(answer.headers['mcp-session-id'], undefined)
  t.equal(answer.body.error.message, refusal('http://evil.example'))
})

t.test('without Origin (a non-browser client) nothing changes: the tool runs, whatever the Host', async (t) => {
  const server = await serve(t)
  for (const host of [`${ns.hostAddress}:${server.port}`, 'evil.example']) {
    const answer = await call(server.url, { host })
    t.equal(answer.status, 200, host)
    t.same(answer.body.result.content, [{ type: 'text', text: 'ran' }])
  }
  t.equal(server.runs(), 2)
})

t.test('allowedOrigins as a list welcomes its origins only', async (t) => {
  const server = await serve(t, { allowedOrigins: ['https://app.example.com'] })
  t.equal((await call(server.url, { origin: 'https://app.example.com' })).status, 200)
  const refused = await call(server.url, { origin: 'http://evil.example' })
  t.equal(refused.status, 403)
  t.equal(refused.body.error.message, 'Forbidden: Origin "http://evil.example" is not allowed')
  t.equal(server.runs(), 1)
})

t.test('allowedHosts welcomes the origins of the service\'s own names, with their port', async (t) => {
  const server = await serve(t, { allowedHosts: ['mcp.example.com', ns.hostAddress] })
  for (const origin of ['https://mcp.example.com', `http://${ns.hostAddress}:${server.port}`]) {
    t.equal((await call(server.url, { host: 'mcp.example.com', origin })).status, 200, origin)
  }
  const refused = await call(server.url, { host: 'mcp.example.com', origin: 'https://evil.example' })
  t.equal(refused.status, 403)
  t.equal(refused.body.error.message, refusal('https://evil.example'))
  t.equal((await call(server.url, { host: 'evil.example' })).status, 403, 'and the Host list applies off loopback, as before')
  t.equal(server.runs(), 2)
})

t.test("allowedOrigins: 'cors' welcomes what @fastify/cors allows", async (t) => {
  const server = await serve(t, { allowedOrigins: 'cors' }, async (app) => { await app.register(cors, mcpCors({ origin: ['https://app.example.com'] })) })
  const allowed = await call(server.url, { origin: 'https://app.example.com' })
  t.equal(allowed.status, 200)
  t.equal(allowed.headers['access-control-allow-origin'], 'https://app.example.com')
  t.equal((await call(server.url, { origin: 'http://evil.example' })).status, 403)
  t.equal(server.runs(), 1)
})

t.test('allowedOrigins as a function decides, with the request\'s address at hand', async (t) => {
  const seen: string[] = []
  const server = await serve(t, { allowedOrigins: (origin, request) => { seen.push(request.ip); return origin === 'https://app.example.com' } })
  t.equal((await call(server.url, { origin: 'https://app.example.com' })).status, 200)
  t.equal((await call(server.url, { origin: 'http://evil.example' })).status, 403)
  t.same(seen, [ns.address, ns.address])
  t.equal(server.runs(), 1)
})

t.test('allowedOrigins: false still turns the check off (the operator\'s choice)', async (t) => {
  const server = await serve(t, { allowedOrigins: false })
  t.equal((await call(server.url, { host: 'evil.example', origin: 'http://evil.example' })).status, 200)
  t.equal(server.runs(), 1)
})

t.test('loopback is as it was: loopback names pass, a foreign Host or Origin is refused with the message of before', async (t) => {
  const server = await serve(t, {}, async () => {}, '127.0.0.1')
  const headers = (extra: Record<string, string>): Record<string, string> => ({ ...modernRequest('tools/call', { name: 'run', arguments: {} }).headers as Record<string, string>, ...extra })
  const body = modernRequest('tools/call', { name: 'run', arguments: {} }).payload as string
  const send = async (extra: Record<string, string>): Promise<{ status: number, body: any }> => rawRequest({ port: server.port, headers: headers(extra), body })
  t.equal((await send({ host: `127.0.0.1:${server.port}`, origin: 'http://localhost:5173' })).status, 200)
  t.same((await send({ host: `127.0.0.1:${server.port}`, origin: 'http://evil.example' })).body.error, { code: -32600, message: 'Forbidden: Origin "http://evil.example" is not allowed' })
  t.same((await send({ host: 'evil.example' })).body.error, { code: -32600, message: 'Forbidden: Host "evil.example" is not allowed' })
  t.equal(server.runs(), 1)
})

t.test('a slow body stays open while requestTimeout is 0: the host is told once, at listen, when other machines reach the app', async (t) => {
  const log = captureLog({ level: 'warn' })
  const app = Fastify({ logger: log.logger })
  await app.register(sake, { name: 'hostile-origin', version: '1.0.0' })
  const close = closeListening(app)
  await app.listen({ host: ns.hostAddress, port: 0 })
  t.teardown(close)
  const told = log.lines.filter((line) => line.level === 40 && /requestTimeout/.test(String(line.msg)))
  t.equal(told.length, 1, 'one warn line')
  t.match(told[0]!.msg, /requestTimeout/)
  t.match(told[0]!.msg, /production\.md/)
})
