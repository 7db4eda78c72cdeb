// A real redis-server for a test (Debian's package; .ci/run installs it): started on a free port
// with nothing persisted, killed and restarted on demand, stopped when the test ends. A machine
// without redis-server fails the test that needs it, with the command to install it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import type { Test } from 'tap'
import { until } from './until.js'

export interface RunningRedis {
  readonly url: string
  readonly port: number
  /** Kills the server (SIGKILL: as a crash would) and waits until it is gone. */
  kill (): Promise<void>
  /** Stops it as a service manager would (SIGTERM: Redis flushes the append-only file and exits) and waits until it is gone. */
  terminate (): Promise<void>
  /** Starts it again on the same port (empty, unless started with `persist`). */
  restart (): Promise<void>
  /** One command through redis-cli, for looking at keys: its output, trimmed. */
  cli (...args: string[]): string
  /** Waits until `key` has expired: Redis drops it when a command reads it past its expiry. */
  expired (key: string): Promise<void>
}

async function freePort (): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

function available (): void {
  const found = spawnSync('redis-server', ['--version'])
  if (found.error !== undefined) throw new Error('redis-server is not installed: apt-get install -y redis-server (.ci/run does it)')
}

async function start (port: number, dir: string | undefined): Promise<ChildProcess> {
  // with `dir`: every write is on disk before Redis acknowledges it (AOF, fsync always)
  const persistence = dir === undefined ? ['--save', '', '--appendonly', 'no'] : ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir]
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', ...persistence], { stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`redis-server exited (${String(code)}): ${out}`)) })
  })
  child.stdout!.resume()
  return child
}

async function stop (child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill(signal)
  await gone
}

/** `persist`: keep the data across a kill and restart (append-only file in the test's folder). */
export async function startRedis (t: Test, options: { persist?: boolean } = {}): Promise<RunningRedis> {
  available()
  const port = await freePort()
  const dir = options.persist === true ? t.testdir() : undefined
  let child = await start(port, dir)
  t.teardown(async () => stop(child))
  const cli = (...args: string[]): string =>
    spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill: async () => stop(child),
    terminate: async () => stop(child, 'SIGTERM'),
    restart: async () => { child = await start(port, dir) },
    cli,
    expired: async (key) => { await until(() => cli('EXISTS', key) === '0', { what: `${key} to expire` }) }
  }
}
