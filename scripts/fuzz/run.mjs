// The fuzz harness's phases, shared by `npm run fuzz` (scripts/fuzz.mjs) and the small run in
// `npm test` (test/e2e/fuzz.test.ts): start the example server with its fixtures in a child
// process, send N generated cases and judge each answer, then M streamed calls read to the end and
// M dropped mid-flight, with the server's memory, handles and prototypes measured between phases.
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { build, caseArbitrary, specOf, LEGACY, MODERN } from './cases.mjs'
import { send, sseMessages } from './http.mjs'
import { judge } from './oracle.mjs'
import { knownReason } from './known.mjs'

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url))

/** Starts the server under test; resolves once it listens. */
export async function startServer () {
  const child = fork(SERVER, [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  const logs = { errors: [], stderr: '' }
  let line = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    line += chunk
    let end
    while ((end = line.indexOf('\n')) >= 0) {
      const one = line.slice(0, end)
      line = line.slice(end + 1)
      try {
        const entry = JSON.parse(one)
        if (entry.level >= 50) logs.errors.push({ msg: entry.msg, err: entry.err?.message, type: entry.err?.type })
      } catch {}
    }
  })
  child.stderr.setEncoding('utf8').on('data', (chunk) => { logs.stderr += chunk })
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve)
    exited.then(({ code }) => reject(new Error(`the fuzz server exited with ${code}: ${logs.stderr}`)))
  })
  let nextId = 0
  const server = {
    port: ready.port,
    path: ready.path,
    child,
    logs,
    exited,
    /** The server's measurements (after GC). */
    stats () {
      const id = nextId++
      return new Promise((resolve) => {
        const listener = (message) => {
          if (message.type === 'stats' && message.id === id) {
            child.off('message', listener)
            resolve(message.stats)
          }
        }
        child.on('message', listener)
        child.send({ type: 'stats', id })
      })
    },
    /** Closes the server; resolves to whether it exited within `within` ms. */
    async close (within = 5000) {
      if (child.exitCode !== null) return { code: child.exitCode, inTime: true }
      child.send({ type: 'close' })
      const timer = setTimeout(() => child.kill('SIGKILL'), within)
      const result = await exited
      clearTimeout(timer)
      return { ...result, inTime: result.signal !== 'SIGKILL' }
    }
  }
  return server
}

const headersOf = (server, extra = []) => [['Host', `127.0.0.1:${server.port}`], ['Content-Type', 'application/json'], ['Accept', 'application/json, text/event-stream'], ['Connection', 'close'], ...extra]

/** One well-formed POST; resolves to the response with its JSON-RPC messages parsed. */
export async function post (server, value, extra = [], options = {}) {
  const response = await send({ port: server.port, method: 'POST', path: server.path, headers: headersOf(server, extra), body: Buffer.from(JSON.stringify(value)), ...options })
  const type = response.headers['content-type'] ?? ''
  const messages = /event-stream/.test(type) ? sseMessages(response.body) : /json/.test(type) && response.body !== '' ? [JSON.parse(response.body)] : []
  return { ...response, messages }
}

export const modernMeta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1.0.0' } }

/** A modern request's answer (its result). */
async function modern (server, method, params = {}) {
  const extra = [['MCP-Protocol-Version', MODERN], ['Mcp-Method', method]]
  const response = await post(server, { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: modernMeta } }, extra)
  return response.messages[0].result
}

/** Everything a list method pages through. */
async function all (server, method, field) {
  const items = []
  let cursor
  do {
    const result = await modern(server, method, cursor === undefined ? {} : { cursor })
    items.push(...result[field])
    cursor = result.nextCursor
  } while (cursor !== undefined)
  return items
}

/** What the generators pick names from: the server's own lists. */
export async function listsOf (server) {
  const tools = await all(server, 'tools/list', 'tools')
  return {
    tools: tools.sort((a, b) => a.name < b.name ? -1 : 1),
    resources: (await all(server, 'resources/list', 'resources')).map((one) => one.uri).sort(),
    templates: (await all(server, 'resources/templates/list', 'resourceTemplates')).map((one) => one.uriTemplate).sort(),
    prompts: (await all(server, 'prompts/list', 'prompts')).map((one) => one.name).sort()
  }
}

/** Opens a 2025 session (initialize, then notifications/initialized); resolves to its id. */
export async function openSession (server, version, capabilities = {}) {
  const response = await post(server, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities, clientInfo: { name: 'fuzz', version: '1.0.0' } } })
  const id = response.headers['mcp-session-id']
  if (id === undefined) throw new Error(`initialize at ${version} opened no session: ${response.status} ${response.body}`)
  const extra = [['Mcp-Session-Id', id], ...(version === '2025-03-26' ? [] : [['MCP-Protocol-Version', version]])]
  await post(server, { jsonrpc: '2.0', method: 'notifications/initialized' }, extra)
  return id
}

async function deleteSession (server, version, id) {
  const extra = [['Mcp-Session-Id', id], ...(version === '2025-03-26' ? [] : [['MCP-Protocol-Version', version]])]
  await send({ port: server.port, method: 'DELETE', path: server.path, headers: headersOf(server, extra) })
}

