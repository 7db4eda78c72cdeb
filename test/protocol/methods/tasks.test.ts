// Tasks on the 2025-11-25 wire (issue 13): the capability, execution.taskSupport, params.task →
// CreateTaskResult, tasks/get, tasks/result (blocks until terminal, related-task _meta), tasks/list
// (the caller's own only), tasks/cancel, and every error of the utility page.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, toolError, withMeta, InsufficientScopeError, StoreUnavailableError } from '../../../lib/index.js'
import { build, closeBegun, until } from '../../helpers/app.js'
import { captureLog } from '../../helpers/logs.js'
import { openSession, sessionPost, send, modernCall, modernRequest } from '../../helpers/requests.js'
import { RESOURCE, SCOPES, authApp, bearer, startIssuer } from '../../helpers/tokens.js'
import { MemoryTaskStore } from '../../../lib/state/memory-task-store.js'
import { MemoryBus } from '../../../lib/state/memory-bus.js'

const V = '2025-11-25'
const RELATED = 'io.modelcontextprotocol/related-task'

/** A gate a test opens by hand: the slow tool waits on it. */
function gate (): { wait: Promise<void>, open: () => void } {
  let open!: () => void
  const wait = new Promise<void>((resolve) => { open = resolve })
  return { wait, open }
}

let slow = gate()
let aborted: unknown

async function app (extra: Record<string, unknown> = {}, fastify: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const built = await build({
    tools: [
      { name: 'plain', execute: () => 'inline' },
      {
        name: 'slow',
        task: 'optional',
        args: { n: Type.Number() },
        execute: async ({ n }: { n: number }, ctx: any) => {
          ctx.signal.addEventListener('abort', () => { aborted = ctx.signal.reason })
          await slow.wait
          return { doubled: n * 2 }
        }
      },
      { name: 'must', task: 'required', execute: () => 'as a task' },
      { name: 'fails', task: 'optional', execute: () => toolError('nope') },
      { name: 'throws', task: 'optional', execute: () => { throw new Error('secret detail') } },
      { name: 'meta', task: 'optional', execute: () => withMeta('ok', { trace: 'abc' }) },
      { name: 'bigint', task: 'optional', execute: () => ({ n: 1n }) },
      { name: 'plain_task', task: 'optional', execute: () => 'done' },
      // stops a moment after its abort, as real work does
      { name: 'hangs', task: 'required', execute: (_args: unknown, ctx: any) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => setTimeout(resolve, 5))) }
    ] as any,
    ...extra
  }, fastify)
  return built
}

function call (id: number, name: string, params: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...params } }
}

function req (id: number, method: string, params: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params }
}

t.test('2025-11-25: capability, taskSupport, and the whole lifecycle of a task', async (t) => {
  slow = gate()
  const server = await app()
  t.teardown(() => server.close())
  const init = await send(server, { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: V, capabilities: {}, clientInfo: { name: 'c', version: '1' } } } })
  t.same(init.body.result.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } })
  const old = await send(server, { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } })
  t.notOk('tasks' in old.body.result.capabilities, 'an older revision has no tasks')

  const session = await openSession(server, V)
  const list = await send(server, sessionPost(session, V, req(1, 'tools/list', {})))
  const byName = Object.fromEntries(list.body.result.tools.map((tool: any) => [tool.name, tool]))
  t.notOk('execution' in byName.plain)
  t.same(byName.slow.execution, { taskSupport: 'optional' })
  t.same(byName.must.execution, { taskSupport: 'required' })

  const created = await send(server, sessionPost(session, V, call(2, 'slow', { arguments: { n: 21 }, task: { ttl: 60_000 } })))
  t.equal(created.status, 200)
  const task = created.body.result.task
  t.match(task, { status: 'working', ttl: 60_000, pollInterval: 1000 })
  t.match(task.taskId, /^[0-9a-f-]{36}$/, 'a random UUID')
  t.equal(new Date(task.createdAt).toISOString(), task.createdAt, 'ISO 8601')
  t.equal(task.lastUpdatedAt, task.createdAt)

  const got = await send(server, sessionPost(session, V, req(3, 'tasks/get', { taskId: task.taskId })))
  t.same(got.body.result, task, 'tasks/get: the same Task, flat')

  const listed = await send(server, sessionPost(session, V, req(4, 'tasks/list', {})))
  t.same(listed.body.result.tasks.map((x: any) => x.taskId), [task.taskId])

  // tasks/result blocks until the task is terminal
  let settled = false
  const pending = send(server, sessionPost(session, V, req(5, 'tasks/result', { taskId: task.taskId }))).then((answer) => { settled = true; return answer })
  await new Promise((resolve) => setTimeout(resolve, 30)) // the point: no answer within 30 ms
  t.equal(settled, false, 'still blocked while the task works')
  slow.open()
  const result = await pending
  t.same(result.body.result.structuredContent, { doubled: 42 })
  t.same(result.body.result._meta[RELATED], { taskId: task.taskId }, 'related-task on the result')

  const done = await send(server, sessionPost(session, V, req(6, 'tasks/get', { taskId: task.taskId })))
  t.equal(done.body.result.status, 'completed')
  t.ok(done.body.result.lastUpdatedAt >= task.createdAt)
  t.notOk('_meta' in done.body.result, 'no related-task on tasks/get')
  const again = await send(server, sessionPost(session, V, req(7, 'tasks/result', { taskId: task.taskId })))
  t.same(again.body.result.structuredContent, { doubled: 42 }, 'a terminal task answers at once')

  const cancelDone = await send(server, sessionPost(session, V, req(8, 'tasks/cancel', { taskId: task.taskId })))
  t.equal(cancelDone.body.error.code, -32602)
  t.match(cancelDone.body.error.message, /already completed and cannot be cancelled/)
})

