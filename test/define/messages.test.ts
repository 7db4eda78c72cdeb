// explain(): ajv's errors as sentences a model can act on (which argument, which rule, what
// arrived), checked against the errors ajv really produces for each keyword.
import t from 'tap'
import type { ErrorObject } from 'ajv'
import { explain } from '../../lib/define/messages.js'
import { compile } from '../../lib/define/ajv.js'

function errorsOf (schema: Record<string, unknown>, data: unknown): ErrorObject[] {
  const validate = compile(schema)
  if (validate(data)) throw new Error('expected the data to be invalid')
  return validate.errors!
}

/** The explanation of one argument `v` with `schema` against `value`. */
function one (schema: Record<string, unknown>, value: unknown): string {
  return explain(errorsOf({ type: 'object', properties: { v: schema } }, { v: value }))
}

function synthetic (keyword: string, extra: Partial<ErrorObject> = {}): ErrorObject {
  return { keyword, instancePath: '/v', schemaPath: '#', params: {}, ...extra }
}

t.test('required', async (t) => {
  t.equal(explain(errorsOf({ type: 'object', required: ['a'] }, {})), "missing required argument 'a'")
  t.equal(explain(errorsOf({ type: 'object', properties: { filter: { type: 'object', required: ['city'] } } }, { filter: {} })), "missing required argument 'filter.city'", 'nested: the full path')
})

t.test('additionalProperties and unevaluatedProperties', async (t) => {
  t.equal(explain(errorsOf({ type: 'object', additionalProperties: false }, { txet: 1 })), "unknown argument 'txet'", 'at the root: an unknown argument')
  t.equal(explain(errorsOf({ type: 'object', properties: { filter: { type: 'object', additionalProperties: false } } }, { filter: { x: 1 } })),
    "unknown property 'x' in argument 'filter'", 'nested: a property of an argument')
  t.equal(explain(errorsOf({ type: 'object', unevaluatedProperties: false }, { y: 1 })), "unknown argument 'y'")
})

t.test('type', async (t) => {
  t.equal(one({ type: 'integer' }, 'a'), "argument 'v' must be an integer, got \"a\"", "'an' before a vowel")
  t.equal(one({ type: 'string' }, 1), "argument 'v' must be a string, got 1")
  t.equal(one({ type: 'object' }, []), "argument 'v' must be an object, got an array")
  t.equal(one({ type: 'array' }, {}), "argument 'v' must be an array, got an object")
  t.equal(one({ type: 'boolean' }, null), "argument 'v' must be a boolean, got null")
  t.equal(one({ type: 'number' }, true), "argument 'v' must be a number, got true")
  t.equal(one({ type: ['string', 'null'] }, 1), "argument 'v' must be a string or null, got 1", 'a type list, as ajv reports it')
  t.equal(one({ type: ['integer', 'array'] }, 'x'), "argument 'v' must be an integer or an array, got \"x\"")
  t.equal(explain([synthetic('type', { params: { type: 'string,number' }, data: false })]), "argument 'v' must be a string or a number, got false", 'a joined list too')
})

t.test('enum and const', async (t) => {
  t.equal(one({ enum: ['open', 'closed'] }, 'pending'), "argument 'v' must be one of \"open\", \"closed\", got \"pending\"")
  t.equal(one({ enum: [1, null] }, 2), "argument 'v' must be one of 1, null, got 2")
  t.equal(one({ const: 'yes' }, 'no'), "argument 'v' must be \"yes\", got \"no\"")
})

t.test('numeric bounds', async (t) => {
  t.equal(one({ minimum: 0 }, -1), "argument 'v' must be >= 0, got -1")
  t.equal(one({ maximum: 10 }, 11), "argument 'v' must be <= 10, got 11")
  t.equal(one({ exclusiveMinimum: 0 }, 0), "argument 'v' must be > 0, got 0")
  t.equal(one({ exclusiveMaximum: 1 }, 1.5), "argument 'v' must be < 1, got 1.5")
})

t.test('string rules', async (t) => {
  t.equal(one({ minLength: 2 }, 'a'), "argument 'v' must be at least 2 characters long, got \"a\"")
  t.equal(one({ maxLength: 3 }, 'abcd'), "argument 'v' must be at most 3 characters long, got \"abcd\"")
  t.equal(one({ pattern: '^[a-z]+$' }, 'ABC'), "argument 'v' must match the pattern ^[a-z]+$, got \"ABC\"")
  t.equal(one({ format: 'email' }, 'nope'), "argument 'v' must be a valid email, got \"nope\"")
  t.equal(one({ format: 'date-time' }, 'yesterday'), "argument 'v' must be a valid date-time, got \"yesterday\"")
})

