// A stdio peer in the test process: two in-memory streams for app.mcp.stdio(), the lines the server
// writes, parsed, and waiting for the next one that matches; and a server spawned with raw pipes.
import { spawn, type ChildProcess } from 'node:child_process'
import { PassThrough } from 'node:stream'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import type { StdioHandle, StdioOptions } from '../../lib/index.js'
import { until } from './until.js'

export const MODERN = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

export interface StdioPeer {
  readonly input: PassThrough
  readonly output: PassThrough
  readonly handle: StdioHandle
  /** Every line the server wrote, parsed. */
  readonly lines: any[]
  /** Every line the server wrote, as text. */
  readonly raw: string[]
  /** Writes a message (an object is written as one line of JSON; a string as it is, with a newline). */
  send (message: unknown): void
  /** The first line (from `from`, default 0) that `match` accepts, waiting for it. */
  next (match: (line: any) => boolean, what: string, from?: number): Promise<any>
  /** The response to request `id`. */
  response (id: string | number): Promise<any>
  /** Sends a request and waits for its response. */
  request (id: string | number, method: string, params?: Record<string, unknown>): Promise<any>
}

/** Starts stdio on `app` (readied by it) over in-memory streams; nothing closes the app but the test. */
export async function stdioPeer (t: Test, app: FastifyInstance, options: StdioOptions = {}): Promise<StdioPeer> {
  const input = new PassThrough()
  const output = new PassThrough()
  const raw: string[] = []
  const lines: any[] = []
  let rest = ''
  output.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8')
    for (let at = rest.indexOf('\n'); at !== -1; at = rest.indexOf('\n')) {
      const line = rest.slice(0, at)
      rest = rest.slice(at + 1)
      raw.push(line)
      lines.push(JSON.parse(line))
    }
  })
  const handle = await app.mcp.stdio({ input, output, closeOnEnd: false, ...options })
  t.teardown(async () => { await app.close() })
  const next = async (match: (line: any) => boolean, what: string, from = 0): Promise<any> =>
    await until(() => lines.slice(from).find(match), { what })
  const send = (message: unknown): void => { input.write(typeof message === 'string' ? message + '\n' : JSON.stringify(message) + '\n') }
  const response = async (id: string | number): Promise<any> => await next((line) => line.id === id && !('method' in line), `the response to ${JSON.stringify(id)}`)
  return {
    input,
    output,
    handle,
    lines,
    raw,
    send,
    next,
    response,
    async request (id, method, params) {
      send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })
      return await response(id)
    }
  }
}

/** Opens the 2025 session of a stdio peer (`initialize`, then `notifications/initialized`). */
export async function initialize (peer: StdioPeer, protocolVersion = '2025-11-25', capabilities: Record<string, unknown> = {}): Promise<any> {
  const answer = await peer.request('init', 'initialize', { protocolVersion, capabilities, clientInfo: { name: 'stdio-test', version: '1' } })
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  return answer
}

/** A server spawned with three pipes, as a raw client sees it: lines in, lines out, stderr kept. */
export interface Piped {
  readonly child: ChildProcess
  /** Every stdout line, as written. */
  readonly lines: string[]
  stderr: () => string
  send: (line: string) => void
  /** Resolves once the server answers a ping (it takes a second to start, longer on a loaded machine). */
  started: () => Promise<void>
  /** The index of the first line (from `from`) whose message `match` accepts, waiting for it (`timeout` ms, 5 s by default). */
  next: (match: (message: any) => boolean, what: string, from?: number, timeout?: number) => Promise<number>
  /** Sends a request, and resolves to the index of the first response line to its id written after it. */
  request: (id: string, method: string, params?: Record<string, unknown>) => Promise<number>
  /** Ends stdin; resolves once the process exited, with how long that took (SIGKILL after 10 s). */
  end: () => Promise<{ code: number | null, signal: NodeJS.Signals | null, ms: number }>
}

/** A line parsed as JSON; undefined when it is not. */
export function parsed (line: string): any {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

/** Spawns `node <args>` in `cwd` with three pipes; killed when `t` ends if it still runs. */
export function piped (t: Test, args: readonly string[], cwd: string): Piped {
  const child = spawn(process.execPath, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const lines: string[] = []
  let rest = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8')
    for (let at = rest.indexOf('\n'); at !== -1; at = rest.indexOf('\n')) {
      lines.push(rest.slice(0, at))
      rest = rest.slice(at + 1)
    }
  })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const send = (line: string): void => { child.stdin.write(line + '\n') }
  const next = async (match: (message: any) => boolean, what: string, from = 0, timeout = 5000): Promise<number> =>
    await until(() => {
      const at = lines.findIndex((line, i) => i >= from && match(parsed(line) ?? {}))
      return at === -1 ? undefined : at + 1
    }, { what, timeout }) - 1
  return {
    child,
    lines,
    stderr: () => stderr,
    send,
    next,
    async started () {
      send(JSON.stringify({ jsonrpc: '2.0', id: 'started', method: 'ping' }))
      await next((message) => message.id === 'started', 'the server to start and answer a ping', 0, 60_000)
    },
    async request (id, method, params) {
      const from = lines.length
      send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }))
      return await next((message) => message.id === id && !('method' in message), `the response to ${id}`, from)
    },
    async end () {
      const started = Date.now()
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      const { code, signal } = await exited
      clearTimeout(timer)
      return { code, signal, ms: Date.now() - started }
    }
  }
}