t.test('augmentation errors: forbidden, required, bad params.task, older sessions', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const session = await openSession(server, V)
  const forbidden = await send(server, sessionPost(session, V, call(1, 'plain', { task: {} })))
  t.equal(forbidden.body.error.code, -32601)
  t.match(forbidden.body.error.message, /Tool 'plain' does not run as a task/)
  const required = await send(server, sessionPost(session, V, call(2, 'must')))
  t.equal(required.body.error.code, -32601)
  t.match(required.body.error.message, /Tool 'must' runs only as a task: call it with params.task/)
  const notObject = await send(server, sessionPost(session, V, call(3, 'slow', { arguments: { n: 1 }, task: 5 })))
  t.equal(notObject.body.error.code, -32602)
  t.match(notObject.body.error.message, /"task" of tools\/call 'slow' must be an object/)
  const badTtl = await send(server, sessionPost(session, V, call(4, 'slow', { arguments: { n: 1 }, task: { ttl: -1 } })))
  t.equal(badTtl.body.error.code, -32602)
  t.match(badTtl.body.error.message, /"task.ttl" .* must be a non-negative integer/)
  const optionalInline = await send(server, sessionPost(session, V, call(51, 'slow', { arguments: { n: 2 } })))
  t.notOk('task' in optionalInline.body.result, 'an optional task tool called without params.task runs inline')
  const inline = await send(server, sessionPost(session, V, call(5, 'plain')))
  t.same(inline.body.result.content, [{ type: 'text', text: 'inline' }], 'a tool without task is untouched')

  const capped = await send(server, sessionPost(session, V, call(6, 'must', { task: { ttl: 99 * 3_600_000 } })))
  t.equal(capped.body.result.task.ttl, 3_600_000, 'a ttl above tasks.maxTtl is capped')
  const defaulted = await send(server, sessionPost(session, V, call(7, 'must', { task: { ttl: null } })))
  t.equal(defaulted.body.result.task.ttl, 600_000, 'null (unlimited) is never granted: the default ttl')

  const older = await openSession(server, '2025-06-18')
  const ignored = await send(server, sessionPost(older, '2025-06-18', call(1, 'must', { task: {} })))
  t.same(ignored.body.result.content, [{ type: 'text', text: 'as a task' }], 'an older session ignores params.task and runs inline')
  for (const method of ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']) {
    const answer = await send(server, sessionPost(older, '2025-06-18', req(2, method, { taskId: 'x' })))
    t.equal(answer.body.error.code, -32601, `${method} in 2025-06-18`)
  }
})

