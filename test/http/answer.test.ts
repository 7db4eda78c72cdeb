// How a call that may stream picks its answer (issue 41, item 7): an event stream only when the
// client's Accept allows one (q-values honoured: `text/event-stream;q=0` is refused), JSON otherwise;
// a 2025 call may open a stream to ask its client something only with an Accept that allows one.
import t from 'tap'
import type { Call } from '../../lib/protocol/call.js'
import { answersAsStream, mayAsk } from '../../lib/http/answer.js'
import { acceptable } from '../../lib/http/accept.js'
import type { Carried } from '../../lib/http/headers.js'
import { build } from '../helpers/app.js'
import { modernRequest } from '../helpers/requests.js'

/** What a POST with this `Accept` carries, as far as the answer's choice reads it. */
function carried (accept: string | undefined): Carried {
  return { accept, acceptable: acceptable(accept) } as Carried
}

function call (fields: { stream?: boolean, logLevel?: string, progressToken?: string, capabilities?: Record<string, unknown>, target?: 'tool' | 'none' }): Call {
  return {
    target: fields.target === 'none' ? undefined : { kind: 'tool', stream: fields.stream === true },
    logLevel: fields.logLevel,
    params: fields.progressToken === undefined ? {} : { _meta: { progressToken: fields.progressToken } },
    client: { capabilities: fields.capabilities ?? {} }
  } as unknown as Call
}

t.test('answersAsStream: a call that may send something, from a client that accepts an event stream', async (t) => {
  const streaming = call({ stream: true })
  t.equal(answersAsStream(carried('application/json, text/event-stream'), streaming), true)
  t.equal(answersAsStream(carried(undefined), streaming), true, 'no Accept: anything')
  t.equal(answersAsStream(carried('*/*;q=0.1'), streaming), true)
  t.equal(answersAsStream(carried('application/json'), streaming), false)
  t.equal(answersAsStream(carried('text/event-stream;q=0, application/json'), streaming), false, 'q=0 refuses the event stream')
  t.equal(answersAsStream(carried('application/json, */*;q=0'), streaming), false)
  t.equal(answersAsStream(carried('application/json;q=1, text/event-stream;q=0.1'), streaming), true, 'a lower q still accepts: the server chooses')
  t.equal(answersAsStream(carried('application/json, text/event-stream'), call({ logLevel: 'info' })), true, 'a log level')
  t.equal(answersAsStream(carried('application/json, text/event-stream'), call({ progressToken: 'p' })), true, 'a progress token')
  t.equal(answersAsStream(carried('application/json, text/event-stream'), call({})), false, 'nothing to send')
  t.equal(answersAsStream(carried('application/json, text/event-stream'), call({ target: 'none' })), false, 'an unknown tool')
})

t.test('mayAsk: a 2025 client that declared something to ask about, with an Accept that allows an event stream', async (t) => {
  const asks = call({ capabilities: { elicitation: {} } })
  t.equal(mayAsk(carried('application/json, text/event-stream'), asks), true)
  t.equal(mayAsk(carried(undefined), asks), false, 'no Accept: no stream opened to ask on')
  t.equal(mayAsk(carried('text/event-stream;q=0, application/json'), asks), false)
  t.equal(mayAsk(carried('application/json'), asks), false)
  t.equal(mayAsk(carried('*/*'), call({ capabilities: { sampling: {} } })), true)
  t.equal(mayAsk(carried('*/*'), call({ capabilities: { roots: {} } })), true)
  t.equal(mayAsk(carried('*/*'), call({})), false, 'nothing to ask about')
})

t.test('a streaming tool answers JSON to a client whose Accept refuses an event stream', async (t) => {
  const app = await build({ keepAlive: 0 })
  app.registerTool({ name: 'live', stream: true, execute: (_args, ctx) => { ctx.progress(1); return 'done' } })
  t.teardown(() => app.close())
  const streamed = await app.inject(modernRequest('tools/call', { name: 'live', arguments: {}, _meta: { progressToken: 'p' } }))
  t.match(streamed.headers['content-type'], /^text\/event-stream/, 'accepted: an event stream')
  const json = await app.inject(modernRequest('tools/call', { name: 'live', arguments: {}, _meta: { progressToken: 'p' } }, { accept: 'text/event-stream;q=0, application/json' }))
  t.equal(json.statusCode, 200)
  t.match(json.headers['content-type'], /^application\/json/, 'refused by q=0: JSON, the progress dropped')
  t.equal(json.json().result.content[0].text, 'done')
})
