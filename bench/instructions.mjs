// Instructions per request, counted by valgrind's callgrind: a measure that does not move with the
// machine's load (the shared machine's req/s move by 2× between slices; see RESULTS.md).
//
//   node bench/instructions.mjs [--scenario call|stream] [--contenders baseline,sake-modern,...]
//                               [--warmup 20000] [--requests 2000] [--repeat 1] [--connections 1]
//                               [--cache-sim] [--semi-space MB]
//
// Each contender is `bench/server.mjs` under `valgrind --tool=callgrind --instr-atstart=no`, node
// with `--single-threaded` (no concurrent JIT or GC threads, whose timing would move the count).
// One keep-alive connection sends the scenario's request `--warmup` times uninstrumented (V8 tiers
// the hot path up), then instrumentation is switched on for `--requests` more, every answer
// checked against the first. Printed: user-space instructions per request, and the ratio of the
// baseline's count to each contender's (what req/s would be if the CPU were the only cost and the
// kernel's share were nil). Needs the built package (`npm run build`) and valgrind.
// `--cache-sim` also simulates the caches (callgrind's --cache-sim=yes, sized as this machine's)
// and prints each contender's misses per request: instruction and data reads and writes, first
// level (I1mr, D1mr, D1mw) and last level (ILmr, DLmr, DLmw). `--semi-space MB` fixes V8's
// semi-space at that size (--min- and --max-semi-space-size; by default V8 sizes it).
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_DIR, ROOT } from './processes.mjs'
import { normalizeSse } from './verify.mjs'
import { initializeRequest, initializedNotification, request, sessionHeaders, withSession } from './workloads.mjs'

const args = process.argv.slice(2)
function option (name, fallback) {
  const at = args.indexOf(`--${name}`)
  return at < 0 ? fallback : args[at + 1]
}
const scenario = option('scenario', 'call')
const contenders = option('contenders', 'baseline,sake-modern,sake-legacy').split(',')
const warmup = Number(option('warmup', '20000'))
const requests = Number(option('requests', '2000'))
const repeat = Number(option('repeat', '1'))
const sake = option('sake', join(ROOT, 'dist'))
const compare = option('compare', undefined)
const connections = Number(option('connections', '1'))
const cacheSim = args.includes('--cache-sim')
const semiSpace = Number(option('semi-space', '0'))

const SERVERS = {
  baseline: ['baseline', 'modern'],
  'baseline-legacy': ['baseline', 'legacy'],
  'sake-modern': ['sake', 'modern'],
  'sake-legacy': ['sake', 'legacy'],
  'compare-modern': ['sake-compare', 'modern'],
  'compare-legacy': ['sake-compare', 'legacy'],
  // one instance with the `redis` option, on the redis-server at BENCH_REDIS_URL (start one first)
  'redis-legacy': ['sake-redis', 'legacy']
}

const work = mkdtempSync(join(tmpdir(), 'sake-instructions-'))
process.on('exit', () => rmSync(work, { recursive: true, force: true }))

const agent = new http.Agent({ keepAlive: true, maxSockets: connections })

function post (port, req) {
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, path: '/mcp', method: req.method, headers: req.headers, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode, sessionId: res.headers['mcp-session-id'], body }))
    })
    r.on('error', reject)
    r.end(req.body)
  })
}

/** The scenario's request in `era`; a 2025 request to fastify-sake opens its session first. */
async function requestFor (port, era, sake) {
  let req = request(scenario, era)
  if (era === 'legacy' && sake) {
    const init = await post(port, initializeRequest())
    await post(port, { method: 'POST', headers: sessionHeaders(init.sessionId), body: initializedNotification() })
    req = withSession(req, init.sessionId)
  }
  return req
}

function comparable (body) {
  return scenario === 'stream' ? normalizeSse(body) : body
}

