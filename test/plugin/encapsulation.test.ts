// Several MCP servers in one app, one per encapsulated context; and the mistake of registering a
// second one where a first already is.
import t from 'tap'
import Fastify from 'fastify'
import sake, { defineTool } from '../../lib/index.js'
import { modernRequest, rpc } from '../helpers/app.js'

const at = (url: string, req: ReturnType<typeof modernRequest>): ReturnType<typeof modernRequest> => ({ ...req, url })

t.test('two servers in sibling contexts, each with its own tools', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  const views: Record<string, typeof app.mcp> = {}
  await app.register(async (child) => {
    await child.register(sake, { name: 'server-a', version: '1.0.0', path: '/a' })
    child.registerTool({ name: 'only-a', execute: () => 'a' })
    views.a = child.mcp
  })
  await app.register(async (child) => {
    await child.register(sake, { name: 'server-b', version: '2.0.0', path: '/b', tools: [defineTool({ name: 'only-b', execute: () => 'b' })] })
    views.b = child.mcp
  })
  t.notOk(app.hasDecorator('mcp'), 'the parent has no server of its own')

  const listA = rpc(await app.inject(at('/a', modernRequest('tools/list')))).result
  const listB = rpc(await app.inject(at('/b', modernRequest('tools/list')))).result
  t.same(listA.tools.map((tool: { name: string }) => tool.name), ['only-a'])
  t.same(listB.tools.map((tool: { name: string }) => tool.name), ['only-b'])
  t.equal(listA._meta['io.modelcontextprotocol/serverInfo'].name, 'server-a')
  t.equal(listB._meta['io.modelcontextprotocol/serverInfo'].name, 'server-b')

  const callB = await app.inject(at('/b', modernRequest('tools/call', { name: 'only-a', arguments: {} })))
  t.equal(rpc(callB).error?.code, -32602, 'server b does not know server a\'s tool')
  t.equal(views.a.path, '/a')
  t.equal(views.b.info.version, '2.0.0')
  t.equal((await app.inject(modernRequest('tools/list'))).statusCode, 404, 'nothing at the default path')
})

t.test('a second server in the same context is refused', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  await app.register(sake, { name: 'one', version: '1.0.0' })
  await t.rejects(async () => { await app.register(sake, { name: 'two', version: '1.0.0', path: '/two' }) }, {
    code: 'SAKE_ERR_INVALID_OPTION',
    name: 'SakeOptionError',
    message: /^fastify-sake: an MCP server is already registered in this context or a parent of it; register each server in its own sibling context: app\.register\(async \(child\) => \{ await child\.register\(sake, \{\.\.\.\}\) \}\)$/
  })
})

t.test('a server in a child of a context that has one is refused', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  await app.register(sake, { name: 'outer', version: '1.0.0' })
  await t.rejects(async () => {
    await app.register(async (child) => {
      await child.register(sake, { name: 'inner', version: '1.0.0', path: '/inner' })
    })
  }, { code: 'SAKE_ERR_INVALID_OPTION', message: /already registered in this context or a parent of it/ })
})

t.test('the MCP routes do not change the host\'s routes', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  await app.register(sake, { name: 'host', version: '1.0.0' })
  app.post('/echo', async (request) => request.body)
  const res = await app.inject({ method: 'POST', url: '/echo', payload: { a: 1 } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { a: 1 }, 'the host keeps Fastify\'s own JSON parser')
  const bad = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{' })
  t.equal(bad.statusCode, 400)
  t.notOk('jsonrpc' in bad.json(), 'and its own error format')
})
