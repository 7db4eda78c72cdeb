// What importing the package costs, beside the official SDK's server package and Fastify alone
// (issue 41): `node bench/import.mjs [--runs 15] [--modules] [--instructions] [--sake DIR]
// [--compare DIR]`, after `npm run build`.
//
// Every measurement is a fresh `node` process (nothing cached by a previous import), started with
// `-e` from the repository's root, so `fastify-sake` is the built package (dist/, by its own
// name) and `@modelcontextprotocol/server` the devDependency. Each case reports:
//
// - import: inside the child, around the one dynamic `import()` measured (for "after fastify",
//   fastify is imported first and only the import after it is timed): wall time
//   (`process.hrtime`), and CPU time (`process.cpuUsage`, every thread of the process), which a
//   busy machine inflates less than the wall;
// - process: the child's whole life, minus a bare `node -e ''`'s: wall as the parent sees it
//   (spawn to exit), and the CPU the child used by its end: what a user's process pays;
// - a first answer: the import, `register`, one tool, `ready` and a tools/call through `inject`,
//   timed together, so that what loads later than the import (ajv at the tool's registration)
//   is counted too.
//
// `--instructions` also counts each case's user-space instructions, once, under valgrind's
// callgrind (node `--single-threaded`), minus a bare node's: a count the machine's load does not
// move (about half a minute per case).
//
// `--compare DIR` adds another build (a dist/ directory inside the repository, e.g. one built from
// an earlier commit into bench/profiles/) to the same turns, for a before and after.
//
// The cases run in turns (case A, B, C, then again), so that what drifts on the machine falls on
// all of them alike; median and p90 over the runs. `--modules` adds what loads: the packages
// reached from dist/index.js with how many files of each load (an ESM resolve hook for ES
// modules, `require.cache` for CommonJS), and each directly imported package's own cost, timed
// alone after fastify (the packages share little, so the costs roughly add up).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    modules: { type: 'boolean', default: false },
    sake: { type: 'string' },
    compare: { type: 'string' },
    instructions: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false }
  }
})
if (args.help) {
  process.stdout.write('node bench/import.mjs [--runs N] [--modules] [--instructions] [--sake DIR] [--compare DIR]\n  --sake DIR: another build (a dist/ directory inside the repository) instead of fastify-sake\n  --compare DIR: another build measured beside it\n')
  process.exit(0)
}
const runs = Number(args.runs)
const build = (dir) => pathToFileURL(join(resolve(dir), 'index.js')).href
const sake = args.sake === undefined ? 'fastify-sake' : build(args.sake)
if (args.sake === undefined && !existsSync(join(root, 'dist/index.js'))) {
  process.stderr.write('dist/index.js is missing: run `npm run build` first\n')
  process.exit(1)
}

/** What every child prints last: the process's CPU so far (every thread: startup, loading, GC). */
const TOTAL = 'const used = process.cpuUsage()\nconst total = (used.user + used.system) / 1000'

/** The child's program: runs `before` untimed, then times `body` (wall and CPU). */
function timed (body, before = []) {
  return [
    ...before,
    'const c0 = process.cpuUsage()',
    'const t0 = process.hrtime.bigint()',
    ...body,
    'const ms = Number(process.hrtime.bigint() - t0) / 1e6',
    'const spent = process.cpuUsage(c0)',
    TOTAL,
    'process.stdout.write(JSON.stringify({ ms, cpu: (spent.user + spent.system) / 1000, total }))'
  ].join('\n')
}

/** Imports `before` untimed, then times the import of `measured`. */
function program (measured, before = []) {
  return timed([`await import(${JSON.stringify(measured)})`], before.map((spec) => `await import(${JSON.stringify(spec)})`))
}

/**
 * A first answer: fastify imported untimed, then the package's import, `register`, one tool,
 * `ready` and a 2026-07-28 tools/call through `inject`, timed together: what loads later than the
 * import (ajv at the tool's registration, say) is in this one.
 */
