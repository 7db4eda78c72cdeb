// The stdio framing on its own: lines from chunks, whatever their cut, and a line over the limit
// dropped as it comes.
import t from 'tap'
import { LineSplitter } from '../../lib/spec/lines.js'

function splitter (limit = 16): { lines: string[], overlong: number[], split: LineSplitter } {
  const lines: string[] = []
  const overlong: number[] = []
  return { lines, overlong, split: new LineSplitter(limit, { line: (text) => lines.push(text), overlong: (bytes) => overlong.push(bytes) }) }
}

t.test('lines from chunks cut anywhere; CRLF and blank lines; a last line without its newline', async (t) => {
  const { lines, overlong, split } = splitter()
  split.push(Buffer.from('ab'))
  split.push(Buffer.from('c\nde\r\n\n  \r\nf'))
  split.push(Buffer.from('g\nh'))
  t.same(lines, ['abc', 'de', 'fg'])
  split.end()
  t.same(lines, ['abc', 'de', 'fg', 'h'])
  split.end()
  t.same(lines.length, 4, 'an end with nothing pending adds nothing')
  t.same(overlong, [])
})

t.test('UTF-8 cut inside a character is put back together', async (t) => {
  const { lines, split } = splitter()
  const bytes = Buffer.from('é€\n')
  split.push(bytes.subarray(0, 1))
  split.push(bytes.subarray(1, 4))
  split.push(bytes.subarray(4))
  t.same(lines, ['é€'])
})

t.test('a line over the limit is reported once its end comes, its bytes not kept; the next line is read', async (t) => {
  const { lines, overlong, split } = splitter(8)
  split.push(Buffer.from('12345'))
  split.push(Buffer.from('67890'))
  split.push(Buffer.from('abcdef'))
  t.same(overlong, [], 'not before its end')
  t.same((split as any).pending, [], 'nothing kept')
  split.push(Buffer.from('g\nok\n'))
  t.same(overlong, [17])
  t.same(lines, ['ok'])
  split.push(Buffer.from('0123456789'))
  split.end()
  t.same(overlong, [17, 10], 'an overlong last line is reported at the end')
  t.equal(split.end(), undefined)
  t.same(lines, ['ok'])
  split.push(Buffer.from('12345678\n'))
  t.same(lines, ['ok', '12345678'], 'exactly the limit is taken')
})
