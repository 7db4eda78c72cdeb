// Questions inside a task, both eras: 2026-07-28 tasks/get inputRequests + tasks/update (raw wire,
// inject); 2025-11-25 questions carried on a tasks/result stream, progress and status on the GET
// stream (a real port); and prepare, which asks before the task exists.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { MemoryTaskStore, Type, toolError } from '../../../lib/index.js'
import { build, listen, sleep, until } from '../../helpers/app.js'
import { modernRequest, send } from '../../helpers/requests.js'
import { getStream, legacyPost, sessionOn } from '../../helpers/network.js'

const TASKS = { 'io.modelcontextprotocol/tasks': {} }
const RELATED = 'io.modelcontextprotocol/related-task'
const KEY = 'io.github.fastify-sake/key'
const Confirm = Type.Object({ ok: Type.Boolean() })

let cancelledQuestion: unknown

const tools = [
  {
    name: 'confirm',
    task: 'optional',
    args: { file: Type.String() },
    async execute ({ file }: { file: string }, ctx: any) {
      ctx.progress(1, 2, 'asking')
      ctx.notify('info', `asking about ${file}`)
      let answer
      try {
        answer = await ctx.elicit.form('sure', `Delete ${file}?`, Confirm)
      } catch (err) {
        cancelledQuestion = err
        throw err
      }
      if (answer.action !== 'accept') return `kept ${file} (${answer.action})`
      return `deleted ${file}: ${String(answer.content.ok)}`
    }
  },
  {
    name: 'two',
    task: 'optional',
    async execute (_args: unknown, ctx: any) {
      const [a, b] = await Promise.all([ctx.elicit.form('a', 'A?', Confirm), ctx.elicit.form('b', 'B?', Confirm)])
      return `${String(a.content?.ok)} ${String(b.content?.ok)}`
    }
  },
  {
    name: 'gated',
    task: 'required',
    args: { n: Type.Integer() },
    async prepare ({ n }: { n: number }, ctx: any) {
      if (n < 0) return toolError('n must not be negative')
      const go = await ctx.elicit.form('go', `Start with ${n}?`, Confirm)
      return go.action === 'accept' && go.content.ok === true ? { n, started: true } : toolError('not started')
    },
    execute: async ({ n, started }: { n: number, started: boolean }) => `ran ${n} (${String(started)})`
  }
] as any

async function app (): Promise<FastifyInstance> {
  const built = await build({ keepAlive: 0, tasks: { pollInterval: 10 }, tools })
  return built
}

// ---- 2026-07-28 ----

function modern (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = { elicitation: {}, extensions: TASKS }): ReturnType<typeof modernRequest> {
  const headers = typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}
  return modernRequest(method, { ...params, _meta: { 'io.modelcontextprotocol/clientCapabilities': capabilities } }, headers)
}

async function poll (server: FastifyInstance, taskId: string, done: (task: any) => boolean): Promise<any> {
  return await until(async () => {
    const got = (await send(server, modern('tasks/get', { taskId }))).body.result
    return done(got) ? got : undefined
  }, { what: `task ${taskId} to get there (tasks/get)`, interval: 5 })
}