t.test('unknown ids, bad params, bad cursors: -32602 naming what is wrong', async (t) => {
  const server = await app({ pageSize: 1 })
  t.teardown(() => server.close())
  const session = await openSession(server, V)
  for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
    const unknown = await send(server, sessionPost(session, V, req(1, method, { taskId: 'no-such-task' })))
    t.equal(unknown.body.error.code, -32602, method)
    t.match(unknown.body.error.message, /unknown task "no-such-task"/)
    const missing = await send(server, sessionPost(session, V, req(2, method, {})))
    t.equal(missing.body.error.code, -32602)
    t.match(missing.body.error.message, new RegExp(`${method} needs "taskId" as a string`))
  }
  const badCursor = await send(server, sessionPost(session, V, req(3, 'tasks/list', { cursor: 'nope' })))
  t.equal(badCursor.body.error.code, -32602)
  t.match(badCursor.body.error.message, /unknown cursor "nope"/)
  const numberCursor = await send(server, sessionPost(session, V, req(4, 'tasks/list', { cursor: 1 })))
  t.equal(numberCursor.body.error.code, -32602)

  // pages of pageSize
  const a = (await send(server, sessionPost(session, V, call(5, 'must', { task: {} })))).body.result.task.taskId
  const b = (await send(server, sessionPost(session, V, call(6, 'must', { task: {} })))).body.result.task.taskId
  const first = await send(server, sessionPost(session, V, req(7, 'tasks/list', {})))
  t.same(first.body.result.tasks.map((x: any) => x.taskId), [a])
  const second = await send(server, sessionPost(session, V, req(8, 'tasks/list', { cursor: first.body.result.nextCursor })))
  t.same(second.body.result.tasks.map((x: any) => x.taskId), [b])
  t.notOk('nextCursor' in second.body.result)
})

t.test('a tool error is failed with its result; a throw is failed with a clean message', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const session = await openSession(server, V)
  const failing = (await send(server, sessionPost(session, V, call(1, 'fails', { task: {} })))).body.result.task.taskId
  const result = await send(server, sessionPost(session, V, req(2, 'tasks/result', { taskId: failing })))
  t.equal(result.body.result.isError, true, 'tasks/result: exactly what tools/call would have answered')
  t.same(result.body.result.content, [{ type: 'text', text: 'nope' }])
  const status = await send(server, sessionPost(session, V, req(3, 'tasks/get', { taskId: failing })))
  t.equal(status.body.result.status, 'failed', 'isError is failed in 2025-11-25')
  t.equal(status.body.result.statusMessage, 'nope')

  const throwing = (await send(server, sessionPost(session, V, call(4, 'throws', { task: {} })))).body.result.task.taskId
  const thrown = await send(server, sessionPost(session, V, req(5, 'tasks/result', { taskId: throwing })))
  t.same(thrown.body.result.content, [{ type: 'text', text: "Tool 'throws' failed with an internal error" }])
  t.notMatch(thrown.raw, /secret detail/, 'the error stays in the log')

  const meta = (await send(server, sessionPost(session, V, call(11, 'meta', { task: {} })))).body.result.task.taskId
  const merged = await send(server, sessionPost(session, V, req(12, 'tasks/result', { taskId: meta })))
  t.same(merged.body.result._meta, { trace: 'abc', [RELATED]: { taskId: meta } }, "the tool's own _meta is kept beside related-task")

  const unsendable = (await send(server, sessionPost(session, V, call(6, 'bigint', { task: {} })))).body.result.task.taskId
  const generic = await send(server, sessionPost(session, V, req(7, 'tasks/result', { taskId: unsendable })))
  t.same(generic.body.result.content, [{ type: 'text', text: "Tool 'bigint' failed with an internal error" }], 'a result JSON cannot carry')
})

t.test('tasks/cancel: cancelled before the answer, the handler is told, terminal stays', async (t) => {
  slow = gate()
  aborted = undefined
  const server = await app()
  t.teardown(() => server.close())
  const session = await openSession(server, V)
  const id = (await send(server, sessionPost(session, V, call(1, 'slow', { arguments: { n: 1 }, task: {} })))).body.result.task.taskId
  const waiting = send(server, sessionPost(session, V, req(2, 'tasks/result', { taskId: id })))
  const cancelled = await send(server, sessionPost(session, V, req(3, 'tasks/cancel', { taskId: id })))
  t.equal(cancelled.body.result.status, 'cancelled')
  t.equal(cancelled.body.result.statusMessage, 'cancelled by the client')
  t.match(String(aborted), /cancelled by the client/, 'ctx.signal aborted')
  const result = await waiting
  t.equal(result.body.error.code, -32603, 'tasks/result of a cancelled task: an error, no result')
  t.match(result.body.error.message, /was cancelled/)
  t.same(result.body.error.data._meta[RELATED], { taskId: id })
  slow.open()
  await new Promise((resolve) => setTimeout(resolve, 10)) // lets the handler finish and try to complete the task: nothing outside shows it tried
  const after = await send(server, sessionPost(session, V, req(4, 'tasks/get', { taskId: id })))
  t.equal(after.body.result.status, 'cancelled', 'finishing anyway does not change a cancelled task')
  const twice = await send(server, sessionPost(session, V, req(5, 'tasks/cancel', { taskId: id })))
  t.equal(twice.body.error.code, -32602)
  t.match(twice.body.error.message, /already cancelled/)
})

