// The inbox on a real redis-server (issue 29): what is left for an instance is taken once, in
// order, by that instance only; a list nobody takes expires; a key prefix keeps servers apart;
// Redis away makes `leave` fail (so that the POST carrying the answer is refused), never hang.
// Only an answer to a question that waits is kept, once, and an inbox is bounded (issue 40).
import t from 'tap'
import { connect } from '../../../lib/state/redis/connection.js'
import { INBOX_TTL, RedisInbox } from '../../../lib/state/redis/inbox.js'
import { StoreUnavailableError } from '../../../lib/errors.js'
import { startRedis } from '../../helpers/redis.js'

const log: any = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {}, child: () => log }

t.test('left for an instance, taken once and in order by that instance; another prefix is another server', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: 'p:', timeout: 1000 }, log)
  const other = await connect({ url: redis.url, prefix: 'q:', timeout: 1000 }, log)
  t.teardown(async () => { await conn.close(); await other.close() })
  const inbox = new RedisInbox(conn)
  const first = { sessionId: 's1', id: 'sake-a-1', answer: { result: { action: 'accept', content: { name: 'Ada' } } } }
  const second = { sessionId: 's2', id: 'sake-a-2', answer: { error: { code: -1, message: 'no' } } }
  await inbox.expect('a', 's1', 'sake-a-1', 60_000)
  await inbox.expect('a', 's2', 'sake-a-2', 60_000)
  await inbox.expect('b', 's3', 'sake-b-1', 60_000)
  t.equal(await inbox.leave('a', first), 'kept')
  t.equal(await inbox.leave('a', second), 'kept')
  t.equal(await inbox.leave('b', { sessionId: 's3', id: 'sake-b-1', answer: { result: {} } }), 'kept')
  const ttl = Number(redis.cli('PTTL', 'p:inbox:a'))
  t.ok(ttl > INBOX_TTL - 5000 && ttl <= INBOX_TTL, `a list nobody takes expires (${ttl} ms left)`)
  t.same(await new RedisInbox(other).take('a'), [], 'another prefix sees nothing')
  t.same(await inbox.take('a'), [first, second], "a's answers, in the order they were left")
  t.same(await inbox.take('a'), [], 'taken once')
  t.equal(redis.cli('EXISTS', 'p:inbox:a'), '0', 'the list is gone')
  t.same(await inbox.take('b'), [{ sessionId: 's3', id: 'sake-b-1', answer: { result: {} } }], "b's own stayed b's")
})

t.test('Redis away: leave and take fail with StoreUnavailableError naming the inbox', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: 'p:', timeout: 500 }, log)
  t.teardown(() => conn.close())
  const inbox = new RedisInbox(conn)
  await redis.kill()
  const left = await inbox.leave('a', { sessionId: 's', id: 'sake-a-1', answer: { result: {} } }).catch((err: unknown) => err)
  t.ok(left instanceof StoreUnavailableError)
  t.match(left, { store: 'inbox', status: 503, message: /^Service Unavailable: the inbox store cannot be reached/ })
  t.ok(await inbox.take('a').catch((err: unknown) => err) instanceof StoreUnavailableError)
})

t.test('only an answer to a question that waits, on its session, is kept, once; a forged one never grows Redis', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: 'p:', timeout: 1000 }, log)
  t.teardown(() => conn.close())
  const inbox = new RedisInbox(conn)
  const memoryBefore = Number(/used_memory:(\d+)/.exec(redis.cli('INFO', 'memory'))![1])
  const big = { result: { blob: 'x'.repeat(600_000) } }
  for (let n = 0; n < 40; n++) t.equal(await inbox.leave('a', { sessionId: 's', id: `sake-a-${n}`, answer: big }), 'unexpected', `forged ${n}`)
  t.equal(redis.cli('EXISTS', 'p:inbox:a'), '0', 'nothing stored for 40 forged answers')
  const memoryAfter = Number(/used_memory:(\d+)/.exec(redis.cli('INFO', 'memory'))![1])
  t.ok(memoryAfter - memoryBefore < 1_000_000, `Redis did not grow (${memoryAfter - memoryBefore} bytes)`)

  await inbox.expect('a', 's', 'sake-a-1', 60_000)
  t.equal(await inbox.leave('a', { sessionId: 'other', id: 'sake-a-1', answer: { result: {} } }), 'unexpected', "another session's answer")
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-1', answer: { result: {} } }), 'kept')
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-1', answer: { result: {} } }), 'unexpected', 'a second answer to it')
  t.equal(redis.cli('LLEN', 'p:inbox:a'), '1')

  // the expiry is the list's from when it was made: a later push does not renew it
  redis.cli('PEXPIRE', 'p:inbox:a', '50000')
  await inbox.expect('a', 's', 'sake-a-2', 60_000)
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-2', answer: { result: {} } }), 'kept')
  t.ok(Number(redis.cli('PTTL', 'p:inbox:a')) <= 50_000, 'not renewed by a push')

  await inbox.expect('a', 's', 'sake-a-3', 60_000)
  await inbox.forget('sake-a-3')
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-3', answer: { result: {} } }), 'unexpected', 'a question forgotten (timed out, its call ended) takes no answer')
  await inbox.expect('a', 's', 'sake-a-4', 1)
  await redis.expired('p:question:sake-a-4')
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-4', answer: { result: {} } }), 'unexpected', 'nor one past its timeout')
})

t.test('an inbox is bounded in answers and in bytes: full, it refuses until its instance takes them', async (t) => {
  const redis = await startRedis(t)
  const conn = await connect({ url: redis.url, prefix: 'p:', timeout: 1000 }, log)
  t.teardown(() => conn.close())
  const inbox = new RedisInbox(conn, { answers: 2, bytes: 2000 })
  for (const n of [1, 2, 3, 4]) await inbox.expect('a', 's', `sake-a-${n}`, 60_000)
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-1', answer: { result: {} } }), 'kept')
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-2', answer: { result: {} } }), 'kept')
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-3', answer: { result: {} } }), 'full', 'two answers at most')
  t.equal(redis.cli('EXISTS', 'p:question:sake-a-3'), '1', 'a refused answer leaves its question waiting: the client sends it again')
  t.equal((await inbox.take('a')).length, 2)
  t.equal(redis.cli('EXISTS', 'p:inbox-bytes:a'), '0', 'the byte count goes with the answers')
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-3', answer: { result: { blob: 'x'.repeat(2000) } } }), 'full', 'more bytes than the inbox holds')
  t.equal(await inbox.leave('a', { sessionId: 's', id: 'sake-a-3', answer: { result: {} } }), 'kept')
  t.equal(Number(redis.cli('GET', 'p:inbox-bytes:a')) > 0, true, 'bytes counted')
})
