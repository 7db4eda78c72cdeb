// server/discover and tools/list: the result shapes of each era, pagination with opaque cursors,
// and the cache hints of 2026-07-28 (ttlMs is the shortest of the server's and the page's tools').
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '../../lib/index.js'
import { build, openSession } from '../helpers/app.js'
import { captureLog, modernMeta, modernPost, send, sessionPost } from '../helpers/http.js'

const SERVER_INFO = { name: 'test-server', version: '1.0.0', title: 'Test Server' }

const log = captureLog()
let app: FastifyInstance

t.before(async () => {
  app = await build({ title: 'Test Server', instructions: 'Use the tools.', ttl: 60_000, pageSize: 2 }, { logger: log.logger })
  app.registerTool({ name: 'e_last', execute: () => 'e' })
  app.registerTool({ name: 'c_mid', ttl: 50_000, execute: () => 'c' })
  app.registerTool({ name: 'a_first', ttl: 1_000, title: 'First', description: 'The first tool', annotations: { readOnly: true, title: 'One' }, execute: () => 'a' })
  app.registerTool({ name: 'd_numbers', output: Type.Array(Type.Number()), execute: () => [1, 2] })
  app.registerTool({ name: 'b_sum', args: { region: Type.Optional(Type.String({ header: 'Region' })) }, output: { sum: Type.Number() }, execute: () => ({ sum: 1 }) })
  await app.ready()
})
t.teardown(() => app.close())

const list = (cursor?: unknown, id: number | string = 'l') =>
  modernPost({ jsonrpc: '2.0', id, method: 'tools/list', params: cursor === undefined ? { _meta: modernMeta() } : { cursor, _meta: modernMeta() } })

t.test('server/discover', async (t) => {
  const res = await send(app, modernPost({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: modernMeta() } }))
  t.equal(res.status, 200)
  t.equal(res.body.id, 'd')
  t.same(res.body.result, {
    resultType: 'complete',
    supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} },
    instructions: 'Use the tools.',
    ttlMs: 60_000,
    cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO }
  })
  t.notOk('serverInfo' in res.body.result, 'serverInfo lives in _meta, not at the top (SEP-2575)')
})

t.test('server/discover without instructions leaves the field out', async (t) => {
  const plain = await build()
  t.teardown(() => plain.close())
  const res = await send(plain, modernPost({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } }))
  t.notOk('instructions' in res.body.result)
  t.equal(res.body.result.ttlMs, 300_000, 'the default ttl')
  t.same(res.body.result._meta, { 'io.modelcontextprotocol/serverInfo': { name: 'test-server', version: '1.0.0' } })
})

t.test('modern tools/list: pages, a nextCursor chain, and per-page ttlMs', async (t) => {
  const first = await send(app, list(undefined, 1))
  t.equal(first.status, 200)
  t.equal(first.body.id, 1)
  const page1 = first.body.result
  t.same(page1.tools.map((tool: { name: string }) => tool.name), ['a_first', 'b_sum'], 'sorted by name, two a page')
  t.equal(page1.resultType, 'complete')
  t.equal(page1.ttlMs, 1_000, 'a_first\'s ttl is the shortest on the page')
  t.equal(page1.cacheScope, 'public')
  t.same(page1._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO })
  t.type(page1.nextCursor, 'string')

  const second = (await send(app, list(page1.nextCursor, 2))).body.result
  t.same(second.tools.map((tool: { name: string }) => tool.name), ['c_mid', 'd_numbers'])
  t.equal(second.ttlMs, 50_000, 'c_mid\'s ttl')
  t.equal(second.cacheScope, 'public', 'every page has the same cacheScope')
  t.type(second.nextCursor, 'string')
  t.not(second.nextCursor, page1.nextCursor)

  const third = (await send(app, list(second.nextCursor, 3))).body.result
  t.same(third.tools.map((tool: { name: string }) => tool.name), ['e_last'])
  t.equal(third.ttlMs, 60_000, 'no tool ttl: the server\'s')
  t.notOk('nextCursor' in third, 'the last page has no nextCursor')

  const again = (await send(app, list(page1.nextCursor, 4))).body.result
  t.same(again, second, 'a cursor can be reused: pages are stable')
})

t.test('modern tool objects', async (t) => {
  const page1 = (await send(app, list())).body.result
  t.same(page1.tools[0], {
    name: 'a_first',
    title: 'First',
    description: 'The first tool',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, title: 'One' }
  })
  const sum = page1.tools[1]
  t.equal(sum.inputSchema.properties.region['x-mcp-header'], 'Region', 'header sugar is sent as x-mcp-header')
  t.notOk('header' in sum.inputSchema.properties.region)
  t.same(sum.outputSchema, { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] })
  const numbers = (await send(app, list(page1.nextCursor))).body.result.tools[1]
  t.same(numbers.outputSchema, { type: 'array', items: { type: 'number' } }, 'any output schema in 2026-07-28')
})

t.test('a bad cursor is -32602', async (t) => {
  const unknown = await send(app, list('not-a-cursor', 'c1'))
  t.equal(unknown.status, 200)
  t.equal(unknown.body.error.code, -32602)
  t.equal(unknown.body.id, 'c1')
  t.match(unknown.body.error.message, /^Invalid params: unknown cursor "not-a-cursor"; start again without a cursor/)

  const numeric = await send(app, list(2, 'c2'))
  t.equal(numeric.status, 200)
  t.equal(numeric.body.error.code, -32602)
  t.match(numeric.body.error.message, /^Invalid params: "cursor" must be a string/)
})

t.test('legacy tools/list: no resultType, ttlMs, cacheScope or _meta; object output schemas only', async (t) => {
  const session = await openSession(app, '2025-11-25')
  const first = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }))
  t.equal(first.status, 200)
  const page1 = first.body.result
  t.same(Object.keys(page1).sort(), ['nextCursor', 'tools'])
  t.same(page1.tools[1].outputSchema, { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }, 'an object output schema is kept')

  const page2 = (await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: page1.nextCursor } }))).body.result
  const numbers = page2.tools.find((tool: { name: string }) => tool.name === 'd_numbers')
  t.ok(numbers, 'the array-output tool is listed')
  t.notOk('outputSchema' in numbers, 'but without its non-object output schema')

  const bad = await send(app, sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'nope' } }))
  t.equal(bad.status, 200)
  t.equal(bad.body.error.code, -32602)
})

t.test('an empty server lists no tools and no cursor', async (t) => {
  const empty = await build()
  t.teardown(() => empty.close())
  const res = await send(empty, list())
  t.same(res.body.result.tools, [])
  t.notOk('nextCursor' in res.body.result)
})

t.test('nothing here was logged as an error', async (t) => {
  t.same(log.errors(), [])
})
