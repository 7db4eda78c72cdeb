// notifications/cancelled in 2025 sessions: the client stops a request it sent earlier.
import t from 'tap'
import { build, listen, until } from '../../helpers/app.js'
import { openSession, sessionPost } from '../../helpers/requests.js'
import { legacyClient } from '../../helpers/clients.js'
import { Cancellations } from '../../../lib/protocol/session/cancellations.js'
import { MemoryBus } from '../../../lib/state/memory-bus.js'
import type { BusEvent } from '../../../lib/state/bus.js'

function waitForAbort (signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(String(signal.reason?.message))
    signal.addEventListener('abort', () => resolve(String(signal.reason?.message)), { once: true })
  })
}

t.test('a real 2025 client timing out a call aborts the tool\'s signal', async (t) => {
  let aborted: Promise<string> | undefined
  const app = await build()
  app.registerTool({
    name: 'wait',
    execute (args, ctx) {
      aborted = waitForAbort(ctx.signal)
      return aborted
    }
  })
  const { client } = await legacyClient(t, new URL(await listen(t, app)), { name: 'v1', version: '1' })
  // the v1 client sends notifications/cancelled when its own timeout fires
  await t.rejects(client.callTool({ name: 'wait', arguments: {} }, undefined, { timeout: 200 }), /timed out/i)
  t.match(await aborted!, /^cancelled by the client/, 'the tool saw the cancellation')
})

t.test('cancelling over inject: the right call, ids kept apart, nothing left behind', async (t) => {
  const app = await build()
  const seen: string[] = []
  app.registerTool({
    name: 'wait',
    async execute (args, ctx) {
      seen.push(await waitForAbort(ctx.signal))
      return 'stopped'
    }
  })
  await app.ready()
  t.teardown(() => app.close())
  const session = await openSession(app)
  const call = app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait', arguments: {} } }))
  await new Promise((resolve) => setImmediate(resolve))
  // a cancel for the id "1" (a string) is another request than 1
  const other = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '1' } }))
  t.equal(other.statusCode, 202)
  t.same(seen, [], 'the string id did not cancel the numeric one')
  const cancel = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'user pressed stop' } }))
  t.equal(cancel.statusCode, 202)
  const res = await call
  t.equal(res.statusCode, 200)
  t.same(seen, ['cancelled by the client: user pressed stop'])
  const bad = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: { nope: true } } }))
  t.equal(bad.statusCode, 202, 'a malformed cancel is dropped')
})

t.test('the registry forgets finished calls', async (t) => {
  const registry = new Cancellations(new MemoryBus())
  const first = new AbortController()
  const release = registry.track('s', 1, first)
  t.equal(registry.size, 1)
  const second = new AbortController()
  const releaseSecond = registry.track('s', 1, second) // a reused id replaces the entry
  release() // the old call's release must not forget the new one
  t.equal(registry.size, 1)
  registry.cancel('s', 1, undefined)
  t.equal(second.signal.aborted, true)
  t.equal(second.signal.reason.message, 'cancelled by the client')
  t.equal(first.signal.aborted, false)
  releaseSecond()
  t.equal(registry.size, 0)
})

t.test('a resumable (2025-11-25) streamed call outlives its socket but not a cancel', async (t) => {
  const app = await build()
  const seen: string[] = []
  let running = false
  app.registerTool({
    name: 'stream_wait',
    stream: true,
    async execute (args, ctx) {
      running = true
      seen.push(await waitForAbort(ctx.signal))
      return 'stopped'
    }
  })
  app.registerTool({ name: 'stream_quick', stream: true, execute: () => 'quick' })
  await app.ready()
  t.teardown(() => app.close())
  const session = await openSession(app)
  const call = app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'stream_wait', arguments: {} } }))
  await until(() => running, { what: 'the call to run' })
  await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } }))
  const res = await call
  t.match(res.body, /"text":"stopped"/)
  t.same(seen, ['cancelled by the client'])
  const quick = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'stream_quick', arguments: {} } }))
  t.match(quick.body, /"text":"quick"/, 'a streamed call that never reads its signal registers nothing')
})

t.test('a cancel for a call not running here goes on the bus; one from the bus stops the call here', async (t) => {
  const bus = new MemoryBus()
  const seen: BusEvent[] = []
  bus.subscribe((event) => { seen.push(event) })
  const here = new Cancellations(bus)
  const there = new Cancellations(bus) // another instance, on the same bus
  const running = new AbortController()
  here.track('s', 7, running)
  there.cancel('s', 7, 'user pressed stop')
  t.same(seen, [{ type: 'cancelled', sessionId: 's', requestId: 7, reason: 'user pressed stop' }])
  t.equal(running.signal.aborted, true, 'the instance running it stopped it')
  t.equal(running.signal.reason.message, 'cancelled by the client: user pressed stop')
  here.cancel('s', 7, 'again')
  t.equal(seen.length, 1, 'found here: nothing on the bus')
  here.close()
  there.close()
  const later = new AbortController()
  here.track('s', 8, later)
  bus.publish({ type: 'cancelled', sessionId: 's', requestId: 8 })
  t.equal(later.signal.aborted, false, 'closed: no longer listening')
  const failing = new MemoryBus()
  failing.publish = () => { throw new Error('bus down') }
  t.doesNotThrow(() => new Cancellations(failing).cancel('s', 9, undefined), 'a failing bus loses the cancel, nothing more')
})
