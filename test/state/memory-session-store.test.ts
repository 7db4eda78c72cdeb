// The default session store, beyond the SessionStore contract (test/state/session-store.test.ts):
// bounded by count per caller and in all (a new session is refused at a bound: nothing live is ever
// dropped, issue 40) and by idle time, kept in least-recently-used order, on an injected clock: no
// test here waits for real time to pass.
import t from 'tap'
import { captureIntervals } from '../helpers/timers.js'
import { MemorySessionStore } from '../../lib/state/memory-session-store.js'
import type { Session } from '../../lib/state/session-store.js'

function session (id: string, initialized = false, caller?: string): Session {
  return { id, protocolVersion: '2025-11-25', client: { info: { name: 'c', version: '1' }, capabilities: {} }, initialized, ...(caller === undefined ? {} : { caller }) }
}

/** A store on a clock the test moves by hand. */
function storeWith (options: { maxSessions?: number, maxPerCaller?: number, idleTimeout?: number } = {}): { store: MemorySessionStore, clock: { now: number } } {
  const clock = { now: 1_000_000 }
  const store = new MemorySessionStore({ maxSessions: options.maxSessions ?? 100, maxPerCaller: options.maxPerCaller, idleTimeout: options.idleTimeout ?? 1000, now: () => clock.now })
  t.teardown(() => store.close())
  return { store, clock }
}

function ids (store: MemorySessionStore): string[] {
  // the store's order is its LRU order: read it through sweep-free means (get would reorder)
  return [...(store as any).entries.keys()]
}

t.test('at maxSessions a new session is refused; no live one is dropped', async (t) => {
  const { store, clock } = storeWith({ maxSessions: 3 })
  t.equal(store.create(session('a', false, 'ip:1')), true)
  t.equal(store.create(session('b', false, 'ip:2')), true)
  t.equal(store.create(session('c', false, 'ip:3')), true)
  t.equal(store.create(session('d', false, 'ip:4')), 'total', 'full: refused')
  t.equal(store.size, 3)
  t.ok(store.get('a') !== undefined && store.get('b') !== undefined && store.get('c') !== undefined, 'every live session is still there')
  clock.now += 600
  store.get('a') // a is in use; b and c go idle past the timeout
  clock.now += 600
  t.equal(store.create(session('d', false, 'ip:4')), true, 'at the bound, idle sessions are swept first: room for d')
  t.same(ids(store), ['a', 'd'])
})

t.test('at maxPerCaller a caller\'s new session is refused, another caller\'s is not', async (t) => {
  const { store } = storeWith({ maxSessions: 10, maxPerCaller: 2 })
  t.equal(store.create(session('a1', false, 'sub:alice')), true)
  t.equal(store.create(session('a2', false, 'sub:alice')), true)
  t.equal(store.create(session('a3', false, 'sub:alice')), 'caller')
  t.equal(store.heldBy('sub:alice'), 2)
  t.equal(store.create(session('b1', false, 'sub:bob')), true, 'bob is not alice')
  store.delete('a1')
  t.equal(store.heldBy('sub:alice'), 1, 'a delete gives the quota back')
  t.equal(store.create(session('a3', false, 'sub:alice')), true)
  store.set(session('a4', false, 'sub:alice'))
  t.equal(store.get('a4'), undefined, 'set makes no new session: it only changes one that is there')
  t.equal(store.heldBy('sub:alice'), 2)
  t.equal(store.create(session('old')), true)
  t.equal(store.heldBy(''), 1, 'one created without a caller counts under none')
  store.delete('old')
  store.delete('never there')
  t.equal(store.size, 3, "alice's a2 and a3, bob's b1")
})

t.test('the order stays least recently used when the newest session is asked again and again', async (t) => {
  const { store } = storeWith({ maxSessions: 3 })
  store.create(session('a'))
  store.create(session('b'))
  store.get('b') // already the newest: left where it is
  store.get('b')
  t.same(ids(store), ['a', 'b'])
  store.get('a')
  store.get('a')
  t.same(ids(store), ['b', 'a'], 'a moved last once')
  store.delete('a') // the newest deleted: the next get of b must move it again
  store.create(session('c'))
  store.get('b')
  t.same(ids(store), ['c', 'b'])
  store.close()
  store.create(session('f'))
  store.get('f')
  t.same(ids(store), ['f'], 'after close the store starts over')
})