function firstAnswer (measured) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
  const payload = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 }, _meta: meta } }
  const headers = { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' }
  return timed([
    `const { default: sake, Type } = await import(${JSON.stringify(measured)})`,
    'const app = Fastify()',
    "await app.register(sake, { name: 'bench', version: '1.0.0' })",
    "app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => ({ sum: a + b }) })",
    `const res = await app.inject({ method: 'POST', url: '/mcp', headers: ${JSON.stringify(headers)}, payload: ${JSON.stringify(payload)} })`,
    'if (res.statusCode !== 200) throw new Error(res.body)'
  ], ["const { default: Fastify } = await import('fastify')"])
}

const CASES = [
  { id: 'node', what: "bare `node -e ''` (its own process)", code: `${TOTAL}\nprocess.stdout.write(JSON.stringify({ total }))` },
  { id: 'fastify', what: "`import('fastify')`", code: program('fastify') },
  { id: 'sdk', what: "`import('@modelcontextprotocol/server')` (the official SDK's server, 2.4.0)", code: program('@modelcontextprotocol/server') },
  { id: 'sake', what: "`import('fastify-sake')`", code: program(sake) },
  { id: 'sake-over-fastify', what: "`import('fastify-sake')` after `import('fastify')`: what the plugin adds to a Fastify service", code: program(sake, ['fastify']) },
  { id: 'sake-first-answer', what: "after `import('fastify')`: `import('fastify-sake')`, register, one tool, ready, a tools/call answered (inject)", code: firstAnswer(sake) }
]
if (args.compare !== undefined) {
  const other = build(args.compare)
  CASES.push(
    { id: 'compare', what: `\`import()\` of ${args.compare}`, code: program(other) },
    { id: 'compare-over-fastify', what: `\`import()\` of ${args.compare} after \`import('fastify')\``, code: program(other, ['fastify']) },
    { id: 'compare-first-answer', what: `${args.compare}: the same first answer`, code: firstAnswer(other) }
  )
}

/** One fresh process: what it printed (its timings), and its whole life as seen from here (ms). */
function once (code, flags = []) {
  const t0 = process.hrtime.bigint()
  const child = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' })
  const wall = Number(process.hrtime.bigint() - t0) / 1e6
  if (child.status !== 0) throw new Error(`the child failed (${child.status}): ${child.stderr}`)
  return { ...JSON.parse(child.stdout), wall, stderr: child.stderr }
}

function quantile (values, q) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
}
const f = (ms) => ms === undefined ? '—' : ms.toFixed(1)

const KEYS = ['ms', 'cpu', 'wall', 'total']
const samples = new Map(CASES.map((c) => [c.id, Object.fromEntries(KEYS.map((key) => [key, []]))]))
for (let run = 0; run < runs; run++) {
  // each run starts at another case, so that no case always follows the same one
  for (let i = 0; i < CASES.length; i++) {
    const c = CASES[(i + run) % CASES.length]
    const measured = once(c.code)
    for (const key of KEYS) if (measured[key] !== undefined) samples.get(c.id)[key].push(measured[key])
  }
}

const bare = samples.get('node')
const cell = (values, minus = 0) => values.length === 0 ? '—' : `${f(quantile(values, 0.5) - minus)} (${f(quantile(values, 0.9) - minus)})`
const lines = [
  `Node ${process.version}, ${runs} fresh processes per case, in turns; ms, median (p90). Import: around the \`import()\` in the child (wall, and CPU of every thread); process: its whole life, minus bare node's median (wall from the parent, CPU at its end).`,
  '',
  '| case | import, wall | import, CPU | process over bare node, wall | process over bare node, CPU |',
  '|---|---|---|---|---|'
]
for (const c of CASES) {
  const s = samples.get(c.id)
  if (c.id === 'node') lines.push(`| ${c.what} | — | — | ${cell(s.wall)} | ${cell(s.total)} |`)
  else lines.push(`| ${c.what} | ${cell(s.ms)} | ${cell(s.cpu)} | ${cell(s.wall, quantile(bare.wall, 0.5))} | ${cell(s.total, quantile(bare.total, 0.5))} |`)
}
process.stdout.write(lines.join('\n') + '\n')

if (args.instructions) instructions()
if (args.modules) modules()

