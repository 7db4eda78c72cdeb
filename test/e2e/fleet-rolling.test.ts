// A rolling restart behind the shipped HAProxy (issue 29, item 3): two example servers on one
// redis-server, each with DRAIN_DELAY (so that /ready answers 503 until HAProxy's check has taken it
// out), restarted in turn (SIGTERM, start again on the same port, then the other) while real
// clients of both eras keep calling through the gateway: 2026-07-28 calls, 2025 session calls, and
// 2025 streamed calls long enough to be cut by a restart (the v1 SDK resumes them with
// Last-Event-ID, through the gateway, on the other instance). What the clients saw is counted:
// zero failed requests, no 5xx reaching a client, every streamed call's full result.
import t from 'tap'
import { legacyClient, modernClient, startExample, type Running } from '../helpers/clients.js'
import { freePort } from '../helpers/app.js'
import { startHaproxy } from '../helpers/gateways.js'
import { startRedis } from '../helpers/redis.js'
import { sleep, until } from '../helpers/until.js'

interface Tally { ok: number, failed: string[] }

/** A fetch that notes every status a client's transport received and every resumption it sent. */
function watching (): { fetch: typeof fetch, statuses: number[], resumptions: number } {
  const seen = { statuses: [] as number[], resumptions: 0 }
  const f = async (input: any, init?: any): Promise<Response> => {
    if (new Headers(init?.headers).has('last-event-id')) seen.resumptions++
    const response = await fetch(input, init)
    seen.statuses.push(response.status)
    return response
  }
  return { fetch: f as typeof fetch, get statuses () { return seen.statuses }, get resumptions () { return seen.resumptions } }
}

t.test('a rolling restart under load of both eras through HAProxy: zero failed requests, cut streams resumed', async (t) => {
  const redis = await startRedis(t)
  const ports = [await freePort(), await freePort()] as const
  const env = (port: number): Record<string, string> => ({ PORT: String(port), REDIS_URL: redis.url, MCP_STATE_KEY: Buffer.alloc(32, 5).toString('base64'), DRAIN_DELAY: '3000', SESSIONS_PER_CALLER: '10000' })
  const instances: Running[] = [await startExample(env(ports[0])), await startExample(env(ports[1]))]
  t.teardown(async () => { for (const instance of instances) await instance.stop() })
  const gateway = await startHaproxy(t, { a: `127.0.0.1:${ports[0]}`, b: `127.0.0.1:${ports[1]}` })
  const url = new URL(gateway.url)

  const seen = watching()
  const transport = { fetch: seen.fetch }
  const modern = await Promise.all([1, 2].map(async (n) => (await modernClient(t, url, { name: `modern-${n}`, version: '1' }, { transport })).client))
  const legacy = await Promise.all([1, 2, 3].map(async (n) => (await legacyClient(t, url, { name: `legacy-${n}`, version: '1' }, { transport: { ...transport, reconnectionOptions: { initialReconnectionDelay: 200, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 20 } } })).client))

  let running = true
  const tallies: Record<string, Tally> = { modern: { ok: 0, failed: [] }, legacy: { ok: 0, failed: [] }, streamed: { ok: 0, failed: [] } }
  const loop = async (tally: Tally, call: (n: number) => Promise<void>): Promise<void> => {
    // eslint-disable-next-line no-unmodified-loop-condition -- set false by the test while the loops await
    for (let n = 0; running; n++) {
      try {
        await call(n)
        tally.ok++
      } catch (err) {
        tally.failed.push((err as Error).message)
      }
    }
  }
  const loads = [
    ...modern.map(async (client) => await loop(tallies.modern!, async (n) => {
      const result: any = await client.callTool({ name: 'add', arguments: { a: n, b: 1 } })
      if (result.structuredContent?.sum !== n + 1) throw new Error(`add answered ${JSON.stringify(result)}`)
    })),
    ...legacy.slice(0, 2).map(async (client) => await loop(tallies.legacy!, async (n) => {
      const result: any = await client.callTool({ name: 'echo', arguments: { text: `m${n}` } })
      if (result.content?.[0]?.text !== `m${n}`) throw new Error(`echo answered ${JSON.stringify(result)}`)
    })),
    // 2 s calls streaming their progress: each restart cuts some of them
    loop(tallies.streamed!, async () => {
      const progress: number[] = []
      const result: any = await legacy[2]!.callTool({ name: 'count', arguments: { to: 5, delayMs: 400 } }, undefined, { onprogress: (p) => progress.push(p.progress), timeout: 30_000 })
      if (result.structuredContent?.counted !== 5 || result.structuredContent.cancelled !== false) throw new Error(`count answered ${JSON.stringify(result)}`)
    })
  ]

  await sleep(2000) // the point: a stretch of steady load before the first restart
  t.comment(`load running: ${JSON.stringify(Object.fromEntries(Object.entries(tallies).map(([k, v]) => [k, v.ok])))}`)
  const before = { modern: tallies.modern!.ok, legacy: tallies.legacy!.ok }
  for (const i of [0, 1]) {
    const stopped = Date.now()
    const exited = instances[i]!.stop({ killAfter: 30_000 })
    // draining: its readiness turns 503 while it still serves, for HAProxy's check to take it out
    await until(async () => (await fetch(`http://127.0.0.1:${ports[i]}/ready`)).status === 503, { what: `instance ${i} draining`, timeout: 2000, interval: 50 })
    t.ok(Date.now() - stopped < 2000, `instance ${i}: /ready answered 503 at once`)
    t.equal(await exited, null, `instance ${i} drained, closed and exited on SIGTERM (${Date.now() - stopped} ms)`)
    t.comment(`instance ${i} stopped: ${JSON.stringify(Object.fromEntries(Object.entries(tallies).map(([k, v]) => [k, v.ok])))}`)
    instances[i] = await startExample(env(ports[i]!))
    // back in the pool: HAProxy's check (every second) reads its /ready
    await until(async () => (await fetch(`http://127.0.0.1:${ports[i]}/ready`)).ok, { what: `instance ${i} ready`, timeout: 10_000, interval: 200 })
    await sleep(2500) // for HAProxy's checks to take it back: its view of the pool is not visible from here
  }
  running = false
  await Promise.all(loads)

  t.comment(`clients saw: ${JSON.stringify(Object.fromEntries(Object.entries(tallies).map(([k, v]) => [k, { ok: v.ok, failed: v.failed.length }])))}, ${seen.resumptions} resumption(s)`)
  for (const [kind, tally] of Object.entries(tallies)) t.same(tally.failed, [], `${kind}: no request failed`)
  t.ok(tallies.modern!.ok > before.modern + 20, `2026-07-28 calls went on through the restarts (${tallies.modern!.ok})`)
  t.ok(tallies.legacy!.ok > before.legacy + 20, `2025 session calls went on through the restarts (${tallies.legacy!.ok})`)
  t.ok(tallies.streamed!.ok >= 5, `streamed calls answered in full (${tallies.streamed!.ok})`)
  t.ok(seen.resumptions >= 1, `at least one stream cut by a restart was resumed through the gateway (${seen.resumptions})`)
  t.same(seen.statuses.filter((status) => status >= 500), [], 'no 5xx reached a client: the gateway resent every refusal')
})
