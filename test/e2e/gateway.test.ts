// The gateway recipes of docs/gateways.md, "Behind a gateway" (issue 29): the shipped gateway/haproxy.cfg
// and gateway/nginx.conf, run by Debian's haproxy and nginx in front of two example servers on one
// redis-server (REDIS_URL, one MCP_STATE_KEY), every one a child process. Each gateway adds
// X-Served-By (the instance's address), which is how a test knows who answered.
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { legacyClient, modernClient, startExample, type Running } from '../helpers/clients.js'
import { startHaproxy, startNginx, type GatewayKind, type RunningGateway } from '../helpers/gateways.js'
import { legacyPost, open, sessionOn, streamPost, type OpenStream } from '../helpers/network.js'
import { startRedis } from '../helpers/redis.js'
import { modernMeta } from '../helpers/requests.js'

const KEY = Buffer.alloc(32, 29).toString('base64')

let a: Running
let b: Running
const gateways = {} as Record<GatewayKind, RunningGateway>

t.before(async () => {
  const redis = await startRedis(t)
  const env = { REDIS_URL: redis.url, MCP_STATE_KEY: KEY }
  ;[a, b] = await Promise.all([startExample(env), startExample(env)])
  // teardowns run last-in first-out: the gateways, then the instances, then redis
  t.teardown(async () => { await Promise.all([a.stop(), b.stop()]) })
  const instances = { a: a.url.host, b: b.url.host }
  gateways.haproxy = await startHaproxy(t, instances)
  gateways.nginx = await startNginx(t, instances)
})

/** Which instance answered, from the gateway's X-Served-By: 'A', 'B', or undefined (the gateway itself). */
function servedBy (headers: Headers): 'A' | 'B' | undefined {
  // nginx lists every upstream it tried ("x, y"): the last one answered
  const last = headers.get('x-served-by')?.split(', ').at(-1)
  if (last === undefined) return undefined
  if (last === a.url.host) return 'A'
  if (last === b.url.host) return 'B'
  throw new Error(`X-Served-By ${last} is neither instance`)
}

interface Seen { method: string | null, name: string | null, precision: string | null, session: string | null, status: number, served: 'A' | 'B' | undefined }

/** A fetch that notes each request's routing headers and who answered it. */
function recording (): { fetch: typeof fetch, seen: Seen[] } {
  const seen: Seen[] = []
  const f = async (input: any, init?: any): Promise<Response> => {
    const headers = new Headers(init?.headers)
    const response = await fetch(input, init)
    seen.push({
      method: headers.get('mcp-method'),
      name: headers.get('mcp-name'),
      precision: headers.get('mcp-param-precision'),
      session: headers.get('mcp-session-id'),
      status: response.status,
      served: servedBy(response.headers)
    })
    return response
  }
  return { fetch: f as typeof fetch, seen }
}

/** The instances that answered `runs` (deduplicated, sorted). */
function who (runs: Array<{ served: 'A' | 'B' | undefined }>): string[] {
  return [...new Set(runs.map((run) => String(run.served)))].sort()
}

/**
 * `count` to 5, one step every 150 ms, through `call`: the progress as it arrived (ms after the call)
 * and when the result did. An event held back by a gateway (buffered, or sent with more to come
 * and coalesced: 200 ms on Linux) arrives together with the next one.
 */
async function timedCount (call: (args: Record<string, unknown>, onprogress: (p: { progress: number }) => void) => Promise<any>): Promise<{ progress: number[], at: number[], done: number, result: any }> {
  const started = Date.now()
  const progress: number[] = []
  const at: number[] = []
  const result = await call({ to: 5, delayMs: 150 }, (p) => {
    at.push(Date.now() - started)
    progress.push(p.progress)
  })
  return { progress, at, done: Date.now() - started, result }
}

/** Progress that passed as it happened: at least 3 of the 4 gaps between events near the 150 ms between steps (one slow read allowed), the first well before the result. */
function asItHappens (t: Test, timed: { progress: number[], at: number[], done: number, result: any }): void {
  t.same(timed.result.structuredContent, { counted: 5, cancelled: false })
  t.same(timed.progress, [1, 2, 3, 4, 5])
  const gaps = timed.at.slice(1).map((at, i) => at - timed.at[i]!)
  t.ok(gaps.filter((gap) => gap >= 75).length >= 3, `progress arrived at ${timed.at.join(', ')} ms, the result at ${timed.done} ms: each as it happened`)
  t.ok(timed.done - timed.at[0]! >= 300, 'the first progress well before the result')
}