t.test('2026-07-28: a task asks, tasks/get shows inputRequests, tasks/update answers, the task completes', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const created = (await send(server, modern('tools/call', { name: 'confirm', arguments: { file: 'a.txt' } }))).body.result
  t.equal(created.resultType, 'task')
  const waiting = await poll(server, created.taskId, (task) => task.status === 'input_required')
  t.same(waiting.inputRequests, {
    sure: { method: 'elicitation/create', params: { mode: 'form', message: 'Delete a.txt?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } }
  })
  t.notOk('requestState' in waiting, 'no requestState on a task')

  const bad = await send(server, modern('tasks/update', { taskId: created.taskId, inputResponses: { sure: 'yes' } }))
  t.equal(bad.body.error.code, -32602)
  t.match(bad.body.error.message, /inputResponses\["sure"\] must be the client's result for elicitation\/create, got a string/)
  t.equal((await send(server, modern('tasks/get', { taskId: created.taskId }))).body.result.status, 'input_required', 'a refused update changes nothing')

  const ack = await send(server, modern('tasks/update', { taskId: created.taskId, inputResponses: { sure: { action: 'accept', content: { ok: true } }, stray: { action: 'accept' } } }))
  t.same(Object.keys(ack.body.result).sort(), ['_meta', 'resultType'], 'an empty ack')
  const done = await poll(server, created.taskId, (task) => task.status === 'completed')
  t.same(done.result.content, [{ type: 'text', text: 'deleted a.txt: true' }])
  t.notOk('inputRequests' in done)
  const late = await send(server, modern('tasks/update', { taskId: created.taskId, inputResponses: { sure: { action: 'decline' } } }))
  t.equal(late.body.result.resultType, 'complete', 'an answer after the end is ignored')
})

t.test('2026-07-28: two questions at once, answered one at a time', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const { taskId } = (await send(server, modern('tools/call', { name: 'two', arguments: {} }))).body.result
  const both = await poll(server, taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2)
  t.equal(both.status, 'input_required')
  await send(server, modern('tasks/update', { taskId, inputResponses: { a: { action: 'accept', content: { ok: true } } } }))
  const one = (await send(server, modern('tasks/get', { taskId }))).body.result
  t.equal(one.status, 'input_required', 'still waiting on b')
  t.same(Object.keys(one.inputRequests), ['b'])
  await send(server, modern('tasks/update', { taskId, inputResponses: { b: { action: 'accept', content: { ok: false } } } }))
  const done = await poll(server, taskId, (task) => task.status === 'completed')
  t.same(done.result.content, [{ type: 'text', text: 'true false' }])
})

t.test('2026-07-28: an answer that does not match the form is the tool\'s error; no elicitation declared: unsupported', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const { taskId } = (await send(server, modern('tools/call', { name: 'confirm', arguments: { file: 'b' } }))).body.result
  await poll(server, taskId, (task) => task.status === 'input_required')
  await send(server, modern('tasks/update', { taskId, inputResponses: { sure: { action: 'accept', content: { ok: 'maybe' } } } }))
  const done = await poll(server, taskId, (task) => task.status === 'completed')
  t.equal(done.result.isError, true)
  t.match(done.result.content[0].text, /the client's answer to elicitation\/create \('sure'\) is not valid: its content does not match the requested schema/)

  const undeclared = (await send(server, modern('tools/call', { name: 'confirm', arguments: { file: 'c' } }, { extensions: TASKS }))).body.result
  const unsupported = await poll(server, undeclared.taskId, (task) => task.status === 'completed')
  t.same(unsupported.result.content, [{ type: 'text', text: 'kept c (unsupported)' }], 'never input_required for a client that cannot answer')
})

t.test('2026-07-28: a task cancelled while it waits stays cancelled; its question rejects', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  cancelledQuestion = undefined
  const { taskId } = (await send(server, modern('tools/call', { name: 'confirm', arguments: { file: 'd' } }))).body.result
  await poll(server, taskId, (task) => task.status === 'input_required')
  await send(server, modern('tasks/cancel', { taskId }))
  await until(() => cancelledQuestion, { what: 'the handler\'s question to reject' })
  t.match(String(cancelledQuestion), /ClientInputError: elicitation\/create \('sure'\) got no answer: the task ended first/)
  const after = (await send(server, modern('tasks/get', { taskId }))).body.result
  t.equal(after.status, 'cancelled')
  t.notOk('inputRequests' in after, 'a terminal task shows no questions')
  await send(server, modern('tasks/update', { taskId, inputResponses: { sure: { action: 'accept', content: { ok: true } } } }))
  t.equal((await send(server, modern('tasks/get', { taskId }))).body.result.status, 'cancelled', 'an answer does not revive it')
})

t.test('2026-07-28: prepare asks in the request (multi round-trip), then the task starts with what it returned', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const first = (await send(server, modern('tools/call', { name: 'gated', arguments: { n: 3 } }))).body.result
  t.equal(first.resultType, 'input_required')
  t.notOk('taskId' in first, 'no task before prepare is done')
  t.same(Object.keys(first.inputRequests), ['go'])
  const second = (await send(server, modern('tools/call', { name: 'gated', arguments: { n: 3 }, inputResponses: { go: { action: 'accept', content: { ok: true } } }, requestState: first.requestState }))).body.result
  t.equal(second.resultType, 'task')
  t.notOk('requestState' in second, 'the round\'s state does not leak into the task')
  const done = await poll(server, second.taskId, (task) => task.status === 'completed')
  t.same(done.result.content, [{ type: 'text', text: 'ran 3 (true)' }])

  const refused = (await send(server, modern('tools/call', { name: 'gated', arguments: { n: 3 }, inputResponses: { go: { action: 'decline' } }, requestState: first.requestState }))).body.result
  t.equal(refused.resultType, 'complete', 'prepare said no: answered inline, no task')
  t.equal(refused.isError, true)
  t.same(refused.content, [{ type: 'text', text: 'not started' }])
  const invalid = (await send(server, modern('tools/call', { name: 'gated', arguments: { n: 'x' } }))).body.result
  t.equal(invalid.resultType, 'complete')
  t.match(invalid.content[0].text, /Invalid arguments for tool 'gated'/)
})

