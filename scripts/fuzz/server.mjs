// The server under fuzzing: the example server with its conformance fixtures (as `npm run
// conformance` serves it), in a child process of its own so that its memory, handles and
// Object.prototype can be read without the harness's own in the numbers. Run with --expose-gc;
// talks to the harness over IPC: `{ type: 'stats' }` is answered with the measurements below.
import { build } from '../../example-server/app.js'

// what the prototypes have before any request; a fuzzed body must never add to them
const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype }
const before = Object.fromEntries(Object.entries(PROTOTYPES).map(([name, proto]) => [name, Object.getOwnPropertyNames(proto).sort().join(',')]))

// the logs go to the harness's stdout pipe: it counts the lines at error level and above
const app = await build({ conformance: true, logger: { level: process.env.FUZZ_LOG_LEVEL ?? 'error' } })
await app.listen({ host: '127.0.0.1', port: 0 })

function connections () {
  return new Promise((resolve) => app.server.getConnections((_err, count) => resolve(count)))
}

/** Memory after a full GC (twice, with a turn between for finalizers), handles, sockets, prototypes. */
async function stats () {
  for (let i = 0; i < 3; i++) {
    globalThis.gc()
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const memory = process.memoryUsage()
  const resources = {}
  for (const type of process.getActiveResourcesInfo()) resources[type] = (resources[type] ?? 0) + 1
  const polluted = Object.entries(PROTOTYPES)
    .filter(([name, proto]) => Object.getOwnPropertyNames(proto).sort().join(',') !== before[name])
    .map(([name, proto]) => `${name}.prototype: ${Object.getOwnPropertyNames(proto).filter((key) => !before[name].split(',').includes(key)).join(', ')}`)
  return {
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    external: memory.external,
    arrayBuffers: memory.arrayBuffers,
    resources,
    connections: await connections(),
    polluted,
    // a polluted prototype shows through any plain object
    inherited: ['polluted', 'isAdmin', 'toJSON'].filter((key) => key in {} && !(key in Object.prototype && before.Object.split(',').includes(key)))
  }
}

process.on('message', async (message) => {
  if (message.type === 'stats') process.send({ type: 'stats', id: message.id, stats: await stats() })
  // a heap snapshot, to find what a phase left behind (`--snapshot DIR` of scripts/fuzz.mjs)
  if (message.type === 'snapshot') process.send({ type: 'snapshot', id: message.id, file: (await import('node:v8')).writeHeapSnapshot(message.file) })
  if (message.type === 'close') {
    setTimeout(() => app.server.closeAllConnections(), 1000).unref()
    await app.close()
    process.exit(0)
  }
})
process.send({ type: 'ready', port: app.server.address().port, path: app.mcp.path })
