// The load generator of one contender, as its own process (the runner pins it to another core
// than the servers) driven over IPC: `{ type: 'run', duration }` runs autocannon (in this process)
// or wrk (a child process, `generator: 'wrk'`, bench/wrk.mjs) against the contender for that long and answers with the slice's numbers; `commit` keeps the slice (its
// response times count in the percentiles), `discard` drops it (a warm-up, or a noisy slice);
// `finish` answers with the totals of the kept slices and ends the process.
//
// The request is fixed at start (`node bench/load.mjs '<json>'` with { url, method, headers,
// body, connections, expectBody, generator }). Latency percentiles are computed from every response time with autocannon (its own histogram keeps whole milliseconds, too coarse
// here), and from wrk's microsecond histogram (1,000 quantiles a slice, weighted by its requests).
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { normalizeSse } from './verify.mjs'
import { runWrk, wrkFiles } from './wrk.mjs'

const config = JSON.parse(process.argv[2])

class Latencies {
  constructor () {
    this.values = new Float64Array(1 << 16)
    this.count = 0
  }

  add (ms) {
    if (this.count === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2)
      bigger.set(this.values)
      this.values = bigger
    }
    this.values[this.count++] = ms
  }

  addAll (other) {
    for (let i = 0; i < other.count; i++) this.add(other.values[i])
  }

  percentiles (...ps) {
    const sorted = this.values.subarray(0, this.count).sort()
    return ps.map((p) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)])
  }
}

/** wrk's latencies: quantiles, each standing for `weight` responses. */
class WeightedLatencies {
  constructor () {
    this.values = []
    this.count = 0
  }

  addQuantiles (quantiles, requests) {
    const weight = requests / quantiles.length
    for (const ms of quantiles) this.values.push([ms, weight])
    this.count += requests
  }

  addAll (other) {
    for (const entry of other.values) this.values.push(entry)
    this.count += other.count
  }

  percentiles (...ps) {
    const sorted = this.values.slice().sort((a, b) => a[0] - b[0])
    return ps.map((p) => {
      let seen = 0
      for (const [ms, weight] of sorted) {
        seen += weight
        if (seen >= p / 100 * this.count) return ms
      }
      return NaN
    })
  }
}

const WRK = config.generator === 'wrk'
const wrkDir = WRK ? wrkFiles(config) : undefined
const newLatencies = () => WRK ? new WeightedLatencies() : new Latencies()

/** CPU time of this process, with its children that ended (wrk), in seconds; /proc only. */
function childCpu () {
  try {
    const text = readFileSync('/proc/self/stat', 'utf8')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[13]) + Number(fields[14])) / 100
  } catch {
    return NaN
  }
}

const kept = { latencies: newLatencies(), seconds: 0, cpu: 0, bad: { non2xx: 0, errors: 0, timeouts: 0, mismatches: 0 } }
let pending

/** One slice: autocannon (or wrk) against the contender's URL. */
async function slice (duration) {
  const latencies = newLatencies()
  const cpuBefore = process.cpuUsage()
  const childBefore = childCpu()
  const started = process.hrtime.bigint()
  const part = await (WRK ? oneWrk : one)(config.url, config.connections, duration, latencies)
  // wrk reports the seconds it loaded for (it also takes a moment to start and to stop)
  const seconds = WRK ? part.seconds : Number(process.hrtime.bigint() - started) / 1e9
  const cpu = process.cpuUsage(cpuBefore)
  const bad = { non2xx: 0, errors: 0, timeouts: 0, mismatches: 0 }
  for (const key of Object.keys(bad)) bad[key] += part[key]
  // with wrk, the load generator's CPU is wrk's (a child that has ended by now), not this process's
  return { latencies, seconds, cpu: WRK ? childCpu() - childBefore : (cpu.user + cpu.system) / 1e6, bad }
}

async function oneWrk (url, connections, duration, latencies) {
  const r = await runWrk(wrkDir, url, connections, duration)
  latencies.addQuantiles(r.quantiles, r.requests)
  return r
}

function one (url, connections, duration, latencies) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({
      url,
      method: config.method,
      headers: config.headers,
      body: config.body,
      connections,
      pipelining: 1,
      duration,
      // every answer is compared with the bytes checked before the load: a contender that starts
      // answering differently (an error, another result) counts a mismatch, and the run fails
      ...(config.sse
        ? { verifyBody: (body) => normalizeSse(body) === config.expectBody }
        : { expectBody: config.expectBody })
    }, (err, result) => {
      if (err) return reject(err)
      resolve({ non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, mismatches: result.mismatches })
    })
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.add(responseTime))
  })
}

process.on('message', async (message) => {
  switch (message.type) {
    case 'run': {
      pending = await slice(message.duration)
      const [p50, p99] = pending.latencies.percentiles(50, 99)
      process.send({ type: 'slice', rps: pending.latencies.count / pending.seconds, requests: pending.latencies.count, seconds: pending.seconds, p50, p99, loadCpu: pending.cpu / pending.seconds, bad: pending.bad })
      break
    }
    case 'commit':
      kept.latencies.addAll(pending.latencies)
      kept.seconds += pending.seconds
      kept.cpu += pending.cpu
      for (const key of Object.keys(kept.bad)) kept.bad[key] += pending.bad[key]
      pending = undefined
      process.send({ type: 'ok' })
      break
    case 'discard':
      pending = undefined
      process.send({ type: 'ok' })
      break
    case 'finish': {
      const [p50, p99] = kept.latencies.percentiles(50, 99)
      process.send({
        type: 'total',
        rps: kept.latencies.count / kept.seconds,
        requests: kept.latencies.count,
        seconds: kept.seconds,
        p50,
        p99,
        // the load generator's own CPU, in cores: near 1 means it, not the server, was the limit
        loadCpu: kept.cpu / kept.seconds,
        ...kept.bad
      }, () => process.exit(0))
      break
    }
  }
})
process.on('disconnect', () => process.exit(0))
process.send({ type: 'ready', pid: process.pid })
