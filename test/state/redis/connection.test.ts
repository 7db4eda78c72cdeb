// The Redis connection against a real redis-server: commands bounded in time, scripts reloaded
// after a flush, a Redis that dies and comes back, and who closes what.
import t from 'tap'
import { Redis } from 'ioredis'
import { StoreUnavailableError } from '../../../lib/errors.js'
import { RedisConnection, connect, watch } from '../../../lib/state/redis/connection.js'
import { startRedis } from '../../helpers/redis.js'
import { sleep, until } from '../../helpers/until.js'

function logger (): { log: any, lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = []
  const log = { warn: (_o: unknown, m?: string) => lines.push(['warn', m ?? '']), info: (m: unknown) => lines.push(['info', String(m)]), error: () => {}, debug: () => {}, child: () => log }
  return { log, lines }
}

t.test('commands and scripts; NOSCRIPT reloads; a URL connection is closed with it', async (t) => {
  const redis = await startRedis(t)
  const { log } = logger()
  const conn = await connect({ url: redis.url, prefix: 'p:', timeout: 1000 }, log)
  t.equal(conn.prefix, 'p:')
  t.equal(await conn.command('test', 'SET', 'p:a', '1'), 'OK')
  t.equal(await conn.command('test', 'GET', 'p:a'), '1')
  const lua = "return redis.call('INCR', KEYS[1])"
  t.equal(await conn.script('test', lua, ['p:n'], []), 1)
  t.equal(await conn.script('test', lua, ['p:n'], []), 2, 'EVALSHA the second time')
  redis.cli('SCRIPT', 'FLUSH')
  t.equal(await conn.script('test', lua, ['p:n'], []), 3, 'reloaded after NOSCRIPT')
  await t.rejects(conn.command('test', 'INCR', 'p:a', 'extra'), StoreUnavailableError, 'a Redis error is the store\'s failure')
  const failing = conn.script('test', 'return redis.call("NOPE")', [], [])
  await t.rejects(failing, /the test store cannot be reached \(Redis: /)
  await t.rejects(conn.script('test', 'return redis.call("NOPE")', [], []), /Unknown Redis command/, 'loaded now: EVALSHA itself fails, and that is the answer')
  await conn.close()
  t.equal(redis.cli('CLIENT', 'LIST').split('\n').filter((line) => line.includes('cmd=')).length, 1, 'only redis-cli itself is left connected')
})

t.test('a slow Redis: the command fails within the timeout, naming the store', async (t) => {
  const redis = await startRedis(t)
  const { log } = logger()
  const conn = await connect({ url: redis.url, prefix: '', timeout: 100 }, log)
  t.teardown(() => conn.close())
  const started = Date.now()
  const slow = conn.command('session', 'BLPOP', 'nothing', '0.5') // blocks half a second
  await t.rejects(slow, { name: 'StoreUnavailableError', store: 'session', status: 503, code: -32603, message: /Service Unavailable: the session store cannot be reached \(Redis did not answer within 100 ms\)/ })
  t.ok(Date.now() - started < 450, 'not waiting for Redis')
  await redis.kill() // the command given up on fails later: nobody hears it, nothing crashes
  await sleep(200) // the point: a late rejection nobody held would be reported by now (tap fails the test on one)
})

t.test('a command given up on that fails later: its rejection is handled, nothing is left unhandled', async (t) => {
  // ioredis may keep an unanswered command to resend after a reconnect, so with a real server when
  // (and whether) it finally fails depends on timing; a client whose command we fail by hand does not
  let fail: (err: Error) => void = () => {}
  const client = { call: async () => await new Promise((_resolve, reject) => { fail = reject }) }
  const conn = new RedisConnection(client as any, { prefix: '', timeout: 20 }, false)
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', onUnhandled)
  t.teardown(() => { process.off('unhandledRejection', onUnhandled) })
  await t.rejects(conn.command('session', 'GET', 'k'), { name: 'StoreUnavailableError', message: /did not answer within 20 ms/ })
  fail(new Error('Connection is closed.'))
  await sleep(20) // the point: an unhandled rejection would be reported by now
  t.same(unhandled, [], 'the late failure is nobody\'s, and says nothing')
})

t.test('Redis killed: commands fail at once; it comes back: commands work again, logged once each way', async (t) => {
  const redis = await startRedis(t)
  const { log, lines } = logger()
  const conn = await connect({ url: redis.url, prefix: '', timeout: 1000 }, log)
  t.teardown(() => conn.close())
  await conn.command('task', 'SET', 'k', 'v')
  await redis.kill()
  await until(() => (conn.client as any).status !== 'ready', { what: 'the client to see the connection lost' })
  const started = Date.now()
  await t.rejects(conn.command('task', 'GET', 'k'), StoreUnavailableError)
  t.ok(Date.now() - started < 500, 'no offline queue: it fails now, not at the timeout')
  await sleep(300) // the point: ioredis fails to reconnect several times meanwhile (logged once)
  await redis.restart()
  const back = await until(async () => await conn.command('task', 'PING').then(() => true, () => false), { what: 'the connection to come back', interval: 50 })
  t.ok(back, 'reconnected by itself')
  t.same(lines.filter(([level]) => level === 'warn').length, 1, 'the loss logged once, not at every retry')
  t.match(lines.find(([level]) => level === 'warn')![1], /the Redis connection failed; requests that need shared state get 503/)
  t.ok(lines.some(([level, msg]) => level === 'info' && msg === 'fastify-sake: the Redis connection is back'))
})

t.test('a user\'s client is used as it is and never closed by us; its subscriber duplicate is', async (t) => {
  const redis = await startRedis(t)
  const client = new Redis(redis.url)
  t.teardown(() => client.quit())
  const conn = new RedisConnection(client as any, { prefix: 'u:', timeout: 1000 }, false)
  const subscriber = conn.subscriber(logger().log)
  await subscriber.subscribe('u:chan')
  await conn.close()
  t.equal(await client.ping(), 'PONG', 'the user\'s client is still open')
  t.equal(client.status, 'ready')
})

t.test('watch: a lost connection is logged once however many errors ioredis emits, its return once', async (t) => {
  const { log, lines } = logger()
  const { EventEmitter } = await import('node:events')
  const client = new EventEmitter()
  watch(client as any, log)
  client.emit('ready') // the first connection: nothing to say
  client.emit('error', new Error('ECONNREFUSED'))
  client.emit('error', new Error('ECONNREFUSED')) // every failed reconnect emits one
  client.emit('error', new Error('ECONNREFUSED'))
  client.emit('ready')
  client.emit('ready')
  t.same(lines.map(([level]) => level), ['warn', 'info'])
})
