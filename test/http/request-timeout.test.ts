// The warning for Fastify's requestTimeout 0 (issue 40, item 7): one warn line, naming the option and
// docs/production.md, when the app listens on an address other machines reach (our end of a veth
// pair to a network namespace, test/helpers/netns.ts), once per app; none on loopback, none with a
// request timeout, none for an app that never listens (stdio, inject), none for HTTP/2 (no such timeout).
import t, { type Test } from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import sake from '../../lib/index.js'
import { build, closeListening } from '../helpers/app.js'
import { captureLog, type LogLine } from '../helpers/logs.js'
import { createNetns } from '../helpers/netns.js'

const ns = await createNetns(t)

/** The warn lines about requestTimeout among those logged. */
function warnings (lines: LogLine[]): LogLine[] {
  return lines.filter((line) => line.level === 40 && /requestTimeout/.test(line.msg ?? ''))
}

/** An app with the plugin, logging to `log`, listening on `host` until the test ends. */
async function listening (t: Test, host: string, fastifyOptions: Record<string, unknown> = {}): Promise<LogLine[]> {
  const log = captureLog({ level: 'info' })
  const app = await build({}, { logger: log.logger, ...fastifyOptions })
  const close = closeListening(app)
  await app.listen({ host, port: 0 })
  t.teardown(close)
  return log.lines
}

t.test('listening where other machines reach it with requestTimeout 0: one warn line naming it and the page', async (t) => {
  const lines = await listening(t, ns.hostAddress)
  const found = warnings(lines)
  t.equal(found.length, 1)
  const port = (found[0]!.addresses as string[])[0]!.split(':')[1]
  t.same(found[0]!.addresses, [`${ns.hostAddress}:${port}`])
  t.equal(found[0]!.msg, `fastify-sake: Fastify's requestTimeout is 0 (its default: no limit) and the server listens on ${ns.hostAddress}:${port}, where other machines reach it: a client that sends its request slowly holds its connection open for ever. Set it when you create the app, Fastify({ requestTimeout: 60_000 }); see https://github.com/fastify-sake/fastify-sake/blob/main/docs/production.md`)
})

t.test('an IPv6 address is shown in brackets', async (t) => {
  const found = warnings(await listening(t, ns.hostAddress6))
  t.equal(found.length, 1)
  t.match(found[0]!.addresses, [new RegExp(`^\\[${ns.hostAddress6}\\]:\\d+$`)])
  t.match(found[0]!.msg, `listens on [${ns.hostAddress6}]:`)
})

t.test('once per app, however many MCP servers it has', async (t) => {
  const log = captureLog({ level: 'info' })
  const app = Fastify({ logger: log.logger })
  await app.register(async (child) => { await child.register(sake, { name: 'one', version: '1.0.0', path: '/one' }) })
  await app.register(async (child) => { await child.register(sake, { name: 'two', version: '1.0.0', path: '/two' }) })
  const close = closeListening(app)
  await app.listen({ host: ns.hostAddress, port: 0 })
  t.teardown(close)
  t.equal(warnings(log.lines).length, 1)
})

t.test('no line with a request timeout, on loopback, or for HTTP/2', async (t) => {
  t.same(warnings(await listening(t, ns.hostAddress, { requestTimeout: 30_000 })), [], 'requestTimeout set')
  t.same(warnings(await listening(t, '127.0.0.1')), [], '127.0.0.1')
  t.same(warnings(await listening(t, 'localhost')), [], 'localhost (127.0.0.1 and ::1 when there is IPv6)')
  t.same(warnings(await listening(t, ns.hostAddress, { http2: true })), [], 'HTTP/2: Fastify sets no request timeout on it')
})

t.test('no line for an app that never listens (stdio, app.inject)', async (t) => {
  const log = captureLog({ level: 'info' })
  const app = await build({}, { logger: log.logger })
  t.teardown(() => app.close())
  await app.ready()
  await app.inject({ method: 'GET', url: '/mcp' })
  t.same(warnings(log.lines), [])
})

t.test('a server listening on a Unix socket is not reachable from other machines', async (t) => {
  const log = captureLog({ level: 'info' })
  const app = await build({}, { logger: log.logger })
  const close = closeListening(app)
  const dir = await mkdtemp(join(tmpdir(), 'sake-socket-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await app.listen({ path: join(dir, 'mcp.sock') })
  t.teardown(close)
  t.same(warnings(log.lines), [])
})
