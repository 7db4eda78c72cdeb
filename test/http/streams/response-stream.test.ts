// One POST's answer as an event stream, on an outbox of its own: once it has finished, a late
// ctx.closeStream (work a tool left running after its answer) writes nothing more.
import t from 'tap'
import { ResponseStream } from '../../../lib/http/streams/response-stream.js'
import type { Outbox } from '../../../lib/http/streams/outbox.js'

/** An outbox that runs each step at once and keeps its connection, noting what reached it. */
function outbox (): { outbox: Outbox, wrote: string[] } {
  const wrote: string[] = []
  const conn = { retry: (ms: number) => { wrote.push(`retry ${ms}`); return true }, end: () => { wrote.push('end') } }
  const fake = { conn, push: (message: string) => { wrote.push(message); return true }, then: (step: () => void) => { step() } }
  return { outbox: fake as unknown as Outbox, wrote }
}

t.test('closeConnection: retry then end while the call runs; nothing once it has finished', async (t) => {
  const running = outbox()
  new ResponseStream(running.outbox, true, undefined).closeConnection(5)
  t.same(running.wrote, ['retry 5', 'end'], 'SEP-1699 polling: the client reconnects in 5 ms')

  const done = outbox()
  const stream = new ResponseStream(done.outbox, true, undefined)
  let delivered: unknown
  stream.finish('answer', (conn) => { delivered = conn })
  t.ok(delivered !== undefined, 'the answer went out on the connection')
  stream.closeConnection(5)
  t.same(done.wrote, ['answer', 'end'], 'the late close wrote nothing')
})