const call = (name: string, args: Record<string, unknown>): { name: string, arguments: Record<string, unknown> } => ({ name, arguments: args })

/** A 2026-07-28 tools/call as streamPost sends it, with `headers` over its own (Mcp-Name included). */
async function callWith (url: string, params: Record<string, unknown>, headers: Record<string, string>): Promise<OpenStream> {
  return await open(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': String(params.name), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: modernMeta() } })
  })
}

for (const kind of ['haproxy', 'nginx'] as const) {
  t.test(`${kind}: a 2026-07-28 client (@modelcontextprotocol/client): calls routed on Mcp-Method + Mcp-Name and on Mcp-Param-Precision; progress passes as it happens`, async (t) => {
    const route = recording()
    const { client } = await modernClient(t, new URL(gateways[kind].url), { name: 'gateway', version: '1' }, { transport: { fetch: route.fetch } })
    t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28')
    // the client learns which arguments it mirrors into Mcp-Param-* from the list (before, it sends
    // none, the instance refuses the call for the missing header, and the client lists and retries)
    await client.listTools()
    for (let i = 0; i < 4; i++) {
      t.same((await client.callTool(call('add', { a: i, b: 1 }))).structuredContent, { sum: i + 1 })
      t.same((await client.callTool(call('add', { a: 1, b: 2.555, precision: 2 }))).structuredContent, { sum: 3.56 })
      t.same((await client.callTool(call('echo', { text: `hi ${i}` }))).content, [{ type: 'text', text: `hi ${i}` }])
    }
    const calls = route.seen.filter((seen) => seen.method === 'tools/call')
    const plain = calls.filter((seen) => seen.name === 'add' && seen.precision === null)
    const precise = calls.filter((seen) => seen.name === 'add' && seen.precision === '2')
    const echo = calls.filter((seen) => seen.name === 'echo')
    t.same([plain.length, precise.length, echo.length], [4, 4, 4], 'the client sent Mcp-Method, Mcp-Name and Mcp-Param-Precision')
    t.ok(calls.every((seen) => seen.status === 200), 'each call answered at once')
    t.same(who(plain), ['A'], 'Mcp-Method tools/call + Mcp-Name add: the add pool (instance A)')
    t.same(who(precise), ['B'], 'Mcp-Param-Precision: the precise pool (instance B)')
    t.same(who(echo), ['A', 'B'], 'any other tool: round-robin over the fleet')

    asItHappens(t, await timedCount(async (args, onprogress) => await client.callTool(call('count', args), { onprogress })))
  })

  t.test(`${kind}: a 2025 session with the v1 SDK (no Mcp-Name) round-robins over both instances on one Redis, no stickiness: every call answered, progress as it happens`, async (t) => {
    const route = recording()
    const { client } = await legacyClient(t, new URL(gateways[kind].url), { name: 'gateway', version: '1' }, { transport: { fetch: route.fetch }, terminate: true })
    for (let i = 0; i < 8; i++) {
      const sum = await client.callTool(call('add', { a: i, b: 1 }))
      t.same(sum.structuredContent, { sum: i + 1 })
    }
    const inSession = route.seen.filter((seen) => seen.session !== null && seen.method === null)
    t.ok(inSession.length >= 8, 'the calls carried the session id and no Mcp-Method')
    t.ok(route.seen.every((seen) => seen.name === null), 'a 2025 client sends no Mcp-Name: the add rule never saw these calls')
    t.same(who(inSession), ['A', 'B'], 'the session\'s requests went to both instances')
    t.ok(route.seen.every((seen) => seen.status < 300), 'every request answered')

    asItHappens(t, await timedCount(async (args, onprogress) => await client.callTool(call('count', args), undefined, { onprogress })))
  })

  t.test(`${kind}: a 2025 session request that sends the headers is routed on them; a header that disagrees with the body is refused by the instance (400, -32020)`, async (t) => {
    const { url } = gateways[kind]
    const session = await sessionOn(url)
    const headers = { 'mcp-method': 'tools/call', 'mcp-name': 'add' }
    for (let i = 0; i < 2; i++) {
      const res = await legacyPost(url, session, '2025-11-25', { jsonrpc: '2.0', id: i, method: 'tools/call', params: call('add', { a: i, b: 2 }) }, headers)
      t.equal(servedBy(res.headers), 'A')
      t.same((await res.json()).result.structuredContent, { sum: i + 2 })
      const precise = await legacyPost(url, session, '2025-11-25', { jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: call('add', { a: 1, b: 2.555, precision: 1 }) }, { ...headers, 'mcp-param-precision': '1' })
      t.equal(servedBy(precise.headers), 'B')
      t.same((await precise.json()).result.structuredContent, { sum: 3.6 })
    }
    const lying = await legacyPost(url, session, '2025-11-25', { jsonrpc: '2.0', id: 20, method: 'tools/call', params: call('echo', { text: 'x' }) }, headers)
    t.equal(lying.status, 400)
    t.equal(servedBy(lying.headers), 'A', 'routed on the header, refused by the instance')
    t.match(await lying.json(), { id: 20, error: { code: -32020, message: /Mcp-Name header value 'add' does not match body value 'echo'/ } })
  })

  t.test(`${kind}: 2026-07-28 headers that disagree with the body are refused (400, -32020); an encoded Mcp-Name is refused by the gateway`, async (t) => {
    const { url } = gateways[kind]
    const lying = await callWith(url, call('echo', { text: 'x' }), { 'mcp-name': 'add' })
    t.equal(lying.status, 400)
    t.equal(servedBy(lying.headers), 'A')
    t.match(await lying.json(), { error: { code: -32020, message: /Mcp-Name header value 'add' does not match body value 'echo'/ } })
    const param = await callWith(url, call('add', { a: 1, b: 2, precision: 2 }), { 'mcp-param-precision': '3' })
    t.equal(param.status, 400)
    t.equal(servedBy(param.headers), 'B')
    t.match(await param.json(), { error: { code: -32020, message: /Mcp-Param-Precision header value '3' does not match body value '2'/ } })
    const method = await callWith(url, call('echo', { text: 'x' }), { 'mcp-method': 'tools/list' })
    t.equal(method.status, 400)
    t.match(await method.json(), { error: { code: -32020, message: /Mcp-Method header value 'tools\/list' does not match body value 'tools\/call'/ } })

    // base64 of a plain name: the instance would decode and accept it, past the gateway's literal rules
    const encoded = { 'mcp-name': `=?base64?${Buffer.from('create_note').toString('base64')}?=` }
    const direct = await callWith(a.url.href, call('create_note', { text: 'encoded' }), encoded)
    t.equal(direct.status, 200, 'straight to an instance: accepted (SEP-2243 decoding)')
    t.match((await direct.json()).result.structuredContent, { text: 'encoded' })
    const refused = await callWith(url, call('create_note', { text: 'encoded' }), encoded)
    t.equal(refused.status, 400, 'through the gateway: refused')
    t.equal(servedBy(refused.headers), undefined, 'by the gateway itself')
    refused.close()
  })

  t.test(`${kind}: a limit per tool: create_note gets 429 from the gateway after 5 calls while other tools go on`, async (t) => {
    const { url } = gateways[kind]
    const notes = await Promise.all(Array.from({ length: 8 }, async (_, i) => await streamPost(url, 'tools/call', call('create_note', { text: `note ${i}` }))))
    const ok = notes.filter((res) => res.status === 200)
    const limited = notes.filter((res) => res.status === 429)
    t.equal(ok.length, 5, 'five answered')
    t.equal(limited.length, 3, 'the rest refused')
    for (const res of ok) t.match((await res.json()).result.structuredContent, { text: /^note \d$/ })
    for (const res of limited) {
      t.equal(res.headers.get('retry-after'), '10')
      t.equal(servedBy(res.headers), undefined, 'by the gateway: no instance saw it')
      res.close()
    }
    const add = await streamPost(url, 'tools/call', call('add', { a: 2, b: 2 }))
    t.equal(add.status, 200, 'another tool goes on')
    t.same((await add.json()).result.structuredContent, { sum: 4 })
    const again = await streamPost(url, 'tools/call', call('create_note', { text: 'again' }))
    t.equal(again.status, 429, 'create_note is still limited')
    again.close()
  })
}

