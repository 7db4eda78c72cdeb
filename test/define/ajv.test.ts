// compile() in define/ajv.ts, through a tool's `input`: plain JSON Schema in the dialect its `$schema`
// names (2020-12 when absent; 2019-09, draft-07 and draft-06 too, anything else refused), and
// schemas with a root `$id` or a recursive TypeBox schema compiled again and again. What `input`
// becomes on the wire is in tool.test.ts.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { compileTool } from '../../lib/define/tool.js'
import type { ToolDefinition } from '../../lib/define/tool-definition.js'
import { compile } from '../../lib/define/ajv.js'

const execute = (): string => 'ok'

function compiled (input: unknown, name = 'demo'): ReturnType<typeof compileTool> {
  return compileTool({ name, input, execute } as ToolDefinition)
}

t.test('a 2020-12 schema with $defs and prefixItems', async (t) => {
  const input = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } },
    properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
    required: ['from']
  }
  const tool = compiled(input)
  t.same(tool.wire.modern.inputSchema, input, '$schema kept on the wire as written')
  t.ok(tool.validate({ from: [1, 2], to: [3, 4] }))
  t.notOk(tool.validate({ from: [1, 'x'] }), 'prefixItems apply (a 2020-12 keyword)')
  t.notOk(tool.validate({ from: [1, 2, 3] }), 'items: false after the prefix')
})

t.test('without $schema, 2020-12 rules apply', async (t) => {
  const tool = compiled({ type: 'object', properties: { p: { type: 'array', prefixItems: [{ type: 'string' }] } } })
  t.notOk(tool.validate({ p: [1] }))
})

t.test('a draft-07 schema that says so', async (t) => {
  const input = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    definitions: { name: { type: 'string', minLength: 1 } },
    properties: { pair: { type: 'array', items: [{ $ref: '#/definitions/name' }, { type: 'integer' }], additionalItems: false } }
  }
  const tool = compiled(input)
  t.same(tool.wire.modern.inputSchema, input)
  t.ok(tool.validate({ pair: ['a', 1] }))
  t.notOk(tool.validate({ pair: ['a', 'b'] }), 'array-form items is a tuple in draft-07')
  t.notOk(tool.validate({ pair: ['a', 1, 2] }), 'additionalItems applies')
  t.notOk(tool.validate({ pair: ['', 1] }), 'definitions resolve')
})

t.test('the other spellings and dialects ajv can validate', async (t) => {
  for (const $schema of [
    'https://json-schema.org/draft-07/schema#', // https, as generators often write it
    'http://json-schema.org/draft-07/schema',
    'http://json-schema.org/draft-06/schema#',
    'https://json-schema.org/draft/2019-09/schema',
    'https://json-schema.org/draft/2020-12/schema#'
  ]) {
    const tool = compiled({ $schema, type: 'object', properties: { n: { type: 'integer' } } })
    t.ok(tool.validate({ n: 1 }), $schema)
    t.notOk(tool.validate({ n: 'x' }), `${$schema} validates`)
    t.equal((tool.wire.modern.inputSchema as any).$schema, $schema, 'the wire keeps the URI as written')
  }
})

t.test('a dialect we cannot validate is refused with the ones we can', async (t) => {
  t.throws(() => compiled({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }), {
    code: 'SAKE_ERR_INVALID_TOOL',
    message: "tool 'demo': its input schema does not compile: $schema \"http://json-schema.org/draft-04/schema#\" is not a dialect fastify-sake validates; use 2020-12 (the default when $schema is absent), 2019-09, draft-07 or draft-06"
  })
  t.throws(() => compiled({ $schema: 7, type: 'object' }), { message: /\$schema 7 is not a dialect/ })
})

t.test('a schema with a root $id can be registered again (another tool, another server)', async (t) => {
  const input = { $id: 'https://example.com/schemas/search', type: 'object', properties: { q: { type: 'string' }, next: { $ref: 'https://example.com/schemas/search' } } }
  const first = compiled(input, 'one')
  const second = compiled(input, 'two')
  t.ok(first.validate({ q: 'a', next: { q: 'b' } }))
  t.notOk(first.validate({ q: 'a', next: { q: 1 } }), 'the self reference resolves')
  t.notOk(second.validate({ q: 1 }))
  const draft07 = { ...input, $schema: 'http://json-schema.org/draft-07/schema#' }
  compiled(draft07, 'three')
  t.ok(compiled(draft07, 'four').validate({ q: 'x' }), 'in every dialect')
})