t.test('array sizes', async (t) => {
  t.equal(one({ minItems: 2 }, [1]), "argument 'v' must have at least 2 items")
  t.equal(one({ maxItems: 1 }, [1, 2]), "argument 'v' must have at most 1 item")
  t.equal(one({ minLength: 1 }, ''), "argument 'v' must be at least 1 character long, got \"\"", 'singular for one')
  t.equal(explain(errorsOf({ type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } }, { list: ['a', 2] })),
    "argument 'list.1' must be a string, got 2", 'an item by its index')
})

t.test('if is skipped: the failing branch says why', async (t) => {
  const errors = errorsOf({ type: 'object', properties: { v: { if: { type: 'string' }, then: { minLength: 3 } } } }, { v: 'ab' })
  t.ok(errors.some((e) => e.keyword === 'if'), 'ajv reports the if')
  t.equal(explain(errors), "argument 'v' must be at least 3 characters long, got \"ab\"")
})

t.test('any other keyword uses ajv\'s own words', async (t) => {
  t.equal(one({ uniqueItems: true }, [1, 1]), "argument 'v' must NOT have duplicate items (items ## 0 and 1 are identical)")
  t.equal(one({ multipleOf: 2 }, 3), "argument 'v' must be multiple of 2")
  t.equal(explain([synthetic('x-custom')]), "argument 'v' is invalid", 'without a message')
})

t.test('the subject', async (t) => {
  t.equal(explain([synthetic('type', { instancePath: '', params: { type: 'object' }, data: 'x' })]), 'the value must be an object, got "x"', 'the root is "the value"')
  t.equal(explain(errorsOf({ type: 'object', properties: { 'a/b': { type: 'string' }, 'c~d': { type: 'string' } } }, { 'a/b': 1, 'c~d': 2 })),
    "argument 'a/b' must be a string, got 1; argument 'c~d' must be a string, got 2", 'JSON Pointer escapes are undone')
  t.equal(explain(errorsOf({ type: 'object', required: ['sum'] }, {}), 'property'), "missing required property 'sum'", 'output uses "property"')
  t.equal(explain(errorsOf({ type: 'object', properties: { o: { type: 'object', additionalProperties: false } } }, { o: { z: 1 } }), 'property'),
    "unknown property 'z' in property 'o'")
})

t.test('what arrived', async (t) => {
  t.equal(one({ type: 'integer' }, 'x'.repeat(40)), `argument 'v' must be an integer, got "${'x'.repeat(40)}"`, 'up to 40 characters: quoted')
  t.equal(one({ type: 'integer' }, 'x'.repeat(41)), "argument 'v' must be an integer, got a string of 41 characters", 'longer: summarised, never echoed')
  t.equal(one({ maxLength: 3 }, 'y'.repeat(5000)), "argument 'v' must be at most 3 characters long, got a string of 5000 characters")
  t.equal(one({ type: 'string' }, { secret: 'x' }), "argument 'v' must be a string, got an object", 'objects are described, not echoed')
})

t.test('duplicates are said once', async (t) => {
  const error = synthetic('minimum', { params: { comparison: '>=', limit: 1 }, data: 0 })
  t.equal(explain([error, { ...error }, { ...error }]), "argument 'v' must be >= 1, got 0")
  // anyOf: both branches fail the same way
  const errors = errorsOf({ type: 'object', properties: { v: { anyOf: [{ type: 'string', minLength: 3 }, { type: 'string', minLength: 3, maxLength: 9 }] } } }, { v: 'a' })
  t.equal(explain(errors), "argument 'v' must be at least 3 characters long, got \"a\"; argument 'v' must match a schema in anyOf")
})

t.test('at most 8 problems, then a count', async (t) => {
  const properties: Record<string, unknown> = {}
  const data: Record<string, unknown> = {}
  for (let i = 0; i < 10; i++) {
    properties[`a${i}`] = { type: 'string' }
    data[`a${i}`] = i
  }
  const text = explain(errorsOf({ type: 'object', properties }, data))
  t.equal(text.split('; ').length, 9)
  t.match(text, /^argument 'a0' must be a string, got 0; .*argument 'a7' must be a string, got 7; and 2 more problems$/)
  t.notMatch(text, /a8/)
  const nine = Array.from({ length: 9 }, (_, i) => synthetic('x', { instancePath: `/a${i}`, message: 'is bad' }))
  t.match(explain(nine), /; and 1 more problem$/, 'singular for one')
  const eight = nine.slice(0, 8)
  t.notMatch(explain(eight), /more problem/, 'exactly 8: no count')
})

t.test('no usable errors', async (t) => {
  t.equal(explain([]), 'the arguments do not match the schema')
  t.equal(explain(null), 'the arguments do not match the schema')
  t.equal(explain(undefined), 'the arguments do not match the schema')
  t.equal(explain([synthetic('if')]), 'the arguments do not match the schema', 'only skipped keywords')
  t.equal(explain([], 'property'), 'the properties do not match the schema')
})
