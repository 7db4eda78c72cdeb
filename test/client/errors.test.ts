// The client's error classes (lib/client/errors.ts): one set of classes, exported by both entry
// points, so an error thrown by a client made from either import is an instance of both exports.
import t from 'tap'
import * as main from '../../lib/index.js'
import * as client from '../../lib/client/index.js'
import * as errors from '../../lib/client/errors.js'

t.test('both entry points export the very same classes', async (t) => {
  for (const name of ['RpcError', 'AuthChallengeError', 'HttpError', 'UnansweredInputError'] as const) {
    t.equal(main[name], errors[name], `fastify-sake's ${name}`)
    t.equal(client[name], errors[name], `fastify-sake/client's ${name}`)
  }
  const err = new client.RpcError(-32602, 'Invalid params', undefined, 400)
  t.ok(err instanceof main.RpcError, 'instanceof works across the entry points')
  t.same([err.name, err.code, err.message, err.status], ['RpcError', -32602, 'Invalid params', 400])
  const unanswered = new main.UnansweredInputError('who', 'elicitation/create', 'no answer')
  t.ok(unanswered instanceof client.UnansweredInputError)
  t.same([unanswered.name, unanswered.key, unanswered.method], ['UnansweredInputError', 'who', 'elicitation/create'])
})

t.test('the option error stays with the coded errors: one class, both entry points', async (t) => {
  t.equal(client.SakeClientOptionError, main.SakeClientOptionError)
  t.ok(main.errorCodes.includes(new client.SakeClientOptionError('x').code as never))
})