// ---- 2025-11-25, over a real port ----

const V = '2025-11-25'
const ASK = { elicitation: {} }
const rpc = (id: number, method: string, params: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', id, method, params })

async function until25 (url: string, session: string, taskId: string, status: string): Promise<any> {
  let id = 90
  return await until(async () => {
    const task = (await (await legacyPost(url, session, V, rpc(id++, 'tasks/get', { taskId }))).json()).result
    return task.status === status ? task : undefined
  }, { what: `task ${taskId} to be ${status} (tasks/get)`, interval: 5 })
}

t.test('2025-11-25: tasks/result carries the question; a JSON-RPC error answer fails the task with that error', async (t) => {
  const server = await app()
  const url = await listen(t, server)
  const session = await sessionOn(url, { capabilities: ASK })
  const created = (await (await legacyPost(url, session, V, rpc(1, 'tools/call', { name: 'confirm', arguments: { file: 'e' }, task: {} }))).json()).result.task
  await until25(url, session, created.taskId, 'input_required')
  const result = await legacyPost(url, session, V, rpc(2, 'tasks/result', { taskId: created.taskId }))
  t.match(result.headers.get('content-type'), /text\/event-stream/)
  const question = await result.message()
  t.equal(question.method, 'elicitation/create')
  t.same(question.params._meta[RELATED], { taskId: created.taskId })
  t.equal(question.params._meta[KEY], 'sure')
  await (await legacyPost(url, session, V, { jsonrpc: '2.0', id: question.id, error: { code: -1, message: 'the user closed the dialog' } })).rest()
  const final = await result.message()
  t.equal(final.id, 2)
  t.equal(final.result.isError, true)
  t.match(final.result.content[0].text, /answered elicitation\/create \('sure'\) with error -1: the user closed the dialog/)
  t.same(final.result._meta[RELATED], { taskId: created.taskId })
  t.equal((await until25(url, session, created.taskId, 'failed')).status, 'failed', 'a 2025 tool error is failed')
})

t.test('2025-11-25: without a tasks/result stream, progress, log messages and status changes reach the GET stream', async (t) => {
  const server = await app()
  const url = await listen(t, server)
  const session = await sessionOn(url, { capabilities: ASK })
  await (await legacyPost(url, session, V, rpc(1, 'logging/setLevel', { level: 'info' }))).json()
  const get = await getStream(url, session)
  t.teardown(() => get.close())
  const created = (await (await legacyPost(url, session, V, rpc(2, 'tools/call', { name: 'confirm', arguments: { file: 'f' }, task: {}, _meta: { progressToken: 'tok' } }))).message()).result.task
  const seen: any[] = []
  while (seen.length < 3) seen.push(await get.message(2000))
  const byMethod = Object.fromEntries(seen.map((m) => [m.method, m.params]))
  t.same(byMethod['notifications/progress'], { progressToken: 'tok', progress: 1, total: 2, message: 'asking', _meta: { [RELATED]: { taskId: created.taskId } } })
  t.same(byMethod['notifications/message'], { level: 'info', data: 'asking about f', _meta: { [RELATED]: { taskId: created.taskId } } })
  t.match(byMethod['notifications/tasks/status'], { taskId: created.taskId, status: 'input_required' })
  t.notOk(RELATED in (byMethod['notifications/tasks/status']._meta ?? {}), 'a status notification needs no related-task')

  // two tasks/result streams: the question goes out on one of them only
  const one = await legacyPost(url, session, V, rpc(3, 'tasks/result', { taskId: created.taskId }))
  const question = await one.message()
  // the second carries no question, so it stays a JSON answer (its headers come with it)
  const two = legacyPost(url, session, V, rpc(4, 'tasks/result', { taskId: created.taskId }))
  await sleep(20) // lets it reach its wait on the task before the answer: nothing outside the server shows that
  await (await legacyPost(url, session, V, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: false } } })).rest()
  const a = await one.message()
  const second = await two
  t.match(second.headers.get('content-type'), /application\/json/, 'no question on it: plain JSON')
  const b = await second.json()
  t.same(a.result.content, [{ type: 'text', text: 'deleted f: false' }])
  t.equal(b.id, 4)
  t.same(b.result.content, a.result.content)
  const next = await get.message(2000)
  t.match(next, { method: 'notifications/tasks/status', params: { taskId: created.taskId } })
})

