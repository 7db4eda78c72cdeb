// The client over stdio ({ command }), against real processes as a host spawns them: fastify-sake's
// own server (test/fixtures/stdio-server.js, the built package) in both eras, a 2025-only server
// nobody here wrote (the official SDK v1), and a hand-written one that misbehaves on purpose
// (test/fixtures/stdio-scripted.js): a call, a question, progress, log messages, cancellation, the
// era probe, questions while nothing waits, a process that never starts, exits, writes what is not
// JSON-RPC or closes its stdin, and close() leaving nothing behind.
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createClient, RpcError, ServerProcessError, UnansweredInputError, type Client, type CommandOptions } from '../../lib/client/index.js'
import { sleep, until } from '../helpers/until.js'

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))
const SERVER = fixture('stdio-server.js')
const SCRIPTED = fixture('stdio-scripted.js')
const ADA = { who: { action: 'accept', content: { name: 'Ada' } } } as const

// the fixtures import the built package: without it every test here would fail with an import error in a child's stderr
t.before(() => {
  if (!existsSync(new URL('../../dist/index.js', import.meta.url))) throw new Error('test/client/stdio.test.ts spawns servers built on dist/: run `npm run build` first')
})

/** A client of `args` run by this Node, closed when `t` ends. */
function spawned (t: Test, args: string[], options: Omit<CommandOptions, 'command'> = {}): Client {
  const client = createClient({ command: process.execPath, args, ...options })
  t.teardown(async () => { await client.close() })
  return client
}

/** Whether a process of this pid still runs. */
function alive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function pidOf (client: Client): Promise<number> {
  return (await client.callTool<{ pid: number }>('pid')).structuredContent!.pid
}

async function cancellations (client: Client): Promise<string[]> {
  return (await client.callTool<{ cancellations: string[] }>('cancellations')).structuredContent!.cancellations
}

interface Whoami { pid: number, cwd: string, env: Record<string, string>, answers: Array<Record<string, any>> }

/** The scripted server's pid, cwd and environment, and what the client sent it besides requests (its answers, its cancels). */
async function whoami (client: Client): Promise<Whoami> {
  return await client.request('whoami') as unknown as Whoami
}

for (const era of ['modern', 'legacy'] as const) {
  t.test(`fastify-sake over stdio, era ${era}: a call, a question answered, progress, a log message, an error`, async (t) => {
    const client = spawned(t, [SERVER], { era, onInput: ADA })
    t.same((await client.callTool('add', { a: 1.5, b: 2.25 })).structuredContent, { sum: 3.75 })
    t.equal(client.era, era)
    t.equal(client.sessionId, undefined, 'over stdio the process is the session: no id')
    t.same((await client.callTool('greet', {})).content, [{ type: 'text', text: 'Hello, Ada!' }], "the question answered from the client's onInput")
    t.same((await client.callTool('greet', {}, { onInput: { who: { action: 'decline' } } })).content, [{ type: 'text', text: 'No greeting (decline)' }], "the call's onInput wins")
    const progress: number[] = []
    const logs: unknown[] = []
    const counted = await client.callTool('count', { to: 3 }, { onProgress: (p) => progress.push(p.progress), onLog: (log) => logs.push(log.data) })
    t.same(counted.structuredContent, { counted: 3 })
    t.same(progress, [1, 2, 3], 'progress of the call, in order, before its result')
    t.same(logs, [{ counted: 3 }], 'its log message')
    const err = await client.callTool('nope', {}).catch((err: unknown) => err)
    t.ok(err instanceof RpcError, 'a JSON-RPC error is an RpcError')
    t.match(err, { code: -32602, status: undefined }, 'with no HTTP status: stdio has none')
    const pid = await pidOf(client)
    t.ok(alive(pid))
    await client.close()
    t.notOk(alive(pid), 'close() ended the process (its stdin closed: it exited)')
  })

  t.test(`cancellation, era ${era}: an aborted call is cancelled with notifications/cancelled`, async (t) => {
    const client = spawned(t, [SERVER], { era })
    const controller = new AbortController()
    const waited = client.callTool('wait', {}, { signal: controller.signal, onProgress: () => controller.abort('enough') })
    t.equal(await waited.catch((err: unknown) => err), 'enough', "the call rejects with the signal's reason")
    const heard = await until(async () => (await cancellations(client)).find((line) => line.startsWith('wait:')), { what: 'the server to hear the cancellation' })
    t.equal(heard, 'wait: cancelled by the client: enough', 'the server heard it, with the reason')
    t.same((await client.callTool('add', { a: 1, b: 2 })).structuredContent, { sum: 3 }, 'and serves on')
  })
}

