// Opens 2025 sessions against a server, as its own process:
// `node bench/sessions-client.mjs '<json>'` with { url, count, concurrency, end } opens `count`
// sessions (initialize, then notifications/initialized, as the clients do) and, with `end`, ends
// them all again with DELETE. Prints one JSON line: { ids: [first, last], ms, failures }.
import http from 'node:http'
import { initializeRequest, initializedNotification, sessionHeaders } from './workloads.mjs'

const config = JSON.parse(process.argv[2])
const url = new URL(config.url)
const agent = new http.Agent({ keepAlive: true, maxSockets: config.concurrency ?? 50 })

function post (headers, body, method = 'POST') {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, headers, agent }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode, sessionId: res.headers['mcp-session-id'] }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function open (i) {
  const init = initializeRequest(i)
  const answer = await post(init.headers, init.body)
  if (answer.status !== 200 || answer.sessionId === undefined) throw new Error(`initialize answered ${answer.status}`)
  const done = await post(sessionHeaders(answer.sessionId), initializedNotification())
  if (done.status !== 202) throw new Error(`notifications/initialized answered ${done.status}`)
  return answer.sessionId
}

const started = process.hrtime.bigint()
const ids = []
let failures = 0
/** Runs `task(i)` for i in [0, count) on `concurrency` connections. */
async function pool (count, task) {
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      try {
        await task(i)
      } catch {
        failures++
      }
    }
  }
  await Promise.all(Array.from({ length: config.concurrency ?? 50 }, worker))
}

await pool(config.count, async (i) => { ids[i] = await open(i) })
if (config.end) {
  // DELETE every session again (the warm-up)
  await pool(config.count, async (i) => {
    const { 'content-type': _, ...headers } = sessionHeaders(ids[i])
    const answer = await post(headers, undefined, 'DELETE')
    if (answer.status >= 300) throw new Error(`DELETE answered ${answer.status}`)
  })
}
const ms = Number(process.hrtime.bigint() - started) / 1e6
agent.destroy()
process.stdout.write(JSON.stringify({ ids: [ids[0], ids[ids.length - 1]], ms, failures }) + '\n')