/** Starts a contender under callgrind; resolves with its port and pid once it listens. */
function start (server, fixture) {
  const out = join(work, `${server}-%p.out`)
  const semi = semiSpace > 0 ? [`--min-semi-space-size=${semiSpace}`, `--max-semi-space-size=${semiSpace}`] : []
  const child = spawn('valgrind', ['--tool=callgrind', ...(cacheSim ? ['--cache-sim=yes'] : []), '--instr-atstart=no', `--callgrind-out-file=${out}`,
    process.execPath, '--single-threaded', '--expose-gc', ...semi, join(BENCH_DIR, 'server.mjs'), server, scenario], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: { ...process.env, BENCH_SAKE: sake, BENCH_COMPARE: compare ?? '', BENCH_FIXTURE: fixture ?? '' }
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => { stderr += chunk })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${server} exited (${code}) before listening:\n${stderr.slice(-2000)}`)))
    child.on('message', (message) => {
      if (message.type === 'listening') resolve({ child, port: message.port, pid: message.pid })
    })
  })
}

function control (pid, ...flags) {
  execFileSync('callgrind_control', [...flags, String(pid)], { stdio: 'ignore' })
}

async function measure (id, fixture) {
  const [server, era] = SERVERS[id]
  const { child, port, pid } = await start(server, fixture)
  try {
    const req = await requestFor(port, era, server !== 'baseline')
    const first = await post(port, req)
    if (first.status !== 200) throw new Error(`${id}: ${first.status} ${first.body.slice(0, 300)}`)
    const expected = comparable(first.body)
    const check = (answer) => {
      if (answer.status !== 200 || comparable(answer.body) !== expected) throw new Error(`${id}: an answer differed: ${answer.status} ${answer.body.slice(0, 300)}`)
    }
    const load = (count) => Promise.all(Array.from({ length: connections }, async () => {
      for (let i = 0; i < count / connections; i++) check(await post(port, req))
    }))
    await load(warmup)
    control(pid, '--instr=on')
    await load(requests)
    control(pid, '--instr=off')
    control(pid, '--dump')
    await new Promise((resolve) => setTimeout(resolve, 500))
    const files = readdirSync(work).filter((name) => name.startsWith(`${server}-${pid}`))
    let events
    const sums = []
    for (const name of files) {
      const text = readFileSync(join(work, name), 'utf8')
      // a dump's `summary:` line can read 0 where its `totals:` line has the counts (Ir first)
      const totals = /^totals: ([\d ]+)$/m.exec(text)
      events ??= /^events: (.+)$/m.exec(text)?.[1].split(' ')
      if (totals !== null) totals[1].trim().split(' ').forEach((count, i) => { sums[i] = (sums[i] ?? 0) + Number(count) })
      rmSync(join(work, name))
    }
    const perEvent = (events ?? ['Ir']).map((event, i) => `${event} ${Math.round((sums[i] ?? 0) / requests).toLocaleString('en')}`)
    return { id, perRequest: (sums[0] ?? 0) / requests, perEvent, bytes: first.body.length }
  } finally {
    child.kill('SIGKILL')
  }
}

async function fixtureFor () {
  if (scenario !== 'stream') return undefined
  // the baseline frames its events as fastify-sake does: read that off a plain sake server
  const { child, port } = await startPlain()
  try {
    const answer = await post(port, request(scenario, 'modern'))
    const events = normalizeSse(answer.body)
    const file = join(work, 'fixture.json')
    writeFileSync(file, JSON.stringify({ sseFraming: events.slice(0, events.indexOf('{')) }))
    return file
  } finally {
    child.kill('SIGKILL')
  }
}

function startPlain () {
  const child = spawn(process.execPath, [join(BENCH_DIR, 'server.mjs'), 'sake', scenario], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, BENCH_SAKE: sake } })
  return new Promise((resolve) => child.on('message', (message) => { if (message.type === 'listening') resolve({ child, port: message.port }) }))
}

const fixture = await fixtureFor()
const results = new Map(contenders.map((id) => [id, []]))
for (let round = 0; round < repeat; round++) {
  for (const id of contenders) {
    const result = await measure(id, fixture)
    results.get(id).push(result.perRequest)
    process.stdout.write(`${scenario} ${id.padEnd(16)} ${Math.round(result.perRequest).toLocaleString('en').padStart(10)} instructions/request (${requests} after ${warmup} warm-up)\n`)
    if (cacheSim) process.stdout.write(`${scenario} ${id.padEnd(16)} per request: ${result.perEvent.join(', ')}\n`)
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const base = results.has('baseline') ? median(results.get('baseline')) : undefined
if (base !== undefined) {
  for (const [id, values] of results) {
    if (id === 'baseline') continue
    process.stdout.write(`${scenario} ${id.padEnd(16)} ${(base / median(values)).toFixed(3)}× of the baseline's instructions\n`)
  }
}
agent.destroy()
