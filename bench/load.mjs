// The load generator of one contender, as its own process (the runner pins it to another core
// than the servers) driven over IPC: `{ type: 'run', duration }` runs autocannon against the
// contender for that long and answers with the slice's numbers; `commit` keeps the slice (its
// response times count in the percentiles), `discard` drops it (a warm-up, or a noisy slice);
// `finish` answers with the totals of the kept slices and ends the process.
//
// The request is fixed at start (`node bench/load.mjs '<json>'` with { url (or urls, a fleet's),
// method, headers, body, connections, expectBody }). Latency percentiles are computed from every response time:
// autocannon's own histogram keeps whole milliseconds, too coarse here.
import autocannon from 'autocannon'
import { normalizeSse } from './verify.mjs'

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

const kept = { latencies: new Latencies(), seconds: 0, cpu: 0, bad: { non2xx: 0, errors: 0, timeouts: 0, mismatches: 0 } }
let pending

/**
 * One slice: autocannon against the contender's URL, or, for a fleet (`urls`), one autocannon per
 * instance at once, the connections split between them, their numbers added up.
 */
async function slice (duration) {
  const urls = config.urls ?? [config.url]
  const latencies = new Latencies()
  const cpuBefore = process.cpuUsage()
  const started = process.hrtime.bigint()
  const parts = await Promise.all(urls.map((url, i) => one(url, Math.floor(config.connections / urls.length) + (i < config.connections % urls.length ? 1 : 0), duration, latencies)))
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const cpu = process.cpuUsage(cpuBefore)
  const bad = { non2xx: 0, errors: 0, timeouts: 0, mismatches: 0 }
  for (const part of parts) for (const key of Object.keys(bad)) bad[key] += part[key]
  return { latencies, seconds, cpu: (cpu.user + cpu.system) / 1e6, bad }
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
