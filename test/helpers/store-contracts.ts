// The contracts of lib/state/ (SessionStore, EventStore, TaskStore, Bus) as tests every implementation runs: what each interface's JSDoc promises, and nothing one implementation adds (bounds, keys, timers stay in its own test file).
//
// Each contract is a function that declares its subtests on `t` for one implementation, given a
// maker that builds a fresh, empty store for one subtest (and closes what it opened, with
// t.teardown). Where implementations differ on purpose, the maker says so with a capability
// (`deletes`, `expiry`, `capacity`, `peer`): the contract checks the capability is there exactly
// when said, and then what it promises. Never a weaker assertion for one implementation: the three
// disagreements these contracts found at first were mended in lib/state/ (issue 27).
import type { Test } from 'tap'
import { BUS_METHODS, LIST_NAMES, type Bus, type BusEvent } from '../../lib/state/bus.js'
import { EVENT_STORE_METHODS, type EventStore } from '../../lib/state/event-store.js'
import { SESSION_STORE_METHODS, type Session, type SessionStore } from '../../lib/state/session-store.js'
import { TASK_STORE_METHODS, type TaskRecord, type TaskStatus, type TaskStore } from '../../lib/state/task-store.js'
import { until } from './until.js'

/** Builds a fresh, empty store (or bus) for one subtest. */
export type Maker<S> = (t: Test) => S | Promise<S>

/** Lets time pass for a store: a clock moved by hand, or real time (a store whose clock is Redis's). */
export type Pass = (ms: number) => void | Promise<void>

function methods (t: Test, store: object, names: readonly string[]): void {
  for (const name of names) t.type((store as Record<string, unknown>)[name], 'function', name)
  const close = (store as { close?: unknown }).close
  t.ok(close === undefined || typeof close === 'function', 'close is optional, and a method when there')
}

async function close (t: Test, store: { close?: () => void | Promise<void> }): Promise<void> {
  if (store.close === undefined) {
    t.pass('no close: nothing to release')
    return
  }
  await store.close()
  t.pass('close resolved')
}

// ---------------------------------------------------------------------------------------------
// SessionStore (lib/state/session-store.ts)

export interface SessionStoreSubject {
  readonly store: SessionStore
  /** The store's idle timeout (ms): `get` counts as activity, and a session unused for longer ends. */
  readonly idleTimeout: number
  readonly pass: Pass
  /** With `create`: the most sessions it holds in all, and per caller, when it bounds them. */
  readonly capacity?: number
  readonly perCaller?: number
}

function session (id: string, changes: Partial<Session> = {}): Session {
  return { id, protocolVersion: '2025-11-25', client: { info: { name: 'c', version: '1' }, capabilities: {} }, initialized: false, ...changes }
}

/** A new session into a store: `create` when it has one (then `set` only changes), else `set`. */
async function put (store: SessionStore, one: Session): Promise<void> {
  if (store.create === undefined) await store.set(one)
  else await store.create(one)
}

