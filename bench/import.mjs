// What importing the package costs, beside the official SDK's server package and Fastify alone
// (issue 41): `node bench/import.mjs [--runs 15] [--modules] [--sake DIR]`, after `npm run build`.
//
// Every measurement is a fresh `node` process (nothing cached by a previous import), started with
// `-e` from the repository's root, so `fastify-sake` is the built package (dist/, by its own
// name) and `@modelcontextprotocol/server` the devDependency. Each case reports two times:
//
// - import: `process.hrtime` inside the child, around the one dynamic `import()` measured (for
//   "over fastify", fastify is imported first and only the import after it is timed);
// - process: the child's whole life as the parent sees it (spawn to exit), beside a bare
//   `node -e ''`, whose difference is what a user's process pays for the import.
//
// The cases run in turns (case A, B, C, then again), so that what drifts on the machine falls on
// all of them alike; median and p90 over the runs. `--modules` adds what loads: the packages
// reached from dist/index.js with how many files of each load (an ESM resolve hook for ES
// modules, `require.cache` for CommonJS), and each directly imported package's own cost, timed
// alone after fastify (the packages share little, so the costs roughly add up).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    modules: { type: 'boolean', default: false },
    sake: { type: 'string' },
    help: { type: 'boolean', default: false }
  }
})
if (args.help) {
  process.stdout.write('node bench/import.mjs [--runs N] [--modules] [--sake DIR]\n  --sake DIR: another build (a dist/ directory inside the repository) instead of fastify-sake\n')
  process.exit(0)
}
const runs = Number(args.runs)
const sake = args.sake === undefined ? 'fastify-sake' : pathToFileURL(join(resolve(args.sake), 'index.js')).href
if (args.sake === undefined && !existsSync(join(root, 'dist/index.js'))) {
  process.stderr.write('dist/index.js is missing: run `npm run build` first\n')
  process.exit(1)
}

/** The child's program: imports `before` untimed, then times the import of `measured`. */
function program (measured, before = []) {
  if (measured === undefined) return ''
  return [
    ...before.map((spec) => `await import(${JSON.stringify(spec)})`),
    'const t0 = process.hrtime.bigint()',
    `await import(${JSON.stringify(measured)})`,
    'process.stdout.write(JSON.stringify({ ms: Number(process.hrtime.bigint() - t0) / 1e6 }))'
  ].join('\n')
}

const CASES = [
  { id: 'node', what: "bare `node -e ''`", code: program(undefined) },
  { id: 'fastify', what: "`import('fastify')`", code: program('fastify') },
  { id: 'sdk', what: "`import('@modelcontextprotocol/server')` (the official SDK's server, 2.4.0)", code: program('@modelcontextprotocol/server') },
  { id: 'sake', what: "`import('fastify-sake')`", code: program(sake) },
  { id: 'sake-over-fastify', what: "`import('fastify-sake')` after `import('fastify')` (what our plugin adds to a Fastify service)", code: program(sake, ['fastify']) }
]

/** One fresh process: its own import time (ms, when it imports) and its whole life (ms). */
function once (code, flags = []) {
  const t0 = process.hrtime.bigint()
  const child = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' })
  const wall = Number(process.hrtime.bigint() - t0) / 1e6
  if (child.status !== 0) throw new Error(`the child failed (${child.status}): ${child.stderr}`)
  return { ms: child.stdout === '' ? undefined : JSON.parse(child.stdout).ms, wall, stderr: child.stderr }
}

function quantile (values, q) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
}
const f = (ms) => ms === undefined ? '—' : ms.toFixed(1)

const samples = new Map(CASES.map((c) => [c.id, { import: [], wall: [] }]))
for (let run = 0; run < runs; run++) {
  // each run starts at another case, so that no case always follows the same one
  for (let i = 0; i < CASES.length; i++) {
    const c = CASES[(i + run) % CASES.length]
    const { ms, wall } = once(c.code)
    if (ms !== undefined) samples.get(c.id).import.push(ms)
    samples.get(c.id).wall.push(wall)
  }
}

const bare = quantile(samples.get('node').wall, 0.5)
const lines = [
  `Node ${process.version}, ${runs} fresh processes per case, in turns; ms, median (p90)`,
  '',
  '| case | import | process | process over bare node |',
  '|---|---|---|---|'
]
for (const c of CASES) {
  const s = samples.get(c.id)
  const imp = s.import.length === 0 ? '—' : `${f(quantile(s.import, 0.5))} (${f(quantile(s.import, 0.9))})`
  const wall = quantile(s.wall, 0.5)
  lines.push(`| ${c.what} | ${imp} | ${f(wall)} (${f(quantile(s.wall, 0.9))}) | ${c.id === 'node' ? '—' : f(wall - bare)} |`)
}
process.stdout.write(lines.join('\n') + '\n')

if (args.modules) modules()

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
    process.stdout.write(JSON.stringify({ ms: 0, cjs: Object.keys(createRequire(import.meta.url).cache) }))`
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
    const code = ["await import('fastify')", 'const t0 = process.hrtime.bigint()', ...list.map((s) => `await import(${JSON.stringify(s)})`),
      'process.stdout.write(JSON.stringify({ ms: Number(process.hrtime.bigint() - t0) / 1e6 }))'].join('\n')
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
