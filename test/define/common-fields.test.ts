// The checks every definition shares (issue 27, item 1): unknown keys with the option a typo meant,
// and title, description, ttl, meta, config and icons worded alike for tools, resources and prompts,
// each kind throwing its own error class with its own code.
import t from 'tap'
import { checkCommonFields, checkKnownKeys } from '../../lib/define/common-fields.js'
import { compileTool } from '../../lib/define/tool.js'
import { compileResource } from '../../lib/define/resource.js'
import { compilePrompt } from '../../lib/define/prompt.js'

function failing (message: string): never {
  throw new Error(message)
}

t.test('unknown keys: the first one named, with the known key a typo meant', async (t) => {
  const known = ['name', 'title', 'description', 'ttl']
  t.doesNotThrow(() => checkKnownKeys({ name: 'x', ttl: 1 }, known, failing))
  t.throws(() => checkKnownKeys({ name: 'x', titel: 'y' }, known, failing),
    { message: "unknown option 'titel' (did you mean 'title'?); known options are name, title, description, ttl" })
  t.throws(() => checkKnownKeys({ name: 'x', zzzz: 1 }, known, failing),
    { message: "unknown option 'zzzz'; known options are name, title, description, ttl" }, 'no hint when nothing is near')
})

t.test('a ttl that is not one is shown as it arrived', async (t) => {
  const cases: Array<[unknown, string]> = [
    [-1, '-1'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [null, 'null'],
    ['5m', '"5m" (string)'],
    [{ minutes: 5 }, '{"minutes":5} (object)'],
    [5n, 'bigint'],
    [() => 1, 'function'],
    [Symbol('ttl'), 'symbol']
  ]
  for (const [ttl, shown] of cases) {
    t.throws(() => checkCommonFields({ ttl }, '_meta', failing), { message: `'ttl' must be a non-negative integer (milliseconds), got ${shown}` }, shown)
  }
  t.doesNotThrow(() => checkCommonFields({ ttl: 0, title: 't', description: 'd', meta: {}, config: {}, icons: [] }, '_meta', failing))
})

t.test('the same mistake reads alike for every kind, under its own code', async (t) => {
  const execute = (): number => 1
  const read = (): string => 'x'
  const get = (): string => 'x'
  const kinds: Array<[string, (extra: Record<string, unknown>) => unknown, string]> = [
    ["tool 'a'", (extra) => compileTool({ name: 'a', execute, ...extra }), 'SAKE_ERR_INVALID_TOOL'],
    ["resource 'a://b'", (extra) => compileResource({ uri: 'a://b', name: 'b', read, ...extra }), 'SAKE_ERR_INVALID_RESOURCE'],
    ["prompt 'a'", (extra) => compilePrompt({ name: 'a', get, ...extra }), 'SAKE_ERR_INVALID_PROMPT']
  ]
  for (const [who, compile, code] of kinds) {
    t.throws(() => compile({ titel: 'x' }), { code, message: new RegExp(`^${who}: unknown option 'titel' \\(did you mean 'title'\\?\\); known options are `) }, who)
    t.throws(() => compile({ title: 1 }), { code, message: `${who}: 'title' must be a string, got number` }, who)
    t.throws(() => compile({ ttl: '10' }), { code, message: `${who}: 'ttl' must be a non-negative integer (milliseconds), got "10" (string)` }, who)
    t.throws(() => compile({ config: 1 }), { code, message: `${who}: 'config' must be an object (your settings, read by hooks on request.mcp.config), got number` }, who)
    t.throws(() => compile({ icons: 'x' }), { code, message: `${who}: 'icons' must be an array of { src, mimeType?, sizes?, theme? }: it is not an array` }, who)
  }
})