export function sessionStoreContract (t: Test, name: string, make: Maker<SessionStoreSubject>): void {
  t.test(`${name} (SessionStore): implements every method of the contract`, async (t) => {
    methods(t, (await make(t)).store, SESSION_STORE_METHODS)
  })

  t.test(`${name} (SessionStore): get of an unknown id is undefined`, async (t) => {
    const { store } = await make(t)
    t.equal(await store.get('never-set'), undefined)
  })

  t.test(`${name} (SessionStore): a session set comes back whole from get`, async (t) => {
    const { store } = await make(t)
    const full = session('full', {
      protocolVersion: '2025-06-18',
      client: { info: { name: 'client ✓', version: '2.0.0' }, capabilities: { elicitation: { form: {} }, roots: { listChanged: true } } },
      initialized: true,
      logLevel: 'debug',
      subscriptions: ['test://a', 'file:///b c'],
      subject: 'user-42'
    })
    await put(store, full)
    t.same(await store.get('full'), full, 'every field')
    t.same(await store.get('full'), full, 'and again: a get does not consume it')
  })

  t.test(`${name} (SessionStore): with create, set only changes a session that is there: one deleted stays gone`, async (t) => {
    const { store } = await make(t)
    if (store.create === undefined) return t.pass('no create: set stores new sessions too')
    await store.set(session('never-created'))
    t.equal(await store.get('never-created'), undefined, 'set made nothing new')
    await put(store, session('a'))
    await store.delete('a')
    await store.set(session('a', { logLevel: 'debug' }))
    t.equal(await store.get('a'), undefined, 'a change racing a DELETE does not bring the session back')
  })

  t.test(`${name} (SessionStore): create, when there, stores a new session until a bound refuses one; nothing live is dropped`, async (t) => {
    const { store, capacity, perCaller } = await make(t)
    if (store.create === undefined) return t.pass('no create: new sessions are set, unbounded')
    t.equal(await store.create(session('first', { caller: 'ip:1' })), true)
    t.same(await store.get('first'), session('first', { caller: 'ip:1' }), 'stored whole')
    if (perCaller !== undefined) {
      for (let i = 1; i < perCaller; i++) t.equal(await store.create(session(`mine-${i}`, { caller: 'ip:1' })), true)
      t.equal(await store.create(session('mine-more', { caller: 'ip:1' })), 'caller', 'the caller at its bound')
      t.equal(await store.get('mine-more'), undefined, 'nothing stored')
      await store.delete('first')
      t.equal(await store.create(session('mine-more', { caller: 'ip:1' })), true, 'a delete gives the caller room')
    }
    if (capacity !== undefined) {
      let i = 0
      while (await store.create(session(`other-${i}`, { caller: `ip:other-${i}` })) === true) i++
      t.ok(i < capacity, `full after ${i} more`)
      t.equal(await store.create(session('late', { caller: 'ip:late' })), 'total', 'the store at its bound')
      t.ok(await store.get('other-0'), 'the first held is still there')
    }
  })

  t.test(`${name} (SessionStore): set on an existing id replaces the session`, async (t) => {
    const { store } = await make(t)
    await put(store, session('a'))
    const changed = session('a', { initialized: true, logLevel: 'info', subscriptions: ['test://x'] })
    await store.set(changed)
    t.same(await store.get('a'), changed)
  })

  t.test(`${name} (SessionStore): delete ends one session, the others are untouched; deleting an unknown id is harmless`, async (t) => {
    const { store } = await make(t)
    await put(store, session('a'))
    await put(store, session('b'))
    await store.delete('a')
    t.equal(await store.get('a'), undefined, 'deleted')
    t.same(await store.get('b'), session('b'), 'the other one kept')
    await store.delete('a')
    await store.delete('never-set')
    t.same(await store.get('b'), session('b'))
  })

  t.test(`${name} (SessionStore): get counts as activity; a session unused for longer than the idle timeout ends`, async (t) => {
    const { store, idleTimeout, pass } = await make(t)
    await put(store, session('used'))
    await put(store, session('idle'))
    // three steps of half the timeout: 'used' is read at each, 'idle' never
    for (let step = 1; step <= 3; step++) {
      await pass(idleTimeout / 2)
      t.ok(await store.get('used'), `in use: alive after ${step} half-timeouts`)
    }
    t.equal(await store.get('idle'), undefined, 'unused for 1.5 times the idle timeout: ended')
  })

  t.test(`${name} (SessionStore): close, when there, releases the store`, async (t) => {
    const { store } = await make(t)
    await put(store, session('a'))
    await close(t, store)
  })
}

// ---------------------------------------------------------------------------------------------
// EventStore (lib/state/event-store.ts)

export interface EventStoreSubject {
  readonly store: EventStore
  /** Whether the store has the optional `delete`. */
  readonly deletes: boolean
  /** Idle expiry, when the store has it: a stream not appended to for `idleTimeout` ms is gone. */
  readonly expiry?: { readonly idleTimeout: number, readonly pass: Pass }
}

/** Stream ids as the server makes them: `<sessionId>/<prefix><n>`, `<sessionId>/get`. */
const SID = '5a0c7d52-8a8e-4a43-9b5b-1f2b3c4d5e6f'

