// resultJson: the modern envelope is spliced as text (a hot path: see bench/RESULTS.md); it must
// give the very bytes of serialising { resultType, ...result, _meta } in every case.
import t from 'tap'
import { MemoryTaskStore } from '../../lib/state/memory-task-store.js'
import { MemoryBus } from '../../lib/state/memory-bus.js'
import { resultJson } from '../../lib/protocol/results.js'
import { Registry } from '../../lib/define/registry.js'
import { serverContext } from '../../lib/protocol/server.js'
import { RequestStateSealer } from '../../lib/state/request-state.js'
import { MemorySessionStore } from '../../lib/state/memory-session-store.js'

const info = { name: 'results-test', version: '1.0.0' }
const registry = serverContext({ info, instructions: undefined, ttl: 1000, pageSize: 10, registry: new Registry(), sessions: new MemorySessionStore({ idleTimeout: 1000, maxSessions: 1 }), sealer: new RequestStateSealer(), inputTimeout: 1000, hideForbidden: false, taskStore: new MemoryTaskStore({ maxTasks: 1 }), bus: new MemoryBus(), tasks: { ttl: 1000, maxTtl: 1000, pollInterval: 100, closeTimeout: 100 } })
t.teardown(() => registry.sessions.close?.())
const serverInfo = { 'io.modelcontextprotocol/serverInfo': info }

t.test('modern results: resultType first, the result as it is, serverInfo in _meta last', async (t) => {
  const cases: object[] = [
    { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } },
    { content: [], isError: true },
    { completion: { values: ['a', 'b'] } },
    {}
  ]
  for (const result of cases) {
    const text = resultJson(registry, 'modern', result)
    t.equal(text, JSON.stringify({ resultType: 'complete', ...result, _meta: serverInfo }), JSON.stringify(result))
    t.same(JSON.parse(text), { resultType: 'complete', ...result, _meta: serverInfo })
  }
  // the second call of a server reuses its serialised serverInfo
  t.equal(resultJson(registry, 'modern', {}), '{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"results-test","version":"1.0.0"}}}')
})

t.test('a result with its own _meta keeps it, with serverInfo added', async (t) => {
  const text = resultJson(registry, 'modern', { content: [], _meta: { 'example.com/trace': 'abc' } })
  t.same(JSON.parse(text), { resultType: 'complete', content: [], _meta: { 'example.com/trace': 'abc', ...serverInfo } })
})

t.test('a result with its own resultType keeps it, in the first place', async (t) => {
  const text = resultJson(registry, 'modern', { content: [], resultType: 'input_required' })
  t.equal(text, '{"resultType":"input_required","content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"results-test","version":"1.0.0"}}}')
})

t.test('legacy results go as they are', async (t) => {
  t.equal(resultJson(registry, 'legacy', { content: [] }), '{"content":[]}')
})

t.test('what JSON cannot carry still throws', async (t) => {
  t.throws(() => resultJson(registry, 'modern', { content: [], big: 1n }), TypeError)
})
