// What is compared, the targets, and the tables printed and written to bench/RESULTS.md.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, totalmem, release, platform } from 'node:os'
import { join, relative } from 'node:path'
import { ROOT } from './processes.mjs'
import { wrkVersion } from './wrk.mjs'
import { haproxyVersion } from './gateway.mjs'

/** Load contenders: which server process, which era's request, and how its answer is checked. */
export const CONTENDERS = {
  baseline: { server: 'baseline', era: 'modern', check: 'bytes', label: 'baseline: plain Fastify route' },
  'baseline-preserialized': { server: 'baseline-preserialized', era: 'modern', check: 'bytes', label: 'reference: hand-made pre-serialized route' },
  'sake-modern': { server: 'sake', era: 'modern', check: 'bytes', label: 'fastify-sake, 2026-07-28' },
  'sake-legacy': { server: 'sake', era: 'legacy', check: 'bytes', label: 'fastify-sake, 2025-11-25 session' },
  // only with --compare DIR: another build of fastify-sake, measured in the same rounds
  'compare-modern': { server: 'sake-compare', era: 'modern', check: 'bytes', label: 'fastify-sake from --compare, 2026-07-28', optional: true },
  'compare-legacy': { server: 'sake-compare', era: 'legacy', check: 'bytes', label: 'fastify-sake from --compare, 2025-11-25 session', optional: true },
  'sdk-stateless': { server: 'sdk-stateless', era: 'modern', check: 'equivalent', label: 'SDK v2 `createMcpHandler`, 2026-07-28' },
  'sdk-session': { server: 'sdk-session', era: 'legacy', check: 'equivalent', label: 'SDK v2 session transport, 2025-11-25' },
  // the fleet scenario: every contender behind gateway/haproxy.cfg (`gateway`), its two addresses
  // on the contender's two processes (`instances`), or both on its one process
  'gateway-baseline': { server: 'baseline', era: 'modern', check: 'bytes', instances: 2, gateway: true, label: 'baseline: plain Fastify route, two processes behind HAProxy' },
  'gateway-modern': { server: 'sake', era: 'modern', check: 'bytes', instances: 1, gateway: true, label: 'fastify-sake in memory, one process behind HAProxy, 2026-07-28' },
  'gateway-legacy': { server: 'sake', era: 'legacy', check: 'bytes', instances: 1, gateway: true, label: 'fastify-sake in memory, one process behind HAProxy, 2025-11-25 session' },
  'fleet-modern': { server: 'sake-redis', era: 'modern', check: 'bytes', instances: 2, gateway: true, label: 'fastify-sake fleet: two processes on one redis-server behind HAProxy, 2026-07-28' },
  'fleet-legacy': { server: 'sake-redis', era: 'legacy', check: 'bytes', instances: 2, gateway: true, label: 'fastify-sake fleet: two processes on one redis-server behind HAProxy, 2025-11-25 session' }
}

const STARTUP_LABELS = {
  baseline: 'baseline: {n} Fastify routes, body + response schemas',
  'baseline-body': '{n} Fastify routes, body schema only',
  sake: 'fastify-sake, {n} tools',
  sdk: 'SDK v2 `McpServer` with {n} tools (its factory, run per request by `createMcpHandler`)'
}

const SESSION_LABELS = {
  'sake-legacy': 'fastify-sake, in-memory store',
  'sdk-session': 'SDK v2 session transport (an `McpServer` and transport per session)'
}

const LOADED = ['baseline', 'sake-modern', 'sake-legacy', 'compare-modern', 'compare-legacy', 'sdk-stateless', 'sdk-session']