export function eventStoreContract (t: Test, name: string, make: Maker<EventStoreSubject>): void {
  const test = (title: string, fn: (t: Test, subject: EventStoreSubject) => Promise<unknown>): void => {
    t.test(`${name} (EventStore): ${title}`, async (t) => {
      await fn(t, await make(t))
    })
  }

  test('implements every method of the contract; delete exactly when the store says it has it', async (t, { store, deletes }) => {
    methods(t, store, EVENT_STORE_METHODS)
    t.equal(typeof store.delete === 'function', deletes, `delete ${deletes ? 'is' : 'is not'} there`)
  })

  test('replay after an id gives the events stored after it, oldest first, with the ids append returned', async (t, { store }) => {
    const stream = `${SID}/r1`
    const messages = ['', ...Array.from({ length: 9 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: i, message: `step ${i} ✓` } }))]
    const ids: string[] = []
    for (const message of messages) {
      const id = await store.append(stream, message)
      t.type(id, 'string')
      ids.push(id)
    }
    t.equal(new Set(ids).size, ids.length, 'every id is new')
    const all = messages.map((message, i) => ({ id: ids[i]!, message }))
    t.same(await store.replay(ids[0]!), { streamId: stream, events: all.slice(1) }, 'after the priming event (an empty message): all the rest')
    t.same(await store.replay(ids[4]!), { streamId: stream, events: all.slice(5) }, 'after one in the middle')
    t.same(await store.replay(ids[9]!), { streamId: stream, events: [] }, 'after the last: its stream, nothing to send')
  })

  test('replay does not consume; what is appended later is in the next replay', async (t, { store }) => {
    const stream = `${SID}/get`
    const first = await store.append(stream, '{"n":1}')
    const second = await store.append(stream, '{"n":2}')
    const once = await store.replay(first)
    t.same(await store.replay(first), once, 'the same replay twice')
    const third = await store.append(stream, '{"n":3}')
    t.same(await store.replay(first), { streamId: stream, events: [{ id: second, message: '{"n":2}' }, { id: third, message: '{"n":3}' }] })
  })

  test('ids are unique across streams, and an id replays its own stream only', async (t, { store }) => {
    const streams = [`${SID}/a1`, `${SID}/a2`, `${SID}/get`, 'd6f1c3a2-0b1e-4f6e-9a7d-3c2b1a0f9e8d/a1']
    const ids = new Map<string, string[]>(streams.map((stream) => [stream, []]))
    for (let round = 0; round < 3; round++) {
      for (const stream of streams) ids.get(stream)!.push(await store.append(stream, `{"stream":"${stream}","round":${round}}`))
    }
    const every = [...ids.values()].flat()
    t.equal(new Set(every).size, every.length, 'no id issued twice, whatever its stream')
    for (const stream of streams) {
      const [first, second, third] = ids.get(stream)!
      t.same(await store.replay(first!), {
        streamId: stream,
        events: [{ id: second, message: `{"stream":"${stream}","round":1}` }, { id: third, message: `{"stream":"${stream}","round":2}` }]
      }, stream)
    }
  })

  test('an id the store never issued is unknown: replay is undefined', async (t, { store }) => {
    const stream = `${SID}/u1`
    const id = await store.append(stream, '{}')
    const suffix = id.slice(id.lastIndexOf(':'))
    for (const bad of ['', 'no-colon', ':', `${SID}/never${suffix}`, `${id}x`, `${id}:1`, `${stream}:not-an-id`]) {
      t.equal(await store.replay(bad), undefined, JSON.stringify(bad))
    }
  })

  test('an id past the end of its stream is unknown: replay is undefined', async (t, { store }) => {
    // the id a store would issue next, or one far ahead of it, was never issued: a Last-Event-ID
    // made up by the client, which must open the stream as if it were absent (docs/architecture.md, Streams)
    const stream = `${SID}/f1`
    const id = await store.append(stream, '{}')
    const suffix = id.slice(id.lastIndexOf(':') + 1)
    const ahead = /^\d+$/.test(suffix) ? String(Number(suffix) + 1000) : suffix.replace(/^\d+/, (ms) => String(Number(ms) + 3_600_000))
    t.equal(await store.replay(`${stream}:${ahead}`), undefined, `${stream}:${ahead}`)
  })

  test('an issued id with its number missing or respelled is unknown: replay is undefined', async (t, { store }) => {
    const stream = `${SID}/m1`
    const id = await store.append(stream, '')
    await store.append(stream, '{}')
    const suffix = id.slice(id.lastIndexOf(':') + 1)
    for (const bad of [`${stream}:`, `${stream}: ${suffix}`, `${stream}:+${suffix}`, `${stream}:0x${suffix}`]) {
      t.equal(await store.replay(bad), undefined, JSON.stringify(bad))
    }
  })

  test('a stream not appended to for its idle timeout has expired; one in use has not', async (t, { store, expiry }) => {
    if (expiry === undefined) return t.pass('no idle expiry: streams are kept until the store is closed')
    const used = await store.append(`${SID}/e1`, '{"n":0}')
    const idle = await store.append(`${SID}/e2`, '{"n":0}')
    await expiry.pass(expiry.idleTimeout / 2)
    const next = await store.append(`${SID}/e1`, '{"n":1}')
    await expiry.pass(expiry.idleTimeout * 0.7)
    t.equal(await store.replay(idle), undefined, 'idle for 1.2 times the timeout: expired')
    t.same(await store.replay(used), { streamId: `${SID}/e1`, events: [{ id: next, message: '{"n":1}' }] }, 'appended to 0.7 times the timeout ago: kept')
  })

  test('delete (optional) forgets one stream at once; the others are untouched; an unknown stream is nothing', async (t, { store, deletes }) => {
    if (!deletes) return t.pass('no delete: streams are kept until they expire')
    const gone = [await store.append(`${SID}/d1`, ''), await store.append(`${SID}/d1`, '{"n":1}')]
    const kept = await store.append(`${SID}/d2`, '')
    const after = await store.append(`${SID}/d2`, '{"n":2}')
    await store.delete!(`${SID}/d1`)
    for (const id of gone) t.equal(await store.replay(id), undefined, `${id} forgotten`)
    await store.delete!(`${SID}/d1`)
    await store.delete!(`${SID}/never`)
    t.same(await store.replay(kept), { streamId: `${SID}/d2`, events: [{ id: after, message: '{"n":2}' }] })
  })

  test('close, when there, releases the store', async (t, { store }) => {
    await store.append(`${SID}/c1`, '')
    await close(t, store)
  })
}

