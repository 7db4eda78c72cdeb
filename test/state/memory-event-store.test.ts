// MemoryEventStore, the default event store: ids per stream, replay after an id, the per-stream and
// total bounds (least recently used stream first), idle expiry on replay, by sweep and on its timer,
// and delete.
import t from 'tap'
import { captureIntervals } from '../helpers/timers.js'
import { MemoryEventStore } from '../../lib/state/memory-event-store.js'

t.test('MemoryEventStore: ids per stream, replay after an id, per-stream and total bounds', async (t) => {
  let now = 1000
  const store = new MemoryEventStore({ maxPerStream: 3, maxEvents: 5, idleTimeout: 100, now: () => now })
  t.teardown(() => store.close())
  const a0 = store.append('s/a', '')
  t.equal(a0, 's/a:0')
  store.append('s/a', 'one')
  store.append('s/a', 'two')
  t.same(store.replay(a0), { streamId: 's/a', events: [{ id: 's/a:1', message: 'one' }, { id: 's/a:2', message: 'two' }] })
  store.append('s/a', 'three') // over maxPerStream: s/a:0 dropped
  t.same(store.replay('s/a:0')!.events.map((e) => e.message), ['one', 'two', 'three'], 'the priming event dropped; replay from it gives the rest')
  t.equal(store.size, 3)
  store.append('s/b', 'b0')
  store.append('s/b', 'b1')
  store.append('s/b', 'b2') // total 6 > 5: the least recently written stream (s/a) loses its oldest
  t.equal(store.size, 5)
  t.same(store.replay('s/a:0')!.events.map((e) => e.message), ['two', 'three'], "s/a lost 'one'")
  for (const bad of ['nocolon', 's/a:x', 's/a:-1', 's/a:99', 'unknown:0']) t.equal(store.replay(bad), undefined, bad)
  // a stream emptied by the total bound disappears
  const tiny = new MemoryEventStore({ maxPerStream: 10, maxEvents: 1, idleTimeout: 100 })
  tiny.append('x', 'x0')
  tiny.append('y', 'y0')
  t.equal(tiny.replay('x:0'), undefined)
  t.equal(tiny.size, 1)
  tiny.close()
  // idle expiry, on replay and by the sweep
  now += 101
  t.equal(store.replay('s/b:0'), undefined, 'expired on replay')
  store.append('s/c', 'c0')
  now += 50
  store.append('s/d', 'd0')
  now += 60
  store.sweep()
  t.equal(store.replay('s/c:0'), undefined, 'swept')
  t.same(store.replay('s/d:0'), { streamId: 's/d', events: [] }, 'still live')
  t.equal(store.size, 1, 's/a idle too: swept')
  store.close()
  store.close()
  t.equal(store.size, 0)
})

t.test('MemoryEventStore evicts the least recently used stream, whatever order streams were touched in', async (t) => {
  let now = 0
  const store = new MemoryEventStore({ maxPerStream: 10, maxEvents: 4, idleTimeout: 100, now: () => now })
  store.append('a', 'a1')
  store.append('b', 'b1')
  store.append('c', 'c1')
  store.append('b', 'b2') // b, in the middle, becomes the newest: a is now the oldest, then c
  store.append('d', 'd1') // 5 events: a loses its only one, and a goes
  t.equal(store.replay('a:0'), undefined, 'a evicted first')
  t.same(store.replay('c:0')?.events, [], 'c kept (replayed: now the newest)')
  store.append('e', 'e1') // the oldest is b now (c was replayed after it)
  t.same(store.replay('b:0')?.events.map((e) => e.message), ['b2'], 'b lost its oldest event')
  now = 50
  store.append('d', 'd2')
  now = 120 // b (replayed at 0), c, e (0) idle; d written at 50
  store.sweep()
  t.equal(store.size, 2, 'only d is left')
  t.same(store.replay('d:0')?.events.map((e) => e.message), ['d2'])
  store.close()
})

t.test('MemoryEventStore without a clock uses Date.now and sweeps on an unref\'d timer', async (t) => {
  // the store's timer and clock, captured (both are read when it is built): the sweep runs when
  // the test fires the timer, and Date.now moves on instead of the test waiting the second out
  const { timers, cleared } = captureIntervals(t)
  const realNow = Date.now
  let later = 0
  t.capture(Date, 'now', () => realNow() + later)
  const store = new MemoryEventStore({ maxPerStream: 1, maxEvents: 1, idleTimeout: 1 })
  t.same(timers.map((timer) => [timer.ms, timer.unref]), [[1000, true]], 'one unref\'d timer, every second (the shortest sweep)')
  store.append('z', 'm')
  later += 1100
  timers[0].fn()
  t.equal(store.size, 0)
  store.close()
  t.equal(cleared().length, 1, 'close stops the timer')
})

t.test('MemoryEventStore.delete forgets a stream at once; an unknown one is nothing', async (t) => {
  const store = new MemoryEventStore({ maxPerStream: 10, maxEvents: 10, idleTimeout: 100 })
  t.teardown(() => store.close())
  store.append('a', '')
  store.append('a', 'a1')
  const b0 = store.append('b', 'b0')
  store.delete('a')
  t.equal(store.replay('a:0'), undefined)
  t.equal(store.size, 1)
  store.delete('a')
  store.delete('never')
  t.same(store.replay(b0), { streamId: 'b', events: [] }, 'the others untouched')
  store.append('c', 'c0')
  store.delete('c') // the newest, then the oldest: the list stays whole
  store.delete('b')
  store.append('d', 'd0')
  t.equal(store.size, 1)
})
