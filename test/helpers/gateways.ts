// The shipped gateway recipes (gateway/haproxy.cfg, gateway/nginx.conf) run for a test: Debian's
// haproxy and nginx (scripts/system-deps.mjs installs them) started as child processes on a free
// port, in front of the instances given, stopped when the test ends. The file run is the shipped
// one with only its three addresses replaced. A machine without the program fails the test that
// needs it, with the command to install it.
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { freePort } from './app.js'
import { until } from './until.js'

export type GatewayKind = 'haproxy' | 'nginx'

export interface RunningGateway {
  readonly kind: GatewayKind
  /** The MCP endpoint through the gateway: http://127.0.0.1:<port>/mcp. */
  readonly url: string
  /** Sends SIGTERM (SIGKILL a second later if it is still running) and resolves once it exited. */
  stop: () => Promise<void>
}

export interface GatewayOptions {
  /** Where the recipe's first instance (127.0.0.1:3001) is: host:port. */
  a: string
  /** Where its second (127.0.0.1:3002) is. */
  b: string
  /** Environment for the gateway process (MCP_STICKY_SESSIONS=1 for haproxy's sticky variant). */
  env?: Record<string, string>
}

const recipes = fileURLToPath(new URL('../../gateway/', import.meta.url))

/**
 * The program's path: on PATH, else in /usr/sbin (where Debian puts both, and which a non-root
 * PATH often leaves out); throws with the install command when it is in neither.
 */
export function program (name: GatewayKind): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((dir) => dir.startsWith('/')), '/usr/sbin']
  const found = dirs.map((dir) => join(dir, name)).find((path) => existsSync(path))
  if (found === undefined) throw new Error(`${name} is not installed: apt-get install -y ${name} (npm test's pretest, scripts/system-deps.mjs, does it as root)`)
  return found
}

/**
 * The shipped recipe with its listening address and the two instance addresses replaced, and
 * nothing else changed; throws when the file no longer holds all three (the tests would then
 * run something docs/gateways.md does not describe).
 */
export function recipe (file: string, listen: string, a: string, b: string): string {
  const text = readFileSync(join(recipes, file), 'utf8')
  const to: Record<string, string> = { '127.0.0.1:8080': listen, '127.0.0.1:3001': a, '127.0.0.1:3002': b }
  for (const address of Object.keys(to)) {
    if (!text.includes(address)) throw new Error(`gateway/${file} no longer holds ${address}: update test/helpers/gateways.ts`)
  }
  return text.replace(/127\.0\.0\.1:(8080|3001|3002)\b/g, (address) => to[address]!)
}

async function listening (port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}

/** Starts `args` of `kind` and resolves once its port accepts connections; the process ends with `t`. */
async function run (t: Test, kind: GatewayKind, args: string[], port: number, env: Record<string, string>, cleanup: () => void): Promise<RunningGateway> {
  const child: ChildProcess = spawn(program(kind), args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  // what it printed, for the failure message of a gateway that did not start (warnings go on: keep the end)
  let output = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => { output = (output + chunk).slice(-4000) })
  let exited = false
  child.once('exit', () => { exited = true })
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      const timer = setTimeout(() => child.kill('SIGKILL'), 1000)
      child.kill('SIGTERM')
      await gone
      clearTimeout(timer)
    }
    cleanup()
  }
  t.teardown(stop)
  await until(async () => {
    if (exited) throw new Error(`${kind} exited at start: ${output}`)
    return await listening(port)
  }, { what: `${kind} to listen on ${port}: ${output}`, timeout: 10_000, interval: 20 })
  return { kind, url: `http://127.0.0.1:${port}/mcp`, stop }
}

/** gateway/haproxy.cfg in the foreground (`-db`), in front of `a` and `b`. */
export async function startHaproxy (t: Test, options: GatewayOptions): Promise<RunningGateway> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sake-haproxy-'))
  const config = join(dir, 'haproxy.cfg')
  writeFileSync(config, recipe('haproxy.cfg', `127.0.0.1:${port}`, options.a, options.b))
  return await run(t, 'haproxy', ['-f', config, '-db'], port, options.env ?? {}, () => rmSync(dir, { recursive: true, force: true }))
}

/**
 * gateway/nginx.conf as a child (`daemon off`) with a prefix of its own in a temporary folder:
 * its pid file and temp folders there, its error log on stderr.
 */
export async function startNginx (t: Test, options: GatewayOptions): Promise<RunningGateway> {
  const port = await freePort()
  const prefix = mkdtempSync(join(tmpdir(), 'sake-nginx-'))
  // run as root, nginx's workers drop to nobody, who must reach the temp folders it makes there
  chmodSync(prefix, 0o755)
  const config = join(prefix, 'nginx.conf')
  writeFileSync(config, recipe('nginx.conf', `127.0.0.1:${port}`, options.a, options.b))
  const globals = `daemon off; master_process on; pid ${join(prefix, 'nginx.pid')}; error_log stderr warn;`
  return await run(t, 'nginx', ['-p', prefix, '-c', config, '-g', globals], port, options.env ?? {}, () => rmSync(prefix, { recursive: true, force: true }))
}
