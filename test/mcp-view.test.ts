// app.mcp: the read-only view of the server registered in a context (info, path, tools).
import t from 'tap'
import { Type } from '../lib/index.js'
import { build } from './helpers/app.js'

t.test('info and path', async (t) => {
  const app = await build({ title: 'Test', path: '/ai/mcp' })
  t.teardown(() => app.close())
  t.same(app.mcp.info, { name: 'test-server', version: '1.0.0', title: 'Test' })
  t.equal(app.mcp.path, '/ai/mcp')
  t.ok(Object.isFrozen(app.mcp), 'the view is frozen')
  t.ok(Object.isFrozen(app.mcp.info))
  t.throws(() => { (app.mcp as any).path = '/other' }, TypeError, 'cannot be changed (strict mode)')
})

t.test('path: the full path, a Fastify prefix included', async (t) => {
  const Fastify = (await import('fastify')).default
  const { default: sake } = await import('../lib/index.js')
  for (const [path, full] of [['/mcp', '/a/mcp'], ['/', '/a']] as const) {
    const app = Fastify({ logger: false })
    let seen: string | undefined
    await app.register(async (child) => {
      await child.register(sake, { name: 'p', version: '1', path })
      seen = child.mcp.path
    }, { prefix: '/a' })
    await app.ready()
    t.equal(seen, full, path)
    const answer = await app.inject({ method: 'GET', url: full })
    t.equal(answer.statusCode, 405, `the endpoint answers at ${full}`)
    await app.close()
  }
})

t.test('tools: a live, read-only map of the listed Tool objects', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const { tools } = app.mcp
  t.equal(tools.size, 0)
  t.equal(tools.get('add'), undefined)
  t.notOk(tools.has('add'))

  app.registerTool({ name: 'add', description: 'Adds', args: { a: Type.Number() }, execute: ({ a }) => a })
  app.registerTool({ name: 'echo', args: { s: Type.String() }, execute: ({ s }) => s })
  t.equal(tools.size, 2, 'live: sees tools registered after it was taken')
  t.ok(tools.has('add'))
  t.same(tools.get('add'), {
    name: 'add',
    description: 'Adds',
    inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false }
  }, 'the modern Tool object, as tools/list sends it')
  t.same([...tools.keys()], ['add', 'echo'])
  t.same([...tools.values()].map((tool) => tool.name), ['add', 'echo'])
  t.same([...tools.entries()].map(([name, tool]) => [name, tool.name]), [['add', 'add'], ['echo', 'echo']])
  t.same([...tools].map(([name]) => name), ['add', 'echo'], 'iterable as entries')
  const seen: Array<[string, string, boolean]> = []
  tools.forEach((tool, name, map) => seen.push([name, tool.name, map === tools]))
  t.same(seen, [['add', 'add', true], ['echo', 'echo', true]])
})

t.test('the Tool objects cannot be changed through the view', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerTool({ name: 'add', args: { a: Type.Number() }, execute: ({ a }) => a })
  const tool = app.mcp.tools.get('add') as any
  t.throws(() => { tool.name = 'evil' }, TypeError)
  t.throws(() => { tool.inputSchema.properties.a.type = 'string' }, TypeError, 'deeply')
  t.equal(app.mcp.tools.get('add')!.name, 'add')
  t.equal((app.mcp.tools as any).set, undefined, 'no set')
  t.equal((app.mcp.tools as any).delete, undefined, 'no delete')
  t.equal((app.mcp.tools as any).clear, undefined, 'no clear')
})