t.test("era 'auto': fastify-sake answers server/discover, so 2026-07-28", async (t) => {
  const client = spawned(t, [SERVER])
  const description = await client.discover()
  t.match(description, { era: 'modern', protocolVersion: '2026-07-28', serverInfo: { name: 'stdio-fixture' } })
  t.ok(description.supportedVersions.includes('2025-11-25'), 'a dual-era server')
})

t.test("era 'auto' with a 2025-only server (the official SDK v1): its -32601 to the probe means a 2025 session", async (t) => {
  const client = spawned(t, [fixture('stdio-legacy-sdk.js')])
  t.same((await client.callTool('add', { a: 1, b: 2 })).content, [{ type: 'text', text: '3' }])
  t.equal(client.era, 'legacy')
  t.equal(client.protocolVersion, '2025-11-25')
})

t.test('a modern error to the probe (no HTTP status over stdio) means a modern server: no fallback to initialize', async (t) => {
  const client = spawned(t, [SCRIPTED, 'modern'])
  // the scripted server answers initialize: had the client fallen back, this would list (nothing) in a 2025 session
  const err = await client.listTools().catch((err: unknown) => err)
  t.ok(err instanceof RpcError)
  t.match(err, { code: -32021, status: undefined, data: { requiredCapabilities: { roots: {} } } })
  t.equal(client.era, undefined)
})

t.test('a server that never answers the probe: a 2025 session once the request timed out, the probe cancelled', async (t) => {
  const client = spawned(t, [SCRIPTED, 'silent'], { timeout: 1000 })
  t.same(await client.listTools(), [])
  t.equal(client.era, 'legacy')
  const { answers } = await whoami(client)
  t.match(answers, [{
    method: 'notifications/cancelled',
    params: { requestId: 1, reason: /timeout/, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }
  }], 'the probe was cancelled, as the 2026-07-28 request it was')
})

t.test('a 2025 question refused (unanswered: error) cancels its call on the server', async (t) => {
  const client = spawned(t, [SERVER], { era: 'legacy' })
  await t.rejects(client.callTool('greet', {}, { unanswered: 'error' }), UnansweredInputError)
  const heard = await until(async () => (await cancellations(client)).find((line) => line.startsWith('greet:')), { what: 'the server to hear the cancellation' })
  t.equal(heard, 'greet: cancelled by the client: the client stopped waiting for the answer')
})

t.test("env is set over the client's environment (undefined leaves a variable out); cwd is where it runs", async (t) => {
  process.env.SAKE_DROPPED = 'inherited'
  t.teardown(() => { delete process.env.SAKE_DROPPED })
  const inherits = spawned(t, [SCRIPTED], { era: 'legacy', env: { SAKE_GIVEN: 'given' } })
  t.same((await whoami(inherits)).env, { SAKE_GIVEN: 'given', SAKE_DROPPED: 'inherited' })
  const client = spawned(t, [SCRIPTED], { era: 'legacy', env: { SAKE_GIVEN: 'given', SAKE_DROPPED: undefined }, cwd: tmpdir() })
  const { env, cwd } = await whoami(client)
  t.same(env, { SAKE_GIVEN: 'given' })
  t.equal(cwd, realpathSync(tmpdir()))
})

