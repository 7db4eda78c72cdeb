// The one 500 the endpoint gives: a fault of the server itself (here a session store that fails),
// never a client's mistake. The client gets -32603 and a generic text; the log gets the error.
import t from 'tap'
import { build } from '../helpers/app.js'
import { captureLog, post, send, sessionPost } from '../helpers/http.js'
import type { SessionStore } from '../../lib/index.js'

const SECRET = 'redis: NOAUTH at 10.0.0.7:6379'

const failing: SessionStore = {
  get () { throw new Error(SECRET) },
  set () { throw new Error(SECRET) },
  delete () { throw new Error(SECRET) }
}

t.test('a failing session store is a 500 + -32603 with the error logged, not sent', async (t) => {
  const log = captureLog()
  const app = await build({ sessions: { store: failing } }, { logger: log.logger })
  t.teardown(() => app.close())

  const init = await send(app, post({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }))
  t.equal(init.status, 500)
  t.same(init.body, { jsonrpc: '2.0', id: 'i', error: { code: -32603, message: 'Internal error' } })

  const request = await send(app, sessionPost('s', '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'ping' }))
  t.equal(request.status, 500)
  t.equal(request.body.id, 2)
  t.equal(request.body.error.code, -32603)

  const get = await send(app, { method: 'GET', url: '/mcp', headers: { 'mcp-session-id': 's' } })
  t.equal(get.status, 500)
  t.equal(get.body.error.code, -32603)
  const del = await send(app, { method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': 's' } })
  t.equal(del.status, 500)
  t.equal(del.body.error.code, -32603)

  for (const answer of [init, request, get, del]) t.notOk(answer.raw.includes('NOAUTH'), 'the store\'s error stays in the log')
  const errors = log.errors()
  t.equal(errors.length, 4, 'each failure logged once')
  for (const line of errors) {
    t.equal(line.level, 50)
    t.equal(line.msg, 'fastify-sake: unexpected error on the MCP endpoint')
    t.match((line.err as { message: string }).message, SECRET)
  }
})