t.test('2025-11-25: a question nobody carries waits; the next tasks/result asks it', async (t) => {
  const server = await app()
  const url = await listen(t, server)
  const session = await sessionOn(url, { capabilities: ASK })
  const created = (await (await legacyPost(url, session, V, rpc(1, 'tools/call', { name: 'confirm', arguments: { file: 'g' }, task: {} }))).json()).result.task
  await until25(url, session, created.taskId, 'input_required')
  // a client that takes JSON only cannot be asked on its tasks/result: it waits, the task too
  // (its headers come with its answer: not awaited here)
  const plain = legacyPost(url, session, V, rpc(2, 'tasks/result', { taskId: created.taskId }), { accept: 'application/json' })
  await sleep(20) // lets it reach its wait first: nothing outside the server shows that
  const streamed = await legacyPost(url, session, V, rpc(3, 'tasks/result', { taskId: created.taskId }))
  const question = await streamed.message()
  t.equal(question.params._meta[KEY], 'sure')
  await (await legacyPost(url, session, V, { jsonrpc: '2.0', id: question.id, result: { action: 'decline' } })).rest()
  t.same((await (await plain).json()).result.content, [{ type: 'text', text: 'kept g (decline)' }])
  t.same((await streamed.message()).result.content, [{ type: 'text', text: 'kept g (decline)' }])
})

t.test('2025-11-25: prepare\'s question travels on the tools/call stream; its refusal is a failed task', async (t) => {
  const server = await app()
  const url = await listen(t, server)
  const session = await sessionOn(url, { capabilities: ASK })
  const call = await legacyPost(url, session, V, rpc(1, 'tools/call', { name: 'gated', arguments: { n: 2 }, task: {} }))
  const question = await call.message()
  t.equal(question.params.message, 'Start with 2?')
  t.notOk(RELATED in question.params._meta, 'no task yet')
  await (await legacyPost(url, session, V, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } })).rest()
  const created = (await call.message()).result.task
  t.equal(created.status, 'working')
  const result = (await (await legacyPost(url, session, V, rpc(2, 'tasks/result', { taskId: created.taskId }))).json()).result
  t.same(result.content, [{ type: 'text', text: 'ran 2 (true)' }])

  const refused = (await (await legacyPost(url, session, V, rpc(3, 'tools/call', { name: 'gated', arguments: { n: -1 }, task: {} }))).json()).result.task
  t.ok(refused.taskId, 'the client asked for a task: it gets one')
  const failed = await until25(url, session, refused.taskId, 'failed')
  t.equal(failed.statusMessage, 'n must not be negative')
  const answer = (await (await legacyPost(url, session, V, rpc(4, 'tasks/result', { taskId: refused.taskId }))).json()).result
  t.equal(answer.isError, true)
  t.same(answer.content, [{ type: 'text', text: 'n must not be negative' }])
})

t.test('2025-11-25: a question carried on a stream that closes is asked again on the next one', async (t) => {
  const server = await app()
  const url = await listen(t, server)
  const session = await sessionOn(url, { capabilities: ASK })
  const created = (await (await legacyPost(url, session, V, rpc(1, 'tools/call', { name: 'confirm', arguments: { file: 'h' }, task: {} }))).json()).result.task
  await until25(url, session, created.taskId, 'input_required')
  const first = await legacyPost(url, session, V, rpc(2, 'tasks/result', { taskId: created.taskId }))
  const asked = await first.message()
  first.close()
  await sleep(30) // for the server to see the stream close and release the question: nothing outside it shows that
  t.equal((await until25(url, session, created.taskId, 'input_required')).status, 'input_required', 'still waiting')
  const second = await legacyPost(url, session, V, rpc(3, 'tasks/result', { taskId: created.taskId }))
  const again = await second.message()
  t.not(again.id, asked.id, 'a new request for the same question')
  t.equal(again.params._meta[KEY], 'sure')
  await (await legacyPost(url, session, V, { jsonrpc: '2.0', id: again.id, result: { action: 'accept', content: { ok: true } } })).rest()
  t.same((await second.message()).result.content, [{ type: 'text', text: 'deleted h: true' }])
})