export const SCENARIOS = {
  call: { kind: 'load', title: '`tools/call` of `add` answered as JSON (1 tool registered)', contenders: LOADED },
  call100: { kind: 'load', title: '`tools/call` of `add` answered as JSON, 100 tools registered', contenders: LOADED },
  list100: { kind: 'load', title: '`tools/list` with 100 registered tools (one page)', contenders: ['baseline', 'baseline-preserialized', ...LOADED.slice(1)] },
  stream: { kind: 'load', title: 'a call streaming 10 progress notifications over SSE, then its result', contenders: LOADED },
  startup: { kind: 'startup', title: 'time from `register` to `ready` with {n} tools (fresh process each)', contenders: ['baseline', 'baseline-body', 'sake', 'sdk'] },
  sessions: { kind: 'sessions', title: 'memory of {n} idle 2025 sessions (after GC)', contenders: ['sake-legacy', 'sdk-session'] },
  // `reference`: the contender every ratio of the scenario is taken against (`baseline` elsewhere)
  fleet: {
    kind: 'load',
    title: '`tools/call` of `add` through HAProxy (gateway/haproxy.cfg): plain Fastify, one in-memory instance, and two instances on one redis-server',
    contenders: ['gateway-baseline', 'gateway-modern', 'gateway-legacy', 'fleet-modern', 'fleet-legacy'],
    reference: 'gateway-baseline'
  }
}

/** The contender a scenario's ratios are taken against. */
export function referenceOf (scenario) {
  return SCENARIOS[scenario].reference ?? 'baseline'
}

/** The targets (issue 27's for call, list100 and stream; issue 17's for the rest), each on one contender of one scenario. */
export const TARGETS = [
  { scenario: 'call', contender: 'sake-modern', op: '>=', value: 0.95, text: 'call, 2026-07-28 ≥ 0.95× baseline' },
  { scenario: 'call', contender: 'sake-legacy', op: '>=', value: 0.95, text: 'call, 2025 session ≥ 0.95× baseline' },
  { scenario: 'call100', contender: 'sake-modern', op: '>=', value: 0.90, same: 'call', text: 'call with 100 tools, 2026-07-28: ≥ 0.90× and within 5% of call' },
  { scenario: 'call100', contender: 'sake-legacy', op: '>=', value: 0.85, same: 'call', text: 'call with 100 tools, 2025 session: ≥ 0.85× and within 5% of call' },
  { scenario: 'list100', contender: 'sake-modern', op: '>=', value: 2.5, text: 'list100, 2026-07-28 ≥ 2.5× baseline' },
  { scenario: 'list100', contender: 'sake-legacy', op: '>=', value: 2.5, text: 'list100, 2025 session ≥ 2.5× baseline' },
  { scenario: 'stream', contender: 'sake-modern', op: '>=', value: 0.80, text: 'stream, 2026-07-28 ≥ 0.80× baseline' },
  { scenario: 'stream', contender: 'sake-legacy', op: '>=', value: 0.80, text: 'stream, 2025 session ≥ 0.80× baseline' },
  { scenario: 'startup', contender: 'sake', op: '<=', value: 1.0, text: 'startup with 1,000 tools ≤ 1.0× 1,000 Fastify routes' },
  // issue 29's, both behind the same HAProxy; `against`: the ratio to that contender of the same rounds
  { scenario: 'fleet', contender: 'fleet-legacy', against: 'gateway-legacy', op: '>=', value: 0.70, text: 'fleet, 2025 session: two instances on Redis ≥ 0.70× one in-memory instance' },
  { scenario: 'fleet', contender: 'fleet-modern', op: '>=', value: 0.90, text: 'fleet, 2026-07-28 through HAProxy ≥ 0.90× plain Fastify through HAProxy' },
  { scenario: 'sessions', contender: 'sake-legacy', op: '<=', value: 2048, unit: 'B', text: 'sessions ≤ 2 KB RSS per idle session' }
]

function median (values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (v.length === 0) return NaN
  const mid = Math.floor(v.length / 2)
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2
}

function version (name) {
  try {
    const file = name === 'fastify-sake' ? join(ROOT, 'package.json') : join(ROOT, 'node_modules', name, 'package.json')
    return JSON.parse(readFileSync(file, 'utf8')).version
  } catch {
    return '?'
  }
}

function git () {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'lib'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== ''
    return `${commit}${dirty ? ' (lib/ with uncommitted changes)' : ''}`
  } catch {
    return 'unknown (not a git checkout)'
  }
}

function redisVersion () {
  try {
    return /v=(\S+)/.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))?.[1] ?? '?'
  } catch {
    return 'not installed'
  }
}

export function machine () {
  const cpu = cpus()
  return {
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    fastify: version('fastify'),
    sake: version('fastify-sake'),
    sdk: version('@modelcontextprotocol/server'),
    autocannon: version('autocannon'),
    wrk: wrkVersion() ?? 'not installed',
    haproxy: haproxyVersion() ?? 'not installed',
    redis: redisVersion(),
    commit: git()
  }
}

