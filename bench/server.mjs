// One contender as its own process: `node bench/server.mjs <contender> <scenario>`.
// Listens on 127.0.0.1 (a free port), tells the parent over IPC, then answers the parent's
// 'stats' (peak RSS, heap), 'gc' and 'stop' messages. The parent pins it to a core with taskset.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { getHeapSpaceStatistics } from 'node:v8'
import Fastify from 'fastify'
import { PATH, SERVER_INFO, sakeTools, stepsDefinition, toolCount } from './workloads.mjs'

const [contender, scenario] = process.argv.slice(2)
const fixture = process.env.BENCH_FIXTURE ? JSON.parse(readFileSync(process.env.BENCH_FIXTURE, 'utf8')) : undefined

const app = Fastify({ logger: false })
let sessionsOf = () => undefined
let unavailable

// each contender loads only its own modules, so that no one's RSS carries another's code
switch (contender) {
  case 'baseline':
  case 'baseline-preserialized': {
    const { baselineRoutes } = await import('./baseline.mjs')
    baselineRoutes(app, scenario, fixture, { preserialized: contender === 'baseline-preserialized' })
    break
  }
  case 'sake-redis': {
    // one instance of a fleet: the stores on the redis-server the runner started (BENCH_REDIS_URL)
    const { default: sake } = await import(process.env.BENCH_SAKE ? pathToFileURL(join(process.env.BENCH_SAKE, 'index.js')).href : 'fastify-sake')
    await app.register(sake, { ...SERVER_INFO, path: PATH, redis: process.env.BENCH_REDIS_URL, requestState: { keys: [Buffer.alloc(32, 1).toString('base64')] } })
    app.registerTool(sakeTools(toolCount(scenario)))
    break
  }
  case 'sake':
  case 'sake-compare': {
    // the package itself, as users import it (built to dist/ by `npm run bench`), or another
    // build of it (--sake DIR instead, --compare DIR beside it: e.g. the dist/ of another commit)
    const dir = contender === 'sake' ? process.env.BENCH_SAKE : process.env.BENCH_COMPARE
    const { default: sake } = await import(dir ? pathToFileURL(join(dir, 'index.js')).href : 'fastify-sake')
    await app.register(sake, { ...SERVER_INFO, path: PATH })
    app.registerTool(sakeTools(toolCount(scenario)))
    if (scenario === 'stream') {
      try {
        // streaming tools (`stream: true`, `ctx.progress`) came with issue 4; a build without them
        // refuses the definition, and the runner then shows fastify-sake's stream as not available
        app.registerTool(stepsDefinition())
      } catch (err) {
        unavailable = `not available in this build (issue 4: \`ctx.progress\`, \`stream: true\`): ${err.message}`
      }
    }
    break
  }
  case 'sdk-stateless': {
    const { sdkFactory, mountSdkStateless } = await import('./sdk.mjs')
    mountSdkStateless(app, sdkFactory(toolCount(scenario), scenario === 'stream'))
    break
  }
  case 'sdk-session': {
    const { sdkFactory, mountSdkSessions } = await import('./sdk.mjs')
    const transports = mountSdkSessions(app, sdkFactory(toolCount(scenario), scenario === 'stream'), { json: scenario !== 'stream' })
    sessionsOf = () => transports.size
    break
  }
  default:
    throw new Error(`unknown contender ${contender}`)
}

// the readiness route gateway/haproxy.cfg checks (GET /ready, 200 expected), so that HAProxy keeps
// every contender's processes in service in the fleet scenario: fastify-sake's as the example
// server serves it (from app.mcp.draining), the others always ready
app.get('/ready', async (_request, reply) => app.mcp?.draining === true ? reply.code(503).send({ ready: false }) : { ready: true })

await app.listen({ host: '127.0.0.1', port: 0 })

function stats () {
  const memory = process.memoryUsage()
  return {
    type: 'stats',
    maxRss: process.resourceUsage().maxRSS * 1024,
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    external: memory.external,
    sessions: sessionsOf(),
    // the young generation as V8 has sized it by now (both semi-spaces), for each round's log
    newSpace: getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size
  }
}

process.on('message', async (message) => {
  switch (message.type) {
    case 'stats':
      process.send(stats())
      break
    case 'gc':
      // several passes: weak callbacks and finalizers free more on the next one
      for (let i = 0; i < 4; i++) {
        globalThis.gc?.()
        await new Promise((resolve) => setImmediate(resolve))
      }
      process.send(stats())
      break
    case 'stop':
      await app.close()
      // exit normally so that --cpu-prof writes its profile
      process.exit(0)
  }
})
process.on('disconnect', () => process.exit(0))

process.send({ type: 'listening', port: app.server.address().port, pid: process.pid, unavailable })
