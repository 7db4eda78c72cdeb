// A fleet that survives an instance's death (issue 29): two example servers as child processes on
// one real redis-server, the first killed with SIGKILL while it runs a 2025-11-25 streamed call, a
// 2026-07-28 task and a 2025-11-25 task. The second, with the default heartbeat (2 s, dead after
// 8 s), ends what the dead one was running: the stream resumed on it (GET + Last-Event-ID) ends with
// the call's -32603 response within 20 s, both tasks are `failed` within 30 s, and an answer to the
// dead one's question is refused (410) rather than lost in silence.
import t from 'tap'
import { startExample } from '../helpers/clients.js'
import { getStream, legacyPost, responseOn, sessionOn, streamPost } from '../helpers/network.js'
import { startRedis } from '../helpers/redis.js'
import { until } from '../helpers/until.js'

const V = '2025-11-25'
const TASKS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }

t.test('kill -9 of the instance running a streamed call, two tasks and a question: the survivor ends them all', async (t) => {
  const redis = await startRedis(t)
  const env = { REDIS_URL: redis.url, MCP_STATE_KEY: Buffer.alloc(32, 9).toString('base64'), SESSIONS_PER_CALLER: '10000' }
  const a = await startExample(env)
  t.teardown(async () => a.stop())
  const b = await startExample(env)
  t.teardown(async () => b.stop())
  const onA = a.url.href
  const onB = b.url.href

  // on A: a 2025-11-25 call streaming its progress, a 2025 task and a 2026-07-28 task, all long
  const session = await sessionOn(onA, { capabilities: { elicitation: {} } })
  const streamed = await legacyPost(onA, session, V, { jsonrpc: '2.0', id: 'long-call', method: 'tools/call', params: { name: 'count', arguments: { to: 100, delayMs: 200 }, _meta: { progressToken: 'p' } } })
  t.equal(streamed.headers.get('content-type'), 'text/event-stream')
  let lastId: string | undefined
  for (;;) {
    const event = await streamed.next(5000)
    lastId = event?.id ?? lastId
    if (event?.data?.includes('notifications/progress') === true) break
  }
  const legacyTask = (await (await legacyPost(onA, session, V, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'count', arguments: { to: 100, delayMs: 1000 }, task: {} } })).json()).result.task
  t.equal(legacyTask.status, 'working')
  const modernTask = (await (await streamPost(onA, 'tools/call', { name: 'count', arguments: { to: 100, delayMs: 1000 }, _meta: TASKS })).json()).result
  t.equal(modernTask.status, 'working')

  // and a question: greet asks who to greet, on the call's stream
  const asking = await legacyPost(onA, session, V, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'greet', arguments: {} } })
  const question = await asking.message(5000)
  t.equal(question.method, 'elicitation/create')

  a.child.kill('SIGKILL')
  const killed = Date.now()
  streamed.close()

  // the client resumes its stream on B: the rest of the call's events, then its answer, an error
  const resumed = await getStream(onB, session, lastId)
  t.equal(resumed.status, 200)
  const answer = await responseOn(resumed, 20_000)
  const streamEnded = Date.now() - killed
  t.ok(streamEnded < 20_000, `the resumed stream ended within 20 s (${streamEnded} ms)`)
  t.same(answer, { jsonrpc: '2.0', id: 'long-call', error: { code: -32603, message: 'Internal error: the instance running the call stopped' } })
  t.equal(await resumed.next(1000), undefined, 'and the stream ended')

  // the question's answer, POSTed to B: the instance that asked is gone, and the client is told so
  const answered = await legacyPost(onB, session, V, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } })
  t.equal(answered.status, 410)
  t.match((await answered.json()).error, { code: -32600, message: /^Gone: the server instance that asked "sake-.+" stopped, and the call that asked it ended with an error; call again$/ })

  // both tasks fail on B, read there as any client would poll them
  const failed = await until(async () => {
    const modern = (await (await streamPost(onB, 'tasks/get', { taskId: modernTask.taskId, _meta: TASKS }, { 'mcp-name': modernTask.taskId })).json()).result
    const legacy = (await (await legacyPost(onB, session, V, { jsonrpc: '2.0', id: 9, method: 'tasks/get', params: { taskId: legacyTask.taskId } })).json()).result
    return modern.status === 'failed' && legacy.status === 'failed' ? { modern, legacy } : undefined
  }, { what: 'both tasks of the dead instance to fail', timeout: 30_000, interval: 500 })
  const tasksEnded = Date.now() - killed
  t.ok(tasksEnded < 30_000, `both tasks failed within 30 s (${tasksEnded} ms)`)
  t.equal(failed.modern.statusMessage, 'the instance running the call stopped')
  t.equal(failed.legacy.statusMessage, 'the instance running the call stopped')
  const result = await (await legacyPost(onB, session, V, { jsonrpc: '2.0', id: 10, method: 'tasks/result', params: { taskId: legacyTask.taskId } })).message()
  t.match(result.error, { code: -32603, message: 'Internal error: the instance running the call stopped' }, "the 2025 task's result is its error")
})