t.test('another session (auth off) or another subject (auth on) cannot see a task', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const mine = await openSession(server, V)
  const theirs = await openSession(server, V)
  const id = (await send(server, sessionPost(mine, V, call(1, 'must', { task: {} })))).body.result.task.taskId
  for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
    const answer = await send(server, sessionPost(theirs, V, req(2, method, { taskId: id })))
    t.equal(answer.body.error.code, -32602, `${method}: the unknown-task error`)
  }
  t.same((await send(server, sessionPost(theirs, V, req(3, 'tasks/list', {})))).body.result.tasks, [])

  const issuer = await startIssuer(t)
  const secured = await authApp(issuer, {}, { tools: [{ name: 'must', task: 'required', execute: () => 'ok' }, { name: 'more', task: true, execute: () => { throw new InsufficientScopeError(['files:write']) } }] as any })
  t.teardown(() => secured.close())
  const alice = bearer(await issuer.sign({ sub: 'alice' }))
  const bob = bearer(await issuer.sign({ sub: 'bob' }))
  const aliceSession = await openSession(secured, V, { headers: alice })
  const bobSession = await openSession(secured, V, { headers: bob })
  const taskId = (await send(secured, sessionPost(aliceSession, V, call(1, 'must', { task: {} }), alice))).body.result.task.taskId
  const refused = await send(secured, sessionPost(bobSession, V, req(2, 'tasks/get', { taskId }), bob))
  t.equal(refused.body.error.code, -32602)
  // the same subject in a new session still reaches its task: bound to the subject, not the session
  const aliceAgain = await openSession(secured, V, { headers: alice })
  const found = await send(secured, sessionPost(aliceAgain, V, req(3, 'tasks/get', { taskId }), alice))
  t.equal(found.body.result.taskId, taskId)

  // a protocol error inside the task (a scope it found it needs) is the task's JSON-RPC error
  const scoped = (await send(secured, sessionPost(aliceSession, V, call(4, 'more', { task: {} }), alice))).body.result.task.taskId
  const refusal = await send(secured, sessionPost(aliceSession, V, req(5, 'tasks/result', { taskId: scoped }), alice))
  t.equal(refusal.body.error.code, -32600, "the refusal's own code (an AccessRefusal), at HTTP 200: the creating request was answered long ago")
  t.match(refusal.body.error.message, /files:write/)
  t.same(refusal.body.error.data._meta[RELATED], { taskId: scoped })
  const failedGet = await send(secured, sessionPost(aliceSession, V, req(6, 'tasks/get', { taskId: scoped }), alice))
  t.equal(failedGet.body.result.status, 'failed')
})

t.test('server close fails running tasks (in memory: at once) and answers their waiters', async (t) => {
  const server = await app({ tasks: { closeTimeout: 1000 } })
  const session = await openSession(server, V)
  const id = (await send(server, sessionPost(session, V, call(1, 'hangs', { task: {} })))).body.result.task.taskId
  const waiting = send(server, sessionPost(session, V, req(2, 'tasks/result', { taskId: id })))
  await new Promise((resolve) => setTimeout(resolve, 10)) // lets tasks/result reach its wait: nothing outside the server shows that
  await server.close()
  const answer = await waiting
  t.equal(answer.body.error.code, -32603)
  t.equal(answer.body.error.message, 'Internal error: the server closed before the task finished; call again')
})

t.test('a task past its ttl is failed', async (t) => {
  const server = await app({ tasks: { maxTtl: 20 } })
  // the expiry timer is unref'd (it never holds a process open): keep this one alive meanwhile
  const alive = setInterval(() => {}, 1000)
  t.teardown(async () => { clearInterval(alive); await server.close() })
  const session = await openSession(server, V)
  const id = (await send(server, sessionPost(session, V, call(1, 'hangs', { task: {} })))).body.result.task.taskId
  const answer = await send(server, sessionPost(session, V, req(2, 'tasks/result', { taskId: id })))
  t.equal(answer.body.error.code, -32603)
  t.match(answer.body.error.message, /the task expired \(its ttl is over\)/)
  const got = await send(server, sessionPost(session, V, req(3, 'tasks/get', { taskId: id })))
  t.match(got.body.result, { status: 'failed', statusMessage: 'the task expired (its ttl is over)' })
})