t.test('haproxy without Redis: MCP_STICKY_SESSIONS=1 keeps each 2025 session on the instance that opened it; without it, the other instance does not know the session', async (t) => {
  const env = { MCP_STATE_KEY: KEY }
  const [c, d] = await Promise.all([startExample(env), startExample(env)])
  t.teardown(async () => { await Promise.all([c.stop(), d.stop()]) })
  const instances = { a: c.url.host, b: d.url.host }
  const sticky = await startHaproxy(t, { ...instances, env: { MCP_STICKY_SESSIONS: '1' } })
  const plain = await startHaproxy(t, instances)
  const add = (i: number): Record<string, unknown> => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: call('add', { a: i, b: 1 }) })

  const kept = await sessionOn(sticky.url)
  const answers: OpenStream[] = []
  for (let i = 0; i < 6; i++) answers.push(await legacyPost(sticky.url, kept, '2025-11-25', add(i)))
  t.same(answers.map((res) => res.status), [200, 200, 200, 200, 200, 200], 'every call answered')
  t.equal(new Set(answers.map((res) => res.headers.get('x-served-by'))).size, 1, 'all by one instance')
  for (const [i, res] of answers.entries()) t.same((await res.json()).result.structuredContent, { sum: i + 1 })

  const lost = await sessionOn(plain.url)
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) {
    const res = await legacyPost(plain.url, lost, '2025-11-25', add(i))
    statuses.push(res.status)
    await res.json()
  }
  t.ok(statuses.includes(404), `round-robin without Redis nor stickiness: ${statuses.join(', ')}`)
})

