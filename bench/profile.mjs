#!/usr/bin/env node
// Reads a V8 CPU profile (`node --cpu-prof`, or `npm run bench -- --profile`) and prints where the
// time went: the functions with the most self time, and the most inclusive time spent under
// fastify-sake's own code. `--folded FILE` also writes folded stacks, the input of flamegraph.pl,
// speedscope or inferno, for a flame graph.
//
//   node bench/profile.mjs bench/profiles/call-sake-modern-r1.cpuprofile [--top 25] [--folded out.folded]
import { readFileSync, writeFileSync } from 'node:fs'
import { relative } from 'node:path'
import { ROOT } from './processes.mjs'

const args = process.argv.slice(2)
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a) && args[args.indexOf(a) - 1] !== '--folded')
if (file === undefined) {
  process.stderr.write('usage: node bench/profile.mjs PROFILE.cpuprofile [--top N] [--folded OUT]\n')
  process.exit(1)
}
const top = Number(args[args.indexOf('--top') + 1]) || 25
const foldedOut = args.includes('--folded') ? args[args.indexOf('--folded') + 1] : undefined

const profile = JSON.parse(readFileSync(file, 'utf8'))
const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

// sample counts -> time per node (timeDeltas are per sample, in microseconds)
const self = new Map()
let total = 0
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0
  self.set(id, (self.get(id) ?? 0) + dt)
  total += dt
})

function where (frame) {
  const url = frame.url.replace(/^file:\/\//, '')
  const short = url === '' ? '' : url.startsWith(ROOT) ? relative(ROOT, url) : url
  return short === '' ? '' : `${short}:${frame.lineNumber + 1}`
}

function label (n) {
  const f = n.callFrame
  const name = f.functionName || '(anonymous)'
  const at = where(f)
  return at === '' ? name : `${name} ${at}`
}

const bySelf = new Map()
const byInclusive = new Map()
const folded = new Map()
for (const [id, time] of self) {
  let n = nodes.get(id)
  if (n.callFrame.functionName === '(idle)') continue
  bySelf.set(label(n), (bySelf.get(label(n)) ?? 0) + time)
  const stack = []
  const seen = new Set()
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(nodes.get(cur))
    stack.push(l)
    // inclusive: count each function once per sample, however deep its recursion
    if (!seen.has(l)) {
      seen.add(l)
      byInclusive.set(l, (byInclusive.get(l) ?? 0) + time)
    }
  }
  n = stack.reverse().join(';')
  folded.set(n, (folded.get(n) ?? 0) + time)
}

// percentages are of the busy time: a server waiting for the next request is idle, not slow
let idle = 0
for (const [id, time] of self) if (nodes.get(id).callFrame.functionName === '(idle)') idle += time
const busy = total - idle
const pct = (t) => `${(100 * t / busy).toFixed(1).padStart(5)}%`
const special = [...bySelf].filter(([l]) => l === '(program)' || l === '(garbage collector)')

process.stdout.write(`${file}: ${(total / 1e6).toFixed(2)} s sampled, ${(busy / 1e6).toFixed(2)} s busy (percentages below are of the busy time)\n`)
process.stdout.write(`  ${special.map(([l, t]) => `${l} ${pct(t).trim()}`).join(', ')}\n\nself time\n`)
for (const [l, t] of [...bySelf].filter(([l]) => l !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(t)}  ${l}\n`)
process.stdout.write('\ninclusive time, fastify-sake code (dist/)\n')
for (const [l, t] of [...byInclusive].filter(([l]) => / (bench\/profiles\/)?dist[^/ ]*\//.test(l)).sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(t)}  ${l}\n`)

if (foldedOut !== undefined) {
  writeFileSync(foldedOut, [...folded].map(([stack, t]) => `${stack.replaceAll(' ', '_')} ${Math.round(t)}`).join('\n') + '\n')
  process.stdout.write(`\nfolded stacks written to ${foldedOut}\n`)
}
