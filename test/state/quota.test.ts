// What callers hold, counted in a process (issue 40): per caller and in all, the caller's bound
// first, nothing taken at a refusal, the refusal logged once with the caller and the bound.
import t from 'tap'
import { Quota, quotaRefusal } from '../../lib/state/quota.js'
import { QuotaExceededError } from '../../lib/errors.js'

function logger (): { log: any, lines: Array<{ obj: any, msg: string }> } {
  const lines: Array<{ obj: any, msg: string }> = []
  return { log: { warn: (obj: any, msg: string) => lines.push({ obj, msg }) }, lines }
}

t.test('take, check, add and give: per caller and in all; a refusal takes nothing', async (t) => {
  const quota = new Quota('streams', { perCaller: 2, total: 3 })
  t.equal(quota.take('a'), undefined)
  t.equal(quota.take('a'), undefined)
  t.equal(quota.take('a'), 'caller', "a's own bound")
  t.equal(quota.of('a'), 2, 'nothing taken by the refusal')
  t.equal(quota.take('b'), undefined)
  t.equal(quota.check('c'), 'total', 'the whole bound')
  t.equal(quota.check('a'), 'caller', 'a caller at its own bound hears of its own first, whatever the total')
  quota.give('a')
  t.equal(quota.of('a'), 1)
  t.equal(quota.take('c'), undefined, 'room again')
  quota.give('nobody')
  t.equal(quota.check('d'), 'total', 'giving back what a caller never held changes nothing')
  quota.add('d')
  t.equal(quota.of('d'), 1, 'add counts past the bound (a store taking back what it held)')
  quota.give('d')
  quota.give('d')
  t.equal(quota.of('d'), 0)
  quota.clear()
  t.equal(quota.of('a'), 0)
  t.equal(quota.take('a'), undefined)
})

t.test('refused: the error of the bound, logged once at warn with the caller', async (t) => {
  const quota = new Quota('questions', { perCaller: 2, total: 10 })
  const { log, lines } = logger()
  const caller = quota.refused('caller', 'ip:1', log)
  t.ok(caller instanceof QuotaExceededError)
  t.match(caller, { status: 429, code: -32600, limit: 'questions', bound: 'caller', max: 2, option: 'questions.maxPerCaller', retryAfter: 5 })
  const total = quota.refused('total', 'ip:1', log)
  t.match(total, { status: 503, code: -32603, bound: 'total', max: 10, option: 'questions.maxQuestions' })
  t.equal(lines.length, 2)
  t.match(lines[0], { obj: { caller: 'ip:1', limit: 'questions', bound: 'caller', max: 2, option: 'questions.maxPerCaller' }, msg: /^fastify-sake: refused: Too Many Requests: / })
  t.match(quotaRefusal('tasks', 'total', 5, 'sub:x', log), { option: 'tasks.maxTasks', retryAfter: 30 })
})