t.test('2026-07-28: an expired task is failed with its JSON-RPC error, as a FailedTask must be', async (t) => {
  const server = await app({ tasks: { maxTtl: 20 } })
  const alive = setInterval(() => {}, 1000)
  t.teardown(async () => { clearInterval(alive); await server.close() })
  const { taskId } = (await send(server, modern('tools/call', { name: 'hangs', arguments: {} }))).body.result
  const failed = await statusUntil(server, taskId, (status) => status === 'failed')
  t.same(failed.error, { code: -32603, message: 'Internal error: the task expired (its ttl is over)' })
  t.equal(failed.statusMessage, 'the task expired (its ttl is over)')
})

t.test('an orphaned task (its instance gone, a shared store) is failed by whoever reads it', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const server = await app({ tasks: { store } })
  t.teardown(async () => { await server.close(); store.close() })
  const old = Date.now() - 120_000
  store.create({ taskId: 'orphan', version: 0, owner: 'anonymous', protocolVersion: '2026-07-28', status: 'working', createdAt: old, lastUpdatedAt: old, ttl: 60_000 })
  const got = await send(server, modern('tasks/get', { taskId: 'orphan' }))
  t.equal(got.body.result.status, 'failed')
  t.equal(got.body.result.error.code, -32603)
  t.equal(store.get('orphan')!.status, 'failed', 'written, for every other reader')
  store.create({ taskId: 'young', version: 0, owner: 'anonymous', protocolVersion: '2026-07-28', status: 'working', createdAt: Date.now(), lastUpdatedAt: Date.now(), ttl: 60_000 })
  t.equal((await send(server, modern('tasks/get', { taskId: 'young' }))).body.result.status, 'working', 'a live one within its ttl is left alone, wherever it runs')
})

t.test('a task asked for as the server begins to close is not started: -32603 saying so', async (t) => {
  const server = await app()
  const began = closeBegun(server)
  server.addHook('preHandler', async (request) => {
    // the call waits here while the server begins to close (its tasks stop taking new ones)
    if ((request.body as any)?.params?.name === 'plain_task') {
      void server.close()
      await began
    }
  })
  await server.ready()
  const refused = await send(server, modern('tools/call', { name: 'plain_task', arguments: {} }))
  t.equal(refused.body.error.code, -32603)
  t.equal(refused.body.error.message, 'Internal error: the server is closing and starts no task; try again later')
})

t.test('the task store failing: creating is -32603 (logged), settling is logged, and nothing crashes', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const create = store.create.bind(store)
  const transition = store.transition.bind(store)
  let failCreate = true
  let failTransition = false
  store.create = (record) => { if (failCreate) throw new Error('disk full'); return create(record) }
  store.transition = (id, version, patch) => { if (failTransition) throw new Error('disk full'); return transition(id, version, patch) }
  const log = captureLog()
  const server = await app({ tasks: { store } }, { logger: log.logger })
  t.teardown(async () => { await server.close(); store.close() })
  const refused = await send(server, modern('tools/call', { name: 'plain_task', arguments: {} }))
  t.equal(refused.body.error.code, -32603)
  t.equal(refused.body.error.message, 'Internal error: the task could not be created')
  t.ok(log.errors().some((line) => line.msg === 'fastify-sake: the task store failed to create a task'))
  failCreate = false
  store.create = () => { throw new StoreUnavailableError('task', 'Redis: connection lost') }
  const unavailable = await send(server, modern('tools/call', { name: 'plain_task', arguments: {} }))
  t.equal(unavailable.status, 503, 'a store that is down: 503, as it says')
  t.match(unavailable.body.error.message, /^Service Unavailable: the task store cannot be reached/)
  store.create = (record) => create(record)
  failTransition = true
  const { taskId } = (await send(server, modern('tools/call', { name: 'plain_task', arguments: {} }))).body.result
  const logged = (): boolean => log.errors().some((line) => line.msg === 'fastify-sake: the task store failed while storing how a task ended')
  await until(logged, { what: 'the failed transition to be logged' })
  t.ok(logged(), 'logged, not an unhandled rejection')
  failTransition = false
  t.equal(store.get(taskId)!.status, 'working', 'the record could not be settled (it is failed at its ttl, or as an orphan)')
})