// ---------------------------------------------------------------------------------------------
// TaskStore (lib/state/task-store.ts)

export interface TaskStoreSubject {
  readonly store: TaskStore
  /** A bounded store: at most this many records (live or kept tasks fill it, and `create` then refuses). */
  readonly capacity?: number
  /** A store that bounds each caller (`record.caller`): at most this many records each. */
  readonly perCaller?: number
}

/** A live record created now, kept a minute; the store's clock is the real one. */
function task (taskId: string, options: { owner?: string, caller?: string, status?: TaskStatus, createdAt?: number, ttl?: number } = {}): TaskRecord {
  const createdAt = options.createdAt ?? Date.now()
  return {
    taskId, version: 0, owner: options.owner ?? 'sub:alice', caller: options.caller ?? `ip:${taskId}`, protocolVersion: '2025-11-25', status: options.status ?? 'working', createdAt, lastUpdatedAt: createdAt, ttl: options.ttl ?? 60_000
  }
}

export function taskStoreContract (t: Test, name: string, make: Maker<TaskStoreSubject>): void {
  const test = (title: string, fn: (t: Test, subject: TaskStoreSubject) => Promise<unknown>): void => {
    t.test(`${name} (TaskStore): ${title}`, async (t) => {
      await fn(t, await make(t))
    })
  }

  test('implements every method of the contract', async (t, { store }) => {
    methods(t, store, TASK_STORE_METHODS)
  })

  test('get of an unknown id is undefined', async (t, { store }) => {
    t.equal(await store.get('never-created'), undefined)
  })

  test('a record created comes back whole from get', async (t, { store }) => {
    const now = Date.now()
    const full: TaskRecord = {
      ...task('full', { createdAt: now - 1000 }),
      tool: 'export_report',
      protocolVersion: '2025-11-25',
      sessionId: SID,
      status: 'input_required',
      statusMessage: 'waiting for you ✓',
      lastUpdatedAt: now,
      pollInterval: 1000,
      keepUntil: now + 120_000,
      inputRequests: { who: { method: 'elicitation/create', params: { message: 'Who?', requestedSchema: { type: 'object', properties: {} } } } },
      inputResponses: { roots: { result: { roots: [] } }, refused: { error: { code: -1, message: 'no', data: { why: null } } } }
    }
    t.equal(await store.create(full), true)
    t.same(await store.get('full'), full, 'every field')
  })

  test('a record is kept as the JSON it is: numbers exactly, strings as they are', async (t, { store }) => {
    const result = {
      content: [{ type: 'text', text: 'line\nbreak "quoted" \u2028 ✓ 🎉' }],
      structuredContent: { sum: 0.1 + 0.2, big: 2 ** 53 - 1, tiny: 5e-324, negative: -1.5e300, list: [1, 'two', null, true, { deep: [[]] }], empty: {} }
    }
    await store.create(task('exact'))
    t.equal(await store.transition('exact', 0, { status: 'completed', result }), true)
    const done = (await store.get('exact'))!
    t.same(done.result, result)
    t.equal((done.result as any).structuredContent.sum, 0.30000000000000004)
    t.equal((done.result as any).structuredContent.tiny, 5e-324)
  })

  test('transition is compare-and-set on the version, which it bumps; the rest of the record is kept', async (t, { store }) => {
    const created = { ...task('a'), sessionId: SID }
    await store.create(created)
    t.equal(await store.transition('a', 1, { status: 'completed' }), false, 'a version the record is not at changes nothing')
    t.same(await store.get('a'), created, 'unchanged')
    const question = { k: { method: 'roots/list', params: {} } }
    t.equal(await store.transition('a', 0, { status: 'input_required', inputRequests: question }), true)
    t.equal(await store.transition('a', 0, { status: 'working', inputRequests: { other: { method: 'roots/list', params: {} } } }), false, 'a writer that read version 0 lost the race')
    const asked = (await store.get('a'))!
    t.equal(asked.version, 1)
    t.equal(asked.status, 'input_required')
    t.same(asked.inputRequests, question, 'the winner\'s question is kept')
    t.equal(await store.transition('a', 1, { status: 'input_required', inputResponses: { k: { result: { roots: [] } } }, lastUpdatedAt: created.createdAt + 5 }), true, 'a status may "move" to itself')
    const answered = (await store.get('a'))!
    t.same(answered, { ...created, version: 2, status: 'input_required', inputRequests: question, inputResponses: { k: { result: { roots: [] } } }, lastUpdatedAt: created.createdAt + 5 }, 'identity fields kept, the patches applied')
  })

  test('a field set to undefined in a patch is cleared', async (t, { store }) => {
    await store.create(task('a'))
    await store.transition('a', 0, { status: 'input_required', statusMessage: 'asking', inputRequests: { k: { method: 'roots/list', params: {} } } })
    t.equal(await store.transition('a', 1, { status: 'working', inputRequests: undefined }), true)
    const record = (await store.get('a'))!
    t.equal(record.inputRequests, undefined, 'cleared')
    t.equal(record.statusMessage, 'asking', 'a field not in the patch is kept')
    t.equal(record.status, 'working')
  })

  test('transition of an unknown or deleted record is false', async (t, { store }) => {
    t.equal(await store.transition('never-created', 0, { status: 'failed' }), false)
    await store.create(task('a'))
    await store.delete('a')
    t.equal(await store.transition('a', 0, { status: 'failed' }), false)
    t.equal(await store.get('a'), undefined, 'and nothing came back')
  })

  test('get: a terminal record past createdAt + ttl is gone; a live one is not (the lifecycle fails it first)', async (t, { store }) => {
    const past = Date.now() - 10_000
    for (const status of ['completed', 'failed', 'cancelled'] as const) {
      await store.create(task(status, { status, createdAt: past, ttl: 1000 }))
      t.equal(await store.get(status), undefined, status)
    }
    await store.create(task('live', { createdAt: past, ttl: 1000 }))
    t.ok(await store.get('live'), 'live, past its ttl: still there')
    t.equal(await store.transition('live', 0, { status: 'failed', statusMessage: 'the task expired' }), true)
    t.equal(await store.get('live'), undefined, 'terminal now, and past its ttl: gone')
  })

  test('get: keepUntil, when set, replaces createdAt + ttl as the end of a terminal record', async (t, { store }) => {
    const now = Date.now()
    await store.create(task('longer', { createdAt: now - 10_000, ttl: 1000 }))
    await store.transition('longer', 0, { status: 'failed', keepUntil: now + 60_000 })
    t.ok(await store.get('longer'), 'past createdAt + ttl, before keepUntil: kept')
    await store.create(task('shorter', { createdAt: now, ttl: 60_000 }))
    await store.transition('shorter', 0, { status: 'completed', keepUntil: now - 1 })
    t.equal(await store.get('shorter'), undefined, 'before createdAt + ttl, past keepUntil: gone')
  })

  test('list pages one owner\'s records, oldest first, limit at most, with a cursor while more remain', async (t, { store }) => {
    const now = Date.now()
    let i = 0
    for (const id of ['a1', 'b1', 'a2', 'a3', 'b2', 'a4']) await store.create(task(id, { owner: id.startsWith('a') ? 'sub:alice' : 'sub:bob', createdAt: now + i++ }))
    const first = (await store.list('sub:alice', undefined, 2))!
    t.same(first.tasks.map((record) => record.taskId), ['a1', 'a2'])
    t.type(first.nextCursor, 'string', 'more remain: a cursor')
    const second = (await store.list('sub:alice', first.nextCursor, 2))!
    t.same(second.tasks.map((record) => record.taskId), ['a3', 'a4'])
    t.equal(second.nextCursor, undefined, 'a page that ends exactly at the last record has no cursor')
    t.same((await store.list('sub:alice', undefined, 10))!.tasks, [
      (await store.get('a1'))!, (await store.get('a2'))!, (await store.get('a3'))!, (await store.get('a4'))!
    ], 'the records whole, one page when the limit allows')
    const bob = (await store.list('sub:bob', undefined, 10))!
    t.same(bob.tasks.map((record) => record.taskId), ['b1', 'b2'], 'only the owner\'s')
    t.equal(bob.nextCursor, undefined)
    t.same(await store.list('sub:carol', undefined, 10), { tasks: [] }, 'an owner with none')
    const walked: string[] = []
    let cursor: string | undefined
    do {
      const page = (await store.list('sub:alice', cursor, 1))!
      t.ok(page.tasks.length <= 1, 'never more than the limit')
      walked.push(...page.tasks.map((record) => record.taskId))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    t.same(walked, ['a1', 'a2', 'a3', 'a4'], 'following the cursors gives every record once')
  })

  test('list leaves out deleted records and terminal ones past their end', async (t, { store }) => {
    const now = Date.now()
    await store.create(task('old', { createdAt: now - 10_000, ttl: 1000, status: 'completed' }))
    await store.create(task('deleted', { createdAt: now - 2 }))
    await store.create(task('live', { createdAt: now - 1 }))
    await store.delete('deleted')
    t.same((await store.list('sub:alice', undefined, 10))!.tasks.map((record) => record.taskId), ['live'])
  })

  test('list: a cursor the store never gave is unknown (undefined)', async (t, { store }) => {
    await store.create(task('a1'))
    t.equal(await store.list('sub:alice', 'never-created', 10), undefined)
  })

  test('list: another owner\'s task id is no cursor for this owner (undefined)', async (t, { store }) => {
    const now = Date.now()
    await store.create(task('a1', { createdAt: now }))
    await store.create(task('b1', { owner: 'sub:bob', createdAt: now + 1 }))
    await store.create(task('a2', { createdAt: now + 2 }))
    t.equal(await store.list('sub:alice', 'b1', 10), undefined, 'refused')
  })

  test('delete forgets a record: gone from get and list; deleting an unknown id is harmless', async (t, { store }) => {
    await store.create(task('a'))
    await store.create(task('b'))
    await store.delete('a')
    t.equal(await store.get('a'), undefined)
    t.same((await store.list('sub:alice', undefined, 10))!.tasks.map((record) => record.taskId), ['b'])
    await store.delete('a')
    await store.delete('never-created')
    t.ok(await store.get('b'), 'the other one kept')
  })

  test('create on a full store (optional bound) is refused and stores nothing; nothing held is dropped', async (t, { store, capacity }) => {
    if (capacity === undefined) return t.pass('unbounded: records go by expiry only')
    // callers of their own, so that only the store's bound can refuse; one record finished and kept
    for (let i = 0; i < capacity; i++) t.equal(await store.create(task(`held-${i}`, { caller: `ip:${i}`, status: i === 0 ? 'completed' : 'working' })), true)
    const refused = await store.create(task('one-more', { caller: 'ip:new' }))
    t.ok(refused === 'total' || refused === false, `full: refused (${String(refused)})`)
    t.equal(await store.get('one-more'), undefined, 'nothing stored')
    t.ok(await store.get('held-0'), 'no kept task dropped to make room')
    t.ok(await store.get('held-1'), 'no live task dropped to make room')
    await store.delete('held-1')
    t.equal(await store.create(task('one-more', { caller: 'ip:new' })), true, 'a delete makes room')
  })

  test('create for a caller at its bound (optional) is refused; another caller is not', async (t, { store, perCaller }) => {
    if (perCaller === undefined) return t.pass('no bound per caller')
    for (let i = 0; i < perCaller; i++) t.equal(await store.create(task(`a-${i}`, { caller: 'sub:alice' })), true)
    t.equal(await store.create(task('a-more', { caller: 'sub:alice' })), 'caller')
    t.equal(await store.get('a-more'), undefined, 'nothing stored')
    t.equal(await store.create(task('b-0', { caller: 'sub:bob' })), true, 'bob is not alice')
    await store.delete('a-0')
    t.equal(await store.create(task('a-more', { caller: 'sub:alice' })), true, 'a delete gives alice room')
    // finished, and past their ttl: gone, so they hold nothing
    const past = Date.now() - 10_000
    for (let i = 1; i < perCaller; i++) {
      await store.create(task(`b-${i}`, { caller: 'sub:bob', createdAt: past, ttl: 1000 }))
      await store.transition(`b-${i}`, 0, { status: 'completed' })
    }
    t.equal(await store.create(task('b-more', { caller: 'sub:bob' })), true, 'records past their ttl hold nothing')
  })

  test('close, when there, releases the store', async (t, { store }) => {
    await store.create(task('a'))
    await close(t, store)
  })
}

// ---------------------------------------------------------------------------------------------
// Bus (lib/state/bus.ts)

export interface BusSubject {
  readonly bus: Bus
  /**
   * For a networked bus: another instance on the same backend, already hearing this one (its
   * subscriber connected), whose subscribers must get this one's events and the other way round.
   */
  readonly peer?: Bus
}

/** One of every kind of event, each field as the type allows it. */
export const EVERY_BUS_EVENT: readonly BusEvent[] = [
  ...LIST_NAMES.map((list): BusEvent => ({ type: 'listChanged', list })),
  { type: 'resourceUpdated', uri: 'test://a b/ü?x=1' },
  { type: 'clientResponse', sessionId: SID, id: 7, answer: { result: { action: 'accept', content: { name: 'Ada', n: 0.1 + 0.2 } } } },
  { type: 'clientResponse', sessionId: SID, id: 'q-1', answer: { error: { code: -32600, message: 'no', data: { why: [null] } } } },
  { type: 'taskStatus', taskId: 'd6f1c3a2-0b1e-4f6e-9a7d-3c2b1a0f9e8d' },
  { type: 'sessionNotification', sessionId: SID, message: '{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"status":"working"}}' },
  { type: 'sessionEnded', sessionId: SID },
  { type: 'sessionChanged', sessionId: SID },
  { type: 'cancelled', sessionId: SID, requestId: 3, reason: 'the user stopped it' },
  { type: 'cancelled', sessionId: SID, requestId: 'r-4' }
]

/** A listener's events, kept for a test. */
function listener (): { events: BusEvent[], listen: (event: BusEvent) => void } {
  const events: BusEvent[] = []
  return { events, listen: (event) => { events.push(event) } }
}

const sorted = (events: readonly BusEvent[]): string[] => events.map((event) => JSON.stringify(event)).sort()

const isMarker = (event: BusEvent): boolean => event.type === 'taskStatus' && event.taskId.startsWith('marker')

/** A listener's events without the markers `settled` published. */
const real = (events: readonly BusEvent[]): BusEvent[] => events.filter((event) => !isMarker(event))

/**
 * Publishes a marker on `from` and waits until `on` heard it (`copies` times, for a listener
 * subscribed more than once): whatever `from` published before has reached `on` by then, and what
 * has not is not coming. So a bus that delivers after publish returns is waited for, and "nothing
 * more arrived" needs no sleep; it assumes one publisher's events arrive in the order sent.
 */
async function settled (from: Bus, on: { events: BusEvent[] }, marker: string, copies = 1): Promise<void> {
  const taskId = `marker-${marker}`
  await from.publish({ type: 'taskStatus', taskId })
  await until(() => on.events.filter((event) => event.type === 'taskStatus' && event.taskId === taskId).length >= copies, { what: `the marker event ${taskId}` })
}

export function busContract (t: Test, name: string, make: Maker<BusSubject>): void {
  t.test(`${name} (Bus): implements every method of the contract`, async (t) => {
    methods(t, (await make(t)).bus, BUS_METHODS)
  })

  t.test(`${name} (Bus): every kind of event reaches every subscriber, once, as it was published`, async (t) => {
    const { bus } = await make(t)
    const one = listener()
    const two = listener()
    bus.subscribe(one.listen)
    bus.subscribe(two.listen)
    for (const event of EVERY_BUS_EVENT) await bus.publish(event)
    await settled(bus, one, '1')
    await settled(bus, two, '2')
    t.same(sorted(real(one.events)), sorted(EVERY_BUS_EVENT), 'the first subscriber')
    t.same(sorted(real(two.events)), sorted(EVERY_BUS_EVENT), 'the second subscriber')
  })

  t.test(`${name} (Bus): subscribing the same function twice is two subscriptions; each unsubscribe removes its own`, async (t) => {
    const { bus } = await make(t)
    const heard = listener()
    const offFirst = bus.subscribe(heard.listen)
    const offSecond = bus.subscribe(heard.listen)
    await bus.publish({ type: 'listChanged', list: 'tools' })
    await settled(bus, heard, '1', 2)
    t.same(real(heard.events), [{ type: 'listChanged', list: 'tools' }, { type: 'listChanged', list: 'tools' }])
    offFirst()
    await bus.publish({ type: 'listChanged', list: 'prompts' })
    await settled(bus, heard, '2')
    t.same(real(heard.events).slice(2), [{ type: 'listChanged', list: 'prompts' }], 'once now')
    offSecond()
    offSecond()
    t.pass('unsubscribing twice is harmless')
  })

  t.test(`${name} (Bus): an unsubscribed listener hears nothing more; the others still do`, async (t) => {
    const { bus } = await make(t)
    const gone = listener()
    const stays = listener()
    const off = bus.subscribe(gone.listen)
    bus.subscribe(stays.listen)
    off()
    await bus.publish({ type: 'resourceUpdated', uri: 'test://x' })
    await settled(bus, stays, '1')
    t.same(real(stays.events), [{ type: 'resourceUpdated', uri: 'test://x' }])
    t.same(gone.events, [], 'nothing after unsubscribing')
  })

  t.test(`${name} (Bus): a listener that unsubscribes while an event is delivered: the others still get that event`, async (t) => {
    const { bus } = await make(t)
    const before = listener()
    const after = listener()
    const self: BusEvent[] = []
    bus.subscribe(before.listen)
    const off = bus.subscribe((event) => { self.push(event); off() })
    bus.subscribe(after.listen)
    await bus.publish({ type: 'sessionEnded', sessionId: SID })
    await bus.publish({ type: 'sessionEnded', sessionId: 'next' })
    await settled(bus, before, '1')
    await settled(bus, after, '2')
    const both: BusEvent[] = [{ type: 'sessionEnded', sessionId: SID }, { type: 'sessionEnded', sessionId: 'next' }]
    t.same(self, both.slice(0, 1), 'the one that left: the first event only')
    t.same(sorted(real(before.events)), sorted(both), 'subscribed before it')
    t.same(sorted(real(after.events)), sorted(both), 'subscribed after it')
  })

  t.test(`${name} (Bus): another instance (a networked bus) hears every kind of event, once, and so do the publisher's own subscribers`, async (t) => {
    const { bus, peer } = await make(t)
    if (peer === undefined) return t.pass('one process: no other instance')
    const here = listener()
    const there = listener()
    bus.subscribe(here.listen)
    const off = peer.subscribe(there.listen)
    for (const event of EVERY_BUS_EVENT) await bus.publish(event)
    await settled(bus, there, '1')
    // anything of its own coming back to the publisher would arrive before the other instance's marker
    await settled(peer, here, '2')
    t.same(sorted(real(there.events)), sorted(EVERY_BUS_EVENT), 'the other instance: each event once')
    t.same(sorted(real(here.events)), sorted(EVERY_BUS_EVENT), 'this instance: each event once, none again when it comes back')
    off()
    const still = listener()
    peer.subscribe(still.listen)
    await bus.publish({ type: 'listChanged', list: 'resources' })
    await settled(bus, still, '3')
    t.same(real(still.events), [{ type: 'listChanged', list: 'resources' }], 'a listener still subscribed there hears it')
    t.same(real(there.events).length, EVERY_BUS_EVENT.length, 'the unsubscribed one on the other instance: nothing more')
  })

  t.test(`${name} (Bus): close, when there, releases the bus`, async (t) => {
    const { bus } = await make(t)
    bus.subscribe(() => {})
    await close(t, bus)
  })
}