/** Each case once under callgrind: its instructions, minus a bare node's (millions). */
function instructions () {
  const dir = mkdtempSync(join(tmpdir(), 'sake-import-'))
  const counts = new Map()
  for (const c of CASES) {
    const child = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${join(dir, c.id)}`, process.execPath, '--single-threaded', '--input-type=module', '-e', c.code], { cwd: root, encoding: 'utf8' })
    if (child.status !== 0) throw new Error(`valgrind failed (${child.status}): ${child.stderr}`)
    counts.set(c.id, Number(/Collected : (\d+)/.exec(child.stderr)[1]) / 1e6)
  }
  rmSync(dir, { recursive: true, force: true })
  const bare = counts.get('node')
  const out = ['', `Instructions (callgrind, node --single-threaded, one process per case), millions, the whole process minus bare node's (${bare.toFixed(0)}):`, '', '| case | instructions over bare node |', '|---|---|']
  for (const c of CASES) if (c.id !== 'node') out.push(`| ${c.what} | ${Math.round(counts.get(c.id) - bare)} |`)
  process.stdout.write(out.join('\n') + '\n')
}

/**
 * What `import('fastify-sake')` loads, by package, and the cost of each package dist/ imports
 * directly, timed alone after fastify; "fastify-sake's own modules" is dist/ with every one of
 * those packages already loaded.
 */
function modules () {
  const hook = `data:text/javascript,${encodeURIComponent(`
    import { writeSync } from 'node:fs'
    export async function resolve (specifier, context, next) {
      const found = await next(specifier, context)
      writeSync(2, JSON.stringify({ specifier, url: found.url, parent: context.parentURL }) + '\\n')
      return found
    }`)}`
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)})`)}`
  const code = `await import(${JSON.stringify(sake)})
    const { createRequire } = await import('node:module')
    process.stdout.write(JSON.stringify({ cjs: Object.keys(createRequire(import.meta.url).cache) }))`
  const child = spawnSync(process.execPath, ['--import', register, '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' })
  if (child.status !== 0) throw new Error(child.stderr)
  const resolved = child.stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line))
  const files = new Set([...resolved.map((r) => r.url).filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url)), ...JSON.parse(child.stdout).cjs])
  const ours = (path) => !path.includes('/node_modules/')
  const packageOf = (path) => ours(path) ? 'fastify-sake' : path.split('/node_modules/').pop().split('/').slice(0, path.split('/node_modules/').pop().startsWith('@') ? 2 : 1).join('/')
  const counts = new Map()
  for (const file of files) counts.set(packageOf(file), (counts.get(packageOf(file)) ?? 0) + 1)
  // the packages dist/ imports itself, by the specifiers it uses
  const direct = new Map()
  for (const r of resolved) {
    if (r.parent === undefined || !r.url.startsWith('file:') || !ours(fileURLToPath(r.parent)) || r.parent.includes('[eval')) continue
    const path = fileURLToPath(r.url)
    if (ours(path)) continue
    const name = packageOf(path)
    if (!direct.has(name)) direct.set(name, new Set())
    direct.get(name).add(r.specifier)
  }
  const rows = []
  const median = (c) => {
    const times = []
    for (let i = 0; i < runs; i++) times.push(once(c).ms)
    return quantile(times, 0.5)
  }
  for (const [name, specifiers] of direct) {
    const list = [...specifiers]
    const code = timed(list.map((s) => `await import(${JSON.stringify(s)})`), ["await import('fastify')"])
    rows.push({ name, what: list.map((s) => `\`${s}\``).join(', '), files: counts.get(name), ms: median(code) })
  }
  const all = [...direct.values()].flatMap((s) => [...s])
  rows.push({ name: 'fastify-sake', what: "the package's own modules (dist/), its packages already loaded", files: counts.get('fastify-sake'), ms: median(program(sake, ['fastify', ...all])) })
  rows.sort((a, b) => b.ms - a.ms)
  const out = [
    '',
    `What \`import('fastify-sake')\` loads: ${files.size} files. Each package dist/ imports, timed alone after \`import('fastify')\` (ms, median of ${runs}):`,
    '',
    '| package | imported as | files loaded | ms |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.name} | ${r.what} | ${r.files} | ${f(r.ms)} |`)
  ]
  const indirect = [...counts].filter(([name]) => name !== 'fastify-sake' && !direct.has(name))
  if (indirect.length > 0) out.push('', `Loaded by those packages: ${indirect.map(([name, n]) => `${name} (${n})`).join(', ')}`)
  process.stdout.write(out.join('\n') + '\n')
}
