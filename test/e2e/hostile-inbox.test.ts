// Issue 40, as a hostile client found it: on a fleet, responses with invented question ids
// (`sake-<instance>-<n>`, of a live instance or a made-up one) got 202 and were pushed into Redis
// inboxes whose expiry each push renewed: 40 posts, +25.6 MiB. Against the built package, two
// instances on one real redis-server, raw HTTP: what nobody asked is refused and kept nowhere,
// while a real answer to a real question, posted to the other instance, still reaches the asker.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import sake, { Type } from '../../dist/index.js'
import { startRedis, type RunningRedis } from '../helpers/redis.js'
import { open } from '../helpers/network.js'
import { until } from '../helpers/until.js'

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const KEY = Buffer.alloc(32, 9).toString('base64')

async function instance (t: Test, redis: RunningRedis): Promise<string> {
  const app = Fastify({ logger: false })
  await app.register(sake, { name: 'fleet', version: '1.0.0', keepAlive: 0, redis: { url: redis.url }, requestState: { keys: [KEY] } })
  app.registerTool({
    name: 'greet',
    execute: async (_args, ctx) => {
      const who = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String() }))
      return who.action === 'accept' ? `Hello, ${String(who.content.name)}!` : who.action
    }
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const { port } = app.server.address() as { port: number }
  return `http://127.0.0.1:${port}/mcp`
}

async function post (url: string, session: string, body: unknown): Promise<{ status: number, body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

/**
 * What Redis holds in keys: the sum of MEMORY USAGE over every key. Not `used_memory_dataset`,
 * which moves with the allocator and the clients' buffers (it grew 800 KB under load with no key
 * written: a flake, not a finding).
 */
function dataset (redis: RunningRedis): number {
  const keys = redis.cli('KEYS', '*').split('\n').filter((key) => key !== '')
  return keys.reduce((sum, key) => sum + Number(redis.cli('MEMORY', 'USAGE', key) || 0), 0)
}

t.test('forged answers are refused and kept nowhere; a real one still reaches the instance that asked', async (t) => {
  const redis = await startRedis(t)
  const a = await instance(t, redis)
  const b = await instance(t, redis)
  await until(() => Number(redis.cli('ZCARD', 'sake:instances')) === 2, { what: 'both instances beating' })
  const instances = redis.cli('ZRANGE', 'sake:instances', '0', '-1').split('\n').filter((line) => line !== '')
  t.equal(instances.length, 2)

  const init = await fetch(a, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'hostile', version: '1' } } }) })
  await init.text()
  const session = init.headers.get('mcp-session-id')!
  t.equal((await post(a, session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202)

  // 40 answers of 600 KB to questions nobody asked: ids of both live instances, and a made-up one
  const before = dataset(redis)
  const blob = 'x'.repeat(600_000)
  const statuses: number[] = []
  for (let n = 0; n < 40; n++) {
    const asker = n % 3 === 2 ? 'nobody' : instances[n % 2]!
    statuses.push((await post(n % 2 === 0 ? a : b, session, { jsonrpc: '2.0', id: `sake-${asker}-${1000 + n}`, result: { action: 'accept', content: { name: blob } } })).status)
  }
  t.ok(statuses.every((status) => status === 400 || status === 410), `each refused: ${[...new Set(statuses)].join(', ')}`)
  t.ok(statuses.includes(400), "a live instance's invented id: 400, no question waits for it")
  t.equal(redis.cli('KEYS', 'sake:inbox:*'), '', 'no inbox was made')
  const grown = dataset(redis) - before
  t.ok(grown < 600_000, `Redis's keys did not grow with them (${grown} bytes for 24 MB posted; one answer kept would be 600 KB)`)

  // a real question asked on A, answered through B: kept for A, once, and the call answers
  const stream = await open(a, { method: 'POST', headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: {} } }) })
  t.teardown(() => stream.close())
  const question = await stream.message(5000)
  t.equal(question.method, 'elicitation/create')
  t.equal((await post(b, session, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } })).status, 202, 'answered through the other instance')
  t.same((await stream.message(5000)).result.content, [{ type: 'text', text: 'Hello, Ada!' }])
  // the answer came by the bus; its copy in A's inbox waits for A's next look, or its expiry
  const inbox = `sake:inbox:${instances.find((id) => question.id.startsWith(`sake-${id}-`))!}`
  t.equal(redis.cli('LLEN', inbox), '1', 'one copy kept for A')
  const again = await post(b, session, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: blob } } })
  t.equal(again.status, 400, 'a second answer to it is refused')
  t.match(again.body.error.message, /no question of this server waits for an answer with id/)
  t.equal(redis.cli('LLEN', inbox), '1', 'and nothing of it is kept')
})
