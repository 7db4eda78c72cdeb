// The MCP routes in the service's OpenAPI document, with the real @fastify/swagger: none by default
// (registered before the plugin, the usual order, or after), the POST alone with `openapi`, never
// the 405 twins or the metadata routes; routes offered as tools stay as the host declared them;
// a documented POST still takes every message the plugin takes (the schema documents, it does not check).
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import swagger from '@fastify/swagger'
import sake, { Type } from '../../lib/index.js'
import { modernRequest, send } from '../helpers/requests.js'

const AUTH = { resource: 'http://localhost/mcp', authorizationServers: ['https://as.example.com'], verify: async (token: string) => ({ subject: token, scopes: [] }) }

async function service (order: 'swagger first' | 'sake first', options: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify()
  const docs = async (): Promise<void> => { await app.register(swagger, { openapi: { info: { title: 'svc', version: '1' } } }) }
  if (order === 'swagger first') await docs()
  await app.register(sake, { name: 's', version: '1', ...options })
  if (order === 'sake first') await docs()
  app.get('/health', { schema: { summary: 'Health' } }, async () => ({ ok: true }))
  app.get('/notes/:id', { schema: { params: Type.Object({ id: Type.Integer() }), response: { 200: Type.Object({ id: Type.Integer() }) } }, config: { mcp: { name: 'get_note' } } }, async (request) => ({ id: (request.params as { id: number }).id }))
  await app.ready()
  return app
}

t.test('by default the document shows none of the plugin\'s routes, whichever was registered first', async (t) => {
  for (const order of ['swagger first', 'sake first'] as const) {
    for (const auth of [undefined, AUTH]) {
      const app = await service(order, auth === undefined ? {} : { auth: AUTH })
      t.teardown(() => app.close())
      const paths = Object.keys((app as any).swagger().paths).sort()
      t.same(paths, ['/health', '/notes/{id}'], `${order}${auth === undefined ? '' : ', auth on'}: the host's routes, the route tool as declared, nothing of ours`)
    }
  }
})

t.test('openapi: the POST alone, with its summary, description, tags and request body; GET, DELETE, the 405s and the metadata stay out', async (t) => {
  // @fastify/swagger documents the routes declared after it: registered first, as for any route
  const late = await service('sake first', { openapi: true })
  t.teardown(() => late.close())
  t.same(Object.keys((late as any).swagger().paths).sort(), ['/health', '/notes/{id}'], 'swagger registered after the plugin sees none of its routes (its rule for every route)')
  {
    const app = await service('swagger first', { auth: AUTH, openapi: { tags: ['mcp'], summary: 'AI tools' } })
    t.teardown(() => app.close())
    const { paths } = (app as any).swagger()
    t.same(Object.keys(paths).sort(), ['/health', '/mcp', '/notes/{id}'])
    t.same(Object.keys(paths['/mcp']), ['post'], 'POST only: no GET, DELETE, HEAD, PUT or PATCH')
    const post = paths['/mcp'].post
    t.equal(post.summary, 'AI tools')
    t.match(post.description, /Model Context Protocol over Streamable HTTP/)
    t.same(post.tags, ['mcp'])
    t.match(post.requestBody.content['application/json'].schema, { type: 'object', required: ['jsonrpc'], properties: { method: { type: 'string' } } })
  }
  const app = await service('swagger first', { openapi: true })
  t.teardown(() => app.close())
  t.equal((app as any).swagger().paths['/mcp'].post.summary, 'MCP endpoint', 'true: the default summary')
  // the documented schema checks nothing: the plugin's own errors answer, as without it
  const notRpc = await send(app, { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: '{"hello":1}' })
  t.equal(notRpc.body.error.code, -32600, 'a body that is not JSON-RPC: the plugin\'s -32600, not a Fastify validation 400')
  const batch = await send(app, { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: '[]' })
  t.equal(batch.body.error.code, -32600, 'an array reaches the plugin too')
  const call = await send(app, modernRequest('tools/call', { name: 'get_note', arguments: { id: 3 } }))
  t.same(call.body.result.structuredContent, { id: 3 }, 'calls work as ever')
})

t.test('the openapi option is checked at registration', async (t) => {
  for (const [openapi, message] of [
    ['yes', /option 'openapi' must be true, false, or \{ summary\?, description\?, tags\? \}/],
    [{ tags: 'mcp' }, /option 'openapi\.tags' must be an array of tag names/],
    [{ summary: 1 }, /option 'openapi\.summary' must be a string/],
    [{ description: false }, /option 'openapi\.description' must be a string/],
    [{ tag: ['a'] }, /unknown option 'openapi\.tag' \(did you mean 'openapi\.tags'\?\)/]
  ] as const) {
    await t.rejects(async () => { await Fastify().register(sake, { name: 's', version: '1', openapi: openapi as never }) }, { code: 'SAKE_ERR_INVALID_OPTION', message }, JSON.stringify(openapi))
  }
  await t.rejects(async () => { await Fastify().register(sake, { name: 's', version: '1', routeOptions: { schema: {} } as never }) }, { message: /use the plugin's 'openapi' option/ }, 'routeOptions.schema points at the option')
})
