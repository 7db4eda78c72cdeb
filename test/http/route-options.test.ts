// routeOptions: Fastify route options for the MCP routes. `config` reaches
// request.routeOptions.config (so route-level plugins read it), hooks run after the plugin's own,
// logLevel applies; what the plugin owns is refused at registration, saying what to use instead.
import t from 'tap'
import Fastify from 'fastify'
import sake, { SakeOptionError } from '../../lib/index.js'
import { resolveRouteOptions } from '../../lib/http/route-options.js'
import { modernRequest } from '../helpers/requests.js'

t.test('config, hooks and logLevel on every MCP route', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  const order: string[] = []
  await app.register(sake, {
    name: 'routed',
    version: '1.0.0',
    allowedHosts: ['localhost'],
    routeOptions: {
      config: { team: 'search' },
      logLevel: 'warn',
      onRequest: async (request) => { order.push(`onRequest ${String((request.routeOptions.config as { team?: string }).team)}`) },
      preHandler: [async () => { order.push('preHandler 1') }, async () => { order.push('preHandler 2') }],
      onResponse: async (request, reply) => { order.push(`onResponse ${reply.statusCode}`) }
    }
  })
  await app.ready()
  t.teardown(() => app.close())
  const ok = await app.inject(modernRequest('server/discover'))
  t.equal(ok.statusCode, 200)
  t.same(order, ['onRequest search', 'preHandler 1', 'preHandler 2', 'onResponse 200'])
  order.length = 0
  const get = await app.inject({ method: 'GET', url: '/mcp' })
  t.equal(get.statusCode, 405)
  t.same(order, ['onRequest search', 'preHandler 1', 'preHandler 2', 'onResponse 405'], 'the GET route too')
  order.length = 0
  const refused = await app.inject({ ...modernRequest('server/discover'), headers: { ...modernRequest('server/discover').headers, host: 'evil.example' } })
  t.equal(refused.statusCode, 403)
  t.same(order, ['onResponse 403'], "the plugin's own onRequest checks run first: a refused request never reaches the user's")
  t.notOk(lines.some((line) => line.msg === 'request completed'), 'logLevel warn on the MCP routes: no info lines')
})

t.test('what the plugin owns is refused, saying what to use instead', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ url: '/x' }, /'routeOptions\.url' is the plugin's own on the MCP routes: the plugin's 'path' option sets it/],
    [{ handler: () => {} }, /'routeOptions\.handler' is the plugin's own/],
    [{ bodyLimit: 10 }, /use the plugin's 'bodyLimit' option/],
    [{ schema: {} }, /'routeOptions\.schema'/],
    [{ errorHandler: () => {} }, /use an onError hook to observe them/],
    [{ prefix: '/a' }, /register the plugin in a context with a prefix/],
    [{ confg: {} }, /unknown option 'routeOptions\.confg' \(did you mean 'routeOptions\.config'\?\)/],
    [{ config: 'x' }, /option 'routeOptions\.config' must be an object/],
    [{ logLevel: 3 }, /option 'routeOptions\.logLevel' must be a log level/],
    [{ constraints: 'x' }, /option 'routeOptions\.constraints' must be an object/],
    [{ onRequest: [] }, /option 'routeOptions\.onRequest' must be a hook function or a non-empty array of them/],
    [{ preHandler: ['x'] }, /option 'routeOptions\.preHandler' must be a hook function/]
  ]
  for (const [routeOptions, message] of cases) {
    t.throws(() => resolveRouteOptions(routeOptions), { name: 'SakeOptionError', message }, JSON.stringify(Object.keys(routeOptions)))
  }
  t.throws(() => resolveRouteOptions('x'), SakeOptionError)
  const app = Fastify({ logger: false })
  await t.rejects(async () => { await app.register(sake, { name: 'x', version: '1', routeOptions: { method: 'GET' } as never }) }, { code: 'SAKE_ERR_INVALID_OPTION' })
})

t.test('constraints route the MCP endpoint like any route', async (t) => {
  const app = Fastify({ logger: false })
  await app.register(sake, { name: 'constrained', version: '1.0.0', routeOptions: { constraints: { host: 'mcp.example.com' } }, allowedHosts: false })
  await app.ready()
  t.teardown(() => app.close())
  t.equal((await app.inject({ ...modernRequest('server/discover'), headers: { ...modernRequest('server/discover').headers, host: 'mcp.example.com' } })).statusCode, 200)
  t.equal((await app.inject({ ...modernRequest('server/discover'), headers: { ...modernRequest('server/discover').headers, host: 'other.example.com' } })).statusCode, 404)
})
