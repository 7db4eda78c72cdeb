// Tasks in a real Redis, beyond the TaskStore contract (test/state/task-store.test.ts): an id
// created once, hash fields deleted by a patch, expiry live and terminal, owners' indexes.
import t from 'tap'
import { connect } from '../../../lib/state/redis/connection.js'
import { RedisTaskStore } from '../../../lib/state/redis/task-store.js'
import type { TaskRecord, TaskStatus } from '../../../lib/state/task-store.js'
import { startRedis } from '../../helpers/redis.js'
import { sleep } from '../../helpers/app.js'
import { quiet } from '../../helpers/logs.js'

function record (taskId: string, options: { owner?: string, status?: TaskStatus, createdAt?: number, ttl?: number } = {}): TaskRecord {
  const createdAt = options.createdAt ?? Date.now()
  return { taskId, version: 0, owner: options.owner ?? 'sub:alice', protocolVersion: '2025-11-25', status: options.status ?? 'working', createdAt, lastUpdatedAt: createdAt, ttl: options.ttl ?? 60_000, pollInterval: 1000 }
}

async function store (t: any, options: { grace?: number, maxTtl?: number } = {}): Promise<{ store: RedisTaskStore, redis: Awaited<ReturnType<typeof startRedis>> }> {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: 't:', timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  return { store: new RedisTaskStore(conn, { maxTtl: options.maxTtl ?? 3_600_000, grace: options.grace }), redis }
}

t.test('an id is created once; a patch deletes hash fields; numbers never pass through Lua; delete takes it out of its owner\'s index', async (t) => {
  const { store: tasks, redis } = await store(t)
  const a = record('a')
  t.equal(await tasks.create(a), true)
  t.equal(await tasks.create({ ...a, status: 'completed' }), false, 'an id is created once')
  t.equal((await tasks.get('a'))!.status, 'working', 'the first record kept')
  await tasks.transition('a', 0, { status: 'input_required', inputRequests: { k: { method: 'roots/list', params: {} } } })
  t.equal(redis.cli('HEXISTS', 't:task:a', 'inputRequests'), '1')
  const exact = { structuredContent: { sum: 0.1 + 0.2 } }
  await tasks.transition('a', 1, { status: 'completed', inputRequests: undefined, result: exact })
  t.equal(redis.cli('HEXISTS', 't:task:a', 'inputRequests'), '0', 'an undefined field in a patch is deleted from the hash')
  t.notOk('inputRequests' in (await tasks.get('a'))!, 'so the record has no such key')
  t.equal(redis.cli('HGET', 't:task:a', 'result'), '{"structuredContent":{"sum":0.30000000000000004}}', 'the field is the JSON text we sent')
  t.equal(redis.cli('ZCARD', 't:owner:sub:alice'), '1')
  await tasks.delete('a')
  t.equal(redis.cli('ZCARD', 't:owner:sub:alice'), '0', 'gone from its owner\'s index too')
})

t.test('expiry: a terminal record at its ttl (or keepUntil), a live one a grace after it', async (t) => {
  const { store: tasks, redis } = await store(t, { grace: 300 })
  const now = Date.now()
  await tasks.create(record('live', { createdAt: now, ttl: 200 }))
  await tasks.create(record('done', { createdAt: now, ttl: 200 }))
  await tasks.create(record('kept', { createdAt: now, ttl: 200 }))
  await tasks.transition('done', 0, { status: 'completed', result: {} })
  await tasks.transition('kept', 0, { status: 'failed', keepUntil: now + 450 })
  const pttl = Number(redis.cli('PTTL', 't:task:done'))
  t.ok(pttl > 0 && pttl <= 200, `a terminal record expires at its ttl (${pttl} ms left)`)
  await sleep(260) // the point: Redis expires by its own clock
  t.equal(await tasks.get('done'), undefined, 'terminal, past its ttl')
  t.ok(await tasks.get('live'), 'live: kept past its ttl, for the lifecycle to fail it')
  t.ok(await tasks.get('kept'), 'keepUntil keeps a failed one longer')
  await sleep(300) // as above: past the grace too
  t.equal(await tasks.get('live'), undefined, 'past the grace too: dropped (its instance died)')
  t.equal(await tasks.get('kept'), undefined)
})

t.test('get: a terminal record past its end is never returned, whatever Redis\'s clock says', async (t) => {
  const { store: tasks, redis } = await store(t)
  await tasks.create(record('old', { createdAt: Date.now() - 10_000, ttl: 60_000 }))
  await tasks.transition('old', 0, { status: 'completed', keepUntil: Date.now() - 1 })
  redis.cli('PERSIST', 't:task:old') // as if Redis had not expired it yet
  t.equal(await tasks.get('old'), undefined)
  // a clock an hour ahead of Redis's: Redis keeps the record, our reading of it is past its end
  const conn = await connect({ url: redis.url, prefix: 'ahead:', timeout: 1000 }, quiet)
  t.teardown(() => conn.close())
  const ahead = new RedisTaskStore(conn, { maxTtl: 3_600_000, now: () => Date.now() + 3_600_000 })
  await ahead.create(record('done', { ttl: 60_000 }))
  await ahead.transition('done', 0, { status: 'completed' })
  t.equal(redis.cli('EXISTS', 'ahead:task:done'), '1', 'still in Redis')
  t.equal(await ahead.get('done'), undefined, 'without keepUntil: gone at createdAt + ttl by our clock')
})

t.test('an owner\'s index drops ids older than any record can live', async (t) => {
  const { store: tasks, redis } = await store(t, { maxTtl: 1000, grace: 100 })
  await tasks.create(record('ancient', { owner: 'sub:x', createdAt: Date.now() - 5000, ttl: 1000 }))
  await tasks.create(record('fresh', { owner: 'sub:x', ttl: 1000 }))
  t.same(redis.cli('ZRANGE', 't:owner:sub:x', '0', '-1').split('\n'), ['fresh'])
  const pttl = Number(redis.cli('PTTL', 't:owner:sub:x'))
  t.ok(pttl > 0 && pttl <= 1100, 'the index expires too')
})
