// The copies an instance keeps of a shared store's 2025 sessions (lib/state/session-cache.ts): a
// copy serves synchronously until it is too old, the bus drops it when another instance changes
// or ends the session, a read that a drop overtook keeps nothing, and the copies stay bounded.
import t from 'tap'
import { SessionCache } from '../../lib/state/session-cache.js'
import { MemoryBus } from '../../lib/state/memory-bus.js'
import { MemorySessionStore } from '../../lib/state/memory-session-store.js'
import type { Bus, BusEvent } from '../../lib/state/bus.js'
import type { Session, SessionStore } from '../../lib/state/session-store.js'
import { sleep, until } from '../helpers/app.js'

const session = (id: string, logLevel?: string): Session => ({ id, protocolVersion: '2025-11-25', client: { info: { name: 'c', version: '1' }, capabilities: {} }, initialized: true, ...(logLevel === undefined ? {} : { logLevel }) })

/** A networked store as the cache sees one: every call a promise, and counted. */
function counted (maxPerCaller = 100): { store: SessionStore & { create: NonNullable<SessionStore['create']> }, reads: string[], backing: MemorySessionStore, closed: () => boolean } {
  const backing = new MemorySessionStore({ maxSessions: 100, maxPerCaller, idleTimeout: 60_000 })
  const reads: string[] = []
  let closed = false
  const store = {
    get: async (id: string) => { reads.push(id); return backing.get(id) },
    // a store of the host's own: set stores new sessions too
    set: async (s: Session) => { if (backing.create({ ...s }) !== true) backing.set({ ...s }) },
    create: async (s: Session) => backing.create({ ...s }),
    delete: async (id: string) => { backing.delete(id) },
    close: () => { closed = true; backing.close() }
  }
  return { store, reads, backing, closed: () => closed }
}

function logs (): { log: any, warnings: Array<{ obj: any, msg: string }> } {
  const warnings: Array<{ obj: any, msg: string }> = []
  const log: any = { warn: (obj: any, msg: string) => warnings.push({ obj, msg }), info () {}, error () {}, debug () {}, child: () => log }
  return { log, warnings }
}

t.test('a copy serves synchronously until maxAge, then the store is read again; unknown sessions are not kept', async (t) => {
  const { store, reads, backing } = counted()
  const cache = new SessionCache(store, new MemoryBus(), 100, logs().log)
  t.teardown(() => cache.close())
  backing.create(session('a'))
  const first = cache.get('a')
  t.ok(first instanceof Promise, 'no copy yet: the store is read')
  t.same(await first, session('a'))
  const again = cache.get('a')
  t.notOk(again instanceof Promise, 'a copy: answered synchronously')
  t.same(again, session('a'))
  t.same(reads, ['a'], 'one read for two gets')
  await sleep(130) // the point: past maxAge (100 ms)
  t.same(await cache.get('a'), session('a'))
  t.same(reads, ['a', 'a'], 'the copy too old: read again')

  t.equal(await cache.get('nobody'), undefined)
  t.equal(await cache.get('nobody'), undefined)
  t.same(reads.filter((id) => id === 'nobody'), ['nobody', 'nobody'], 'a missing session is asked for each time: no copy of nothing')
})

t.test('the bus drops a copy: sessionChanged and sessionEnded from another instance; other events leave it', async (t) => {
  const { store, reads, backing } = counted()
  const bus = new MemoryBus()
  const cache = new SessionCache(store, bus, 60_000, logs().log)
  t.teardown(() => cache.close())
  backing.create(session('a'))
  await cache.get('a')
  bus.publish({ type: 'listChanged', list: 'tools' })
  bus.publish({ type: 'sessionNotification', sessionId: 'a', message: '{}' })
  cache.get('a')
  t.equal(reads.length, 1, 'other events: the copy stays')
  backing.create(session('a', 'debug'))
  bus.publish({ type: 'sessionChanged', sessionId: 'a' })
  t.same(await cache.get('a'), session('a', 'debug'), 'changed elsewhere: read again, the change seen')
  backing.delete('a')
  bus.publish({ type: 'sessionEnded', sessionId: 'a' })
  t.equal(await cache.get('a'), undefined, 'ended elsewhere: gone here too')
  t.equal(reads.length, 3)
})

t.test('a read that a drop overtook keeps nothing: the next get reads the store', async (t) => {
  const { backing, reads } = counted()
  let release!: () => void
  const slow: SessionStore & { create: NonNullable<SessionStore['create']> } = {
    get: async (id) => { reads.push(id); const found = backing.get(id); await new Promise<void>((resolve) => { release = resolve }); return found },
    set: () => {},
    create: () => true as const,
    delete: () => {}
  }
  const bus = new MemoryBus()
  const cache = new SessionCache(slow, bus, 60_000, logs().log)
  t.teardown(() => cache.close())
  backing.create(session('a'))
  const reading = cache.get('a')
  await until(() => release !== undefined, { what: 'the read to reach the store' })
  bus.publish({ type: 'sessionChanged', sessionId: 'a' })
  release()
  t.same(await reading, session('a'), 'the read still answers its own request')
  t.equal(cache.size, 0, 'but what it read is not kept: it may predate the change')
})