/** The context `build` needs: the server's port and lists, a live and a deleted session per version. */
export async function contextOf (server) {
  const lists = await listsOf(server)
  const sessions = {}
  const deleted = {}
  for (const version of LEGACY) {
    sessions[version] = await openSession(server, version)
    deleted[version] = await openSession(server, version)
    await deleteSession(server, version, deleted[version])
  }
  return { port: server.port, path: server.path, lists, sessions, deleted, arbitrary: caseArbitrary(lists) }
}

/** Runs one case; resolves to `{ index, spec, request, response, failures }`. */
export async function runCase (context, seed, index, timeout = 10_000) {
  const spec = specOf(context.arbitrary, seed, index)
  // a DELETE (or a case that asks for one) gets a session of its own, so no other case loses its session
  let fresh
  if (spec.era !== 'modern' && (spec.session === 'fresh' || (spec.session === 'live' && spec.httpMethod === 'DELETE'))) {
    fresh = { [spec.era]: await openSession(context, spec.era) }
    spec.session = 'fresh'
  }
  const request = build(spec, { ...context, fresh })
  const response = await send({ port: context.port, ...request, timeout })
  const all = judge({ ...request, era: spec.era }, response)
  const known = all.map((failure) => knownReason(failure, request)).filter((reason) => reason !== undefined)
  return { index, spec, request, response, failures: all.filter((failure) => knownReason(failure, request) === undefined), known }
}

/**
 * Runs cases `from` to `to` (exclusive), `concurrency` at a time; resolves to the failed ones and
 * the count of answers per HTTP status.
 */
export async function runCases (context, { seed, from = 0, to, concurrency = 8, timeout, onProgress }) {
  const failed = []
  const statuses = {}
  const known = {}
  let next = from
  let done = 0
  const worker = async () => {
    while (next < to) {
      const index = next++
      const result = await runCase(context, seed, index, timeout)
      statuses[result.response.status] = (statuses[result.response.status] ?? 0) + 1
      if (result.failures.length > 0) failed.push(result)
      for (const reason of result.known) known[reason] = (known[reason] ?? 0) + 1
      done++
      onProgress?.(done, failed.length)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  failed.sort((a, b) => a.index - b.index)
  return { failed, statuses, known }
}

/** The streamed calls of the abort phase: each era, each tool that streams (progress on the way). */
const STREAMED = [
  { name: 'count', arguments: { to: 5, delayMs: 10 } },
  { name: 'test_tool_with_progress', arguments: {} },
  { name: 'test_tool_with_logging', arguments: {} }
]
const ERAS = [MODERN, ...LEGACY]

/**
 * `count` streamed tool calls, `concurrency` at a time, each read to its end or (`abort`) dropped
 * at its first progress or log message; resolves to the calls that went wrong (a completed call
 * without its answer, an aborted one that never streamed).
 */
export async function runStreams (server, sessions, { count, abort, concurrency = 16, timeout = 10_000 }) {
  const wrong = []
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      const era = ERAS[i % ERAS.length]
      const tool = STREAMED[Math.floor(i / ERAS.length) % STREAMED.length]
      const meta = era === MODERN ? { ...modernMeta, progressToken: i } : { progressToken: i }
      const extra = era === MODERN
        ? [['MCP-Protocol-Version', MODERN], ['Mcp-Method', 'tools/call'], ['Mcp-Name', tool.name]]
        : [['Mcp-Session-Id', sessions[era]], ...(era === '2025-03-26' ? [] : [['MCP-Protocol-Version', era]])]
      if (era === MODERN && tool.name === 'test_tool_with_logging') meta['io.modelcontextprotocol/logLevel'] = 'info'
      const response = await post(server, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { ...tool, _meta: meta } }, extra, {
        timeout,
        abortAfter: abort ? (body) => /notifications\/(progress|message)|"id":/.test(body) : undefined
      })
      if (abort ? !response.aborted : !response.messages.some((m) => m.id === i && m.result !== undefined)) {
        wrong.push({ i, era, tool: tool.name, status: response.status, timedOut: response.timedOut, body: response.body.slice(0, 300) })
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return wrong
}

/** Sessions for the stream phase, with logging on (test_tool_with_logging's messages reach a 2025 session after logging/setLevel). */
export async function streamSessions (server) {
  const sessions = {}
  for (const version of LEGACY) {
    sessions[version] = await openSession(server, version)
    const extra = [['Mcp-Session-Id', sessions[version]], ...(version === '2025-03-26' ? [] : [['MCP-Protocol-Version', version]])]
    await post(server, { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } }, extra)
  }
  return sessions
}

/** Waits until the server's open connections drop to `target` (or `within` ms pass); resolves to its stats then. */
export async function settle (server, target = 0, within = 5000) {
  const until = Date.now() + within
  let stats = await server.stats()
  while (stats.connections > target && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    stats = await server.stats()
  }
  return stats
}
