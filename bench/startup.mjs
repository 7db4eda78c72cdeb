// One startup measurement in a fresh process: `node bench/startup.mjs <contender> <count>`.
// Everything is imported and every definition built before the clock starts; the clock covers
// registration up to `ready` (Fastify compiles route schemas, fastify-sake compiles tools and
// serialises its lists). Prints one JSON line: { ms }.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { PATH, SERVER_INFO, sakeTools } from './workloads.mjs'

const [contender, countText] = process.argv.slice(2)
const count = Number(countText)
const defs = sakeTools(count)
let ms

/** A tool's schema as plain JSON for a Fastify route: a route has no `header` keyword (ajv there is strict). */
function routeSchema (schema) {
  return JSON.parse(JSON.stringify(schema, (key, value) => key === 'header' ? undefined : value))
}

switch (contender) {
  case 'baseline': {
    // 1,000 plain routes with the same JSON schemas: body validated by ajv, response serialised
    // by fast-json-stringify (the route's counterpart of a tool's input and output schemas)
    const routes = defs.map((def) => ({
      url: `/tools/${def.name}`,
      schema: { body: routeSchema(Type.Object(def.args, { additionalProperties: false })), response: { 200: routeSchema(Type.Object(def.output)) } },
      handler: async (request) => def.execute(request.body)
    }))
    const app = Fastify({ logger: false })
    const t0 = process.hrtime.bigint()
    for (const route of routes) app.post(route.url, { schema: route.schema }, route.handler)
    await app.ready()
    ms = Number(process.hrtime.bigint() - t0) / 1e6
    await app.close()
    break
  }
  case 'baseline-body': {
    // the same routes with a body schema only
    const routes = defs.map((def) => ({
      url: `/tools/${def.name}`,
      schema: { body: routeSchema(Type.Object(def.args, { additionalProperties: false })) },
      handler: async (request) => def.execute(request.body)
    }))
    const app = Fastify({ logger: false })
    const t0 = process.hrtime.bigint()
    for (const route of routes) app.post(route.url, { schema: route.schema }, route.handler)
    await app.ready()
    ms = Number(process.hrtime.bigint() - t0) / 1e6
    await app.close()
    break
  }
  case 'sake': {
    const dir = process.env.BENCH_SAKE
    const { default: sake } = await import(dir ? pathToFileURL(join(dir, 'index.js')).href : 'fastify-sake')
    const app = Fastify({ logger: false })
    const t0 = process.hrtime.bigint()
    await app.register(sake, { ...SERVER_INFO, path: PATH })
    app.registerTool(defs)
    await app.ready()
    ms = Number(process.hrtime.bigint() - t0) / 1e6
    await app.close()
    break
  }
  case 'sdk': {
    // what createMcpHandler's factory does for every request: an McpServer with every tool
    const { sdkFactory } = await import('./sdk.mjs')
    const factory = sdkFactory(count)
    const t0 = process.hrtime.bigint()
    factory()
    ms = Number(process.hrtime.bigint() - t0) / 1e6
    break
  }
  default:
    throw new Error(`unknown startup contender ${contender}`)
}

process.stdout.write(JSON.stringify({ ms }) + '\n')
