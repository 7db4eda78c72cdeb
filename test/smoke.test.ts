import t from 'tap'
import { Type } from '../lib/index.js'
import { build, modernRequest, openSession, legacyRequest, rpc } from './helpers/app.js'

t.test('a tool answers in both eras', async (t) => {
  const app = await build()
  app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => a + b })
  await app.ready()
  t.teardown(() => app.close())
  const modern = await app.inject(modernRequest('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }))
  t.equal(modern.statusCode, 200)
  t.equal(rpc(modern).result.structuredContent, 3)
  const session = await openSession(app)
  const legacy = await app.inject(legacyRequest(session, '2025-11-25', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 2 } } }))
  t.same(rpc(legacy).result, { content: [{ type: 'text', text: '4' }] })
})
