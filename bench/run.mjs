#!/usr/bin/env node
// The benchmark: `npm run bench` (builds the plugin first), or `node bench/run.mjs [options]`.
// See bench/README.md for what it measures and how to read it.
import { execFileSync, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { cpSync, existsSync, mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { PINNING, BENCH_DIR, ROOT, startServer, startLoader, runPinned, watchCpu, waitForQuiet } from './processes.mjs'
import { request, withSession } from './workloads.mjs'
import { CheckError, send, openSession, checkReference, checkBytes, checkEquivalent, normalizeSse } from './verify.mjs'
import { CONTENDERS, SCENARIOS, referenceOf, report, writeResults, machine } from './report.mjs'
import { ensureWrk } from './wrk.mjs'
import { startHaproxy } from './gateway.mjs'

// ------------------------------------------------------------------ options

const HELP = `npm run bench -- [options]        (each option also as an environment variable)

  --rounds N         rounds, contenders interleaved in each          BENCH_ROUNDS       3
  --duration S       seconds of load per contender and round         BENCH_DURATION     10
  --warmup S         seconds of unmeasured load before each          BENCH_WARMUP       2
  --slice S          the measured seconds are run in slices of S,
                     contenders taking turns                         BENCH_SLICE        2
  --connections N    concurrent connections                          BENCH_CONNECTIONS  50
  --load GEN         load generator: autocannon, wrk, or both (each load
                     scenario then runs once with each)              BENCH_LOAD         both
                     (--smoke: autocannon)
  --scenarios LIST   comma-separated: ${Object.keys(SCENARIOS).join(',')}
                                                                     BENCH_SCENARIOS    all
  --contenders LIST  only these (comma-separated ids; the baseline always runs)
                                                                     BENCH_CONTENDERS   all
  --sessions N       idle sessions opened by 'sessions'              BENCH_SESSIONS     10000
  --tools N          tools registered by 'startup'                   BENCH_TOOLS        1000
  --samples N        fresh processes per contender and round ('startup') BENCH_SAMPLES  3
  --max-noise C      CPU (in cores) other processes may use during a
                     measurement before it is run again              BENCH_MAX_NOISE    0.15
  --retries N        times a noisy slice is run again                BENCH_RETRIES      3
  --quiet-wait S     before each measurement, wait up to S seconds for
                     the machine to be quiet (see --max-noise)       BENCH_QUIET_WAIT   30
  --wait-budget S    at most S seconds of waiting and re-running in
                     the whole run; then measure as it comes         BENCH_WAIT_BUDGET  900
  --sake DIR         load this build of fastify-sake (a dist/ directory inside the repo, so
                     that its imports resolve) instead of the package   BENCH_SAKE
  --compare DIR      also load another build of fastify-sake (a dist/ directory, e.g. from
                     before a change) in the same rounds: contenders compare-modern, compare-legacy
  --node-flags F     flags for every server's node, space-separated (e.g. V8's
                     --no-memory-reducer), for experiments           BENCH_NODE_FLAGS
  --profile          write a CPU profile of every contender (node --cpu-prof) to bench/profiles/
  --results FILE     where the table goes                            BENCH_RESULTS      bench/RESULTS.md
  --no-write         print only, leave RESULTS.md alone              BENCH_WRITE=0
  --json FILE        also write every raw measurement as JSON        BENCH_JSON
  --smoke            2 s, 1 round, 0.5 s warm-up, 1,000 sessions, no write (CI)
`

function parseOptions (argv) {
  const env = process.env
  const o = {
    rounds: Number(env.BENCH_ROUNDS ?? 3),
    duration: Number(env.BENCH_DURATION ?? 10),
    warmup: Number(env.BENCH_WARMUP ?? 2),
    slice: Number(env.BENCH_SLICE ?? 2),
    connections: Number(env.BENCH_CONNECTIONS ?? 50),
    load: env.BENCH_LOAD,
    scenarios: (env.BENCH_SCENARIOS ?? Object.keys(SCENARIOS).join(',')).split(',').filter(Boolean),
    contenders: env.BENCH_CONTENDERS?.split(',').filter(Boolean),
    sessions: Number(env.BENCH_SESSIONS ?? 10_000),
    tools: Number(env.BENCH_TOOLS ?? 1000),
    samples: Number(env.BENCH_SAMPLES ?? 3),
    maxNoise: Number(env.BENCH_MAX_NOISE ?? 0.15),
    retries: Number(env.BENCH_RETRIES ?? 3),
    quietWait: Number(env.BENCH_QUIET_WAIT ?? 30),
    waitBudget: Number(env.BENCH_WAIT_BUDGET ?? 900),
    nodeFlags: (env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    profile: env.BENCH_PROFILE === '1',
    compare: env.BENCH_COMPARE === undefined ? undefined : resolve(env.BENCH_COMPARE),
    sake: env.BENCH_SAKE === undefined ? undefined : resolve(env.BENCH_SAKE),
    results: env.BENCH_RESULTS ?? join(BENCH_DIR, 'RESULTS.md'),
    write: env.BENCH_WRITE !== '0',
    json: env.BENCH_JSON,
    smoke: false
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = () => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${arg} needs a value`)
      return v
    }
    switch (arg) {
      case '--rounds': o.rounds = Number(value()); break
      case '--duration': o.duration = Number(value()); break
      case '--warmup': o.warmup = Number(value()); break
      case '--slice': o.slice = Number(value()); break
      case '--connections': o.connections = Number(value()); break
      case '--load': o.load = value(); break
      case '--scenarios': o.scenarios = value().split(',').filter(Boolean); break
      case '--contenders': o.contenders = value().split(',').filter(Boolean); break
      case '--sessions': o.sessions = Number(value()); break
      case '--tools': o.tools = Number(value()); break
      case '--samples': o.samples = Number(value()); break
      case '--max-noise': o.maxNoise = Number(value()); break
      case '--retries': o.retries = Number(value()); break
      case '--quiet-wait': o.quietWait = Number(value()); break
      case '--wait-budget': o.waitBudget = Number(value()); break
      case '--compare': o.compare = resolve(value()); break
      case '--sake': o.sake = resolve(value()); break
      case '--node-flags': o.nodeFlags = value().split(' ').filter(Boolean); break
      case '--profile': o.profile = true; break
      case '--results': o.results = value(); break
      case '--no-write': o.write = false; break
      case '--json': o.json = value(); break
      case '--smoke':
        Object.assign(o, { smoke: true, rounds: 1, duration: 2, warmup: 0.5, sessions: 1000, samples: 1, retries: 0, quietWait: 0, waitBudget: 0, write: false })
        break
      case '-h': case '--help':
        process.stdout.write(HELP)
        process.exit(0)
        break
      default:
        throw new Error(`unknown option ${arg}\n\n${HELP}`)
    }
  }
  o.load ??= o.smoke ? 'autocannon' : 'both'
  if (!['autocannon', 'wrk', 'both'].includes(o.load)) throw new Error(`--load must be autocannon, wrk or both, not '${o.load}'`)
  o.loads = o.load === 'both' ? ['autocannon', 'wrk'] : [o.load]
  for (const name of o.scenarios) {
    if (SCENARIOS[name] === undefined) throw new Error(`unknown scenario '${name}'; known: ${Object.keys(SCENARIOS).join(', ')}`)
  }
  for (const key of ['rounds', 'duration', 'slice', 'connections', 'sessions', 'tools', 'samples']) {
    if (!(o[key] > 0)) throw new Error(`--${key} must be a positive number`)
  }
  return o
}

const options = parseOptions(process.argv.slice(2))
const log = (line) => process.stderr.write(line + '\n')
if (options.loads.includes('wrk') && options.scenarios.some((name) => SCENARIOS[name].kind === 'load')) ensureWrk(log)
if (options.compare !== undefined) process.env.BENCH_COMPARE = options.compare
if (options.sake !== undefined) {
  process.env.BENCH_SAKE = options.sake
} else {
  // the build as it is now, for the whole run: a `npm run build` elsewhere meanwhile (tests) must
  // not change the code under measurement halfway. Inside the repo, so that its imports resolve.
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: npm run build first (npm run bench does)')
  const snapshot = join(BENCH_DIR, '.build', String(process.pid))
  // JavaScript only: declaration files here would be type-checked with the repo's own sources
  cpSync(join(ROOT, 'dist'), snapshot, { recursive: true, filter: (file) => !/\.d\.ts(\.map)?$/.test(file) })
  process.on('exit', () => rmSync(snapshot, { recursive: true, force: true }))
  process.env.BENCH_SAKE = snapshot
}
const fixtureDir = mkdtempSync(join(tmpdir(), 'sake-bench-'))
process.on('exit', () => rmSync(fixtureDir, { recursive: true, force: true }))
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130))

function profileArgs (name) {
  if (!options.profile) return []
  const dir = join(BENCH_DIR, 'profiles')
  mkdirSync(dir, { recursive: true })
  return ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', `${name}.cpuprofile`]
}

/** Rotates the order each round, so no contender always runs first (or right after another). */
function rotate (list, by) {
  const n = by % list.length
  return [...list.slice(n), ...list.slice(0, n)]
}

function median (values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (v.length === 0) return NaN
  const mid = Math.floor(v.length / 2)
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2
}

// ------------------------------------------------------------------ load scenarios

/**
 * The reference answers of a scenario: fastify-sake's own (the bytes the baseline must answer), or,
 * when this build of fastify-sake cannot serve the scenario (streaming before issue 4), the
 * baseline's; fastify-sake is then shown as not available.
 */
async function capture (scenario) {
  const unavailable = {}
  let server = await startServer('sake', scenario)
  let reference = 'sake'
  if (server.unavailable !== undefined) {
    for (const id of ['sake-modern', 'sake-legacy']) unavailable[id] = server.unavailable
    await server.stop()
    reference = 'baseline'
    server = await startServer('baseline', scenario)
  }
  if (options.compare !== undefined) {
    const other = await startServer('sake-compare', scenario)
    if (other.unavailable !== undefined) for (const id of ['compare-modern', 'compare-legacy']) unavailable[id] = other.unavailable
    await other.stop()
  }
  try {
    const expected = {}
    for (const era of ['modern', 'legacy']) {
      let req = request(scenario, era)
      if (era === 'legacy' && reference === 'sake') req = withSession(req, await openSession(server.url, 'reference'))
      const answer = await send(server.url, req)
      checkReference(scenario, era, answer)
      expected[era] = answer.body
    }
    let fixture
    if (scenario === 'list100') {
      fixture = { listResult: { modern: JSON.parse(expected.modern).result, legacy: JSON.parse(expected.legacy).result } }
    } else if (scenario === 'stream' && reference === 'sake') {
      // how fastify-sake frames an event (`data: ` or `event: message\ndata: `…), for the baseline
      const events = normalizeSse(expected.modern)
      fixture = { sseFraming: events.slice(0, events.indexOf('{')) }
    }
    if (fixture !== undefined) {
      const file = join(fixtureDir, `${scenario}.json`)
      writeFileSync(file, JSON.stringify(fixture))
      fixture = file
    }
    log(`  reference answers: ${reference === 'sake' ? 'fastify-sake' : 'the baseline (fastify-sake cannot serve this scenario)'}, ${Buffer.byteLength(expected.modern)} bytes (2026-07-28), ${Buffer.byteLength(expected.legacy)} bytes (2025)`)
    return { expected, fixture, unavailable, reference }
  } finally {
    await server.stop()
  }
}

/**
 * A contender of several processes, or behind HAProxy (the fleet scenario): each process started,
 * then gateway/haproxy.cfg in front of them (its two addresses on the first two processes, or
 * both on the only one), and the handle of them all: the URL is the gateway's, `urls` the
 * processes' own; every pid is watched (HAProxy's, and redis-server's for a contender on Redis),
 * the highest peak RSS of the processes, all stopped together.
 */
async function startGroup (contender, scenario, options) {
  const servers = []
  let gateway
  const stop = async () => {
    await gateway?.stop()
    for (const server of servers) await server.stop()
  }
  try {
    for (let i = 0; i < contender.instances; i++) servers.push(await startServer(contender.server, scenario, options))
    const hostOf = (server) => new URL(server.url).host
    if (contender.gateway) gateway = await startHaproxy(hostOf(servers[0]), hostOf(servers[1] ?? servers[0]))
  } catch (err) {
    await stop()
    throw err
  }
  const pids = servers.map((server) => server.pid)
  if (gateway !== undefined) pids.push(gateway.pid)
  if (contender.server === 'sake-redis') pids.push(redis.pid)
  return {
    pid: servers[0].pid,
    pids,
    url: gateway?.url ?? servers[0].url,
    urls: servers.map((server) => server.url),
    stats: async () => {
      const all = await Promise.all(servers.map((server) => server.stats()))
      return { ...all[0], maxRss: Math.max(...all.map((one) => one.maxRss)), newSpace: Math.min(...all.map((one) => one.newSpace)) }
    },
    stop
  }
}

/** Until the gateway has its instances in service: HAProxy answers 503 before its first checks pass. */
async function ready (url, req) {
  const started = Date.now()
  while (true) {
    const answer = await send(url, req)
    if (answer.status !== 503 || Date.now() - started > 10_000) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Starts one contender and checks its answer; resolves with the server and the load to send it. */
async function prepare (scenario, id, ref, round, generator) {
  const contender = CONTENDERS[id]
  const start = { fixture: ref.fixture, nodeArgs: [...options.nodeFlags, ...profileArgs(`${scenario}-${generator}-${id}-r${round}`)] }
  const server = contender.instances === undefined ? await startServer(contender.server, scenario, start) : await startGroup(contender, scenario, start)
  try {
    let req = request(scenario, contender.era)
    if (contender.gateway) await ready(server.url, req)
    if (contender.era === 'legacy') req = withSession(req, await openSession(server.url, id))
    // behind the gateway, every process must answer the same bytes directly too (a fleet's
    // session was opened through the gateway, on one of them)
    if (contender.gateway) for (const url of server.urls) checkBytes(`${id} (${scenario}, ${url})`, await send(url, req), ref.expected[contender.era], false)
    const answer = await send(server.url, req)
    const sse = scenario === 'stream'
    if (contender.check === 'bytes') {
      checkBytes(`${id} (${scenario})`, answer, ref.expected[contender.era], sse)
      if (contender.server.startsWith('baseline')) {
        // the baseline answers the other era's request with that era's bytes too
        const other = contender.era === 'modern' ? 'legacy' : 'modern'
        checkBytes(`${id} (${scenario}, ${other} request)`, await send(server.url, request(scenario, other)), ref.expected[other], sse)
      }
    } else {
      checkEquivalent(scenario, contender.era, `${id} (${scenario})`, answer, ref.expected[contender.era])
    }
    // under load, every answer must be these very bytes (SSE: once event ids are set aside)
    return { server, load: { url: server.url, ...req, connections: options.connections, expectBody: sse ? normalizeSse(answer.body) : answer.body, sse, generator } }
  } catch (err) {
    await server.stop()
    throw err
  }
}

/**
 * One round: every contender gets a fresh server process and its own load generator; after a
 * warm-up, the measured seconds are cut into slices run in turn (A B C, B C A, ...), so that
 * whatever drifts on the machine during the round falls on every contender alike. A slice during
 * which other processes took more than --max-noise of a core is run again, after a quiet moment.
 */
async function loadRound (scenario, ids, ref, round, generator) {
  const prepared = {}
  const loaders = {}
  try {
    for (const id of ids) {
      prepared[id] = await prepare(scenario, id, ref, round + 1, generator)
      loaders[id] = await startLoader(prepared[id].load)
    }
    if (options.warmup > 0) {
      for (const id of rotate(ids, round)) {
        await loaders[id].run(options.warmup)
        await loaders[id].discard()
      }
    }
    const slices = Math.max(1, Math.round(options.duration / options.slice))
    const noisy = {}
    for (let s = 0; s < slices; s++) {
      for (const id of rotate(ids, round + s)) {
        for (let attempt = 0; ; attempt++) {
          await quiet()
          const watch = watchCpu()
          for (const pid of prepared[id].server.pids ?? [prepared[id].server.pid]) watch.add(pid)
          // with its children: wrk runs as a child of the load process
          watch.add(loaders[id].pid, { children: true })
          const onRedis = CONTENDERS[id].server === 'sake-redis'
          const commandsBefore = onRedis ? redisCommands() : undefined
          const slice = await loaders[id].run(options.duration / slices)
          const cpu = watch.stop()
          if (onRedis) slice.redisCommands = redisCommands() - commandsBefore
          const bad = Object.values(slice.bad).reduce((a, b) => a + b, 0)
          if (bad > 0) throw new CheckError(`${id} (${scenario}): ${slice.bad.non2xx} non-2xx, ${slice.bad.errors} errors, ${slice.bad.timeouts} timeouts, ${slice.bad.mismatches} answers that differ from the checked one`)
          if (cpu !== undefined && cpu.foreign > options.maxNoise && attempt < options.retries && budget > 0) {
            budget -= slice.seconds
            await loaders[id].discard()
            log(`    ${id}: other processes took ${cpu.foreign.toFixed(2)} of a core during slice ${s + 1}; running it again`)
            continue
          }
          if (cpu !== undefined && cpu.foreign > options.maxNoise) noisy[id] = true
          // a process that did not run during the slice (the fleet's idle instance) is not in `used`
          slice.serverCpu = cpu === undefined ? NaN : (prepared[id].server.pids ?? [prepared[id].server.pid]).reduce((sum, pid) => sum + (cpu.used[pid] ?? 0), 0)
          slice.foreignCpu = cpu?.foreign
          await loaders[id].commit()
          ;(prepared[id].slices ??= []).push(slice)
          break
        }
      }
    }
    const runs = {}
    for (const id of ids) {
      const total = await loaders[id].finish()
      delete loaders[id]
      const stats = await prepared[id].server.stats()
      const slicesOf = prepared[id].slices
      runs[id] = {
        ...total,
        // the median slice: a slice that something else on the machine slowed down does not move it
        rps: median(slicesOf.map((x) => x.rps)),
        meanRps: total.rps,
        peakRss: stats.maxRss,
        // V8's new space (both semi-spaces) at the round's end: V8 grows and shrinks it by its own
        // heuristics, so two contenders can run a round at different sizes (bench/RESULTS.md)
        newSpace: stats.newSpace,
        foreignCpu: Math.max(...slicesOf.map((x) => x.foreignCpu ?? 0)),
        serverCpu: slicesOf.reduce((a, x) => a + (x.serverCpu ?? NaN) * x.seconds, 0) / total.seconds,
        sliceRps: slicesOf.map((x) => x.rps),
        // Redis commands per answered request (the fleet's), over the kept slices
        redisPerRequest: slicesOf[0].redisCommands === undefined ? undefined : slicesOf.reduce((a, x) => a + x.redisCommands, 0) / slicesOf.reduce((a, x) => a + x.requests, 0),
        noisy: noisy[id] === true
      }
    }
    return runs
  } finally {
    for (const loader of Object.values(loaders)) await loader.kill()
    for (const { server } of Object.values(prepared)) await server.stop()
  }
}

/** The redis-server of the fleet scenario (Debian's package), on the servers' core, nothing persisted. */
async function startRedisServer () {
  const probe = createServer()
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address()
  await new Promise((resolve) => probe.close(resolve))
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
  const child = PINNING === undefined ? spawn('redis-server', args) : spawn('taskset', ['-c', PINNING.server, 'redis-server', ...args])
  await new Promise((resolve, reject) => {
    let out = ''
    child.once('error', () => reject(new Error('the fleet scenario needs redis-server: apt-get install -y redis-server')))
    child.stdout.on('data', (chunk) => {
      out += chunk
      if (out.includes('Ready to accept connections')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)))
  })
  child.stdout.resume()
  return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid, stop: () => child.kill('SIGKILL') }
}

/** The redis-server of the running fleet scenario. */
let redis

/** Commands the redis-server has run so far (INFO commandstats, without the INFO asking). */
function redisCommands () {
  const text = execFileSync('redis-cli', ['-p', String(redis.port), 'INFO', 'commandstats'], { encoding: 'utf8' })
  let calls = 0
  for (const [, name, n] of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (name !== 'info') calls += Number(n)
  return calls
}

async function loadScenario (scenario) {
  if (scenario !== 'fleet') return await loadScenarioOn(scenario)
  redis = await startRedisServer()
  process.env.BENCH_REDIS_URL = redis.url
  try {
    return await loadScenarioOn(scenario)
  } finally {
    redis.stop()
  }
}

/** A load scenario, once with each load generator (--load): one result each. */
async function loadScenarioOn (scenario) {
  const def = SCENARIOS[scenario]
  log(`\n== ${scenario}: ${def.title}`)
  const ref = await capture(scenario)
  const ids = def.contenders.filter((id) => ref.unavailable[id] === undefined && wanted(id))
  const results = []
  for (const generator of options.loads) results.push(await loadRounds(scenario, ids, ref, generator))
  return results
}

async function loadRounds (scenario, ids, ref, generator) {
  log(`  -- load generator: ${generator}`)
  const rounds = []
  for (let r = 0; r < options.rounds; r++) {
    const runs = await loadRound(scenario, ids, ref, r, generator)
    const reference = runs[referenceOf(scenario)]
    for (const id of ids) {
      const m = runs[id]
      log(`  round ${r + 1}  ${id.padEnd(24)} ${m.rps.toFixed(0).padStart(7)} req/s (${(m.rps / reference.rps).toFixed(2)}×)  p50 ${m.p50.toFixed(2)} ms  p99 ${m.p99.toFixed(2)} ms  server cpu ${fmt(m.serverCpu)}  load cpu ${fmt(m.loadCpu)}  other cpu ≤ ${fmt(m.foreignCpu)}  young gen ${(m.newSpace / 2 ** 20).toFixed(0)} MB  slices ${m.sliceRps.map((x) => x.toFixed(0)).join(' ')}${m.redisPerRequest === undefined ? '' : `  redis commands/request ${m.redisPerRequest.toFixed(2)}`}${m.noisy ? '  (noisy)' : ''}`)
    }
    rounds.push({ runs, noisy: ids.some((id) => runs[id].noisy) })
  }
  return { scenario, kind: 'load', load: generator, contenders: SCENARIOS[scenario].contenders.filter(wanted), rounds, unavailable: ref.unavailable, reference: ref.reference }
}

/** Seconds of waiting and re-running left in the run (--wait-budget). */
let budget = options.waitBudget

async function quiet () {
  if (budget <= 0) return
  const limit = Math.min(options.quietWait, budget)
  const waited = await waitForQuiet(options.maxNoise, limit)
  budget -= waited < 0 ? limit : waited
  if (waited < 0) log(`  (the machine stayed busy for ${limit.toFixed(0)} s; measuring anyway)`)
  else if (waited > 2) log(`  (waited ${waited.toFixed(0)} s for other processes to quieten)`)
  if (budget <= 0) log('  (the wait budget is spent: measuring as it comes from now on)')
}

function wanted (id) {
  if (CONTENDERS[id]?.optional && options.compare === undefined) return false
  return options.contenders === undefined || id === 'baseline' || Object.values(SCENARIOS).some((def) => def.reference === id) || options.contenders.includes(id) || (options.compare !== undefined && id.startsWith('compare-'))
}

function fmt (x) {
  return x === undefined ? '-' : x.toFixed(2)
}

// ------------------------------------------------------------------ startup

async function startupScenario () {
  const def = SCENARIOS.startup
  log(`\n== startup: ${def.title.replace('{n}', options.tools)}`)
  const rounds = []
  for (let r = 0; r < options.rounds; r++) {
    const runs = {}
    for (const id of rotate(def.contenders.filter(wanted), r)) {
      const samples = []
      for (let s = 0; s < options.samples; s++) {
        await quiet()
        const watch = watchCpu()
        const result = await runPinned(PINNING?.server, 'startup.mjs', [id, String(options.tools)], { onStart: (pid) => watch.add(pid) })
        samples.push({ ms: result.ms, foreignCpu: watch.stop()?.foreign })
      }
      runs[id] = { ms: median(samples.map((s) => s.ms)), samples }
      log(`  round ${r + 1}  ${id.padEnd(24)} ${samples.map((s) => s.ms.toFixed(0) + ' ms').join(', ')}`)
    }
    rounds.push({ runs })
  }
  return { scenario: 'startup', kind: 'startup', contenders: def.contenders.filter(wanted), rounds, tools: options.tools }
}

// ------------------------------------------------------------------ sessions

async function sessionsScenario () {
  const def = SCENARIOS.sessions
  log(`\n== sessions: ${def.title.replace('{n}', options.sessions)}`)
  const rounds = []
  for (let r = 0; r < options.rounds; r++) {
    const runs = {}
    for (const id of rotate(def.contenders.filter(wanted), r)) {
      const server = await startServer(CONTENDERS[id].server, 'sessions', { nodeArgs: ['--expose-gc'] })
      try {
        // a tenth as many sessions first, ended again, so that the code is warm
        const client = (config) => runPinned(PINNING?.load, 'sessions-client.mjs', [JSON.stringify({ url: server.url, concurrency: options.connections, ...config })])
        const warm = await client({ count: Math.ceil(options.sessions / 10), end: true })
        if (warm.failures > 0) throw new CheckError(`${id}: ${warm.failures} warm-up sessions failed to open or end`)
        await quiet()
        const before = await server.gc()
        const opened = await client({ count: options.sessions })
        const after = await server.gc()
        if (opened.failures > 0) throw new CheckError(`${id}: ${opened.failures} sessions failed to open`)
        // both ends of the run are still live sessions
        for (const sid of opened.ids) {
          const ping = await send(server.url, { method: 'POST', headers: withSession({ headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, sid).headers, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' })
          if (ping.status !== 200 || JSON.parse(ping.body).result === undefined) throw new CheckError(`${id}: session ${sid} is not live after opening ${options.sessions}: ${ping.status} ${ping.body.slice(0, 200)}`)
        }
        if (after.sessions !== undefined && after.sessions !== options.sessions) throw new CheckError(`${id}: holds ${after.sessions} sessions, expected ${options.sessions}`)
        runs[id] = {
          rssPerSession: (after.rss - before.rss) / options.sessions,
          heapPerSession: (after.heapUsed - before.heapUsed) / options.sessions,
          rss: after.rss,
          openPerSecond: options.sessions / (opened.ms / 1000)
        }
        log(`  round ${r + 1}  ${id.padEnd(24)} ${(runs[id].rssPerSession).toFixed(0)} B RSS, ${(runs[id].heapPerSession).toFixed(0)} B heap per session; ${runs[id].openPerSecond.toFixed(0)} sessions/s`)
      } finally {
        await server.stop()
      }
    }
    rounds.push({ runs })
  }
  return { scenario: 'sessions', kind: 'sessions', contenders: def.contenders.filter(wanted), rounds, sessions: options.sessions }
}

// ------------------------------------------------------------------ main

const started = new Date()
log(`fastify-sake benchmark: ${options.rounds} round(s) x ${options.duration} s (+${options.warmup} s warm-up), ${options.connections} connections`)
log(PINNING ? `server pinned to core ${PINNING.server}, load generator to core ${PINNING.load} (taskset)` : 'no pinning (taskset missing or fewer than 2 cores)')
const results = []
try {
  for (const scenario of options.scenarios) {
    const kind = SCENARIOS[scenario].kind
    if (kind === 'load') results.push(...await loadScenario(scenario))
    else if (kind === 'startup') results.push(await startupScenario())
    else results.push(await sessionsScenario())
  }
} catch (err) {
  if (err instanceof CheckError) {
    log(`\nCHECK FAILED: ${err.message}`)
    process.exit(2)
  }
  throw err
}

const run = { date: started.toISOString(), machine: machine(), options: { ...options, results: undefined, json: undefined }, pinning: PINNING, results }
if (options.json) writeFileSync(options.json, JSON.stringify(run, null, 2))
// the fleet's tables have a block of their own in RESULTS.md: a run of the fleet alone (it needs
// haproxy and redis-server) leaves the other scenarios' tables in place, and the other way round
for (const [block, group] of [['results', results.filter((r) => r.scenario !== 'fleet')], ['fleet', results.filter((r) => r.scenario === 'fleet')]]) {
  if (group.length === 0) continue
  const table = report({ ...run, results: group })
  process.stdout.write('\n' + table + '\n')
  if (options.write) {
    writeResults(options.results, table, block)
    log(`wrote the ${block} block of ${options.results}`)
  }
}