// ------------------------------------------------------------------ summaries

function summarizeLoad (result) {
  const rows = {}
  for (const id of result.contenders) {
    const rounds = result.rounds.map((r) => r.runs[id]).filter(Boolean)
    if (rounds.length === 0) {
      rows[id] = { unavailable: result.unavailable?.[id] ?? 'not run' }
      continue
    }
    const reference = referenceOf(result.scenario)
    const ratios = result.rounds.map((r) => r.runs[id] && r.runs[reference] ? r.runs[id].rps / r.runs[reference].rps : NaN)
    rows[id] = {
      ratio: median(ratios),
      ratios,
      rps: median(rounds.map((m) => m.rps)),
      p50: median(rounds.map((m) => m.p50)),
      p99: median(rounds.map((m) => m.p99)),
      peakRss: Math.max(...rounds.map((m) => m.peakRss)),
      serverCpu: median(rounds.map((m) => m.serverCpu)),
      loadCpu: median(rounds.map((m) => m.loadCpu)),
      foreignCpu: Math.max(...rounds.map((m) => m.foreignCpu ?? 0))
    }
  }
  return rows
}

function summarizeStartup (result) {
  const rows = {}
  for (const id of result.contenders) {
    const ratios = result.rounds.map((r) => r.runs[id].ms / r.runs.baseline.ms)
    rows[id] = { ratio: median(ratios), ratios, ms: median(result.rounds.map((r) => r.runs[id].ms)) }
  }
  return rows
}

function summarizeSessions (result) {
  const rows = {}
  for (const id of result.contenders) {
    const runs = result.rounds.map((r) => r.runs[id])
    rows[id] = {
      rssPerSession: median(runs.map((m) => m.rssPerSession)),
      heapPerSession: median(runs.map((m) => m.heapPerSession)),
      openPerSecond: median(runs.map((m) => m.openPerSecond)),
      rss: median(runs.map((m) => m.rss))
    }
  }
  return rows
}

function summarize (result) {
  if (result.kind === 'load') return summarizeLoad(result)
  if (result.kind === 'startup') return summarizeStartup(result)
  return summarizeSessions(result)
}

function judge (target, summaries) {
  const rows = summaries[target.scenario]
  if (rows === undefined) return { measured: 'not run', met: undefined }
  const row = rows[target.contender]
  if (row === undefined) return { measured: 'not run', met: undefined }
  if (row.unavailable !== undefined) return { measured: row.unavailable, met: undefined }
  if (target.unit === 'B') {
    const v = row.rssPerSession
    return { measured: `${v.toFixed(0)} B`, met: v <= target.value }
  }
  if (target.against !== undefined) {
    // the same rounds' ratios divided: the reference of the round cancels out
    const other = rows[target.against]
    if (other?.ratios === undefined) return { measured: 'not run', met: undefined }
    const ratios = row.ratios.map((r, i) => r / other.ratios[i])
    const v = median(ratios)
    return { measured: `${v.toFixed(2)}× (per round ${ratios.map((r) => r.toFixed(2)).join(' / ')})`, met: target.op === '>=' ? v >= target.value : v <= target.value }
  }
  const v = row.ratio
  let met = target.op === '>=' ? v >= target.value : v <= target.value
  let measured = `${v.toFixed(2)}×`
  if (target.same !== undefined && summaries[target.same] !== undefined) {
    const base = summaries[target.same][target.contender]?.ratio
    const drift = v / base
    measured += ` (${drift.toFixed(2)} of call's ${base.toFixed(2)}×)`
    met = met && drift >= 0.95
  }
  return { measured, met }
}

// ------------------------------------------------------------------ tables

const thousands = (n) => String(n ?? '').replace(/\B(?=(\d{3})+(?!\d))/g, ',')
const f = (x, digits = 2) => Number.isFinite(x) ? x.toFixed(digits) : '–'
const mb = (bytes) => Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(0) : '–'

/**
 * The fleet's own ratios: two instances on Redis against one in-memory instance (both behind the
 * same HAProxy), per era and round, and the Redis commands the fleet sent per request.
 */
