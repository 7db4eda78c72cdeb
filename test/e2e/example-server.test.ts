// The acceptance path: the example server started as its own process, driven by the two real
// clients over a real port, one per protocol era.
import t from 'tap'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { endSession, legacyClient, modernClient, startExample, type Running } from '../helpers/clients.js'
import { until } from '../helpers/until.js'

let server: Running
t.before(async () => { server = await startExample() })
// `?.`: when the server failed to start, that failure is the one to report (the last test stops it)
t.teardown(async () => server?.stop())

t.test('@modelcontextprotocol/client speaks 2026-07-28 to the example server', async (t) => {
  const { client } = await modernClient(t, server.url, { name: 'modern-test', version: '1.0.0' }, {
    options: { capabilities: { elicitation: {} } },
    setup: (client) => client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Modern' } }))
  })
  t.equal(client.getProtocolEra(), 'modern')
  t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28')
  t.same(client.getServerVersion(), { name: 'example-server', version: '0.1.0' })

  const { tools } = await client.listTools()
  // this client declares no MCP Apps: the app-only counter_increment is not listed to it
  t.same(tools.map((tool) => tool.name), ['add', 'content_showcase', 'count', 'counter', 'create_note', 'echo', 'get_note', 'greet'])
  const add = tools.find((tool) => tool.name === 'add')!
  t.equal((add.inputSchema.properties as any).precision['x-mcp-header'], 'Precision', 'the header annotation reaches the client')

  const plain = await client.callTool({ name: 'add', arguments: { a: 1, b: 2.555 } })
  t.same(plain.structuredContent, { sum: 3.555 })
  t.same(plain.content, [{ type: 'text', text: '{"sum":3.555}' }])
  // the client mirrors precision into Mcp-Param-Precision; the server checks it against the body
  const rounded = await client.callTool({ name: 'add', arguments: { a: 1, b: 2.555, precision: 2 } })
  t.same(rounded.structuredContent, { sum: 3.56 })

  const echo = await client.callTool({ name: 'echo', arguments: { text: 'Hello, 世界 ' } })
  t.same(echo.content, [{ type: 'text', text: 'Hello, 世界 ' }])

  const bad = await client.callTool({ name: 'add', arguments: { a: 1, b: 2, precision: 11 } })
  t.equal(bad.isError, true)
  t.match((bad.content as any)[0].text, /argument 'precision' must be <= 10, got 11/)

  const showcase = await client.callTool({ name: 'content_showcase', arguments: {} })
  t.same((showcase.content as any[]).map((block) => block.type), ['text', 'image', 'resource', 'resource_link'])

  const greeted = await client.callTool({ name: 'greet', arguments: {} })
  t.same(greeted.content, [{ type: 'text', text: 'Hello, Modern!' }], 'asked for a name through an input_required round trip')
  const counted = await client.callTool({ name: 'count', arguments: { to: 2, delayMs: 1 } })
  t.same(counted.structuredContent, { counted: 2, cancelled: false }, 'the task tool, inline for a client without the tasks extension')

  // the REST routes offered as tools (config.mcp): the route runs, its JSON is the structured result
  const getNote = tools.find((tool) => tool.name === 'get_note')!
  t.same(Object.keys(getNote.inputSchema.properties ?? {}), ['id', 'upper'], "the route's params and querystring")
  t.equal(getNote.description, 'Reads a note')
  const note = await client.callTool({ name: 'get_note', arguments: { id: 1, upper: true } })
  t.same(note.structuredContent, { id: 1, text: 'TRY THE ROUTE TOOLS', tags: ['mcp'] })
  const created = await client.callTool({ name: 'create_note', arguments: { text: 'from MCP' } })
  t.match(created.structuredContent, { text: 'from MCP', tags: [] })
  const viaHttp = await (await fetch(new URL(`/notes/${(created.structuredContent as { id: number }).id}`, server.url))).json()
  t.same(viaHttp, created.structuredContent, 'HTTP clients see the note the tool created')
  const missing = await client.callTool({ name: 'get_note', arguments: { id: 999 } })
  t.same(missing.content, [{ type: 'text', text: 'GET /notes/999 answered 404 Not Found: No note 999' }])
})

