// `args`: a map of TypeBox properties becomes the tool's inputSchema (closed, with `required` from
// the non-optional ones); every argument type and option of the seeds; defaults reach `execute`.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { compileTool, StringEnum } from '../../lib/define/tool.js'
import { build, modernRequest, rpc } from '../helpers/app.js'

const execute = (): string => 'ok'

function inputOf (args: Record<string, unknown>): Record<string, unknown> {
  return compileTool({ name: 'demo', args: args as any, execute }).wire.modern.inputSchema as Record<string, unknown>
}

function propertyOf (schema: unknown): unknown {
  return JSON.parse(JSON.stringify((inputOf({ x: schema }).properties as Record<string, unknown>).x))
}

t.test('each argument type as JSON Schema', async (t) => {
  t.same(propertyOf(Type.String()), { type: 'string' })
  t.same(propertyOf(Type.Integer()), { type: 'integer' })
  t.same(propertyOf(Type.Number()), { type: 'number' })
  t.same(propertyOf(Type.Boolean()), { type: 'boolean' })
  t.same(propertyOf(Type.Any()), {}, 'any: no type constraint')
  t.same(propertyOf(Type.Unknown()), {})
  t.same(propertyOf(Type.Array(Type.String())), { type: 'array', items: { type: 'string' } })
  t.same(propertyOf(StringEnum(['open', 'closed'])), { type: 'string', enum: ['open', 'closed'] })
  t.same(propertyOf(Type.Object({ city: Type.String(), zip: Type.Optional(Type.String()) })), {
    type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } }, required: ['city']
  }, 'a nested object: entries shaped like top-level args')
})

t.test('the options of an argument reach the schema', async (t) => {
  t.same(propertyOf(Type.String({ description: 'Search text', minLength: 2, maxLength: 10, pattern: '^[a-z]+$', default: 'abc' })),
    { type: 'string', description: 'Search text', minLength: 2, maxLength: 10, pattern: '^[a-z]+$', default: 'abc' })
  t.same(propertyOf(Type.Integer({ minimum: 0, maximum: 10 })), { type: 'integer', minimum: 0, maximum: 10 })
  t.same(propertyOf(Type.String({ format: 'date-time' })), { type: 'string', format: 'date-time' })
  t.same(propertyOf(StringEnum(['a', 'b'], { description: 'pick one', default: 'a' })), { description: 'pick one', default: 'a', type: 'string', enum: ['a', 'b'] })
})

t.test('the root: an object, closed, with required from non-optional args', async (t) => {
  const schema = inputOf({ a: Type.Number(), b: Type.Optional(Type.Number()) })
  t.same(schema, { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a'], additionalProperties: false })
  t.same(inputOf({}), { type: 'object', properties: {}, additionalProperties: false }, 'no args: the empty closed object the spec recommends')
  t.same(compileTool({ name: 'none', execute }).wire.modern.inputSchema, { type: 'object', properties: {}, additionalProperties: false }, 'args left out')
})

t.test('argument names reach the schema exactly as declared', async (t) => {
  const schema = inputOf({ resourceUri: Type.String(), snake_case: Type.String(), 'dotted.name': Type.String() })
  t.same(Object.keys(schema.properties as object), ['resourceUri', 'snake_case', 'dotted.name'])
})

t.test('validation follows the declared rules', async (t) => {
  const { validate } = compileTool({
    name: 'demo',
    args: {
      text: Type.String({ minLength: 2, maxLength: 5, pattern: '^[a-z]+$' }),
      count: Type.Integer({ minimum: 1, maximum: 3 }),
      ratio: Type.Optional(Type.Number()),
      flag: Type.Optional(Type.Boolean()),
      anything: Type.Optional(Type.Any()),
      tags: Type.Optional(Type.Array(Type.String())),
      status: Type.Optional(StringEnum(['open', 'closed'])),
      when: Type.Optional(Type.String({ format: 'date-time' })),
      address: Type.Optional(Type.Object({ city: Type.String() }))
    },
    execute
  })
  const ok = { text: 'abc', count: 2 }
  t.ok(validate({ ...ok }), 'the minimum valid call')
  t.ok(validate({ ...ok, ratio: 0.5, flag: true, anything: [1, 'x'], tags: ['a'], status: 'open', when: '2026-07-28T10:00:00Z', address: { city: 'Paris' } }), 'every argument')
  const bad: Array<[string, Record<string, unknown>]> = [
    ['too short', { ...ok, text: 'a' }],
    ['too long', { ...ok, text: 'abcdef' }],
    ['pattern', { ...ok, text: 'ABC' }],
    ['below minimum', { ...ok, count: 0 }],
    ['above maximum', { ...ok, count: 4 }],
    ['not an integer', { ...ok, count: 1.5 }],
    ['number as string', { ...ok, ratio: '0.5' }],
    ['boolean as string', { ...ok, flag: 'true' }],
    ['array item type', { ...ok, tags: [1] }],
    ['enum', { ...ok, status: 'pending' }],
    ['format', { ...ok, when: 'yesterday' }],
    ['nested required', { ...ok, address: {} }],
    ['missing required', { text: 'abc' }],
    ['unknown argument', { ...ok, txet: 'abc' }]
  ]
  for (const [what, args] of bad) t.notOk(validate(args), what)
})

t.test('nested objects stay open unless they say otherwise; the root is closed', async (t) => {
  const { validate } = compileTool({
    name: 'demo',
    args: {
      open: Type.Optional(Type.Object({ a: Type.String() })),
      closed: Type.Optional(Type.Object({ a: Type.String() }, { additionalProperties: false }))
    },
    execute
  })
  t.ok(validate({ open: { a: 'x', extra: 1 } }))
  t.notOk(validate({ closed: { a: 'x', extra: 1 } }))
  t.notOk(validate({ extra: 1 }))
})

t.test('defaults are filled in before execute runs', async (t) => {
  const { validate } = compileTool({
    name: 'demo',
    args: { n: Type.Optional(Type.Integer({ default: 100 })), mode: Type.Optional(StringEnum(['fast', 'slow'], { default: 'fast' })) },
    execute
  })
  const args: Record<string, unknown> = {}
  t.ok(validate(args))
  t.same(args, { n: 100, mode: 'fast' }, 'the validator fills the defaults in')
  const given: Record<string, unknown> = { n: 3 }
  validate(given)
  t.same(given, { n: 3, mode: 'fast' }, 'a given value is kept')
})

t.test('execute receives the defaults over the wire', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  let received: unknown
  app.registerTool({
    name: 'reindex',
    args: { n: Type.Optional(Type.Integer({ default: 100 })), label: Type.String() },
    execute: (args) => {
      received = args
      return `Indexed ${String(args.n)} issues`
    }
  })
  const res = await app.inject(modernRequest('tools/call', { name: 'reindex', arguments: { label: 'x' } }))
  t.equal(res.statusCode, 200)
  t.same(rpc(res).result.content, [{ type: 'text', text: 'Indexed 100 issues' }])
  t.same(received, { label: 'x', n: 100 })
})