t.test('2026-07-28 without the extension: an optional task tool runs inline, a required one is -32021', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const inline = await send(server, modernCall('fails', {}))
  t.equal(inline.body.result.isError, true)
  const required = await send(server, modernCall('must', {}))
  t.equal(required.status, 400)
  t.equal(required.body.error.code, -32021)
  t.same(required.body.error.data.requiredCapabilities, { extensions: { 'io.modelcontextprotocol/tasks': {} } })
})

t.test('a task deleted while tasks/result waits: the unknown-task error', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const bus = new MemoryBus()
  const server = await app({ tasks: { store }, bus })
  t.teardown(async () => { await server.close(); store.close() })
  const session = await openSession(server, V)
  const id = (await send(server, sessionPost(session, V, call(1, 'hangs', { task: {} })))).body.result.task.taskId
  const waiting = send(server, sessionPost(session, V, req(2, 'tasks/result', { taskId: id })))
  await new Promise((resolve) => setTimeout(resolve, 10)) // lets tasks/result reach its wait: nothing outside the server shows that
  store.delete(id)
  bus.publish({ type: 'taskStatus', taskId: id })
  const answer = await waiting
  t.equal(answer.body.error.code, -32602)
  t.match(answer.body.error.message, /unknown task/)
})

t.test('a caller at its task quota is refused with 429 and Retry-After; its task lives on', async (t) => {
  const server = await app({ tasks: { maxTasks: 1 } })
  t.teardown(() => server.close())
  const session = await openSession(server, V)
  const first = (await send(server, sessionPost(session, V, call(1, 'hangs', { task: {} })))).body.result.task
  t.ok(first)
  const full = await send(server, sessionPost(session, V, call(2, 'hangs', { task: {} })))
  t.equal(full.status, 429)
  t.equal(full.headers['retry-after'], '30')
  t.equal(full.body.id, 2)
  t.equal(full.body.error.code, -32600)
  t.equal(full.body.error.message, 'Too Many Requests: this caller already holds 1 tasks (running, or finished and kept until their ttl), the most tasks.maxPerCaller allows; let a task end and its ttl pass (ask a shorter task ttl), then try again')
  t.same(full.body.error.data, { limit: 'tasks', bound: 'caller', max: 1, option: 'tasks.maxPerCaller' })
  t.equal((await send(server, sessionPost(session, V, { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId: first.taskId } }))).body.result.status, 'working', 'nothing was dropped to make room')
})

// ---- 2026-07-28: the io.modelcontextprotocol/tasks extension ----

const EXT = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }

function modern (method: string, params: Record<string, unknown>, withExtension = true): ReturnType<typeof modernRequest> {
  const headers = typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}
  return modernRequest(method, withExtension ? { ...params, _meta: EXT } : params, headers)
}

/** Polls tasks/get until `done` holds for the task's status; its Task then. */
async function statusUntil (server: FastifyInstance, taskId: string, done: (status: string) => boolean): Promise<any> {
  return await until(async () => {
    const got = await send(server, modern('tasks/get', { taskId }))
    return done(got.body.result.status) ? got.body.result : undefined
  }, { what: `task ${taskId} to get there (tasks/get)`, interval: 5 })
}

t.test('2026-07-28: discover advertises the extension; a declaring request gets a flat CreateTaskResult', async (t) => {
  slow = gate()
  const server = await app()
  t.teardown(() => server.close())
  const discover = await send(server, modernRequest('server/discover'))
  t.same(discover.body.result.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} })
  t.notOk('tasks' in discover.body.result.capabilities, 'no v1-style tasks slot')

  const created = await send(server, modern('tools/call', { name: 'slow', arguments: { n: 4 } }))
  const task = created.body.result
  t.equal(task.resultType, 'task')
  t.match(task, { status: 'working', ttlMs: 600_000, pollIntervalMs: 1000 })
  t.notOk('task' in task, 'flat: no nested task')
  t.notOk('ttl' in task || 'pollInterval' in task, 'no 2025 field names')
  t.ok(task._meta['io.modelcontextprotocol/serverInfo'], 'serverInfo _meta, as every modern result')

  const working = await send(server, modern('tasks/get', { taskId: task.taskId }))
  t.equal(working.body.result.resultType, 'complete')
  t.equal(working.body.result.status, 'working')
  t.notOk('result' in working.body.result)
  slow.open()
  const done = await statusUntil(server, task.taskId, (status) => status === 'completed')
  t.same(done.result.structuredContent, { doubled: 8 })
  t.notOk(JSON.stringify(done.result).includes(RELATED), 'no related-task _meta inside the inlined result')

  const inline = await send(server, modernRequest('tools/call', { name: 'slow', arguments: { n: 1 } }))
  slow = gate()
  t.equal(inline.body.result.resultType, 'complete', 'without the extension: inline')

  const sync = await send(server, modern('tools/call', { name: 'plain', arguments: {} }))
  t.equal(sync.body.result.resultType, 'complete', 'a tool without task is never a task')
  const hinted = await send(server, modern('tools/call', { name: 'plain', arguments: {}, task: { ttl: 60_000 } }))
  t.equal(hinted.body.result.resultType, 'complete', 'the 2025 params.task promotes nothing in 2026-07-28')
  t.same(hinted.body.result.content, [{ type: 'text', text: 'inline' }])
})

