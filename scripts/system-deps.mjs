#!/usr/bin/env node
// `npm test` runs this first (the `pretest` script): the two system programs the tests drive for
// real, Debian's redis-server (the Redis store tests start their own servers) and chromium (the
// MCP Apps browser test), installed with apt-get when they are missing and this runs as root, as
// CI does; otherwise it says what to install and fails, since those tests would fail anyway.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const needed = [
  { pkg: 'redis-server', present: () => spawnSync('redis-server', ['--version']).error === undefined },
  { pkg: 'chromium', present: () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') }
]
const missing = needed.filter((one) => !one.present()).map((one) => one.pkg)
if (missing.length === 0) process.exit(0)

const root = typeof process.getuid === 'function' && process.getuid() === 0
const apt = spawnSync('apt-get', ['--version']).error === undefined
if (!root || !apt) {
  console.error(`system-deps: the tests need ${missing.join(' and ')}: apt-get install -y ${missing.join(' ')} (as root), then npm test again`)
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
