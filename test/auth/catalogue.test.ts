// mcpScopes(app): the app's scope catalogue across its MCP servers, wherever each is registered
// (child contexts, the root), with what needs each scope on which server; and the registration
// that describes a scope otherwise than another server of the app.
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import sake, { definePrompt, mcpScopes, type SakeOptions } from '../../lib/index.js'

const AS = ['https://auth.example.com']
const verify = (): { subject: string } => ({ subject: 'alice' })

function auth (resource: string): SakeOptions['auth'] {
  return { resource, authorizationServers: AS, verify }
}

/**
 * Three servers: issues and admin in child contexts (admin under a prefix), then one at the root
 * itself (after its siblings: a server in a context whose parent has one is refused), auth off.
 */
async function threeServers (): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(async (child) => {
    await child.register(sake, {
      name: 'issues',
      version: '1',
      path: '/issues/mcp',
      scopes: { 'issues:read': 'Read issues', 'issues:write': 'Change issues' },
      auth: auth('https://x.example.com/issues/mcp')
    })
    child.registerTool({ name: 'list_issues', scope: 'issues:read', execute: () => 'x' })
    child.registerTool({ name: 'close_issue', scope: ['issues:read', 'issues:write'], execute: () => 'x' })
  })
  await app.register(async (child) => {
    await child.register(sake, {
      name: 'admin',
      version: '1',
      path: '/mcp',
      scopes: { 'issues:read': 'Read issues', 'admin:users': 'Manage users' },
      auth: auth('https://x.example.com/admin/mcp')
    })
    child.registerTool({ name: 'ban', scope: 'admin:users', execute: () => 'x' })
    child.registerResource({ uriTemplate: 'issues://{id}', name: 'Issue', scope: 'issues:read', read: () => 'x' })
  }, { prefix: '/admin' })
  await app.register(sake, { name: 'public', version: '1', path: '/public/mcp', scopes: { 'issues:read': 'Read issues' } })
  app.registerPrompt(definePrompt({ name: 'triage', scope: 'issues:read', get: () => 'x' }))
  t.teardown(() => app.close())
  return app
}

t.test('the union of every server\'s scopes, each with what needs it on which server', async (t) => {
  const app = await threeServers()
  await app.ready()
  t.same(mcpScopes(app), [
    {
      scope: 'issues:read',
      description: 'Read issues',
      servers: [
        { name: 'issues', path: '/issues/mcp', resource: 'https://x.example.com/issues/mcp', tools: ['list_issues', 'close_issue'], resources: [], prompts: [] },
        { name: 'admin', path: '/admin/mcp', resource: 'https://x.example.com/admin/mcp', tools: [], resources: ['issues://{id}'], prompts: [] },
        { name: 'public', path: '/public/mcp', resource: null, tools: [], resources: [], prompts: ['triage'] }
      ]
    },
    {
      scope: 'issues:write',
      description: 'Change issues',
      servers: [{ name: 'issues', path: '/issues/mcp', resource: 'https://x.example.com/issues/mcp', tools: ['close_issue'], resources: [], prompts: [] }]
    },
    {
      scope: 'admin:users',
      description: 'Manage users',
      servers: [{ name: 'admin', path: '/admin/mcp', resource: 'https://x.example.com/admin/mcp', tools: ['ban'], resources: [], prompts: [] }]
    }
  ])
  const [read] = mcpScopes(app)
  t.ok(Object.isFrozen(read) && Object.isFrozen(read.servers) && Object.isFrozen(read.servers[0]) && Object.isFrozen(read.servers[0].tools), 'read-only all the way down')
  t.same(app.mcp.scopes().map((info) => info.scope), ['issues:read'], 'app.mcp.scopes() stays the root server\'s own')
})

t.test('the same catalogue from any context of the app: a child, or request.server in a host route', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  let fromChild: ReturnType<typeof mcpScopes> | undefined
  await app.register(async (child) => {
    await child.register(sake, { name: 'a', version: '1', path: '/a', scopes: { one: 'One' } })
    child.addHook('onReady', async () => { fromChild = mcpScopes(child) })
  })
  await app.register(async (child) => {
    await child.register(sake, { name: 'b', version: '1', path: '/b', scopes: { two: 'Two' } })
  })
  await app.register(async (other) => {
    other.get('/consent', async (request) => mcpScopes(request.server).map((info) => `${info.scope}: ${info.description}`))
  })
  t.notOk(app.hasDecorator('mcp'), 'no server at the root')
  t.same(JSON.parse((await app.inject({ method: 'GET', url: '/consent' })).body), ['one: One', 'two: Two'])
  t.same(fromChild, mcpScopes(app), 'a server\'s own context sees the whole app\'s')
})

t.test('live until ready: the servers and definitions registered so far', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  t.same(mcpScopes(app), [], 'no server yet')
  await app.register(async (child) => {
    await child.register(sake, { name: 'a', version: '1', path: '/a', scopes: { one: 'One' } })
    t.same(mcpScopes(app)[0].servers[0].tools, [], 'the scope, needed by nothing yet')
    child.registerTool({ name: 'later', scope: 'one', execute: () => 'x' })
    t.same(mcpScopes(app)[0].servers[0].tools, ['later'], 'a tool registered after the call counts in the next one')
  })
})

t.test('each app its own catalogue', async (t) => {
  const one = Fastify({ logger: false })
  const two = Fastify({ logger: false })
  t.teardown(() => Promise.all([one.close(), two.close()]))
  await one.register(sake, { name: 'one', version: '1', scopes: { one: 'One' } })
  await two.register(sake, { name: 'two', version: '1', scopes: { one: 'Another meaning' } })
  t.same(mcpScopes(one).map((info) => info.description), ['One'])
  t.same(mcpScopes(two).map((info) => info.description), ['Another meaning'], 'no conflict across apps')
})

t.test('a scope another server of the app describes otherwise is refused at registration', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  await app.register(async (child) => {
    await child.register(sake, { name: 'a', version: '1', path: '/a/mcp', scopes: { 'issues:read': 'Read issues' } })
  })
  await t.rejects(async () => {
    await app.register(async (child) => {
      await child.register(sake, { name: 'b', version: '1', path: '/b/mcp', scopes: { 'issues:read': 'Read tickets' } })
    })
  }, {
    code: 'SAKE_ERR_INVALID_OPTION',
    name: 'SakeOptionError',
    message: 'fastify-sake: option \'scopes\' describes "issues:read" as "Read tickets", but the MCP server at /a/mcp in this app describes it as "Read issues": a scope is one permission of the app, shown once on a consent page; give it the same description on both servers, or this one another scope name'
  })
})

t.test('mcpScopes takes a Fastify instance', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  let request: unknown
  app.get('/', async (req) => { request = req; return 'x' })
  await app.inject({ method: 'GET', url: '/' })
  t.throws(() => mcpScopes(request as FastifyInstance), {
    name: 'TypeError',
    message: /^fastify-sake: mcpScopes takes the Fastify instance \(the app, or any context of it such as request\.server\), got \{.*\(object\)$/
  })
  t.throws(() => mcpScopes(undefined as unknown as FastifyInstance), { name: 'TypeError', message: /, got nothing$/ })
})