t.test('2026-07-28: a tool error is completed with isError; a crash is failed with a JSON-RPC error', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const failing = (await send(server, modern('tools/call', { name: 'fails', arguments: {} }))).body.result.taskId
  const completed = await statusUntil(server, failing, (status) => status !== 'working')
  t.equal(completed.status, 'completed')
  t.equal(completed.result.isError, true)
  const crashing = (await send(server, modern('tools/call', { name: 'throws', arguments: {} }))).body.result.taskId
  const failed = await statusUntil(server, crashing, (status) => status !== 'working')
  t.equal(failed.status, 'failed')
  t.same(failed.error, { code: -32603, message: "Tool 'throws' failed with an internal error" })
  t.notOk('result' in failed)
  const unsendable = (await send(server, modern('tools/call', { name: 'bigint', arguments: {} }))).body.result.taskId
  t.equal((await statusUntil(server, unsendable, (status) => status !== 'working')).status, 'failed')
})

t.test('2026-07-28: tasks/cancel and tasks/update are empty acks; errors by the extension', async (t) => {
  slow = gate()
  const server = await app()
  t.teardown(() => server.close())
  const id = (await send(server, modern('tools/call', { name: 'slow', arguments: { n: 1 } }))).body.result.taskId
  const update = await send(server, modern('tasks/update', { taskId: id, inputResponses: { nobody: { action: 'accept' } } }))
  t.equal(update.body.result.resultType, 'complete')
  t.notOk('taskId' in update.body.result)
  const badUpdate = await send(server, modern('tasks/update', { taskId: id, inputResponses: 5 }))
  t.equal(badUpdate.body.error.code, -32602)
  t.match(badUpdate.body.error.message, /"inputResponses" as an object/)
  const cancel = await send(server, modern('tasks/cancel', { taskId: id }))
  t.same(Object.keys(cancel.body.result).sort(), ['_meta', 'resultType'])
  t.equal((await send(server, modern('tasks/get', { taskId: id }))).body.result.status, 'cancelled')
  const again = await send(server, modern('tasks/cancel', { taskId: id }))
  t.equal(again.body.result.resultType, 'complete', 'idempotent on a terminal task')
  slow.open()

  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    const unknown = await send(server, modern(method, { taskId: 'nope', inputResponses: {} }))
    t.equal(unknown.body.error.code, -32602, `${method}: unknown task`)
    const undeclared = await send(server, modern(method, { taskId: id, inputResponses: {} }, false))
    t.equal(undeclared.status, 400)
    t.equal(undeclared.body.error.code, -32021, `${method} without the extension`)
    t.same(undeclared.body.error.data.requiredCapabilities, { extensions: { 'io.modelcontextprotocol/tasks': {} } })
  }
  const list = await send(server, modern('tasks/list', {}))
  t.equal(list.status, 404, 'no tasks/list in this era')
  const mismatch = await send(server, modernRequest('tasks/get', { taskId: id, _meta: EXT }, { 'mcp-name': 'other' }))
  t.equal(mismatch.body.error.code, -32020, 'Mcp-Name must equal the taskId')
})

t.test('2026-07-28: a full store refuses another caller\'s new task with 503 and Retry-After', async (t) => {
  const server = await app({ tasks: { maxTasks: 1 } })
  t.teardown(() => server.close())
  t.equal((await send(server, modern('tools/call', { name: 'hangs', arguments: {} }))).body.result.resultType, 'task')
  const full = await send(server, { ...modern('tools/call', { name: 'hangs', arguments: {} }), remoteAddress: '10.0.0.2' })
  t.equal(full.status, 503)
  t.equal(full.headers['retry-after'], '30')
  t.equal(full.body.error.code, -32603)
  t.equal(full.body.error.message, 'Service Unavailable: the server already holds 1 tasks (running, or finished and kept until their ttl), the most tasks.maxTasks allows; try again later')
})

