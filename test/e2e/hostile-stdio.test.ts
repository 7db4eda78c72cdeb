// Issue 40 (item 6, stdio), tried as a hostile client would: a raw pipe to a server spawned over
// stdio on the built package (dist/: `npm run build` first). A request that reuses the id of one
// still in flight (a slow call, an open subscriptions/listen) gets -32600 naming the id and does
// not run; the first answers normally, exactly once; once answered, the id may name a new request.
// Both eras. (Over HTTP each POST is its own request: nothing there to reuse.)
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parsed, piped, type Piped } from '../helpers/stdio.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const SERVER = ['test/fixtures/stdio-hostile.js']
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

t.before(() => {
  if (!existsSync(new URL('../../dist/index.js', import.meta.url))) throw new Error('test/e2e/hostile-stdio.test.ts spawns a server built on dist/: run `npm run build` first')
})

/** The refusal of a request whose id is that of one in flight. */
const inFlight = (id: unknown): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32600, message: `Invalid Request: request id ${JSON.stringify(id)} is still in flight (an earlier request with this id has not finished); give each request an id of its own` }
})

/** Every message written from line `from` on that answers `id` (a response, not a notification). */
function answersOf (peer: Piped, id: unknown, from = 0): any[] {
  return peer.lines.slice(from).map(parsed).filter((message) => message?.id === id && !('method' in message))
}

/** How many times the slow tool ran, as the server counts. */
async function runs (peer: Piped, meta: boolean): Promise<number> {
  const id = `runs-${peer.lines.length}`
  const at = await peer.request(id, 'tools/call', { name: 'runs', arguments: {}, ...(meta ? { _meta: META } : {}) })
  return parsed(peer.lines[at]).result.structuredContent.runs
}

t.test('over a raw pipe, in both eras: an id reused while its request runs is refused and does not run; the first answers once', async (t) => {
  const peer = piped(t, SERVER, root)
  await peer.started()
  for (const [era, meta] of [['2026-07-28', true], ['2025-11-25', false]] as const) {
    if (!meta) {
      await peer.request('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } })
      peer.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
    }
    const before = await runs(peer, meta)
    const id = `dup-${era}`
    const call = (ms: number): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { ms }, ...(meta ? { _meta: META } : {}) } })
    const from = peer.lines.length
    peer.send(call(300))
    peer.send(call(0)) // the same id, while the first sleeps: a retry, or a hostile client's
    peer.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }))
    peer.send(JSON.stringify({ jsonrpc: '2.0', id: '7', method: 'ping' })) // another id than 7
    peer.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })) // 7 again, answered by now or not: either is right
    await peer.next((message) => message.id === id && message.result !== undefined, `${era}: the first call's answer`, from)
    const answers = answersOf(peer, id, from)
    t.same(answers[0], inFlight(id), `${era}: the second is refused with -32600 naming the id, at once`)
    t.equal(answers.length, 2, `${era}: two answers to the id, no more`)
    t.same(answers[1].result.structuredContent, { run: before + 1 }, `${era}: the first call answers as ever`)
    t.equal(await runs(peer, meta), before + 1, `${era}: the tool ran once`)
    t.same(answersOf(peer, '7', from), [{ jsonrpc: '2.0', id: '7', result: {} }])
    t.ok(answersOf(peer, 7, from).length === 2, `${era}: each ping with id 7 answered once`)

    const again = parsed(peer.lines[await peer.request(id, 'tools/call', { name: 'slow', arguments: { ms: 0 }, ...(meta ? { _meta: META } : {}) })])
    t.same(again.result.structuredContent, { run: before + 2 }, `${era}: once answered, the id names a new request`)
  }
})

t.test('over a raw pipe: an open subscriptions/listen holds its id until it ends', async (t) => {
  const peer = piped(t, SERVER, root)
  await peer.started()
  peer.send(JSON.stringify({ jsonrpc: '2.0', id: 'listen', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } }))
  await peer.next((message) => message.method === 'notifications/subscriptions/acknowledged', 'the acknowledgement')
  const refused = parsed(peer.lines[await peer.request('listen', 'tools/call', { name: 'slow', arguments: { ms: 0 }, _meta: META })])
  t.same(refused, inFlight('listen'), 'refused while the listen is open')
  t.equal(await runs(peer, true), 0, 'and the call did not run')
  peer.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen', _meta: META } }))
  const after = parsed(peer.lines[await peer.request('listen', 'tools/call', { name: 'slow', arguments: { ms: 0 }, _meta: META })])
  t.same(after.result.structuredContent, { run: 1 }, 'the listen cancelled: its id names a new request')
  const { code } = await peer.end()
  t.equal(code, 0)
})
