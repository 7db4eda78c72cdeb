// What execute returns, shaped into a CallToolResult (Sake's {:ok, ...} / {:error, ...} rules):
// shape(), unwrap(), withMeta(), toolError() and errorResult().
import t from 'tap'
import { shape, unwrap, withMeta, withText, payloadOf, toolError, errorResult, structuredResultBody } from '../../lib/define/result.js'
import { text, image } from '../../lib/define/content.js'
import { ToolError } from '../../lib/errors.js'

// shape(value, meta, structured, objectOnly): modern clients are (true, false), 2025-06-18 and
// later sessions (true, true), 2025-03-26 sessions (false, true)
const modern = (value: unknown, meta?: Record<string, unknown>): unknown => shape(value, meta, true, false)
const legacy = (value: unknown): unknown => shape(value, undefined, true, true)
const oldest = (value: unknown): unknown => shape(value, undefined, false, true)

t.test('a string is one text block', async (t) => {
  t.same(modern('hello'), { content: [{ type: 'text', text: 'hello' }] })
  t.same(legacy(''), { content: [{ type: 'text', text: '' }] }, 'even empty')
  t.notOk('structuredContent' in (modern('hello') as object), 'never structured')
})

t.test('undefined is an empty content list', async (t) => {
  t.same(modern(undefined), { content: [] })
  t.same(legacy(undefined), { content: [] })
})

t.test('a content block, or an array of them, is sent as it is', async (t) => {
  const block = text('hi')
  const one = modern(block) as any
  t.same(one, { content: [{ type: 'text', text: 'hi' }] })
  t.equal(one.content[0], block)
  const many = [text('a'), image('AA==', 'image/png')]
  t.equal((legacy(many) as any).content, many)
  t.notOk('structuredContent' in (modern(many) as object))
})

t.test('a plain array that merely looks like content is JSON', async (t) => {
  const lookalike = [{ type: 'text', text: 'a' }]
  t.same(modern(lookalike), { content: [{ type: 'text', text: JSON.stringify(lookalike) }], structuredContent: lookalike })
  const mixed = [text('a'), 'b']
  t.same((modern(mixed) as any).structuredContent, mixed, 'one unbranded item makes the whole array data')
  t.same(modern([]), { content: [{ type: 'text', text: '[]' }], structuredContent: [] }, 'an empty array is data too')
})

t.test('JSON values: text plus structuredContent', async (t) => {
  t.same(modern({ sum: 3 }), { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } })
  t.same(modern(3), { content: [{ type: 'text', text: '3' }], structuredContent: 3 }, 'a number (modern: any JSON value)')
  t.same(modern(null), { content: [{ type: 'text', text: 'null' }], structuredContent: null }, 'null')
  t.same(modern(false), { content: [{ type: 'text', text: 'false' }], structuredContent: false })
  t.same(modern([1, 2]), { content: [{ type: 'text', text: '[1,2]' }], structuredContent: [1, 2] })
})

t.test('legacy clients take only an object as structuredContent', async (t) => {
  t.same(legacy({ sum: 3 }), { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } })
  for (const value of [3, null, true, [1, 2]]) {
    t.same(legacy(value), { content: [{ type: 'text', text: JSON.stringify(value) }] }, `${JSON.stringify(value)}: text alone`)
  }
})

t.test('a value JSON cannot carry is a TypeError for the caller to report', async (t) => {
  t.throws(() => modern(() => 1), { name: 'TypeError', message: 'a function cannot be sent as JSON' })
  t.throws(() => modern(Symbol('s')), { name: 'TypeError', message: 'a symbol cannot be sent as JSON' })
  t.throws(() => modern(10n), TypeError, 'a BigInt')
  const cycle: Record<string, unknown> = {}
  cycle.self = cycle
  t.throws(() => legacy(cycle), TypeError, 'a cycle')
})

t.test('clients before structured output get text alone', async (t) => {
  t.same(oldest({ sum: 3 }), { content: [{ type: 'text', text: '{"sum":3}' }] })
  t.same(shape([1], undefined, false, false), { content: [{ type: 'text', text: '[1]' }] })
})

t.test('meta becomes the result\'s _meta', async (t) => {
  t.same(modern('x', { trace: 'abc' }), { content: [{ type: 'text', text: 'x' }], _meta: { trace: 'abc' } })
  t.same(modern({ a: 1 }, { n: 1 }), { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 }, _meta: { n: 1 } })
  t.notOk('_meta' in (modern('x') as object))
})

t.test('unwrap: plain values pass through', async (t) => {
  const value = { a: 1 }
  t.same(unwrap(value), { value, meta: undefined, error: undefined })
  t.equal(unwrap(value).value, value)
  t.same(unwrap(undefined), { value: undefined, meta: undefined, error: undefined })
})

