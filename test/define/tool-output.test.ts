// `output`: a property map (like args) or one whole TypeBox schema, sent as outputSchema and used
// to validate what execute returns. Legacy clients need an object root.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { compileTool, type ToolDefinition } from '../../lib/define/tool.js'

const execute = (): string => 'ok'

function compiled (output: unknown): ReturnType<typeof compileTool> {
  return compileTool({ name: 'demo', output, execute } as ToolDefinition)
}

t.test('a property map becomes an object outputSchema', async (t) => {
  const tool = compiled({ sum: Type.Number(), note: Type.Optional(Type.String()) })
  const schema = { type: 'object', properties: { sum: { type: 'number' }, note: { type: 'string' } }, required: ['sum'] }
  t.same(tool.wire.modern.outputSchema, schema)
  t.same(tool.wire.legacy.outputSchema, schema, 'legacy clients get it too')
  t.equal(tool.objectOutput, true)
  t.ok(tool.validateOutput!({ sum: 3 }))
  t.notOk(tool.validateOutput!({ sum: '3' }))
  t.notOk(tool.validateOutput!({}))
})

t.test('a whole object schema', async (t) => {
  const tool = compiled(Type.Object({ items: Type.Array(Type.String()) }, { additionalProperties: false }))
  t.same(tool.wire.modern.outputSchema, { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } }, required: ['items'], additionalProperties: false })
  t.equal(tool.objectOutput, true)
  t.notOk(tool.validateOutput!({ items: [], extra: 1 }))
})

t.test('a non-object root: modern clients get it, legacy ones do not', async (t) => {
  const tool = compiled(Type.Array(Type.Number()))
  t.same(tool.wire.modern.outputSchema, { type: 'array', items: { type: 'number' } })
  t.notOk('outputSchema' in tool.wire.legacy, 'a 2025 outputSchema must have an object root: no schema rather than a wrong one')
  t.equal(tool.objectOutput, false)
  t.ok(tool.validateOutput!([1, 2]))
  t.notOk(tool.validateOutput!([1, 'x']))
  t.equal(tool.wire.legacy.inputSchema, tool.wire.modern.inputSchema, 'the rest is shared')
})

t.test('a plain JSON Schema goes through Type.Unsafe', async (t) => {
  const tool = compiled(Type.Unsafe({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }))
  t.same(tool.wire.modern.outputSchema, { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] })
  t.notOk(tool.validateOutput!({ ok: 'yes' }))
})

t.test('mistakes', async (t) => {
  t.throws(() => compiled({ type: 'object', properties: { ok: { type: 'boolean' } } }), {
    code: 'SAKE_ERR_INVALID_TOOL',
    message: "tool 'demo': 'output' is a plain JSON Schema; wrap it as Type.Unsafe(schema), or give a map of TypeBox properties"
  })
  t.throws(() => compiled({ $schema: 'http://json-schema.org/draft-07/schema#', properties: {} }), { message: /'output' is a plain JSON Schema/ })
  t.throws(() => compiled('number'), { message: "tool 'demo': 'output' must be a map of TypeBox properties or a TypeBox schema, got string" })
  t.throws(() => compiled([Type.Number()]), { message: /got an array$/ })
  t.throws(() => compiled({ sum: 'number' }), { message: "tool 'demo': output property 'sum' must be a TypeBox schema, got string" })
  t.throws(() => compiled({ sum: { type: 'number' } }), { message: /output property 'sum' must be a TypeBox schema, got object$/ })
})
