// The small value helpers; `isThenable` decides where the hot path awaits.
import t from 'tap'
import { isThenable } from '../lib/values.js'

t.test('isThenable: promises and thenables, as await sees them; nothing else', async (t) => {
  t.equal(isThenable(Promise.resolve(1)), true)
  t.equal(isThenable({ then: () => {} }), true)
  for (const value of [undefined, null, 0, 'text', {}, { then: 'not a function' }]) t.equal(isThenable(value), false, String(value))
})
