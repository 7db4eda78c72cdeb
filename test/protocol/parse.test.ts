// One message's JSON text to its value (an HTTP body, a stdio line): what is taken, what is refused and with which id.
import t from 'tap'
import { ProtocolError, RefusedBodyError } from '../../lib/errors.js'
import { MAX_DEPTH, nestsDeeper, parseMessage } from '../../lib/protocol/parse.js'

const nested = (depth: number, open = '[', close = ']'): string => open.repeat(depth) + close.repeat(depth)

t.test('valid JSON is parsed as it is', async (t) => {
  t.same(parseMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}'), { jsonrpc: '2.0', id: 1, method: 'ping' })
  t.same(parseMessage('\ufeff[1,2]'), [1, 2], 'a byte order mark is taken')
  t.equal(parseMessage('42'), 42)
})

t.test('malformed text is a parse error without an id', async (t) => {
  t.throws(() => parseMessage(''), { code: -32700, status: 400, message: /^Parse error: / })
  t.throws(() => parseMessage('{"id":1,'), { code: -32700, status: 400, message: /^Parse error: .*JSON/ })
})

t.test('__proto__ and constructor.prototype keys: -32600 with the id the body holds', async (t) => {
  const cases: Array<[string, unknown]> = [
    ['{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"admin":true}}', 1],
    ['{"jsonrpc":"2.0","id":"a","method":"x","params":{"arguments":{"__proto__":{"admin":true}}}}', 'a'],
    ['{"jsonrpc":"2.0","id":2,"method":"x","params":{"constructor":{"prototype":{"admin":true}}}}', 2],
    ['\ufeff{"jsonrpc":"2.0","id":3,"method":"x","\\u005f_proto__":{}}', 3],
    ['[{"jsonrpc":"2.0","id":4,"method":"x","__proto__":{}}]', null], // a batch has no one id
    ['{"jsonrpc":"2.0","id":{"no":1},"method":"x","__proto__":{}}', null] // nor has an id that is none
  ]
  for (const [text, id] of cases) {
    const err = t.throws(() => parseMessage(text)) as RefusedBodyError
    t.ok(err instanceof RefusedBodyError && err instanceof ProtocolError, text)
    t.equal(err.code, -32600)
    t.equal(err.status, 400)
    t.equal(err.id, id)
    t.match(err.message, /^Invalid Request: the message holds a "__proto__" or "constructor.prototype" key/)
  }
  t.equal(({} as any).admin, undefined, 'Object.prototype untouched')
  t.same(parseMessage('{"constructor":"a string is no prototype"}'), { constructor: 'a string is no prototype' }, 'a plain "constructor" key is fine')
})

t.test('nesting: up to MAX_DEPTH is taken, deeper is -32600 with the id', async (t) => {
  t.equal(MAX_DEPTH, 64)
  // the envelope and params are two levels: 62 more fit
  const fits = `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":${nested(MAX_DEPTH - 2)}}}`
  t.ok(parseMessage(fits))
  const over = `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":${nested(MAX_DEPTH - 1)}}}`
  t.throws(() => parseMessage(over), { name: 'RefusedBodyError', code: -32600, status: 400, id: 5, message: 'Invalid Request: the message nests objects and arrays more than 64 levels deep' })
  t.throws(() => parseMessage(`{"id":"o","method":"x","params":${nested(100000, '{"a":', '}').replace('{"a":}', '{"a":1}')}}`), { name: 'RefusedBodyError', id: 'o' }, 'objects count too, and a huge depth fails the same way')
})

t.test('nestsDeeper counts brackets, not the characters of strings', async (t) => {
  t.equal(nestsDeeper(nested(3), 3), false)
  t.equal(nestsDeeper(nested(4), 3), true)
  t.equal(nestsDeeper('{"a":[{"b":[]}]}', 4), false, 'mixed, exactly at the limit')
  t.equal(nestsDeeper('{"a":[{"b":[[]]}]}', 4), true)
  t.equal(nestsDeeper(JSON.stringify({ s: '[[[[[[[[[[{{{{{{{{' }), 3), false, 'brackets inside a string do not nest')
  t.equal(nestsDeeper(JSON.stringify({ s: 'a \\" [[[[[[[[ "' }), 3), false, 'an escaped quote does not end the string')
  t.equal(nestsDeeper('[[], [], [], [], []]', 2), false, 'many brackets, side by side, are not deep')
})
