// Errors inside a streamed answer: a protocol error and an unexpected one both end the stream as
// the call's JSON-RPC error, after whatever was already sent.
import t from 'tap'
import { build } from '../helpers/app.js'
import { modernRequest } from '../helpers/requests.js'
import { sseMessage } from '../helpers/sse.js'

t.test('a protocol error in a streamed call is its final event', async (t) => {
  const app = await build({ keepAlive: 0 })
  app.registerTool({ name: 'live', stream: true, execute: () => 'x' })
  t.teardown(() => app.close())
  const res = await app.inject(modernRequest('tools/call', { name: 'live', arguments: 'not an object' }))
  t.equal(res.headers['content-type'], 'text/event-stream')
  const answer = sseMessage(res.body)
  t.equal(answer.error.code, -32602)
  t.match(answer.error.message, /"arguments" of tool 'live' must be an object/)
})

t.test('an unexpected failure in a streamed call is -32603, logged, with no detail sent', async (t) => {
  const lines: any[] = []
  const logger = {
    level: 'info',
    stream: {
      write (line: string) {
        // the tool's failure report itself fails: what reaches the endpoint is no ProtocolError
        if (line.includes('cannot be sent as JSON')) throw new Error('log sink down')
        lines.push(JSON.parse(line))
      }
    }
  }
  const app = await build({ keepAlive: 0 }, { logger })
  app.registerTool({ name: 'big', stream: true, execute: () => ({ n: 10n }) as any })
  t.teardown(() => app.close())
  const res = await app.inject(modernRequest('tools/call', { name: 'big', arguments: {} }))
  const answer = sseMessage(res.body)
  t.same(answer.error, { code: -32603, message: 'Internal error' })
  t.notMatch(res.body, /log sink down/)
  t.ok(lines.some((line) => line.msg === 'fastify-sake: unexpected error while streaming a response' && line.err.message === 'log sink down'))
})
