// HAProxy in front of a contender of the fleet scenario: the shipped gateway/haproxy.cfg with only
// its three addresses replaced (listening port, instance a, instance b), as
// test/helpers/gateways.ts does for the gateway tests, so that the bench measures the file users
// run. Debian's haproxy, pinned with the servers (taskset; it then starts one thread).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { PINNING, ROOT } from './processes.mjs'

const INSTALL = 'apt-get install -y haproxy'

/** haproxy's path: on PATH, else /usr/sbin (Debian's place, which a non-root PATH leaves out). */
function program () {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((dir) => dir.startsWith('/')), '/usr/sbin']
  return dirs.map((dir) => join(dir, 'haproxy')).find((path) => existsSync(path))
}

/** haproxy's version, or undefined when it is not installed. */
export function haproxyVersion () {
  const path = program()
  if (path === undefined) return undefined
  const run = spawnSync(path, ['-v'], { encoding: 'utf8' })
  return /version (\S+)/.exec(run.stdout)?.[1] ?? '?'
}

/** The shipped file with its listening address and both instance addresses replaced, nothing else. */
export function recipe (listen, a, b) {
  const text = readFileSync(join(ROOT, 'gateway', 'haproxy.cfg'), 'utf8')
  const to = { '127.0.0.1:8080': listen, '127.0.0.1:3001': a, '127.0.0.1:3002': b }
  for (const address of Object.keys(to)) {
    if (!text.includes(address)) throw new Error(`gateway/haproxy.cfg no longer holds ${address}: update bench/gateway.mjs`)
  }
  return text.replace(/127\.0\.0\.1:(8080|3001|3002)\b/g, (address) => to[address])
}

async function freePort () {
  const probe = createServer()
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address()
  await new Promise((resolve) => probe.close(resolve))
  return port
}

function accepts (port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}

/**
 * Starts haproxy in the foreground (`-db`) in front of `a` and `b` (host:port; the same twice for
 * a single instance) and resolves once it accepts connections: { url, pid, stop }.
 */
export async function startHaproxy (a, b) {
  const path = program()
  if (path === undefined) throw new Error(`the fleet scenario needs haproxy: ${INSTALL}`)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sake-bench-haproxy-'))
  const config = join(dir, 'haproxy.cfg')
  writeFileSync(config, recipe(`127.0.0.1:${port}`, a, b))
  const args = ['-f', config, '-db']
  const child = PINNING === undefined ? spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe'] }) : spawn('taskset', ['-c', PINNING.server, path, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
  let output = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => { output = (output + chunk).slice(-4000) })
  const kill = () => child.kill('SIGKILL')
  process.on('exit', kill)
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      const timer = setTimeout(kill, 1000)
      await gone
      clearTimeout(timer)
    }
    process.off('exit', kill)
    rmSync(dir, { recursive: true, force: true })
  }
  const started = Date.now()
  while (!await accepts(port)) {
    if (child.exitCode !== null || Date.now() - started > 10_000) {
      await stop()
      throw new Error(`haproxy did not start: ${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return { url: `http://127.0.0.1:${port}/mcp`, pid: child.pid, stop }
}
