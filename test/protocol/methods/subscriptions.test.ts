// resources/subscribe keeps a 2025 session within sessions.maxSize, and a subscriptions/listen's
// filter lists at most MAX_LISTED URIs or task ids (issue 40: what one caller stores, or makes the
// server read, is bounded).
import t from 'tap'
import { build } from '../../helpers/app.js'
import { modernRequest, openSession, send, sessionPost } from '../../helpers/requests.js'
import { MAX_LISTED } from '../../../lib/protocol/methods/subscriptions.js'

t.test('resources/subscribe: within sessions.maxSize; a subscription already held costs nothing', async (t) => {
  const app = await build({ sessions: { maxSize: 1024 } })
  t.teardown(() => app.close())
  await app.ready()
  const session = await openSession(app)
  const subscribe = async (uri: string, id: number): Promise<any> => (await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id, method: 'resources/subscribe', params: { uri } }))).body
  t.same((await subscribe('notes://1', 1)).result, {})
  t.same((await subscribe('notes://1', 2)).result, {}, 'again: nothing to store')
  let id = 3
  let refused: any
  for (let i = 0; i < 100 && refused === undefined; i++) {
    const answer = await subscribe(`notes://${'x'.repeat(40)}/${i}`, id++)
    if (answer.error !== undefined) refused = answer
  }
  t.equal(refused?.error.code, -32602, 'refused before the session outgrows the bound')
  t.match(refused?.error.message, /^Invalid params: subscribing to "notes:\/\/x+\/\d+" would make this session \d+ bytes, more than sessions\.maxSize \(1024\) allows; unsubscribe from resources it no longer needs$/)
  t.same((await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: id++, method: 'resources/unsubscribe', params: { uri: 'notes://1' } }))).body.result, {})
  t.same((await subscribe('notes://short', id++)).result, {}, 'room again once one is given up')
})

t.test('subscriptions/listen: at most MAX_LISTED resource URIs and task ids', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  await app.ready()
  const many = (n: number, prefix: string): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
  const listen = async (notifications: Record<string, unknown>): Promise<any> => (await send(app, modernRequest('subscriptions/listen', {
    notifications,
    _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
  }, { accept: 'application/json' }))).body
  const uris = await listen({ resourceSubscriptions: many(MAX_LISTED + 1, 'notes://') })
  t.equal(uris.error.code, -32602)
  t.equal(uris.error.message, `Invalid params: notifications.resourceSubscriptions lists ${MAX_LISTED + 1} URIs, more than one listen takes (${MAX_LISTED})`)
  const tasks = await listen({ taskIds: many(MAX_LISTED + 1, 'task-') })
  t.equal(tasks.error.message, `Invalid params: notifications.taskIds lists ${MAX_LISTED + 1} tasks, more than one listen takes (${MAX_LISTED})`)
  // at the bound the filter is taken (the request then asks for an event stream, which this client does not accept)
  const atBound = await listen({ resourceSubscriptions: many(MAX_LISTED, 'notes://') })
  t.notMatch(atBound.error?.message ?? '', /more than one listen takes/)
})
