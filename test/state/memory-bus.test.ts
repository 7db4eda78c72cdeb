// MemoryBus, the default bus, beyond the Bus contract (test/state/bus.test.ts): size counts the
// subscriptions, close drops them all, and a large fan-out is delivered in slices that never hold
// the event loop long, in publish order, to the listeners subscribed at the publish.
import t from 'tap'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { PassThrough } from 'node:stream'
import { MemoryBus, SLICE_LISTENERS, SLICE_MS } from '../../lib/state/memory-bus.js'
import type { BusEvent } from '../../lib/state/bus.js'

/** Holds the thread for `us` microseconds: what one stream's write of an event costs (about 25 µs). */
function busy (us: number): void {
  const until = performance.now() + us / 1000
  while (performance.now() < until);
}

const tools: BusEvent = { type: 'listChanged', list: 'tools' }
const prompts: BusEvent = { type: 'listChanged', list: 'prompts' }

t.test('MemoryBus: size counts subscriptions (the same function twice is two); close drops them all', async (t) => {
  const bus = new MemoryBus()
  const got: string[] = []
  const listener = (e: any): void => { got.push(e.list) }
  const offA = bus.subscribe(listener)
  bus.subscribe(listener)
  const offSelf = bus.subscribe(() => { offSelf() })
  t.equal(bus.size, 3)
  bus.publish({ type: 'listChanged', list: 'tools' })
  t.equal(bus.size, 2, 'the listener that unsubscribed while delivered is gone')
  offA()
  t.equal(bus.size, 1)
  bus.close()
  t.equal(bus.size, 0)
  bus.publish({ type: 'listChanged', list: 'prompts' })
  t.same(got, ['tools', 'tools'], 'nothing delivered after close')
})

t.test('a fan-out that fits in one slice is delivered within publish: no promise, no extra tick; one listener more is not', async (t) => {
  const bus = new MemoryBus()
  const got: number[] = []
  for (let i = 0; i < SLICE_LISTENERS; i++) bus.subscribe(() => { got.push(i) })
  t.equal(bus.publish(tools), undefined, 'publish returned nothing to wait for')
  t.equal(got.length, SLICE_LISTENERS, 'every listener had it before publish returned')
  t.same(got, [...got].sort((a, b) => a - b), 'in subscription order')
  got.length = 0
  bus.subscribe(() => { got.push(SLICE_LISTENERS) })
  const delivering = bus.publish(tools)
  t.ok(delivering instanceof Promise, `${SLICE_LISTENERS + 1} listeners: two slices`)
  t.equal(got.length, SLICE_LISTENERS, 'the first at once')
  await delivering
  t.equal(got.at(-1), SLICE_LISTENERS, 'the last one after a turn of the event loop')
})

t.test('10,000 listeners that each write an event to a stream: no event-loop turn holds more than a slice of them, and each gets each event once, in order', async (t) => {
  const bus = new MemoryBus()
  t.teardown(() => bus.close())
  const streams: PassThrough[] = []
  const got: BusEvent[][] = []
  /** The turn of the event loop each listener call ran in, as counted by `tick`. */
  const turns: number[] = []
  let turn = 0
  for (let i = 0; i < 10_000; i++) {
    // a stream per listener, written as an open SSE stream is: the event as text, and a bit more work
    const stream = new PassThrough()
    stream.resume()
    const events: BusEvent[] = []
    streams.push(stream)
    got.push(events)
    bus.subscribe((event) => {
      events.push(event)
      turns.push(turn)
      stream.write(`data: ${JSON.stringify(event)}\n\n`)
      busy(20)
    })
  }
  const delay = monitorEventLoopDelay({ resolution: 1 })
  // counts the turns of the event loop: an immediate runs once in each
  let ticking = true
  const tick = (): void => { turn++; if (ticking) setImmediate(tick) }
  setImmediate(tick)
  delay.enable()
  const started = performance.now()
  const first = bus.publish(tools)
  const second = bus.publish(prompts)
  t.ok(first instanceof Promise, 'too large for one slice: publish returns a promise')
  t.ok(second instanceof Promise, 'an event published during a delivery waits its turn')
  t.ok(got[0]!.length === 1 && got[9_999]!.length === 0, 'the first slice went out at once; the rest comes after')
  await first
  t.ok(got.every((events) => events.length >= 1), 'the first event reached every listener when its promise settled')
  await second
  const took = performance.now() - started
  delay.disable()
  ticking = false
  const perTurn = new Map<number, number>()
  for (const at of turns) perTurn.set(at, (perTurn.get(at) ?? 0) + 1)
  const most = Math.max(...perTurn.values())
  t.comment(`10,000 listeners, 2 events: ${took.toFixed(0)} ms in all, over ${perTurn.size} turns of the event loop, at most ${most} listeners in one; worst event-loop delay ${(delay.max / 1e6).toFixed(1)} ms (slice ${SLICE_MS} ms)`)
  t.ok(got.every((events) => events.length === 2 && events[0] === tools && events[1] === prompts), 'each listener: both events, once each, in publish order')
  t.ok(most <= SLICE_LISTENERS, `no turn of the event loop ran more than a slice of listeners (${most})`)
  t.ok(perTurn.size >= 20_000 / SLICE_LISTENERS, 'so the fan-out took many turns, with others\' work between them')
  for (const stream of streams) stream.destroy()
})