t.test("with a caller known, a task asks of every token that reads it what its tool's call asked; a tool not served here is refused", async (t) => {
  const issuer = await startIssuer(t)
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const log = captureLog({ level: 'info' })
  const server = await build({
    scopes: SCOPES,
    auth: { resource: RESOURCE, authorizationServers: [issuer.issuer], jwks: issuer.jwks },
    tasks: { store },
    tools: [
      { name: 'admin_export', scope: 'issues:admin', task: 'optional', execute: () => 'the admin export' },
      { name: 'anyone', task: 'optional', execute: () => 'for anyone' }
    ] as any
  }, { logger: log.logger })
  t.teardown(async () => { await server.close(); store.close() })
  const admin = bearer(await issuer.sign({ scope: 'issues:read issues:admin' }))
  const reader = bearer(await issuer.sign({ scope: 'issues:read' }))
  const session = await openSession(server, V, { headers: admin })
  const secret = (await send(server, sessionPost(session, V, call(1, 'admin_export', { task: {} }), admin))).body.result.task.taskId
  const open = (await send(server, sessionPost(session, V, call(2, 'anyone', { task: {} }), reader))).body.result.task.taskId
  t.equal(store.get(secret)!.tool, 'admin_export', 'the record names its tool')

  for (const [id, method] of [[3, 'tasks/get'], [4, 'tasks/result'], [5, 'tasks/cancel']] as const) {
    const refused = await send(server, sessionPost(session, V, req(id, method, { taskId: secret }), reader))
    t.equal(refused.status, 403, method)
    t.match(refused.headers['www-authenticate'], /^Bearer error="insufficient_scope", scope="issues:admin"/, method)
    t.equal(refused.body.error.message, "Forbidden: tool 'admin_export' needs the scope issues:admin, which the access token does not grant", method)
  }
  const line = log.lines.find((entry) => entry.msg?.startsWith('fastify-sake: refused tasks/get:') === true)
  t.match(line, { subject: 'alice', tool: 'admin_export', msg: "fastify-sake: refused tasks/get: Forbidden: tool 'admin_export' needs the scope issues:admin, which the access token does not grant" })
  t.same((await send(server, sessionPost(session, V, req(6, 'tasks/list', {}), reader))).body.result.tasks.map((task: any) => task.taskId), [open], 'tasks/list: only what the token may read')
  t.equal((await send(server, sessionPost(session, V, req(7, 'tasks/result', { taskId: secret }), admin))).body.result.content[0].text, 'the admin export')
  const modernRefused = await send(server, modernRequest('tasks/get', { taskId: secret, _meta: EXT }, { ...reader, 'mcp-name': secret }))
  t.equal(modernRefused.status, 403, '2026-07-28 tasks/get: the same 403')

  // a task whose tool this server does not serve (removed by a deploy, or made by another version on a shared store)
  const now = Date.now()
  const base = { version: 0, owner: 'sub:alice', protocolVersion: V, status: 'completed' as const, createdAt: now, lastUpdatedAt: now, ttl: 60_000, result: { content: [{ type: 'text', text: 'old secret' }] } }
  store.create({ ...base, taskId: 'made-by-gone', tool: 'gone' })
  store.create({ ...base, taskId: 'made-before' })
  const gone = await send(server, sessionPost(session, V, req(8, 'tasks/result', { taskId: 'made-by-gone' }), admin))
  t.equal(gone.body.error.code, -32602)
  t.equal(gone.body.error.message, "Invalid params: task \"made-by-gone\" was made by tool 'gone', which this server does not serve: what that tool asks of a caller cannot be checked, so the task cannot be read here")
  t.match((await send(server, sessionPost(session, V, req(9, 'tasks/get', { taskId: 'made-before' }), admin))).body.error.message, /does not record the tool that made it/)
  t.ok(log.lines.some((entry) => entry.msg === 'fastify-sake: refused tasks/result: the tool that made the task is not served here' && entry.tool === 'gone'))
  t.notOk(log.lines.some((entry) => JSON.stringify(entry).includes('made-by-gone')), 'the task id stays out of the log')
  const listed = (await send(server, sessionPost(session, V, req(10, 'tasks/list', {}), admin))).body.result.tasks.map((task: any) => task.taskId)
  t.same(listed, [secret, open], 'tasks/list leaves them out too')
})
