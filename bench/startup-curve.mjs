// The start-up curve (issue 41): fresh processes registering 10, 100, 1,000 and 10,000 tools (the
// bench's filler tools: the same argument shapes, each with its own descriptions), timed from the
// process's start (the import included) to `listen` resolving, with the RSS once listening.
//
//   node bench/startup-curve.mjs [--compare <dist dir>] [--samples N] [--counts 10,100,1000,10000]
//
// Prints a table of medians per count: ms to listening and MB of RSS, for the package as built in
// dist/ (and for --compare's, e.g. bench/profiles/dist-prev, in the same run, interleaved).
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const args = process.argv.slice(2)
const option = (name, fallback) => { const i = args.indexOf(name); return i === -1 ? fallback : args[i + 1] }
const samples = Number(option('--samples', '5'))
const counts = option('--counts', '10,100,1000,10000').split(',').map(Number)
const compare = option('--compare', undefined)
const builds = [['dist', resolve('dist')], ...(compare ? [['compare', resolve(compare)]] : [])]

const CHILD = `
const t0 = performance.now()
const { default: Fastify } = await import('fastify')
const { default: sake } = await import(process.env.SAKE_INDEX)
const { sakeTools } = await import(process.env.WORKLOADS)
const app = Fastify({ logger: false })
await app.register(sake, { name: 'curve', version: '1.0.0' })
app.registerTool(sakeTools(Number(process.env.COUNT)))
await app.listen({ port: 0, host: '127.0.0.1' })
const ms = performance.now() - t0
const rss = process.memoryUsage().rss
await app.close()
process.stdout.write(JSON.stringify({ ms, rss }))
`

function once (dir, count) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: { ...process.env, SAKE_INDEX: pathToFileURL(`${dir}/index.js`).href, WORKLOADS: pathToFileURL(resolve('bench/workloads.mjs')).href, COUNT: String(count) },
    encoding: 'utf8'
  })
  return JSON.parse(out)
}

const median = (values) => { const sorted = [...values].sort((a, b) => a - b); return sorted[Math.floor(sorted.length / 2)] }

console.log(`start-up: ${samples} fresh processes per build and count, medians (node ${process.version})`)
console.log(['tools', ...builds.flatMap(([name]) => [`${name} ms`, `${name} RSS MB`])].join('\t'))
for (const count of counts) {
  const results = new Map(builds.map(([name]) => [name, []]))
  for (let s = 0; s < samples; s++) for (const [name, dir] of builds) results.get(name).push(once(dir, count))
  const row = [count]
  for (const [name] of builds) {
    const runs = results.get(name)
    row.push(median(runs.map((r) => r.ms)).toFixed(0), (median(runs.map((r) => r.rss)) / 1048576).toFixed(0))
  }
  console.log(row.join('\t'))
}