t.test('during a sliced delivery: one who unsubscribes is not called, one who subscribes does not hear the earlier event but hears the next', async (t) => {
  const bus = new MemoryBus()
  t.teardown(() => bus.close())
  const calls: string[] = []
  let offLate: () => void = () => {}
  bus.subscribe((event: any) => {
    calls.push(`first ${event.list}`)
    busy((SLICE_MS + 1) * 1000)
  })
  bus.subscribe((event: any) => { calls.push(`second ${event.list}`) })
  offLate = bus.subscribe((event: any) => { calls.push(`leaves ${event.list}`) })
  const delivering = bus.publish(tools)
  t.same(calls, ['first tools'], 'a slow first listener filled the slice')
  offLate()
  bus.subscribe((event: any) => { calls.push(`joins ${event.list}`) })
  await delivering
  t.same(calls, ['first tools', 'second tools'], 'the one who left was not called; the one who joined did not hear it')
  calls.length = 0
  await bus.publish(prompts)
  t.same(calls, ['first prompts', 'second prompts', 'joins prompts'])
})

t.test('a listener that throws: the others still get the event; a small fan-out throws it from publish, a sliced one rejects its promise', async (t) => {
  const bus = new MemoryBus()
  t.teardown(() => bus.close())
  const got: string[] = []
  bus.subscribe(() => { throw new Error('first broke') })
  bus.subscribe(() => { throw new Error('second broke') })
  bus.subscribe((event: any) => { got.push(event.list) })
  t.throws(() => bus.publish(tools), { message: 'first broke' }, 'the first error, thrown after the delivery')
  t.same(got, ['tools'], 'the listener after them had the event')
  bus.subscribe(() => { busy((SLICE_MS + 1) * 1000) })
  bus.subscribe((event: any) => { got.push(`late ${event.list as string}`) })
  const sliced = bus.publish(prompts)
  t.ok(sliced instanceof Promise)
  await t.rejects(sliced as Promise<void>, { message: 'first broke' })
  t.same(got, ['tools', 'prompts', 'late prompts'])
})

t.test('a listener left for the next slice that unsubscribes meanwhile is not called', async (t) => {
  const bus = new MemoryBus()
  t.teardown(() => bus.close())
  const calls: string[] = []
  bus.subscribe(() => {
    calls.push('slow')
    busy((SLICE_MS + 1) * 1000)
  })
  const off = bus.subscribe(() => { calls.push('left') })
  bus.subscribe(() => { calls.push('last') })
  const delivering = bus.publish(tools)
  off()
  await delivering
  t.same(calls, ['slow', 'last'])
})

t.test('close during a sliced delivery: what waits is dropped and its promises resolve; a listener that closes the bus mid-delivery', async (t) => {
  const bus = new MemoryBus()
  const got: string[] = []
  bus.subscribe(() => { busy((SLICE_MS + 1) * 1000) })
  bus.subscribe((event: any) => { got.push(event.list) })
  const first = bus.publish(tools)
  const second = bus.publish(prompts)
  bus.close()
  await first
  await second
  t.same(got, [], 'nothing delivered after close')

  const closing = new MemoryBus()
  const heard: string[] = []
  let after: void | Promise<void>
  closing.subscribe((event: any) => {
    heard.push(event.list)
    if (event.list === 'tools') {
      closing.close()
      closing.subscribe((e: any) => { heard.push(`new ${e.list as string}`) })
      after = closing.publish(prompts)
    }
  })
  closing.subscribe(() => { heard.push('never') })
  t.equal(closing.publish(tools), undefined)
  await after!
  t.same(heard, ['tools', 'new prompts'], 'the closed delivery stopped; the event published after the close went to the new listener')
  closing.close()
})

t.test('an event for one session, call or task reaches every listener at once, even behind a sliced fan-out; a throw comes after the others had it', async (t) => {
  const bus = new MemoryBus()
  const heard: string[] = []
  for (let i = 0; i < SLICE_LISTENERS * 3; i++) bus.subscribe((event) => { if (i === 0) heard.push(event.type) })
  const fanOut = bus.publish({ type: 'listChanged', list: 'tools' })
  t.ok(fanOut instanceof Promise, 'the list change is sliced')
  const targeted = bus.publish({ type: 'taskStatus', taskId: 't1' })
  t.equal(targeted, undefined, 'the task change is delivered within publish, ahead of the slices')
  t.same(heard, ['listChanged', 'taskStatus'])
  await fanOut

  const small = new MemoryBus()
  const order: string[] = []
  let second: () => void = () => {}
  small.subscribe(() => { order.push('first'); second() })
  second = small.subscribe(() => { order.push('second') })
  small.subscribe(() => { throw new Error('a broken listener') })
  small.subscribe(() => { order.push('last') })
  t.throws(() => small.publish({ type: 'cancelled', sessionId: 's', requestId: 1 }), /a broken listener/)
  t.same(order, ['first', 'last'], 'one unsubscribed by an earlier listener is not called; the one after a throw is')
})