t.test('withMeta', async (t) => {
  const wrapped = withMeta({ sum: 3 }, { took: 5 })
  t.same(unwrap(wrapped), { value: { sum: 3 }, meta: { took: 5 }, error: undefined })
  t.same(JSON.parse(JSON.stringify(wrapped)), { value: { sum: 3 }, meta: { took: 5 } }, 'the marker is a symbol, not data')
  t.same(unwrap(withMeta(withMeta('x', { a: 1, b: 1 }), { b: 2, c: 2 })), { value: 'x', meta: { b: 1, c: 2, a: 1 }, error: undefined }, 'nested: merged, the inner winning')
  t.same(unwrap({ value: 1, meta: {} }), { value: { value: 1, meta: {} }, meta: undefined, error: undefined }, 'a look-alike object is a value')
})

t.test('toolError', async (t) => {
  const result = toolError('No such issue')
  const { value, meta, error } = unwrap(result)
  t.equal(value, undefined)
  t.equal(meta, undefined)
  t.type(error, ToolError)
  t.equal(error!.message, 'No such issue')
  const withDetails = unwrap(toolError('Rate limited', { meta: { retryAfter: 30 } }))
  t.same(withDetails.meta, { retryAfter: 30 })
  t.same(withDetails.error!.meta, { retryAfter: 30 })
})

t.test('a ToolError instance returned (not thrown) is an error too', async (t) => {
  const returned = new ToolError('Quota exceeded', { meta: { quota: 10 } })
  t.same(unwrap(returned), { value: undefined, meta: { quota: 10 }, error: returned })
  t.equal(unwrap(returned).error, returned)
  t.equal(unwrap(new Error('plain')).error, undefined, 'any other Error is a value, like any object')
})

t.test('withMeta around a tool error keeps it an error', async (t) => {
  const { value, meta, error } = unwrap(withMeta(toolError('nope', { meta: { code: 'E1' } }), { trace: 't', code: 'outer' }))
  t.equal(value, undefined)
  t.equal(error!.message, 'nope')
  t.same(meta, { trace: 't', code: 'E1' })
  t.same(unwrap(withMeta(new ToolError('bare'), { trace: 't' })).meta, { trace: 't' }, 'an error without meta takes the outer one')
})

t.test('errorResult', async (t) => {
  t.same(errorResult('It broke'), { content: [{ type: 'text', text: 'It broke' }], isError: true })
  t.same(errorResult('It broke', { id: 1 }), { content: [{ type: 'text', text: 'It broke' }], isError: true, _meta: { id: 1 } })
})

t.test('withText: its text as the content, the value as structuredContent', async (t) => {
  t.same(shape(withText({ n: 1 }, 'n is 1'), undefined, true, false), { content: [{ type: 'text', text: 'n is 1' }], structuredContent: { n: 1 } })
  t.same(shape(withText([1, 2], 'two'), undefined, true, false), { content: [{ type: 'text', text: 'two' }], structuredContent: [1, 2] }, 'any JSON value in 2026-07-28')
  t.same(shape(withText([1, 2], 'two'), undefined, true, true), { content: [{ type: 'text', text: 'two' }, { type: 'text', text: '[1,2]' }] }, 'a 2025 client takes only an object: the JSON follows the text')
  t.same(shape(withText({ n: 1 }, 'n is 1'), { m: 1 }, false, true), { content: [{ type: 'text', text: 'n is 1' }, { type: 'text', text: '{"n":1}' }], _meta: { m: 1 } }, 'a client without structured output')
  t.throws(() => shape(withText(() => 1, 'fn'), undefined, true, false), /a function cannot be sent as JSON/)
  t.throws(() => withText({ n: 1 }, 42 as never), { name: 'TypeError', message: 'withText(value, text): text must be a string, got number' })
  t.same(payloadOf(withText({ n: 1 }, 'n')), { n: 1 }, 'the output schema checks the value inside')
  t.equal(payloadOf('plain'), 'plain')
})

t.test('structuredResultBody: the JSON of a shaped value, serialised once', async (t) => {
  const value = { sum: 3.75, note: 'a "quoted" line\n', list: [1, null, true] }
  const result = modern(value) as object
  t.equal('{' + structuredResultBody(result) + '}', JSON.stringify(result), 'the bytes JSON.stringify writes for the result')
  t.equal('{' + structuredResultBody(legacy(value) as object) + '}', JSON.stringify(legacy(value)), 'a 2025 session\'s too')
  t.same(Object.keys(result), ['content', 'structuredContent'], 'nothing else among its keys')
  t.equal(structuredResultBody({ ...result }), undefined, 'a copy is serialised as it is')
  t.equal(structuredResultBody(modern('text') as object), undefined, 'a string is no JSON value to splice')
  t.equal(structuredResultBody(oldest(value) as object), undefined, 'nor a result without structuredContent')
  t.equal(structuredResultBody(modern(value, { trace: 'x' }) as object), undefined, 'nor one with its own _meta')
  const changed = (change: (result: any) => void): string | undefined => {
    const result = modern(value) as any
    change(result)
    return structuredResultBody(result)
  }
  t.equal(changed((r) => { r.content[0].text = 'other' }), undefined, 'a result whose text changed since is serialised as it is')
  t.equal(changed((r) => { r.content.push({ type: 'text', text: 'more' }) }), undefined, 'so is one given more content')
  t.equal(changed((r) => { r.isError = true }), undefined, 'one marked as an error')
  t.equal(changed((r) => { r._meta = { a: 1 } }), undefined, 'and one given a _meta')
})
