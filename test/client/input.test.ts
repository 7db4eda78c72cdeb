import t from 'tap'
import { answerFor, capabilitiesFor, LEGACY_KEY } from '../../lib/client/input.js'
import type { InputRequest } from '../../lib/client/types.js'

const elicit: InputRequest = { method: 'elicitation/create', params: { message: 'Who?' } }
const sample: InputRequest = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } }
const ada = { action: 'accept' as const, content: { name: 'Ada' } }

t.test('answerFor: the first source that answers, then the unanswered rule', async (t) => {
  t.same(await answerFor(elicit, 'who', [{ who: ada }], 'decline'), ada)
  t.same(await answerFor(elicit, 'who', [{ other: ada }, { who: { action: 'cancel' } }], 'decline'), { action: 'cancel' }, 'the next source answers the key the first lacks')
  t.same(await answerFor(elicit, 'who', [async (_r, key) => key === 'who' ? ada : undefined], 'decline'), ada)
  t.same(await answerFor(elicit, 'who', [{ who: async (request) => ({ action: 'accept', content: { name: (request.params as any).message } }) }], 'decline'), { action: 'accept', content: { name: 'Who?' } })
  t.same(await answerFor(elicit, 'who', [undefined, {}], 'decline'), { action: 'decline' })
  t.same(await answerFor(elicit, 'who', [], 'cancel'), { action: 'cancel' })
  await t.rejects(answerFor(elicit, 'who', [], 'error'), { name: 'UnansweredInputError', key: 'who', message: /and unanswered is 'error'/ })
  await t.rejects(answerFor(sample, 's', [], 'decline'), { name: 'UnansweredInputError', method: 'sampling/createMessage', message: /cannot be declined/ })
  t.equal(LEGACY_KEY, 'legacy')
})

t.test('capabilitiesFor: only what can be answered, the explicit ones over', async (t) => {
  t.same(capabilitiesFor([], 'decline', {}), { elicitation: { form: {}, url: {} } })
  t.same(capabilitiesFor([], 'error', {}), {}, "'error' without answers: nothing can be answered")
  t.same(capabilitiesFor([{ who: ada }], 'error', {}), { elicitation: { form: {}, url: {} } })
  t.same(capabilitiesFor([{ s: { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' } }, { r: { roots: [] } }], 'decline', {}), { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} })
  t.same(capabilitiesFor([() => undefined], 'decline', {}), { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }, 'a function may answer anything')
  t.same(capabilitiesFor([{ k: () => undefined }], 'decline', {}), { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} })
  t.same(capabilitiesFor([], 'decline', { elicitation: { form: {} }, extensions: { x: {} } }), { elicitation: { form: {} }, extensions: { x: {} } })
})
