// Tasks with the official v1 client (@modelcontextprotocol/sdk 1.x, its experimental tasks API):
// it creates a task with callToolStream, polls tasks/get, reads tasks/result, lists and cancels.
import t from 'tap'
import { Type } from '../../lib/index.js'
import { build, listen } from '../helpers/app.js'
import { legacyClient } from '../helpers/clients.js'

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