t.test('a response that comes after its request was given up is dropped; the connection goes on', async (t) => {
  const client = spawned(t, [SCRIPTED], { era: 'legacy' })
  await t.rejects(client.request('slow', {}, { timeout: 50 }), { name: 'TimeoutError' })
  await sleep(300) // the late response (200 ms) has come by now
  const { answers } = await whoami(client)
  t.match(answers, [{ method: 'notifications/cancelled', params: { requestId: 2, reason: /timeout/ } }], 'slow (id 2, after initialize) was cancelled')
})

t.test('an onProgress that throws fails its call; a response already in gets no cancel', async (t) => {
  const client = spawned(t, [SCRIPTED], { era: 'legacy' })
  await t.rejects(client.request('progress', {}, { onProgress: () => { throw new Error('bad handler') } }), { message: 'bad handler' })
  const { answers } = await whoami(client)
  t.same(answers, [], 'the server was told nothing: it had answered')
})

t.test("questions asked while no request waits are answered from the client's own onInput", async (t) => {
  const answered = async (t: Test, options: Omit<CommandOptions, 'command'>): Promise<Array<Record<string, any>>> => {
    const client = spawned(t, [SCRIPTED, 'ask'], { era: 'legacy', ...options })
    await client.discover()
    return (await until(async () => {
      const { answers } = await whoami(client)
      return answers.length === 2 ? answers : undefined
    }, { what: 'both questions answered' })).sort((a, b) => String(a.id).localeCompare(String(b.id)))
  }
  t.match(await answered(t, { onInput: { legacy: { roots: [{ uri: 'file:///work' }] } } }), [
    { id: 'ping', result: {} },
    { id: 'roots', result: { roots: [{ uri: 'file:///work' }] } }
  ], 'roots/list by the onInput for key "legacy" (the question names none), ping by the client')
  t.match(await answered(t, { unanswered: 'error' }), [{ id: 'ping', result: {} }, { id: 'roots', error: { code: -1 } }],
    "unanswered: 'error' has no call to fail: refused as an unanswered roots question is")
  t.match(await answered(t, { onInput: () => { throw new Error('no roots here') } }), [
    { id: 'ping', result: {} },
    { id: 'roots', error: { code: -32603, message: "the client's onInput failed: no roots here" } }
  ], 'an onInput that throws: the server hears an error answer')
})

t.test('a process that never starts: ServerProcessError (spawn), for every request until close()', async (t) => {
  const missing = createClient({ command: 'fastify-sake-no-such-program', args: ['--stdio'] })
  const err = await missing.listTools().catch((err: unknown) => err)
  t.ok(err instanceof ServerProcessError)
  t.match(err, {
    name: 'ServerProcessError',
    reason: 'spawn',
    command: 'fastify-sake-no-such-program --stdio',
    exitCode: null,
    signal: null,
    message: "could not start the server process 'fastify-sake-no-such-program --stdio': spawn fastify-sake-no-such-program ENOENT ('fastify-sake-no-such-program' is not a program on PATH, nor a path to one)",
    cause: { code: 'ENOENT' }
  })
  t.equal(await missing.listTools().catch((err: unknown) => err), err, 'the next request fails with the same error')
  await missing.close()

  const nowhere = createClient({ command: process.execPath, args: [SERVER], cwd: new URL('file:///fastify-sake/no/such/dir/'), era: 'modern' })
  await t.rejects(nowhere.listTools(), { name: 'ServerProcessError', reason: 'spawn', message: /ENOENT \(cwd '\/fastify-sake\/no\/such\/dir\/' is not a directory\)$/ })
  await nowhere.close()

  const script = createClient({ command: SCRIPTED, cwd: process.cwd(), era: 'legacy' })
  await t.rejects(script.listTools(), { reason: 'spawn', message: /: spawn \S+stdio-scripted\.js EACCES$/ }, 'a file that is no program: the error alone')
  await script.close()
})

