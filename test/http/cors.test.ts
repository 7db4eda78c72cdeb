// mcpCors (lib/http/cors.ts) with the real @fastify/cors: a preflight answered with DELETE and
// exactly the MCP headers it asked for (a tool's Mcp-Param-* too, nothing else), Mcp-Session-Id
// exposed, the plugin following the same origin list (allowedOrigins: 'cors'); and a page in a
// real headless Chromium on another origin that opens a 2025 session, calls a tool, ends the
// session, and makes a 2026-07-28 call with a mirrored header, while a page on an origin not in the
// list gets nothing.
import { existsSync } from 'node:fs'
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import cors from '@fastify/cors'
import { chromium } from 'playwright-core'
import sake, { Type, mcpCors } from '../../lib/index.js'
import { listen } from '../helpers/app.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

async function service (origins: string[]): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(cors, mcpCors({ origin: origins, allowedHeaders: ['X-Trace'], exposedHeaders: ['X-Served-By'], maxAge: 600 }))
  await app.register(sake, { name: 'browser', version: '1', allowedOrigins: 'cors' })
  app.registerTool({ name: 'round', args: { value: Type.Number(), precision: Type.Integer({ header: 'Precision' } as never) }, execute: ({ value, precision }) => value.toFixed(precision) })
  app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => String(a + b) })
  return app
}

t.test('the preflight: GET, POST and DELETE, the MCP headers asked for (Mcp-Param-* included), nothing else; the answers expose the session', async (t) => {
  const app = await service(['https://app.example.com'])
  t.teardown(() => app.close())
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/mcp',
    headers: { origin: 'https://app.example.com', 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'content-type, Mcp-Session-Id, mcp-protocol-version, Mcp-Param-Precision, authorization, x-trace, x-evil, mcp-param-' }
  })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], 'https://app.example.com')
  t.equal(preflight.headers['access-control-allow-methods'], 'GET, POST, DELETE')
  t.equal(preflight.headers['access-control-allow-headers'], 'content-type, Mcp-Session-Id, mcp-protocol-version, Mcp-Param-Precision, authorization, x-trace', 'the MCP ones and the extra one: x-evil and a bare mcp-param- left out')
  t.equal(preflight.headers['access-control-max-age'], '600')
  const init = await app.inject({ method: 'POST', url: '/mcp', headers: { origin: 'https://app.example.com', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } } })
  t.equal(init.statusCode, 200)
  t.equal(init.headers['access-control-expose-headers'], 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After, X-Served-By')
  const other = await app.inject({ method: 'POST', url: '/mcp', headers: { origin: 'https://evil.example.com', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } } })
  t.equal(other.statusCode, 403, 'an origin not in the list: refused by the plugin, which follows the CORS list')
  t.equal(other.headers['access-control-allow-origin'], undefined)
  const noAsk = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } })
  t.equal(noAsk.headers['access-control-allow-headers'], '', 'a preflight that asks for no header is allowed none')
  t.throws(() => mcpCors(undefined as never), /mcpCors takes \{ origin, allowedHeaders\?/)
  t.throws(() => mcpCors({} as never), TypeError)
  t.same(mcpCors({ origin: '*' }).hook, 'onRequest')
})

t.test('a page in headless Chromium on an allowed origin: a 2025 session (initialize, a call, DELETE) and a 2026-07-28 call with Mcp-Param-Precision; another origin gets nothing', async (t) => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's (apt-get install -y chromium; .ci/run does), or point CHROMIUM_PATH at one`)
  const pages = Fastify()
  pages.get('/', async (_request, reply) => reply.type('text/html').send('<!doctype html><title>page</title>'))
  const pageUrl = await listen(t, pages)
  const allowed = new URL(pageUrl).origin
  // the same page server under another name: another origin to the browser
  const stranger = allowed.replace('127.0.0.1', 'localhost')
  const app = await service([allowed])
  const endpoint = `${await listen(t, app)}`
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  t.teardown(() => browser.close())

  const page = await browser.newPage()
  await page.goto(pageUrl)
  const outcome = await page.evaluate(async (url) => {
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const init = await fetch(url, { method: 'POST', headers: base, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }) })
    const session = init.headers.get('mcp-session-id')
    const legacy = { ...base, 'mcp-session-id': session ?? '', 'mcp-protocol-version': '2025-11-25' }
    await fetch(url, { method: 'POST', headers: legacy, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
    const call: any = await (await fetch(url, { method: 'POST', headers: legacy, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }) })).json()
    const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session ?? '', 'mcp-protocol-version': '2025-11-25' } })
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'page', version: '1' } }
    const modern: any = await (await fetch(url, {
      method: 'POST',
      headers: { ...base, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'round', 'mcp-param-precision': '2' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'round', arguments: { value: 3.14159, precision: 2 }, _meta: meta } })
    })).json()
    return { session, sum: call.result?.content?.[0]?.text, deleted: deleted.status, rounded: modern.result?.content?.[0]?.text }
  }, endpoint)
  t.type(outcome.session, 'string', 'the page read Mcp-Session-Id (exposed)')
  t.equal(outcome.sum, '5', 'a call on the session')
  t.equal(outcome.deleted, 204, 'DELETE allowed by the preflight')
  t.equal(outcome.rounded, '3.14', 'a 2026-07-28 call with its Mcp-Param-Precision header')

  const away = await browser.newPage()
  await away.goto(pageUrl.replace(allowed, stranger))
  const refused = await away.evaluate(async (url) => {
    try {
      await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }) })
      return 'answered'
    } catch (err) {
      return String(err)
    }
  }, endpoint)
  t.match(refused, /TypeError: Failed to fetch/, 'a page on another origin reads nothing')
})
