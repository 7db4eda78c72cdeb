// The schema libraries told apart (schemas.ts): TypeBox 0.34 and 1.x, Standard Schemas with a JSON
// Schema export (Zod 4, Valibot through toStandardJsonSchema, ArkType), and what is none of them;
// each one's JSON Schema, whether a map entry may be left out, and a library's issues as a sentence.
import t from 'tap'
import { Type as Type034 } from '@sinclair/typebox'
import Type1 from 'typebox'
import * as z from 'zod'
import * as v from 'valibot'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import { checkStandard, explainIssues, isOptional, jsonSchemaOf, schemaKind, standardOf, type StandardParts } from '../../lib/define/schemas.js'

const fail = (message: string): never => { throw new Error(message) }

t.test('schemaKind: each library, and nothing else', async (t) => {
  t.equal(schemaKind(Type034.String()), 'typebox')
  t.equal(schemaKind(Type1.String()), 'typebox-1')
  t.equal(schemaKind(z.string()), 'standard')
  t.equal(schemaKind(toStandardJsonSchema(v.string())), 'standard')
  t.equal(schemaKind(v.string()), 'standard', 'a Valibot schema is a Standard Schema (without JSON Schema: standardOf refuses it)')
  t.equal(schemaKind(type('string')), 'standard', "ArkType's types are functions")
  for (const other of [{ type: 'string' }, null, undefined, 'string', 3, () => {}, { '~standard': null }, { '~kind': 3 }]) {
    t.equal(schemaKind(other), undefined, JSON.stringify(other) ?? String(other))
  }
})

t.test('jsonSchemaOf: TypeBox as written, a Standard Schema as its library exports it (draft 2020-12)', async (t) => {
  t.same(jsonSchemaOf(Type034.Object({ a: Type034.String() }), 'input', fail), { type: 'object', required: ['a'], properties: { a: { type: 'string' } } })
  const tb1 = jsonSchemaOf(Type1.Object({ a: Type1.String(), b: Type1.Optional(Type1.Number()) }), 'input', fail)
  t.same(tb1, { type: 'object', required: ['a'], properties: { a: { type: 'string' }, b: { type: 'number' } } })
  t.notOk('~kind' in tb1, "TypeBox 1.x's own marks stay behind")
  const zod = z.object({ n: z.string().transform((s) => s.length), d: z.number().default(2) })
  t.same(jsonSchemaOf(zod, 'input', fail), { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { n: { type: 'string' }, d: { default: 2, type: 'number' } }, required: ['n'] })
  t.throws(() => jsonSchemaOf(zod, 'output', fail), /cannot be exported as JSON Schema \(its output\): Transforms cannot be represented/)
  t.same(jsonSchemaOf(type({ a: 'number > 3' }), 'input', fail).properties, { a: { type: 'number', exclusiveMinimum: 3 } })
  t.same(jsonSchemaOf(toStandardJsonSchema(v.object({ a: v.string() })), 'input', fail).required, ['a'])
  const odd = { '~standard': { version: 1, vendor: 'odd', validate: () => ({ value: 1 }), jsonSchema: { input: () => 'text', output: () => ({}) } } }
  t.throws(() => jsonSchemaOf(odd, 'input', fail), /exported as JSON Schema string, not an object/)
  const cyclic: Record<string, unknown> = { type: 'object' }
  cyclic.self = cyclic
  t.throws(() => jsonSchemaOf(cyclic, 'input', fail), /cannot be sent as JSON/)
})

t.test('standardOf: a Standard Schema without a JSON Schema export is refused with the way to make one', async (t) => {
  t.throws(() => standardOf(v.string(), fail), /Standard Schema \(valibot\) that does not export JSON Schema.*toStandardJsonSchema\(schema\) from @valibot\/to-json-schema/)
  const zod3 = { '~standard': { version: 1, vendor: 'zod', validate: () => ({ value: 1 }) } }
  t.throws(() => standardOf(zod3, fail), /Zod 3 schemas .* use Zod 4/)
  const ark = { '~standard': { version: 1, vendor: 'arktype', validate: () => ({ value: 1 }) } }
  t.throws(() => standardOf(ark, fail), /ArkType 2\.1\.28 or later/)
  const other = { '~standard': { version: 1, validate: () => ({ value: 1 }), jsonSchema: {} } }
  t.throws(() => standardOf(other, fail), /\(unknown library\) .* must implement Standard JSON Schema/)
  t.throws(() => standardOf({ '~standard': { version: 2, validate: () => {} } }, fail), /not Standard Schema v1/)
  t.throws(() => standardOf({ '~standard': { version: 1 } }, fail), /not Standard Schema v1/)
  t.equal(standardOf(z.string(), fail).vendor, 'zod')
})

