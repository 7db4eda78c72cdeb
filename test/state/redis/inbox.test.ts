// The inbox on a real redis-server (issue 29): what is left for an instance is taken once, in
// order, by that instance only; a list nobody takes expires; a key prefix keeps servers apart;
// Redis away makes `leave` fail (so that the POST carrying the answer is refused), never hang.
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
  await inbox.leave('a', first)
  await inbox.leave('a', second)
  await inbox.leave('b', { sessionId: 's3', id: 'sake-b-1', answer: { result: {} } })
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
