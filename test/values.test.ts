// The small value helpers; `isThenable` decides where the hot path awaits.
import t from 'tap'
import { deepFreeze, isThenable, plain } from '../lib/values.js'

t.test('isThenable: promises and thenables, as await sees them; nothing else', async (t) => {
  t.equal(isThenable(Promise.resolve(1)), true)
  t.equal(isThenable({ then: () => {} }), true)
  for (const value of [undefined, null, 0, 'text', {}, { then: 'not a function' }]) t.equal(isThenable(value), false, String(value))
})

t.test('plain: the copy JSON.parse(JSON.stringify(value)) would give, made in one walk (issue 41)', async (t) => {
  const fail = (message: string): never => { throw new Error(`refused: ${message}`) }
  const sparse = [1, , 3] // eslint-disable-line no-sparse-arrays
  const value = {
    text: 'a',
    n: 1.5,
    negativeZero: -0,
    nan: NaN,
    inf: -Infinity,
    yes: true,
    none: null,
    left: undefined,
    fn: () => 1,
    sym: Symbol('s'),
    [Symbol('key')]: 'dropped',
    list: [undefined, () => 1, Symbol('s'), NaN, sparse],
    date: new Date(0),
    boxed: [new Number(2), new String('s'), new Boolean(false)], // eslint-disable-line no-new-wrappers
    custom: { toJSON: (key: string) => `custom at ${key}` },
    nested: { deeper: { toJSON: () => ({ made: [1] }) } },
    map: new Map([[1, 2]]),
    ['__proto__']: { polluted: true }
  }
  Object.defineProperty(value, '__proto__', { value: { polluted: true }, enumerable: true })
  const copy = plain(value, fail)
  t.same(copy, JSON.parse(JSON.stringify(value)))
  t.equal(JSON.stringify(copy), JSON.stringify(value), 'the same keys, in the same order')
  t.equal(Object.getPrototypeOf(copy), Object.prototype, "'__proto__' is an own key, as JSON.parse makes it, not the prototype")
  t.equal(Object.is((copy as any).negativeZero, 0), true, '-0 is written 0')
  t.not(copy.list, value.list, 'detached: every object and array is new')
  t.ok(Object.isFrozen(copy) && Object.isFrozen(copy.list) && Object.isFrozen((copy as any).nested.deeper.made), 'and frozen all the way down as it is made')
  const shared = { big: 'x'.repeat(1000) }
  t.equal(plain(shared, fail).big, shared.big)
  for (const top of [undefined, () => 1, Symbol('s')]) t.throws(() => plain(top, fail), /^refused: /, `a ${typeof top} alone is refused, as JSON.parse refuses undefined`)
  t.throws(() => plain({ n: 1n }, fail), /^refused: Do not know how to serialize a BigInt/)
  const cycle: Record<string, unknown> = { a: [] }
  ;(cycle.a as unknown[]).push(cycle)
  t.throws(() => plain(cycle, fail), /^refused: Converting circular structure to JSON/)
  const twice = { x: 1 }
  t.same(plain({ a: twice, b: [twice] }, fail), { a: { x: 1 }, b: [{ x: 1 }] }, 'the same object twice, not nested, is no cycle')
})

t.test('deepFreeze: every level; a frozen object met again is not walked again', async (t) => {
  const inner = { list: [{ x: 1 }] }
  const value = deepFreeze({ a: inner, b: inner, s: 'text' })
  t.ok(Object.isFrozen(value) && Object.isFrozen(inner) && Object.isFrozen(inner.list) && Object.isFrozen(inner.list[0]))
  t.equal(deepFreeze('text'), 'text')
  t.equal(deepFreeze(null), null)
})
