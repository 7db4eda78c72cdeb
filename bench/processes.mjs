// Starting contenders and load generators as their own processes, pinned to cores, and reading
// what the machine did meanwhile (/proc, where there is one).
import { execFileSync, fork, spawn } from 'node:child_process'
import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url))
export const ROOT = dirname(BENCH_DIR)

function hasTaskset () {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Server on core 0, load generator on core 1, when taskset exists and there are two cores. */
export const PINNING = hasTaskset() && cpus().length >= 2
  ? { server: '0', load: '1' }
  : undefined

const live = new Set()
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

function pinned (core, args) {
  return PINNING === undefined || core === undefined ? [process.execPath, args] : ['taskset', ['-c', core, process.execPath, ...args]]
}

/** Forks a bench script on a core, with an IPC channel (taskset execs node, which keeps it). */
function forkPinned (core, script, args, { nodeArgs = [], env = {} } = {}) {
  const [command, argv] = pinned(core, nodeArgs)
  const child = fork(join(BENCH_DIR, script), args, {
    cwd: ROOT,
    execPath: command,
    execArgv: argv,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  live.add(child)
  child.once('exit', () => live.delete(child))
  return child
}

/** Sends a message and resolves with the child's next message of type `answer`. */
function ask (child, message, answer) {
  return new Promise((resolve, reject) => {
    const onExit = (code) => reject(new Error(`${child.spawnfile} exited with ${code} while asked ${message.type}`))
    child.once('exit', onExit)
    child.on('message', function onMessage (m) {
      if (m.type === answer) {
        child.off('message', onMessage)
        child.off('exit', onExit)
        resolve(m)
      }
    })
    if (message.type !== undefined) child.send(message)
  })
}

function stopChild (child, message) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    if (message === undefined) child.kill('SIGTERM')
    else child.send(message)
  })
}

/**
 * Starts `bench/server.mjs <contender> <scenario>` on the server core and resolves once it listens.
 * The returned handle asks it for stats, a GC, and to stop.
 */
export async function startServer (contender, scenario, { fixture, nodeArgs = [] } = {}) {
  const child = forkPinned(PINNING?.server, 'server.mjs', [contender, scenario], { nodeArgs, env: { BENCH_FIXTURE: fixture ?? '' } })
  const listening = await ask(child, {}, 'listening').catch(() => {
    throw new Error(`${contender} (${scenario}) exited before listening`)
  })
  return {
    pid: listening.pid,
    url: `http://127.0.0.1:${listening.port}/mcp`,
    /** Why this contender cannot serve the scenario, when it cannot. */
    unavailable: listening.unavailable,
    stats: () => ask(child, { type: 'stats' }, 'stats'),
    gc: () => ask(child, { type: 'gc' }, 'stats'),
    stop: () => stopChild(child, { type: 'stop' })
  }
}

/**
 * Starts a load generator (`bench/load.mjs`) for one request on the load core. `run(seconds)`
 * loads and resolves with the slice's numbers; `commit()` or `discard()` decides whether the slice
 * counts; `finish()` resolves with the totals and ends the process.
 */
export async function startLoader (config) {
  const child = forkPinned(PINNING?.load, 'load.mjs', [JSON.stringify(config)])
  const { pid } = await ask(child, {}, 'ready')
  return {
    pid,
    run: (duration) => ask(child, { type: 'run', duration }, 'slice'),
    commit: () => ask(child, { type: 'commit' }, 'ok'),
    discard: () => ask(child, { type: 'discard' }, 'ok'),
    finish: async () => {
      const total = await ask(child, { type: 'finish' }, 'total')
      await stopChild(child)
      return total
    },
    kill: () => stopChild(child)
  }
}

/** Runs a bench script on a core and resolves with the JSON line it prints. */
export function runPinned (core, script, args, { onStart } = {}) {
  const [command, argv] = pinned(core, [join(BENCH_DIR, script), ...args])
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    live.add(child)
    onStart?.(child.pid)
    let out = ''
    child.stdout.on('data', (chunk) => { out += chunk })
    child.on('exit', (code) => {
      live.delete(child)
      if (code !== 0) return reject(new Error(`${script} exited with ${code}`))
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()))
      } catch (err) {
        reject(new Error(`${script} printed no result: ${out.slice(0, 500)} (${err.message})`))
      }
    })
  })
}

// ------------------------------------------------------------------ what else ran meanwhile

const HAS_PROC = existsSync('/proc/stat')
const TICK = 100 // USER_HZ on Linux

/** Busy CPU ticks of the whole machine, and hypervisor steal. */
function machineTicks () {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const [user, nice, system, , , , , steal] = fields
  // irq and softirq time are left out: loopback traffic is softirq work done for our own processes
  return { busy: user + nice + system, steal: steal ?? 0 }
}

/** utime + stime of a process; with `children`, also those of its children that ended (cutime + cstime). */
function processTicks (pid, children = false) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    // utime, stime, cutime, cstime are fields 14 to 17 (1-based), i.e. 11 to 14 after the ") "
    return Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0)
  } catch {
    return 0
  }
}

/** CPU ticks of the kernel's own threads (children of kthreadd, pid 2): ksoftirqd does the loopback work. */
function kernelTicks () {
  let ticks = 0
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8')
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
      // ppid is field 4 (1-based), i.e. 1 after the ") "
      if (fields[1] === '2' || name === '2') ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks
}

/**
 * Starts watching: `stop()` then tells, in cores, how busy the machine was outside the given
 * processes and the kernel's threads (other work on the machine: the noise a measurement should
 * not have), how busy each
 * watched process was, and the hypervisor's steal. Without /proc, it reports nothing.
 */
export function watchCpu () {
  if (!HAS_PROC) return { add () {}, stop: () => undefined }
  const started = process.hrtime.bigint()
  const machine = machineTicks()
  const kernel = kernelTicks()
  const pids = new Map()
  // our own ticks, with those of the children that end meanwhile (the load generator)
  const self = processTicks(process.pid, true)
  return {
    /** `children`: also count the children of `pid` that end meanwhile (wrk, under the load process). */
    add (pid, { children = false } = {}) { pids.set(pid, { children, before: processTicks(pid, children) }) },
    stop () {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      const now = machineTicks()
      const used = {}
      let ours = processTicks(process.pid, true) - self + kernelTicks() - kernel
      for (const [pid, { children, before }] of pids) {
        const ticks = processTicks(pid, children) - before
        // a child that ended is in our own children's ticks already
        if (ticks > 0) {
          used[pid] = ticks / TICK / seconds
          ours += ticks
        }
      }
      return {
        foreign: Math.max(0, (now.busy - machine.busy - ours) / TICK / seconds),
        steal: (now.steal - machine.steal) / TICK / seconds,
        used
      }
    }
  }
}

/**
 * Waits until the machine is quiet (other processes use less than `threshold` of a core over a
 * second), for at most `maxSeconds`; resolves with the seconds waited, or -1 if it never was.
 */
export async function waitForQuiet (threshold, maxSeconds) {
  if (!HAS_PROC || maxSeconds <= 0) return 0
  const started = Date.now()
  while (true) {
    const watch = watchCpu()
    await new Promise((resolve) => setTimeout(resolve, 1000))
    if (watch.stop().foreign <= threshold) return (Date.now() - started) / 1000
    if (Date.now() - started > maxSeconds * 1000) return -1
  }
}