t.test('haproxy.cfg\'s health check, sent as HAProxy sends it, reads the readiness route: 200 while the instance serves', async (t) => {
  const config = readFileSync(new URL('../../gateway/haproxy.cfg', import.meta.url), 'utf8')
  const send = /^\s*http-check send meth (\S+) uri (\S+) ver \S+ (.*)$/m.exec(config)
  t.ok(send, 'the check in haproxy.cfg')
  const [, method, path, hdrs] = send!
  const headers = Object.fromEntries([...hdrs!.matchAll(/hdr (\S+) (\S+)/g)].map(([, name, value]) => [name!.toLowerCase(), value!]))
  t.match(config, /^\s*http-check expect status 200$/m)
  const res = await open(new URL(path!, a.url).href, { method: method!, headers })
  t.equal(res.status, 200)
  t.same(await res.json(), { ready: true })
})

t.test('docs/gateways.md ("Behind a gateway") shows the routing rules of haproxy.cfg as they are', async (t) => {
  const page = readFileSync(new URL('../../docs/gateways.md', import.meta.url), 'utf8')
  t.ok(page.startsWith('# Behind a gateway\n'))
  const section = page.slice(page.indexOf('- **Routing on the headers.**'))
  const shown = /```\n([\s\S]*?)```/.exec(section)![1]!.split('\n').map((line) => line.trim()).filter((line) => line !== '')
  const config = new Set(readFileSync(new URL('../../gateway/haproxy.cfg', import.meta.url), 'utf8').split('\n').map((line) => line.trim()))
  t.ok(shown.length >= 3)
  for (const line of shown) t.ok(config.has(line), `in haproxy.cfg: ${line}`)
})

// last: it stops instance B for good
t.test('an instance stopped: each gateway sends what reached no instance to the other one; every call and the Redis session go on', async (t) => {
  const sessions = await Promise.all([gateways.haproxy, gateways.nginx].map(async (gateway) => await sessionOn(gateway.url)))
  t.equal(await b.stop(), null, 'B closed and exited on SIGTERM')
  for (const [i, gateway] of [gateways.haproxy, gateways.nginx].entries()) {
    for (let n = 0; n < 4; n++) {
      const echo = await streamPost(gateway.url, 'tools/call', call('echo', { text: `after ${n}` }))
      t.equal(echo.status, 200, `${gateway.kind}: the fleet's pool`)
      t.equal(servedBy(echo.headers), 'A')
      await echo.json()
    }
    const precise = await streamPost(gateway.url, 'tools/call', call('add', { a: 1, b: 1, precision: 0 }), { 'mcp-param-precision': '0' })
    t.equal(servedBy(precise.headers), 'A', `${gateway.kind}: the precise pool fell back on the fleet`)
    t.same((await precise.json()).result.structuredContent, { sum: 2 })
    const legacy = await legacyPost(gateway.url, sessions[i]!, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call('add', { a: 2, b: 3 }) })
    t.same((await legacy.json()).result.structuredContent, { sum: 5 }, `${gateway.kind}: the session goes on`)
  }
})
