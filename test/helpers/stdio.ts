// A stdio peer in the test process: two in-memory streams for app.mcp.stdio(), the lines the server
// writes, parsed, and waiting for the next one that matches.
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
