// wrk as the load generator (`--load wrk`): one wrk process per slice, one thread, on the load
// generator's core (it inherits load.mjs's pinning). The request and the expected answer go to
// files that bench/wrk.lua reads; it checks every answer and prints the counts and the latency
// distribution as one JSON line.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_DIR } from './processes.mjs'

const INSTALL = 'apt-get install -y wrk'

/** wrk's version, or undefined when it is not installed. */
export function wrkVersion () {
  const run = spawnSync('wrk', ['-v'], { encoding: 'utf8' })
  if (run.error !== undefined) return undefined
  return /wrk (\S+)/.exec(run.stdout + run.stderr)?.[1] ?? '?'
}

/**
 * Makes sure wrk is there: as root with apt-get, installs Debian's package (as
 * scripts/system-deps.mjs does for the tests' programs); otherwise says how to, and fails.
 */
export function ensureWrk (log) {
  if (wrkVersion() !== undefined) return
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  const apt = spawnSync('apt-get', ['--version']).error === undefined
  if (!root || !apt) throw new Error(`--load wrk needs wrk: ${INSTALL} (as root; Homebrew: brew install wrk), or run with --load autocannon`)
  log(`wrk is missing: installing it (${INSTALL})`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [['update'], ['install', '-y', 'wrk']]) {
    const run = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env })
    if (run.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed; install wrk by hand (${INSTALL}) or run with --load autocannon`)
  }
}

/** Writes the request and the expected answer where bench/wrk.lua reads them; returns the directory. */
export function wrkFiles (config) {
  const dir = mkdtempSync(join(tmpdir(), 'sake-wrk-'))
  writeFileSync(join(dir, 'method'), config.method)
  writeFileSync(join(dir, 'headers'), Object.entries(config.headers).map(([name, value]) => `${name}: ${value}\n`).join(''))
  writeFileSync(join(dir, 'body'), config.body)
  writeFileSync(join(dir, 'expected'), config.expectBody)
  if (config.sse) writeFileSync(join(dir, 'sse'), '')
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * One wrk run: resolves with { requests, seconds, non2xx, mismatches, errors, timeouts, quantiles }
 * (quantiles: 1,000 latencies in ms, evenly spaced in rank). wrk takes whole seconds.
 */
export function runWrk (dir, url, connections, duration) {
  const args = ['-t', '1', '-c', String(connections), '-d', `${Math.max(1, Math.round(duration))}s`, '--timeout', '10s', '-s', join(BENCH_DIR, 'wrk.lua'), url]
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { env: { ...process.env, WRK_BENCH_DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (chunk) => { out += chunk })
    child.once('error', reject)
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '))
      if (code !== 0 || line === undefined) return reject(new Error(`wrk exited with ${code}: ${out.slice(0, 500)}`))
      const r = JSON.parse(line.slice('WRK_RESULT '.length))
      resolve({ ...r, seconds: r.microseconds / 1e6, quantiles: r.quantiles.map((us) => us / 1000) })
    })
  })
}