t.test('@modelcontextprotocol/sdk v1 keeps a 2025-11-25 session with the example server', async (t) => {
  // the test ends the session itself (DELETE, then close), below
  const { client, transport } = await legacyClient(t, server.url, { name: 'legacy-test', version: '1.0.0' }, {
    options: { capabilities: { elicitation: {} } },
    setup: (client) => client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Legacy' } })),
    close: false
  })
  t.match(transport.sessionId, /^[\x21-\x7E]{16,}$/, 'a session id of visible ASCII')
  t.same(client.getServerVersion(), { name: 'example-server', version: '0.1.0' })
  t.equal(transport.protocolVersion, '2025-11-25')

  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name), ['add', 'content_showcase', 'count', 'counter', 'create_note', 'echo', 'get_note', 'greet'])
  const note = await client.callTool({ name: 'get_note', arguments: { id: 1 } })
  t.same(note.structuredContent, { id: 1, text: 'Try the route tools', tags: ['mcp'] })
  const plain = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })
  t.same(plain.structuredContent, { sum: 42 })
  const rounded = await client.callTool({ name: 'add', arguments: { a: 1, b: 2.555, precision: 1 } })
  t.same(rounded.structuredContent, { sum: 3.6 })
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'same text back' } })
  t.same(echo.content, [{ type: 'text', text: 'same text back' }])
  const greeted = await client.callTool({ name: 'greet', arguments: {} })
  t.same(greeted.content, [{ type: 'text', text: 'Hello, Legacy!' }], 'asked for a name with elicitation/create on the stream')

  // the long-running tool as a task, its progress reaching the caller
  const progress: number[] = []
  let result: any
  for await (const message of client.experimental.tasks.callToolStream({ name: 'count', arguments: { to: 3, delayMs: 5 } }, undefined, { task: { ttl: 60_000 }, onprogress: (p) => progress.push(p.progress) })) {
    if (message.type === 'result') result = message.result
    if (message.type === 'error') t.fail(String(message.error))
  }
  t.same(result.structuredContent, { counted: 3, cancelled: false })
  t.same(progress, [1, 2, 3], 'its progress, sent from the task')

  await endSession(transport)
  t.equal(transport.sessionId, undefined, 'DELETE ended the session')
  await client.close()
})

t.test('a 2026-07-28 request that declares the tasks extension gets the long-running tool as a task, and cancels it', async (t) => {
  const url = server.url.toString()
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } }
  }
  const rpc = async (method: string, params: Record<string, unknown>, name: string): Promise<any> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } })
    })
    return ((await res.json()) as any).result
  }
  const created = await rpc('tools/call', { name: 'count', arguments: { to: 100, delayMs: 50 } }, 'count')
  t.equal(created.resultType, 'task')
  t.equal((await rpc('tasks/get', { taskId: created.taskId }, created.taskId)).status, 'working')
  t.equal((await rpc('tasks/cancel', { taskId: created.taskId }, created.taskId)).resultType, 'complete')
  t.equal((await rpc('tasks/get', { taskId: created.taskId }, created.taskId)).status, 'cancelled')
  const quick = await rpc('tools/call', { name: 'count', arguments: { to: 2, delayMs: 1 } }, 'count')
  const task = await until(async () => {
    const got = await rpc('tasks/get', { taskId: quick.taskId }, quick.taskId)
    return got.status === 'completed' ? got : undefined
  }, { what: 'the quick count to complete (tasks/get)' })
  t.same(task.result.structuredContent, { counted: 2, cancelled: false })
})

t.test("greet's complete: completion/complete with ref/tool offers the names that start with what was typed", async (t) => {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'completion/complete' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'completion/complete',
      params: {
        ref: { type: 'ref/tool', name: 'greet' },
        argument: { name: 'name', value: 'gr' },
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} }
      }
    })
  })
  const { result } = await res.json() as any
  t.same(result.completion.values, ['Grace'])
})

t.test('a resource and a prompt by default, in both eras: notes://all and review_note (its id completed), an unknown note refused', async (t) => {
  const { client: modern } = await modernClient(t, server.url, { name: 'notes-modern', version: '1.0.0' })
  const { client: legacy } = await legacyClient(t, server.url, { name: 'notes-legacy', version: '1.0.0' })
  for (const [era, client] of [['2026-07-28', modern], ['2025-11-25', legacy]] as const) {
    const { resources } = await (client as any).listResources()
    t.match(resources.find((r: any) => r.uri === 'notes://all'), { name: 'notes', mimeType: 'application/json' }, `${era}: listed`)
    const read = await (client as any).readResource({ uri: 'notes://all' })
    t.same(JSON.parse(read.contents[0].text)[0], { id: 1, text: 'Try the route tools', tags: ['mcp'] }, `${era}: read`)
    const { prompts } = await (client as any).listPrompts()
    t.match(prompts.find((p: any) => p.name === 'review_note'), { title: 'Review a note', arguments: [{ name: 'id', required: true }] }, `${era}: the prompt listed`)
    const got = await (client as any).getPrompt({ name: 'review_note', arguments: { id: '1' } })
    t.match(got.messages[0].content.text, /^Review this note\. .*\(it has: mcp\)\.\n\nTry the route tools$/s, `${era}: the note in the prompt`)
    const missing = await (client as any).getPrompt({ name: 'review_note', arguments: { id: '99' } }).then(() => undefined, (err: any) => err)
    t.equal(missing?.code, -32602, `${era}: an unknown note is -32602`)
    t.match(missing?.message, /there is no note 99; notes:\/\/all lists them/)
    const completed = await (client as any).complete({ ref: { type: 'ref/prompt', name: 'review_note' }, argument: { name: 'id', value: '' } })
    const ids = JSON.parse((await (client as any).readResource({ uri: 'notes://all' })).contents[0].text).map((note: any) => String(note.id))
    t.same(completed.completion.values, ids, `${era}: the ids completed are the notes' (other tests add notes)`)
  }
})

t.test('SIGTERM: the example server exits by itself, within its one-second grace for open sockets', async (t) => {
  const started = Date.now()
  t.equal(await server.stop(), null, 'exited on its own, not killed after 10 s')
  t.equal(server.child.exitCode, 0)
  t.ok(Date.now() - started < 10_000)
})
