// The declarations options are made of (issue 42): groups read in order, defaults that depend on a
// neighbour, unknown keys named, and the list the documentation check walks.
import t from 'tap'
import { MAX_TIMER, SERVER_VOICE, custom, documented, flag, group, implementation, integer, perCaller, readGroup, text } from '../lib/option-spec.js'

const LIMITS = {
  total: integer({ default: 10, min: 1, unit: 'things' }),
  each: perCaller('total', { default: 4, unit: 'things' }),
  delay: integer({ default: 5, min: 0, max: MAX_TIMER, unit: 'milliseconds' })
}
const ROOT = {
  name: text(true),
  label: text(false),
  on: flag(true),
  limits: group(LIMITS, 'an object { total?, each?, delay? }'),
  twice: custom<number, number>('twice the total', (value, { root }) => value === undefined ? 2 * (root.limits as { total: number }).total : Number(value))
}

t.test('a group is read in declaration order, defaults filled in, frozen', async (t) => {
  const read = readGroup(ROOT, { name: 'x', limits: { total: 3 } }, '', 'an object')
  t.same(read, { name: 'x', label: undefined, on: true, limits: { total: 3, each: 3, delay: 5 }, twice: 6 }, "each's default is the smaller of 4 and the total; twice reads the root")
  t.ok(Object.isFrozen(read) && Object.isFrozen(read.limits))
  t.equal(readGroup(ROOT, { name: 'x' }, '', 'an object').limits.each, 4)
})

t.test('each mistake names the option, what it accepts and what it got', async (t) => {
  const refusals: Array<[unknown, RegExp]> = [
    [{}, /^fastify-sake: option 'name' must be a non-empty string, got nothing$/],
    [{ name: 'x', label: '' }, /option 'label' must be a non-empty string, got "" \(string\)$/],
    [{ name: 'x', on: 'yes' }, /option 'on' must be true or false, got "yes" \(string\)$/],
    [{ name: 'x', limits: 3 }, /option 'limits' must be an object \{ total\?, each\?, delay\? \}, got 3 \(number\)$/],
    [{ name: 'x', limits: { totl: 3 } }, /unknown option 'limits\.totl' \(did you mean 'limits\.total'\?\); known options are limits\.total, limits\.each, limits\.delay$/],
    [{ name: 'x', limits: { total: 0 } }, /option 'limits\.total' must be an integer >= 1 \(things\), got 0 \(number\)$/],
    [{ name: 'x', limits: { total: 2, each: 3 } }, /option 'limits\.each' must be at most limits\.total \(2\): one caller cannot hold more than the server holds in all, got 3/],
    [{ name: 'x', limits: { delay: MAX_TIMER + 1 } }, /option 'limits\.delay' must be an integer from 0 to 2147483647 \(milliseconds; a Node timer goes no further\)/],
    [{ name: 'x', limits: { delay: 1.5 } }, /option 'limits\.delay' must be an integer/]
  ]
  for (const [given, message] of refusals) t.throws(() => readGroup(ROOT, given, '', 'an object'), { name: 'SakeOptionError', code: 'SAKE_ERR_INVALID_OPTION', message }, JSON.stringify(given))
})

t.test('an implementation is an object with the contract\'s methods', async (t) => {
  const store = implementation<object>('Store', ['get', 'set'])
  const reading = { name: 'x.store', voice: SERVER_VOICE, group: {}, given: {}, root: {} }
  t.equal(store.read(undefined, reading), undefined, 'absent: the server\'s own')
  const mine = { get () {}, set () {} }
  t.equal(store.read(mine, reading), mine)
  t.throws(() => store.read(class {}, reading), /option 'x\.store' must be a Store instance \(new MyStore\(\)\), not a class or a function/)
  t.throws(() => store.read(3, reading), /must be a Store object with get and set methods, got 3/)
  t.throws(() => store.read({ get () {} }, reading), /option 'x\.store' must implement Store \(get, set and optionally close\): its 'set' method is missing$/)
  t.throws(() => store.read({ get () {}, set: 1 }, reading), /its 'set' method is not a function \(got 1 \(number\)\)$/)
})

t.test('documented: every option by its full name, with its default as the docs write it', async (t) => {
  t.same(documented(ROOT), [
    { name: 'name', shown: 'required', group: false },
    { name: 'label', shown: undefined, group: false },
    { name: 'on', shown: '`true`', group: false },
    { name: 'limits', shown: undefined, group: true },
    { name: 'limits.total', shown: '`10`', group: false },
    { name: 'limits.each', shown: '`4`', group: false },
    { name: 'limits.delay', shown: '`5`', group: false },
    { name: 'twice', shown: 'twice the total', group: false }
  ])
})