t.test('set on an existing id replaces the session without changing the order or the count', async (t) => {
  const { store, clock } = storeWith({ maxSessions: 2 })
  store.create(session('a', false, 'ip:1'))
  store.create(session('b', false, 'ip:1'))
  const updated = session('a', true, 'ip:1')
  clock.now += 10
  store.set(updated)
  t.equal(store.size, 2, 'replaced, not added')
  t.equal(store.heldBy('ip:1'), 2, 'counted once')
  t.same(ids(store), ['a', 'b'], 'a is still the least recently used')
  t.same(store.get('a'), updated)
})

t.test('a session idle longer than idleTimeout has ended when asked for', async (t) => {
  const { store, clock } = storeWith({ idleTimeout: 1000 })
  store.create(session('a'))
  clock.now += 1000
  t.ok(store.get('a'), 'exactly at the timeout it is still alive')
  clock.now += 1000
  t.ok(store.get('a'), 'each get counts as activity and restarts the clock')
  clock.now += 1001
  t.equal(store.get('a'), undefined, 'past the timeout: gone')
  t.equal(store.size, 0, 'and removed, not just hidden')
})

t.test('sweep removes idle sessions and stops at the first live one', async (t) => {
  const { store, clock } = storeWith({ idleTimeout: 1000 })
  store.create(session('old1'))
  store.create(session('old2'))
  clock.now += 600
  store.create(session('live'))
  // a session behind the first live one is never looked at, even when idle: to show it, the clock
  // steps back so that 'probe', last in use order, is the oldest by time
  clock.now -= 10_000
  store.create(session('probe'))
  clock.now += 10_000 + 500 // old ones idle 1100ms, live one 500ms, probe 10500ms
  store.sweep()
  t.same(ids(store), ['live', 'probe'], 'the idle ones in front are gone; the sweep stopped at live')
  clock.now += 2000
  store.sweep()
  t.equal(store.size, 0, 'later, all idle')
})

t.test('sweep on an empty store', async (t) => {
  const { store } = storeWith()
  store.sweep()
  t.equal(store.size, 0)
})

t.test('a timer sweeps on its own, unref\'d, at half the idle time within [1s, 60s]', async (t) => {
  const { timers, cleared } = captureIntervals(t)
  const clock = { now: 0 }
  const store = new MemorySessionStore({ maxSessions: 10, idleTimeout: 10_000, now: () => clock.now })
  new MemorySessionStore({ maxSessions: 10, idleTimeout: 100, now: () => 0 }).close()
  new MemorySessionStore({ maxSessions: 10, idleTimeout: 3_600_000, now: () => 0 }).close()
  t.same(timers.map((timer) => timer.ms), [5000, 1000, 60_000])
  t.ok(timers.every((timer) => timer.unref), 'never keeps the process alive')

  store.create(session('a'))
  clock.now = 10_001
  timers[0].fn()
  t.equal(store.size, 0, 'the timer\'s callback sweeps')
  store.close()
  t.equal(cleared().length, 3, 'close stops the timer')
})

t.test('close empties the store', async (t) => {
  const { store } = storeWith()
  store.create(session('a'))
  store.create(session('b'))
  store.close()
  t.equal(store.size, 0)
  t.equal(store.get('a'), undefined)
  store.close()
  t.equal(store.size, 0, 'closing twice is harmless')
})

t.test('without a clock it uses Date.now', async (t) => {
  const store = new MemorySessionStore({ maxSessions: 1, idleTimeout: 60_000 })
  t.teardown(() => store.close())
  store.create(session('a'))
  t.ok(store.get('a'))
  const lastSeen = (store as any).entries.get('a').lastSeen
  t.ok(Math.abs(lastSeen - Date.now()) < 5000, 'stamped with the real time')
})