function fleetLines (result) {
  const lines = []
  for (const [era, name] of [['legacy', '2025-11-25 session'], ['modern', '2026-07-28']]) {
    const fleet = `fleet-${era}`
    const single = `gateway-${era}`
    const ratios = result.rounds.map((r) => r.runs[fleet] && r.runs[single] ? r.runs[fleet].rps / r.runs[single].rps : NaN)
    if (!ratios.some(Number.isFinite)) continue
    const commands = median(result.rounds.map((r) => r.runs[fleet]?.redisPerRequest))
    lines.push(`- ${name}: two instances on one redis-server against one in-memory instance, both behind HAProxy: **${f(median(ratios))}×** (per round: ${ratios.map((r) => f(r)).join(' / ')}); Redis commands per request under load: ${f(commands)} (\`INFO commandstats\` before and after each slice; the heartbeats are in it)`)
  }
  lines.push('- Every contender goes through gateway/haproxy.cfg as shipped (its addresses replaced), which sends a call carrying `Mcp-Param-Precision` (every 2026-07-28 request here) to its `mcp_precise` backend, instance b, and round-robins a 2025 session (no `Mcp-*` headers) over both. HAProxy, the contender\'s processes and redis-server share core 0, the load generator has core 1: the serving side has one core whatever its number of processes, and its CPU column adds them all up.')
  return lines
}

function loadTable (result, rows) {
  const lines = [
    '| contender | ratio vs baseline (median) | per round | req/s ¹ | p50 ms ¹ | p99 ms ¹ | peak RSS MB | server / load CPU ² |',
    '|---|---:|---|---:|---:|---:|---:|---:|'
  ]
  for (const id of result.contenders) {
    const row = rows[id]
    const label = CONTENDERS[id].label
    if (row.unavailable !== undefined) {
      lines.push(`| ${label} | ${row.unavailable} | | | | | | |`)
      continue
    }
    lines.push(`| ${label} | **${f(row.ratio)}×** | ${row.ratios.map((r) => f(r)).join(' / ')} | ${f(row.rps, 0)} | ${f(row.p50)} | ${f(row.p99)} | ${mb(row.peakRss)} | ${f(row.serverCpu)} / ${f(row.loadCpu)} |`)
  }
  return lines
}

function startupTable (result, rows) {
  const lines = ['| contender | ratio vs baseline (median) | per round | ms ¹ |', '|---|---:|---|---:|']
  for (const id of result.contenders) {
    const row = rows[id]
    lines.push(`| ${STARTUP_LABELS[id].replaceAll('{n}', thousands(result.tools))} | **${f(row.ratio)}×** | ${row.ratios.map((r) => f(r)).join(' / ')} | ${f(row.ms, 0)} |`)
  }
  return lines
}

function sessionsTable (result, rows) {
  const lines = ['| contender | RSS per session | heap per session | RSS with all open, MB ¹ | sessions opened per s ¹ |', '|---|---:|---:|---:|---:|']
  for (const id of result.contenders) {
    const row = rows[id]
    lines.push(`| ${SESSION_LABELS[id]} | **${f(row.rssPerSession, 0)} B** | ${f(row.heapPerSession, 0)} B | ${mb(row.rss)} | ${f(row.openPerSecond, 0)} |`)
  }
  return lines
}

/** The summaries of one load generator's run: its load scenarios, and the others (no load generator). */
function summariesOf (run, load) {
  const summaries = {}
  for (const result of run.results) if (result.kind !== 'load' || result.load === load) summaries[result.scenario] = summarize(result)
  return summaries
}