t.test('a process that exits early: ServerProcessError (exit) with its code and the end of its stderr', async (t) => {
  const err = await spawned(t, [SCRIPTED, 'exit']).listTools().catch((err: unknown) => err)
  t.ok(err instanceof ServerProcessError)
  t.match(err, { reason: 'exit', exitCode: 3, signal: null, stderr: 'fatal: no config\n' })
  t.match((err as Error).message, /^the server process '\S+ \S+stdio-scripted\.js exit' exited with code 3; its stderr ends with:\nfatal: no config$/)
  const quiet = await spawned(t, [SCRIPTED, 'exit'], { stderr: 'ignore' }).listTools().catch((err: unknown) => err)
  t.match(quiet, { reason: 'exit', exitCode: 3, stderr: undefined, message: /exited with code 3$/ }, "stderr: 'ignore': nothing of it kept")
})

t.test('a line on stdout that is not JSON-RPC: ServerProcessError (output), quoting it', async (t) => {
  const text = await spawned(t, [SCRIPTED, 'say', 'Server started on stdio']).listTools().catch((err: unknown) => err)
  t.ok(text instanceof ServerProcessError)
  t.match(text, { reason: 'output', exitCode: null, signal: null })
  t.match((text as Error).message, /wrote a line to stdout that is not a JSON-RPC message: "Server started on stdio" \(stdout carries MCP messages only; logs belong on stderr\)$/)
  // pino on stdout: JSON, but no JSON-RPC message
  const log = JSON.stringify({ level: 30, time: 1, pid: 1, hostname: 'h', msg: 'x'.repeat(300) })
  const json = await spawned(t, [SCRIPTED, 'say', log]).listTools().catch((err: unknown) => err)
  t.match(json, { reason: 'output' })
  t.ok((json as Error).message.includes(`not a JSON-RPC message: ${JSON.stringify(`${log.slice(0, 200)}…`)} (`), 'quoted, its first 200 characters')
})

t.test('a server that closes its stdin while it runs: ServerProcessError (input), once the client stopped it', async (t) => {
  const client = spawned(t, [SCRIPTED, 'deaf'], { era: 'legacy', closeTimeout: 200, timeout: 5000 })
  const err = await client.listTools().catch((err: unknown) => err)
  t.ok(err instanceof ServerProcessError)
  t.match(err, { reason: 'input', exitCode: null, signal: 'SIGTERM', message: /was stopped by SIGTERM: it had closed its stdin while it still ran, so the client stopped it$/ })
})

t.test('close(): stdin closed, then SIGTERM, then SIGKILL; nothing left behind', async (t) => {
  const stubborn = spawned(t, [SCRIPTED, 'stubborn'], { era: 'legacy', closeTimeout: 200 })
  const pending = stubborn.request('never').catch((err: unknown) => err)
  const { pid } = await whoami(stubborn) // answered: 'never', sent before it, is written
  const started = Date.now()
  await stubborn.close()
  t.ok(Date.now() - started >= 400, 'it waited closeTimeout twice (stdin closed, SIGTERM ignored)')
  t.notOk(alive(pid), 'SIGKILL ended it')
  t.match(await pending, { name: 'ServerProcessError', reason: 'exit', signal: 'SIGKILL', message: /was stopped by SIGKILL: the client closed it \(close\(\)\) before it answered; its stderr ends with:\nSIGTERM ignored$/ },
    'a request still waiting fails')

  const client = spawned(t, [SERVER], { era: 'modern' })
  await client.close() // before any request: nothing to stop
  const first = await pidOf(client)
  const closing = client.close()
  await t.rejects(pidOf(client), { name: 'ServerProcessError', reason: 'exit', message: /is closing the server process .* \(close\(\)\): the request was not sent$/ }, 'a request made while close() runs is not sent')
  await closing
  t.notOk(alive(first))
  const second = await pidOf(client)
  t.not(second, first, 'the next request starts a new process')
  t.ok(alive(second))
})

t.test('a program that forgets close() still ends, and its server with it', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, [fixture('stdio-forgetful.js')], { timeout: 30_000 })
  const { pid } = JSON.parse(stdout) as { pid: number }
  t.ok(Number.isInteger(pid))
  await until(() => !alive(pid), { what: `the server process ${pid} to end` })
  t.pass('the server process is gone')
})
