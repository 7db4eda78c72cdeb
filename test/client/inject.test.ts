import t from 'tap'
import Fastify from 'fastify'
import { injectFetch } from '../../lib/client/inject.js'

t.test('a fetch over app.inject: status, headers (repeated ones too), body, no body for 204', async (t) => {
  const app = Fastify()
  app.get('/none', async (_request, reply) => reply.code(204).send())
  app.get('/many', async (request, reply) => {
    reply.header('set-cookie', ['a=1', 'b=2'])
    return { query: request.query, method: request.method }
  })
  t.teardown(() => app.close())
  const fetchLike = injectFetch(app)
  const none = await fetchLike('http://anywhere/none', { method: 'GET', headers: {} })
  t.equal(none.status, 204)
  t.equal(none.body, null)
  const many = await fetchLike('http://anywhere/many?x=1', { method: 'GET', headers: { accept: 'application/json' }, signal: new AbortController().signal })
  t.same(await many.json(), { query: { x: '1' }, method: 'GET' })
  t.equal(many.headers.get('set-cookie'), 'a=1, b=2')
})
