// What an Accept value allows of JSON and an event stream (issue 41, item 7): q-values honoured
// (q=0 refuses, the most specific range wins), wildcards, parameters, malformed values (no throw),
// the value every MCP client sends without a parse (nor negotiator loaded), the bounded cache of
// the others, and the longest value read.
import t from 'tap'
import { createRequire } from 'node:module'
import { acceptable, negotiate } from '../../lib/http/accept.js'

const verdict = (accept: string | undefined): string => {
  const { json, eventStream } = acceptable(accept)
  return json ? (eventStream ? 'both' : 'json') : (eventStream ? 'sse' : 'none')
}

const negotiatorLoaded = (): boolean => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/negotiator/'))

t.test('the common values; negotiator is loaded at the first other one', async (t) => {
  t.equal(verdict(undefined), 'both', 'absent: anything (RFC 9110)')
  t.equal(verdict('application/json, text/event-stream'), 'both', 'what MCP clients send')
  t.equal(negotiatorLoaded(), false, 'neither loads negotiator')
  t.equal(verdict('application/json'), 'json')
  t.equal(negotiatorLoaded(), true, 'another value does')
  t.same(negotiate('application/json, text/event-stream'), acceptable('application/json, text/event-stream'), 'its constant verdict is what negotiation says')
  t.equal(verdict('text/event-stream, application/json'), 'both')
  t.equal(verdict('application/json,text/event-stream'), 'both')
  t.equal(verdict('text/event-stream'), 'sse')
  t.equal(verdict('text/html'), 'none')
})

t.test('wildcards and q-values', async (t) => {
  t.equal(verdict('*/*'), 'both')
  t.equal(verdict('*/*;q=0.1'), 'both', 'any q above 0 accepts')
  t.equal(verdict('application/*'), 'json')
  t.equal(verdict('text/*'), 'sse')
  t.equal(verdict('application/json;q=0'), 'none', 'q=0 is "not acceptable"')
  t.equal(verdict('application/json;q=0, */*'), 'sse', 'the more specific range wins: JSON refused beside */*')
  t.equal(verdict('*/*, application/json;q=0'), 'sse', 'whatever the order')
  t.equal(verdict('application/*;q=0, */*'), 'sse')
  t.equal(verdict('text/event-stream;q=0, application/json'), 'json', 'an event stream refused')
  t.equal(verdict('text/event-stream;q=0, */*'), 'json')
  t.equal(verdict('application/json;q=0.001, text/event-stream;q=1'), 'both')
  t.equal(verdict('application/json; q=0.5'), 'json', 'whitespace before the parameter')
  t.equal(verdict('application/json ; q=0'), 'none')
  t.equal(verdict('application/json;Q=0'), 'none', 'parameter names are case-insensitive')
  t.equal(verdict('APPLICATION/JSON'), 'json', 'and so are media types')
})

t.test('parameters: charset=utf-8 matches what is sent, another charset does not', async (t) => {
  t.equal(verdict('application/json;charset=utf-8'), 'json')
  t.equal(verdict('application/json; charset="UTF-8", text/event-stream;charset=utf-8'), 'both')
  t.equal(verdict('application/json;charset=iso-8859-1'), 'none')
})

t.test('malformed values: no throw, and nothing acceptable unless something readable allows it', async (t) => {
  for (const accept of ['', ',', ';;;', ' ', 'json', '"', '\u00e9/x', 'application/json;q=abc', 'application/json;q=-1', 'application/', '/json', '=;=,=']) {
    t.equal(verdict(accept), 'none', JSON.stringify(accept))
  }
  t.equal(verdict('garbage, application/json'), 'json', 'a readable range beside an unreadable one')
  t.equal(verdict('application/json;q='), 'json', 'an empty q is no q')
  t.equal(verdict('application/json;foo="a, text/html'), 'json', 'an unterminated quote ends the value')
})

t.test('a value over 512 characters is not read: it allows nothing', async (t) => {
  const padded = (length: number): string => `application/json, text/event-stream;x=${'y'.repeat(length - 38)}`
  t.equal(padded(512).length, 512)
  t.equal(verdict(padded(512)), 'json', '512 characters: read')
  t.equal(verdict(padded(513)), 'none', '513: not read')
  t.equal(verdict('*/*,'.repeat(4096)), 'none', 'a 16 KiB value')
})

t.test('the cache: a value is negotiated once, the oldest of 64 goes first', async (t) => {
  // a fresh copy of the module, with an empty cache; negotiator is the one it loads (the process's)
  const { acceptable: fresh } = await t.mockImport<typeof import('../../lib/http/accept.js')>('../../lib/http/accept.js')
  const Negotiator = createRequire(import.meta.url)('negotiator') as typeof import('negotiator')
  const mediaTypes = Negotiator.prototype.mediaTypes
  let parses = 0
  Negotiator.prototype.mediaTypes = function (this: InstanceType<typeof Negotiator>, available) {
    parses++
    return mediaTypes.call(this, available)
  }
  t.teardown(() => { Negotiator.prototype.mediaTypes = mediaTypes })
  fresh('application/json, text/event-stream')
  fresh(undefined)
  t.equal(parses, 0, 'the common value and an absent one: no parse')
  fresh('application/json')
  fresh('application/json')
  t.equal(parses, 1, 'a value seen before: no second parse')
  for (let i = 0; i < 63; i++) fresh(`application/x-${i}`)
  fresh('application/json')
  t.equal(parses, 64, '64 values kept')
  fresh('application/x-63')
  fresh('application/json')
  t.equal(parses, 66, 'the 65th pushed out the oldest')
  fresh('*/*,'.repeat(200))
  t.equal(parses, 66, 'a value over 512 characters: never negotiated')
})
