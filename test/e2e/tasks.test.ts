// Tasks with the official v1 client (@modelcontextprotocol/sdk 1.x, its experimental tasks API):
// it creates a task with callToolStream, polls tasks/get, reads tasks/result, lists and cancels;
// and a `task: true` tool as each era's clients see it, with and without tasks.
import t from 'tap'
import { Type } from '../../lib/index.js'
import { build, listen } from '../helpers/app.js'
import { createClient } from '../../lib/client/index.js'
import { legacyClient, modernClient } from '../helpers/clients.js'

t.test('the v1 client runs a tool as a task, and inline', async (t) => {
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  const app = await build({
    tasks: { pollInterval: 10 },
    tools: [
      { name: 'double', task: 'optional', args: { n: Type.Number() }, output: { doubled: Type.Number() }, execute: async ({ n }: { n: number }) => ({ doubled: n * 2 }) },
      { name: 'held', task: 'required', execute: async () => { await held; return 'released' } }
    ] as any
  })
  const url = new URL(await listen(t, app))
  const { client } = await legacyClient(t, url, { name: 'v1', version: '1' })
  t.ok(client.getServerCapabilities()?.tasks, 'the tasks capability')

  const inline = await client.callTool({ name: 'double', arguments: { n: 2 } })
  t.same(inline.structuredContent, { doubled: 4 }, 'one tool: inline for a plain call')

  const kinds: string[] = []
  let result: any
  let taskId: string | undefined
  for await (const message of client.experimental.tasks.callToolStream({ name: 'double', arguments: { n: 21 } }, undefined, { task: { ttl: 60_000 } })) {
    kinds.push(message.type)
    if (message.type === 'taskCreated') taskId = message.task.taskId
    if (message.type === 'result') result = message.result
    if (message.type === 'error') t.fail(String(message.error))
  }
  t.equal(kinds[0], 'taskCreated')
  t.equal(kinds[kinds.length - 1], 'result')
  t.same(result.structuredContent, { doubled: 42 }, '…and as a task for a client that takes one')
  const got = await client.experimental.tasks.getTask(taskId!)
  t.equal(got.status, 'completed')
  const listed = await client.experimental.tasks.listTasks()
  t.ok(listed.tasks.some((task) => task.taskId === taskId), 'tasks/list has it')

  // cancel a task that is still running
  const stream = client.experimental.tasks.callToolStream({ name: 'held', arguments: {} }, undefined, { task: {} })
  const first = await stream.next()
  t.equal(first.value?.type, 'taskCreated')
  const heldId = (first.value as any).task.taskId
  const cancelled = await client.experimental.tasks.cancelTask(heldId)
  t.equal(cancelled.status, 'cancelled')
  release()
  const rest: string[] = []
  for await (const message of stream) rest.push(message.type)
  t.equal(rest[rest.length - 1], 'error', 'the stream ends with an error for a cancelled task')
})