t.test('an $id already taken by a meta-schema is refused and leaves the meta-schema alone', async (t) => {
  t.throws(() => compiled({ $id: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }), {
    code: 'SAKE_ERR_INVALID_TOOL', message: /its input schema does not compile: .*already exists/
  })
  t.ok(compiled({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }), '2020-12 schemas still compile')
})

t.test('a recursive TypeBox schema, twice', async (t) => {
  const node = Type.Recursive((This) => Type.Object({ id: Type.String(), children: Type.Array(This) }))
  const input = Type.Object({ tree: node })
  t.ok(compiled(input, 'a').validate({ tree: { id: 'r', children: [{ id: 'c', children: [] }] } }))
  t.notOk(compiled(input, 'b').validate({ tree: { id: 'r', children: [{ id: 1, children: [] }] } }))
})

t.test('compiled once per distinct schema text and dialect, shared across tools; bounded, oldest out (issue 41)', async (t) => {
  const shape = { type: 'object', properties: { id: { type: 'string' } } }
  const first = compile({ ...shape })
  t.equal(compile(JSON.parse(JSON.stringify(shape))), first, 'the same text: the same validator')
  t.not(compile({ ...shape, $schema: 'http://json-schema.org/draft-07/schema#' }), first, 'another dialect: another validator')
  t.not(compile({ type: 'object', properties: { id: { type: 'number' } } }), first)
  const a = compileTool({ name: 'a', args: { id: Type.String() }, execute: () => '' })
  const b = compileTool({ name: 'b', args: { id: Type.String() }, execute: () => '' })
  t.equal(a.validate, b.validate, 'two tools with the same arguments share one')
  const described = compileTool({ name: 'c', args: { id: Type.String({ description: 'The id of c', title: 'Id', examples: ['x'] }) }, execute: () => '' })
  t.equal(described.validate, a.validate, 'annotations (description, title, examples) do not make another')
  t.same((described.wire.modern.inputSchema as any).properties.id, { description: 'The id of c', title: 'Id', examples: ['x'], type: 'string' }, 'and stay on the wire')
  const named = compileTool({ name: 'd', args: { description: Type.String({ default: 'x' }) }, execute: () => '' })
  const args: Record<string, unknown> = {}
  t.ok(named.validate(args))
  t.same(args, { description: 'x' }, "an argument named 'description' and its default are kept")
  t.not(compileTool({ name: 'e', args: { id: Type.String({ minLength: 2 }) }, execute: () => '' }).validate, a.validate, 'a rule does make another')
  t.notOk(a.validate({ id: 1 }))
  t.match(a.validate.errors, [{ instancePath: '/id', keyword: 'type' }], 'errors are those of the last call, read right after it')
  t.equal(compile({ type: 'object', properties: { id: { type: 'string', description: undefined } }, title: undefined }), first, 'a key whose value is undefined is no key, as in JSON')
  t.equal(compile({ type: 'object', properties: { id: { type: 'string' }, gone: undefined } }), first, 'nor is a property whose schema is undefined')
  t.not(compile({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }), first, 'a keyword beside them does make another')
  t.not(compile({ type: 'object', properties: { id: { type: 'string' } }, allOf: [{ required: ['id'] }] }), first, 'and one in a list of subschemas')
  t.throws(() => compile({ type: 'array', prefixItems: [undefined] }), 'undefined in a list of subschemas is null, as in JSON: not a schema')
  // values written as JSON writes them, so that values JSON tells apart get validators of their own
  const distinct = [{ const: true }, { const: false }, { const: 'true' }, { const: 1 }, { const: '1' }, { const: null }, { const: 'null' }, { enum: [1.5, null] }, { enum: [1.5, 'null'] }, { const: { a: [1] } }]
  t.equal(new Set(distinct.map((schema) => compile(schema))).size, distinct.length, 'true, false, 1, null and their strings are different keys')
  t.ok(compile({ const: true })({ ...[true] }[0]), 'and each checks its own value')
  t.notOk(compile({ const: '1' })(1))
  const long = 'x'.repeat(40)
  t.equal(compile({ type: 'string', pattern: `^${long}$` }), compile({ type: 'string', pattern: `^${long}$`, description: long }), 'a long string (not kept in the quoting cache) keys the same each time')
  t.not(compile({ type: 'string', pattern: `^${long}$` }), compile({ type: 'string', pattern: `^${long}y$` }))
  for (let n = 0; n < 4096; n++) compile({ type: 'object', properties: { [`p${n}`]: { type: 'string' } } })
  t.not(compile({ ...shape }), first, 'after 4,096 others, the first was let go and is compiled again')
})