t.test('set stores, keeps the copy and tells the other instances; delete drops the copy and deletes from the store', async (t) => {
  const { store, reads, backing } = counted()
  const bus = new MemoryBus()
  const heard: BusEvent[] = []
  bus.subscribe((event) => heard.push(event))
  const cache = new SessionCache(store, bus, 60_000, logs().log)
  t.teardown(() => cache.close())
  await cache.set(session('a', 'info'))
  t.same(backing.get('a'), session('a', 'info'), 'stored')
  t.same(heard, [{ type: 'sessionChanged', sessionId: 'a' }], 'the others told to drop their copies')
  t.same(cache.get('a'), session('a', 'info'), 'kept here: synchronously, the new value')
  t.same(reads, [])
  await cache.delete('a')
  t.equal(backing.get('a'), undefined, 'deleted from the store')
  t.equal(await cache.get('a'), undefined, 'and no copy serves it')
})

t.test('set: a read begun before it keeps nothing, even when the bus reaches this instance late (behind a large fan-out)', async (t) => {
  const { backing } = counted()
  let release!: () => void
  const slow: SessionStore & { create: NonNullable<SessionStore['create']> } = {
    get: async (id) => { const found = backing.get(id); await new Promise<void>((resolve) => { release = resolve }); return found },
    set: async (s) => { if (backing.create({ ...s }) !== true) backing.set({ ...s }) },
    create: () => true as const,
    delete: () => {}
  }
  // a bus whose delivery waits until told, as the memory bus's does behind a fan-out in slices
  const listeners: Array<(event: BusEvent) => void> = []
  let deliver!: () => void
  const late: Bus = {
    publish: async (event) => { await new Promise<void>((resolve) => { deliver = () => { for (const l of listeners) l(event); resolve() } }) },
    subscribe: (listener) => { listeners.push(listener); return () => {} }
  }
  const cache = new SessionCache(slow, late, 60_000, logs().log)
  backing.create(session('a'))
  const reading = cache.get('a')
  await until(() => release !== undefined, { what: 'the read to reach the store' })
  const setting = cache.set(session('a', 'debug'))
  await until(() => deliver !== undefined, { what: 'the set to store and tell the bus' })
  release()
  t.same(await reading, session('a'), 'the read still answers its own request')
  t.same(cache.get('a'), session('a', 'debug'), 'the copy is the new session: the older read was not kept over it')
  deliver()
  await setting
  t.equal(cache.size, 0, 'the late drop of the bus then costs the next read a round trip, nothing worse')
})

t.test('a bus that fails on set is logged, not thrown: the session is saved and kept here', async (t) => {
  const { store, backing } = counted()
  const failing: Bus = { publish: async () => { throw new Error('bus down') }, subscribe: () => () => {} }
  const { log, warnings } = logs()
  const cache = new SessionCache(store, failing, 60_000, log)
  t.teardown(() => cache.close())
  await cache.set(session('a'))
  t.same(backing.get('a'), session('a'))
  t.equal(warnings.length, 1)
  t.equal(warnings[0]!.obj.err.message, 'bus down')
  t.match(warnings[0]!.msg, /a 2025 session changed, but the bus could not tell the other instances; their copies are dropped within redis\.sessionCache ms/)
})

t.test('at most maxSize copies, the oldest dropped first; a copy kept again moves to the end', async (t) => {
  const { store, backing, reads } = counted()
  const cache = new SessionCache(store, new MemoryBus(), 60_000, logs().log, 2)
  t.teardown(() => cache.close())
  for (const id of ['a', 'b', 'c']) backing.create(session(id))
  await cache.get('a')
  await cache.get('b')
  await cache.set(session('a')) // kept again: now the newest
  await cache.get('c')
  t.equal(cache.size, 2)
  reads.length = 0
  cache.get('a')
  cache.get('c')
  t.same(reads, [], 'a and c kept')
  await cache.get('b')
  t.same(reads, ['b'], 'b, the oldest, went first')
})

t.test('create: a new session the store took is kept here; one it refused is not', async (t) => {
  const { store, reads } = counted(2)
  const cache = new SessionCache(store, new MemoryBus(), 60_000, logs().log)
  t.teardown(() => cache.close())
  t.equal(await cache.create({ ...session('a'), caller: 'ip:1' }), true)
  t.equal(await cache.create({ ...session('b'), caller: 'ip:1' }), true)
  t.equal(await cache.create({ ...session('c'), caller: 'ip:1' }), 'caller', "the store's refusal, as it said it")
  t.ok(cache.get('a') !== undefined && !(cache.get('a') instanceof Promise), 'a new session served from the copy')
  t.ok(cache.get('c') instanceof Promise, 'a refused one is not kept')
  t.same(reads, ['c'])
})

t.test('close: no more bus, no copies, and the store closed', async (t) => {
  const { store, closed, backing } = counted()
  const bus = new MemoryBus()
  const cache = new SessionCache(store, bus, 60_000, logs().log)
  backing.create(session('a'))
  await cache.get('a')
  t.equal(bus.size, 1)
  await cache.close()
  t.equal(bus.size, 0, 'unsubscribed')
  t.equal(cache.size, 0)
  t.ok(closed())
  const bare = new SessionCache({ get: () => undefined, set: () => {}, create: () => true as const, delete: () => {} }, bus, 10, logs().log)
  t.equal(await bare.close(), undefined, 'a store without close')
})