t.test('2025-11-25: two questions at once go out on one tasks/result stream, each once', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const server = await build({ keepAlive: 0, tasks: { store, pollInterval: 10 }, tools })
  t.teardown(() => store.close())
  const url = await listen(t, server)
  const session = await sessionOn(url, { capabilities: ASK })
  const created = (await (await legacyPost(url, session, V, rpc(1, 'tools/call', { name: 'two', arguments: {}, task: {} }))).json()).result.task
  const pending = (): string[] => Object.keys(store.get(created.taskId)?.inputRequests ?? {}).sort()
  await until(() => pending().length === 2, { what: 'both questions asked' })
  const result = await legacyPost(url, session, V, rpc(2, 'tasks/result', { taskId: created.taskId }))
  const first = await result.message()
  const second = await result.message()
  t.same([first.params._meta[KEY], second.params._meta[KEY]].sort(), ['a', 'b'])
  await (await legacyPost(url, session, V, { jsonrpc: '2.0', id: first.id, result: { action: 'accept', content: { ok: true } } })).rest()
  await until(() => pending().join() === 'b', { what: 'the task to take the first answer' }) // the pending question is not asked again on this stream
  await (await legacyPost(url, session, V, { jsonrpc: '2.0', id: second.id, result: { action: 'accept', content: { ok: true } } })).rest()
  const final = await result.message()
  t.equal(final.id, 2, 'the answer, with no third request before it')
  t.same(final.result.content, [{ type: 'text', text: 'true true' }])
})

t.test('2025-11-25: a question inside a task waits past inputTimeout (as long as the task lives)', async (t) => {
  const server = await build({ keepAlive: 0, inputTimeout: 100, tasks: { pollInterval: 10 }, tools })
  const url = await listen(t, server)
  const session = await sessionOn(url, { capabilities: ASK })
  const created = (await (await legacyPost(url, session, V, rpc(1, 'tools/call', { name: 'confirm', arguments: { file: 'i' }, task: {} }))).json()).result.task
  await until25(url, session, created.taskId, 'input_required')
  const result = await legacyPost(url, session, V, rpc(2, 'tasks/result', { taskId: created.taskId }))
  const question = await result.message()
  await sleep(300) // thrice inputTimeout
  await (await legacyPost(url, session, V, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } })).rest()
  t.same((await result.message()).result.content, [{ type: 'text', text: 'deleted i: true' }])
})

t.test('2025-11-25 with auth off: deleting the session cancels the tasks it created', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const server = await build({ keepAlive: 0, tasks: { store, pollInterval: 10 }, tools })
  t.teardown(() => store.close())
  const url = await listen(t, server)
  const session = await sessionOn(url, { capabilities: ASK })
  const created = (await (await legacyPost(url, session, V, rpc(1, 'tools/call', { name: 'confirm', arguments: { file: 'j' }, task: {} }))).json()).result.task
  await until25(url, session, created.taskId, 'input_required')
  cancelledQuestion = undefined
  const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': V } })
  t.equal(deleted.status, 204)
  await until(() => cancelledQuestion !== undefined && store.get(created.taskId)?.status === 'cancelled', { what: 'the task cancelled and its handler told' })
  t.match(String(cancelledQuestion), /got no answer/, 'the handler was told')
  t.equal(store.get(created.taskId)!.status, 'cancelled')
  t.equal(store.get(created.taskId)!.statusMessage, 'the session ended')
})

t.test('a task waits on at most 50 questions at once', async (t) => {
  let outcome: unknown
  const server = await build({
    tools: [{
      name: 'many',
      task: 'optional',
      async execute (_args: unknown, ctx: any) {
        const asks = Array.from({ length: 51 }, (_, i) => ctx.elicit.form(`q${i}`, `Q${i}?`, Confirm))
        asks[50].catch((err: unknown) => { outcome = err })
        await Promise.allSettled(asks)
        return 'done'
      }
    }] as any
  })
  t.teardown(() => server.close())
  const { taskId } = (await send(server, modern('tools/call', { name: 'many', arguments: {} }))).body.result
  const waiting = await poll(server, taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 50)
  t.equal(Object.keys(waiting.inputRequests).length, 50)
  t.match(String(outcome), /was not asked: a task may wait on at most 50 questions at once/)
  await send(server, modern('tasks/cancel', { taskId }))
})

t.test('a task store that fails while a question is asked: the handler hears why', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 10 })
  const transition = store.transition.bind(store)
  let failing = false
  store.transition = (id, version, patch) => { if (failing) throw new Error('disk full'); return transition(id, version, patch) }
  let heard: unknown
  const server = await build({
    tasks: { store },
    tools: [{
      name: 'asks',
      task: 'optional',
      async execute (_args: unknown, ctx: any) {
        failing = true
        try {
          await ctx.elicit.form('q', 'Q?', Confirm)
        } catch (err) {
          heard = err
        }
        failing = false
        return 'done'
      }
    }] as any
  })
  t.teardown(async () => { await server.close(); store.close() })
  const { taskId } = (await send(server, modern('tools/call', { name: 'asks', arguments: {} }))).body.result
  await poll(server, taskId, (task) => task.status === 'completed')
  t.match(String(heard), /ClientInputError: elicitation\/create \('q'\) got no answer: disk full/)
})