export function report (run) {
  const { machine: m, options: o, pinning } = run
  const loads = [...new Set(run.results.filter((r) => r.kind === 'load').map((r) => r.load))]
  const byLoad = Object.fromEntries(loads.map((load) => [load, summariesOf(run, load)]))
  const anyLoad = summariesOf(run, undefined)

  const out = []
  out.push(`Run of ${run.date.slice(0, 16).replace('T', ' ')} UTC${o.smoke ? ' (smoke: not a measurement)' : ''}`)
  out.push('')
  out.push(`- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}`)
  const build = o.sake === undefined ? `at ${m.commit}` : `built in ${relative(ROOT, o.sake)} (--sake)`
  out.push(`- Node ${m.node}; fastify ${m.fastify}; fastify-sake ${m.sake} ${build}; @modelcontextprotocol/server ${m.sdk}; load generators: autocannon ${m.autocannon}, wrk ${m.wrk}`)
  if (run.results.some((r) => r.scenario === 'fleet')) out.push(`- fleet: HAProxy ${m.haproxy}, redis-server ${m.redis}`)
  if (o.compare !== undefined) out.push(`- compare-*: the build in ${relative(ROOT, o.compare)} (--compare)`)
  out.push(`- ${o.rounds} round(s) × ${o.duration} s per contender (after ${o.warmup} s of warm-up), ${o.connections} connections; fresh processes each round, contenders taking turns in ${o.slice} s slices; ` +
    (pinning ? `server on core ${pinning.server}, load generator on core ${pinning.load} (taskset)` : 'no core pinning') +
    (pinning && run.results.some((r) => r.scenario === 'fleet') ? `; fleet: HAProxy, every process of the contender and redis-server together on core ${pinning.server} (two cores allow no cleaner split)` : ''))
  if (o.nodeFlags.length > 0) out.push(`- every server's node ran with ${o.nodeFlags.map((flag) => `\`${flag}\``).join(' ')} (--node-flags)`)
  const noisy = [...new Set(run.results.filter((r) => r.rounds.some((round) => round.noisy)).map((r) => r.scenario))]
  if (noisy.length > 0) out.push(`- Other processes used more than ${o.maxNoise} of a core during some slices of: ${noisy.join(', ')} (kept after ${o.retries} retries)`)
  out.push('')
  out.push('### Targets')
  out.push('')
  out.push('| target | load generator | measured | met |')
  out.push('|---|---|---|---|')
  for (const target of TARGETS) {
    const generators = SCENARIOS[target.scenario].kind === 'load' ? loads.map((load) => [load, byLoad[load]]) : [['–', anyLoad]]
    for (const [load, summaries] of generators) {
      if (summaries[target.scenario] === undefined) continue
      const { measured, met } = judge(target, summaries)
      out.push(`| ${target.text} | ${load} | ${measured} | ${met === undefined ? 'n/a' : met ? 'yes' : '**no**'} |`)
    }
  }
  for (const result of run.results) {
    const rows = summarize(result)
    const def = SCENARIOS[result.scenario]
    const title = def.title.replace('{n}', thousands(result.tools ?? result.sessions))
    out.push('')
    out.push(`### ${result.scenario}: ${title}${result.kind === 'load' ? ` — ${result.load}` : ''}`)
    out.push('')
    const lines = result.kind === 'load' ? loadTable(result, rows) : result.kind === 'startup' ? startupTable(result, rows) : sessionsTable(result, rows)
    out.push(...lines)
    if (result.scenario === 'fleet') out.push('', ...fleetLines(result))
  }
  out.push('')
  out.push('¹ Absolute numbers depend on the machine (and on what else ran on it); compare the ratios, each taken against the baseline of the same round.  ')
  out.push('² CPU used during the measured seconds, in cores: a server near 1.00 was the bottleneck, as it should be; a load generator near 1.00 would mean the load generator was.')
  return out.join('\n')
}

/**
 * Replaces the generated block `name` of RESULTS.md (between `<!-- bench:NAME:start -->` and
 * `<!-- bench:NAME:end -->`; `results` for the main one, `fleet` for the fleet's), keeping the
 * notes written around it; a block not there yet is added at the end.
 */
export function writeResults (path, table, name = 'results') {
  const START = `<!-- bench:${name}:start -->`
  const END = `<!-- bench:${name}:end -->`
  const block = `${START}\n${table}\n${END}`
  if (existsSync(path)) {
    const text = readFileSync(path, 'utf8')
    const start = text.indexOf(START)
    const end = text.indexOf(END)
    if (start !== -1 && end > start) {
      writeFileSync(path, text.slice(0, start) + block + text.slice(end + END.length))
      return
    }
    writeFileSync(path, text.trimEnd() + '\n\n' + block + '\n')
    return
  }
  writeFileSync(path, `# Benchmark results\n\nWritten by \`npm run bench\` (see bench/README.md); the notes after the table are kept between runs.\n\n${block}\n`)
}