t.test('isOptional: TypeBox Optional in both versions, a Standard Schema that takes undefined', async (t) => {
  t.equal(isOptional(Type034.Optional(Type034.String())), true)
  t.equal(isOptional(Type034.String()), false)
  t.equal(isOptional(Type1.Optional(Type1.String())), true)
  t.equal(isOptional(Type1.String()), false)
  t.equal(isOptional(z.string().optional()), true)
  t.equal(isOptional(z.string().default('x')), true)
  t.equal(isOptional(z.string()), false)
  t.equal(isOptional(toStandardJsonSchema(v.optional(v.string()))), true)
  t.equal(isOptional(type('string | undefined')), true)
  t.equal(isOptional(type('string')), false)
  const later = { '~standard': { version: 1, vendor: 'x', validate: async () => ({ value: undefined }) } }
  t.equal(isOptional(later), false, 'an async answer counts as required')
  const refusing = { '~standard': { version: 1, vendor: 'x', validate: async () => { throw new Error('no') } } }
  t.equal(isOptional(refusing), false, 'and its failure is swallowed, not unhandled')
  const throwing = { '~standard': { version: 1, vendor: 'x', validate: () => { throw new Error('no') } } }
  t.equal(isOptional(throwing), false, 'a library that throws: required')
  t.equal(isOptional({ type: 'string' }), false)
})

t.test('explainIssues: where, and the library\'s own words', async (t) => {
  t.equal(explainIssues([{ message: 'Too small', path: ['a'] }, { message: 'Bad', path: [{ key: 'b' }, 0] }], 'argument'), "argument 'a': Too small; argument 'b.0': Bad")
  t.equal(explainIssues([{ message: 'Nope' }], 'argument'), 'the value: Nope')
  t.equal(explainIssues([{ message: 'Nope' }], 'argument', ['x']), "argument 'x': Nope")
  t.equal(explainIssues([{ message: 'Same', path: ['a'] }, { message: 'Same', path: ['a'] }], 'property'), "property 'a': Same", 'said once')
  const many = Array.from({ length: 10 }, (_, i) => ({ message: 'm', path: [`p${i}`] }))
  t.match(explainIssues(many, 'argument'), /; and 2 more problems$/)
  t.match(explainIssues(many.slice(0, 9), 'argument'), /; and 1 more problem$/)
})

t.test('checkStandard: whole or per property, sync or async, values as the library gives them back', async (t) => {
  const whole: StandardParts = { whole: standardOf(z.object({ n: z.string().transform((s) => s.length) }), fail), props: [] }
  t.same(checkStandard(whole, { n: 'abc' }, 'argument'), { value: { n: 3 } })
  t.same(checkStandard(whole, { n: 1 }, 'argument'), { problems: "argument 'n': Invalid input: expected string, received number" })
  const props: StandardParts = {
    whole: undefined,
    props: [['n', standardOf(z.string().transform((s) => s.length), fail)], ['o', standardOf(z.string().optional(), fail)], ['d', standardOf(z.number().default(7), fail)]]
  }
  t.same(checkStandard(props, { n: 'ab', other: true }, 'argument'), { value: { n: 2, d: 7, other: true } }, 'a default fills in; an absent optional stays absent')
  t.same(checkStandard(props, { n: 'ab', o: undefined }, 'argument'), { value: { n: 2, o: undefined, d: 7 } })
  t.same(checkStandard(props, { n: 3, o: 4 }, 'argument'), { problems: "argument 'n': Invalid input: expected string, received number; argument 'o': Invalid input: expected string, received number" })
  const slow: StandardParts = { whole: undefined, props: [['s', standardOf(z.string().refine(async (s) => s === 'ok', 'must be ok'), fail)]] }
  const pending = checkStandard(slow, { s: 'no' }, 'argument')
  t.ok(pending instanceof Promise, 'an async refinement answers with a promise')
  t.same(await pending, { problems: "argument 's': must be ok" })
  t.same(await checkStandard(slow, { s: 'ok' }, 'argument'), { value: { s: 'ok' } })
})
