// The endpoint's JSON body parser: an empty body is refused here; the rest is protocol/parse.ts's.
import t from 'tap'
import { jsonParser, parseBody } from '../../lib/http/body.js'

t.test('an empty body is a parse error naming it; any other body is parsed as a message', async (t) => {
  t.throws(() => parseBody(''), { code: -32700, status: 400, message: /request body is empty/ })
  t.throws(() => parseBody('{"id":1,'), { code: -32700, status: 400, message: /^Parse error: .*JSON/ })
  t.same(parseBody('{"jsonrpc":"2.0","id":1,"method":"ping"}'), { jsonrpc: '2.0', id: 1, method: 'ping' })
})

t.test('jsonParser: the value, or the refusal, in Fastify\'s callback form', async (t) => {
  const outcomes: unknown[] = []
  jsonParser(undefined as never, '{"a":1}', (err, body) => outcomes.push([err, body]))
  jsonParser(undefined as never, '', (err, body) => outcomes.push([(err as Error).message, body]))
  t.same(outcomes[0], [null, { a: 1 }])
  t.match(outcomes[1], [/request body is empty/, undefined])
})