t.test('the v1 client answers a task\'s questions on the tasks/result stream, and gets its progress', async (t) => {
  const { ElicitRequestSchema, CreateMessageRequestSchema } = await import('@modelcontextprotocol/sdk/types.js')
  const app = await build({
    tasks: { pollInterval: 10 },
    tools: [
      {
        name: 'remove',
        task: 'required',
        args: { file: Type.String() },
        async execute ({ file }: { file: string }, ctx: any) {
          ctx.progress(1, 3, 'asking')
          const sure = await ctx.elicit.form('sure', `Delete ${file}?`, Type.Object({ ok: Type.Boolean() }))
          if (sure.action !== 'accept') return `kept ${file} (${sure.action})`
          ctx.progress(2, 3, 'answered')
          const why = await ctx.sample('why', { messages: [{ role: 'user', content: { type: 'text', text: 'why?' } }], maxTokens: 5 })
          return `deleted ${file}: ${String(sure.content.ok)}, because ${why.message.content.text}`
        }
      },
      {
        name: 'ask_first',
        task: 'required',
        async prepare (_args: unknown, ctx: any) {
          const who = await ctx.elicit.form('who', 'Who?', Type.Object({ name: Type.String() }))
          return who.action === 'accept' ? { name: who.content.name } : { name: 'nobody' }
        },
        execute: async ({ name }: { name: string }) => `hello ${name}`
      }
    ] as any
  })
  const url = new URL(await listen(t, app))
  const asked: any[] = []
  const { client } = await legacyClient(t, url, { name: 'v1', version: '1' }, {
    options: { capabilities: { elicitation: {}, sampling: {} } },
    setup: (client) => {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params)
        return { action: 'accept', content: request.params.message === 'Who?' ? { name: 'Ada' } : { ok: true } }
      })
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        asked.push(request.params)
        return { role: 'assistant', content: { type: 'text', text: 'asked to' }, model: 'm' }
      })
    }
  })

  const progress: any[] = []
  let taskId: string | undefined
  let result: any
  for await (const message of client.experimental.tasks.callToolStream({ name: 'remove', arguments: { file: 'a.txt' } }, undefined, { task: { ttl: 60_000 }, onprogress: (p) => progress.push(p) })) {
    if (message.type === 'taskCreated') taskId = message.task.taskId
    if (message.type === 'result') result = message.result
    if (message.type === 'error') t.fail(String(message.error))
  }
  t.same(result?.content, [{ type: 'text', text: 'deleted a.txt: true, because asked to' }], 'both answers reached the task')
  t.equal(asked.length, 2, 'one elicitation, one sampling request')
  t.match(asked[0], { mode: 'form', message: 'Delete a.txt?' })
  t.same(asked[0]._meta['io.modelcontextprotocol/related-task'], { taskId }, 'the question names its task')
  t.equal(asked[0]._meta['io.github.fastify-sake/key'], 'sure')
  t.same(asked[1]._meta['io.modelcontextprotocol/related-task'], { taskId })
  t.same(progress.map((p) => p.progress), [1, 2], 'the task\'s progress reached the caller\'s progress handler')
  t.equal(progress[0].message, 'asking')
  t.equal((await client.experimental.tasks.getTask(taskId!)).status, 'completed')

  // prepare's question travels with the tools/call itself, before the task exists
  asked.length = 0
  let created: any
  for await (const message of client.experimental.tasks.callToolStream({ name: 'ask_first', arguments: {} }, undefined, { task: {} })) {
    if (message.type === 'taskCreated') created = message.task
    if (message.type === 'result') result = message.result
  }
  t.equal(asked.length, 1)
  t.notOk(asked[0]._meta?.['io.modelcontextprotocol/related-task'], 'asked in the request: no task yet')
  t.ok(created?.taskId, 'then the task')
  t.same(result.content, [{ type: 'text', text: 'hello Ada' }])
})

t.test('task: true runs inline for a client without tasks and as a task for one with them, in both eras', async (t) => {
  const app = await build({
    tasks: { pollInterval: 10 },
    tools: [{ name: 'either', task: true, args: { n: Type.Number() }, output: { doubled: Type.Number() }, execute: async ({ n }: { n: number }) => ({ doubled: n * 2 }) }] as any
  })
  const url = new URL(await listen(t, app))

  // 2026-07-28: server-directed, so the extension declared or not decides
  const { client: plain } = await modernClient(t, url, { name: 'v2', version: '1' })
  const inline = await plain.callTool({ name: 'either', arguments: { n: 2 } })
  t.same(inline.structuredContent, { doubled: 4 }, 'no tasks extension: the result inline, not -32021')
  const { client: tasked } = await modernClient(t, url, { name: 'v2-tasks', version: '1' }, { options: { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } })
  // this SDK does not speak the tasks extension: it reports the task it got as a result type it cannot read
  await t.rejects(tasked.callTool({ name: 'either', arguments: { n: 3 } }), { message: /Unsupported result type 'task'/, data: { resultType: 'task', method: 'tools/call' } }, 'the extension declared: a task')
  const sake = createClient({ url: url.toString(), era: 'modern' })
  t.teardown(() => sake.close())
  t.same((await sake.callTool('either', { n: 5 }, { task: true })).structuredContent, { doubled: 10 }, "fastify-sake's client follows that task to its result")

  // 2025-11-25: listed as optional; params.task decides
  const { client: v1 } = await legacyClient(t, url, { name: 'v1', version: '1' })
  const { tools } = await v1.listTools()
  t.same(tools.find((tool) => tool.name === 'either')?.execution, { taskSupport: 'optional' })
  t.same((await v1.callTool({ name: 'either', arguments: { n: 4 } })).structuredContent, { doubled: 8 }, 'no params.task: inline, not -32601')
  const kinds: string[] = []
  let result: any
  for await (const message of v1.experimental.tasks.callToolStream({ name: 'either', arguments: { n: 21 } }, undefined, { task: {} })) {
    kinds.push(message.type)
    if (message.type === 'result') result = message.result
  }
  t.equal(kinds[0], 'taskCreated', 'params.task: a task')
  t.same(result?.structuredContent, { doubled: 42 })
})
