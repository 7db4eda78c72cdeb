import t from 'tap'
import { encodeHeaderValue, headerString } from '../../lib/spec/headers.js'
import { decodeHeaderValue } from '../../lib/http/headers.js'

t.test('encodeHeaderValue: the spec\'s examples, and what the server decodes back', async (t) => {
  t.equal(encodeHeaderValue('us-west1'), 'us-west1')
  t.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=')
  t.equal(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=')
  t.equal(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=')
  t.equal(encodeHeaderValue('a\tb'), '=?base64?' + Buffer.from('a\tb').toString('base64') + '?=', 'a tab is a control character')
  t.equal(encodeHeaderValue(''), '')
  t.equal(encodeHeaderValue('=?base64?'), '=?base64?', 'the prefix alone is no sentinel')
  for (const value of ['Hello, 世界', ' padded ', '=?base64?literal?=', 'a\tb', 'plain', 'line\nbreak']) {
    t.equal(decodeHeaderValue('X', encodeHeaderValue(value)), value, `round trip: ${JSON.stringify(value)}`)
  }
})

t.test('headerString', async (t) => {
  t.equal(headerString('x'), 'x')
  t.equal(headerString(true), 'true')
  t.equal(headerString(-7), '-7')
  t.equal(headerString(1.5), undefined, 'not an integer')
  t.equal(headerString(null), undefined)
})
