// The real clients, connected and closed for a test (@modelcontextprotocol/client, and the v1 SDK), and the example server started as its own process.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
// each SDK is loaded when first used (~0.2 s apiece): a file that needs one client does not load both
import type { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import type { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

/** The clientInfo a client sends. */
export interface ClientInfo { name: string, version: string }

interface Setup<Client, Options, TransportOptions> {
  /** The client's own options (capabilities, versionNegotiation, listChanged...). */
  options?: Options
  /** The transport's options (authProvider, requestInit, fetch, reconnectionOptions). */
  transport?: TransportOptions
  /** Runs before connecting: the request and notification handlers the client needs from the start. */
  setup?: (client: Client) => void
  /** Close the client when `t` ends (default true); false when the test ends it itself. */
  close?: boolean
}

type ModernOptions = NonNullable<ConstructorParameters<typeof ModernClient>[1]>
type ModernTransportOptions = ConstructorParameters<typeof ModernTransport>[1]
type LegacyOptions = NonNullable<ConstructorParameters<typeof LegacyClient>[1]>
type LegacyTransportOptions = ConstructorParameters<typeof LegacyTransport>[1]

export interface ModernSetup extends Setup<ModernClient, ModernOptions, ModernTransportOptions> {
  /**
   * The version to pin (default '2026-07-28'), set as `versionNegotiation` unless `options` has
   * one; false leaves `options` as given (no options: the client's default, a 2025-11-25 session).
   */
  pin?: string | false
}

/** A @modelcontextprotocol/client Client connected to `url`, pinned to 2026-07-28 unless told otherwise; closed when `t` ends. */
export async function modernClient (t: Test, url: URL, info: ClientInfo, setup: ModernSetup = {}): Promise<{ client: ModernClient, transport: ModernTransport }> {
  const { options, pin = '2026-07-28', close = true } = setup
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client')
  const client = new Client(info, pin === false ? options : { ...options, versionNegotiation: options?.versionNegotiation ?? { mode: { pin } } })
  setup.setup?.(client)
  const transport = new StreamableHTTPClientTransport(url, setup.transport)
  await client.connect(transport)
  if (close) t.teardown(() => client.close())
  return { client, transport }
}

export interface LegacySetup extends Setup<LegacyClient, LegacyOptions, LegacyTransportOptions> {
  /** End the session with `endSession` before closing the client at teardown (default false). */
  terminate?: boolean
}

/**
 * Ends a v1 client's session with DELETE (`transport.terminateSession()`), then waits (200 ms at
 * most) until the client has seen the server end its GET stream; `client.close()` may follow.
 * Closing first, or while the end of that stream is still on its way, aborts the GET, and Node's
 * fetch then opens a fresh socket that sends nothing: the server's `server.close()` waits ~70 s
 * for it (nodejs/undici#5845; Node 20 does not count a socket without a request as idle). The
 * sign that the client saw the end is the reconnection it schedules then (which `close()` cancels):
 * SDK 1.32.2's `_reconnectionTimeout`.
 */
export async function endSession (transport: LegacyTransport): Promise<void> {
  await transport.terminateSession()
  // polled here, not with until(): this wait is best effort (200 ms at most, then the caller closes anyway), where until fails
  const scheduled = (): boolean => (transport as unknown as { _reconnectionTimeout?: unknown })._reconnectionTimeout !== undefined
  for (let i = 0; i < 40 && !scheduled(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
}

/** A v1 SDK (@modelcontextprotocol/sdk) Client connected to `url` (a 2025-11-25 session); closed when `t` ends. */
export async function legacyClient (t: Test, url: URL, info: ClientInfo, setup: LegacySetup = {}): Promise<{ client: LegacyClient, transport: LegacyTransport }> {
  const { options, close = true, terminate = false } = setup
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
  const client = new Client(info, options)
  setup.setup?.(client)
  const transport = new StreamableHTTPClientTransport(url, setup.transport)
  await client.connect(transport)
  if (close) {
    t.teardown(async () => {
      if (terminate) await endSession(transport)
      await client.close()
    })
  }
  return { client, transport }
}

const server = fileURLToPath(new URL('../../example-server/server.js', import.meta.url))

export interface Running {
  url: URL
  child: ChildProcess
  /** What the server printed until it listened (the sample token of AUTH=1, for one). */
  output: string
  /**
   * Sends SIGTERM and resolves once the process exited, with the signal that ended it (null: it
   * exited on its own). `killAfter` (10 s unless given): SIGKILL if it is still running that many
   * ms later, so a close that hangs shows as 'SIGKILL' rather than as the test file's timeout.
   */
  stop: (options?: { killAfter?: number }) => Promise<NodeJS.Signals | null>
}

/** Runs `node example-server/server.js` with PORT=0 (and `env`) and resolves once it listens. */
export async function startExample (env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [server], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  let buffer = ''
  const url = await new Promise<URL>((resolve, reject) => {
    // a minute: it starts in about a second, but a loaded 2-core machine has taken over 15 s
    const timer = setTimeout(() => reject(new Error(`example server did not start: ${buffer}`)), 60_000)
    child.once('exit', (code) => reject(new Error(`example server exited with ${code}: ${buffer}`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      const match = /MCP endpoint: (http:\/\/\S+?)"/.exec(buffer)
      if (match !== null) {
        clearTimeout(timer)
        resolve(new URL(match[1]))
      }
    })
  })
  child.stdout!.resume()
  return {
    url,
    child,
    output: buffer,
    stop: async ({ killAfter = 10_000 } = {}) => {
      if (child.exitCode !== null || child.signalCode !== null) return null
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfter)
      child.kill('SIGTERM')
      const signal = await exited
      clearTimeout(timer)
      return signal
    }
  }
}
