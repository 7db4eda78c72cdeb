// Protected Resource Metadata (RFC 9728), at the path-suffixed well-known URI and the root one,
// served without a token; with several servers in one app, each its own document, and the root
// form only when it is one server's; and `app.mcp.scopes()`, the same scopes for a consent page.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import sake, { Type, definePrompt } from '../../lib/index.js'
import { build } from '../helpers/app.js'
import { modernRequest, rpc } from '../helpers/requests.js'
import { RESOURCE, SCOPES, authApp, startIssuer, type Issuer } from '../helpers/tokens.js'

t.test('the metadata document, at both well-known paths, without a token', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer, { metadata: { resource_name: 'Issues', resource_documentation: 'https://docs.example.com' } })
  for (const url of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-type'], /^application\/json/)
    t.equal(res.headers['access-control-allow-origin'], '*')
    t.same(JSON.parse(res.body), {
      resource: RESOURCE,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['issues:read', 'issues:write', 'issues:admin'],
      resource_name: 'Issues',
      resource_documentation: 'https://docs.example.com'
    }, url)
  }
})

t.test('metadata may name its own minimal scopes_supported; without declared scopes there is none', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer, { metadata: { scopes_supported: ['issues:read'] } })
  t.same(JSON.parse((await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })).body).scopes_supported, ['issues:read'])
  const bare = await build({ auth: { resource: 'https://mcp.example.com/', authorizationServers: [issuer.issuer], jwks: issuer.jwks } })
  const doc = JSON.parse((await bare.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' })).body)
  t.equal(doc.scopes_supported, undefined)
  t.equal(doc.resource, 'https://mcp.example.com/')
  t.equal((await bare.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })).statusCode, 200, 'the endpoint path\'s form as well')
})

t.test('a resource mounted elsewhere (a proxy prefix): its own suffixed path, named in challenges', async (t) => {
  const issuer = await startIssuer(t)
  const app = await build({ auth: { resource: 'https://api.example.com/tools/mcp/', authorizationServers: [issuer.issuer], jwks: issuer.jwks } })
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/tools/mcp' })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })).statusCode, 200)
  const res = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: '{}' })
  t.equal(res.headers['www-authenticate'], 'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/tools/mcp"')
})

interface ServerSpec {
  readonly name: string
  readonly path: string
  readonly resource?: string
  readonly scopes?: Record<string, string>
  /** Where: a child context (the default), the same under a Fastify prefix, or the app itself. */
  readonly at?: 'child' | 'root' | { prefix: string }
}

/** An app of several servers, each with auth on (unless `resource` is absent) and its own scopes; ready. */
async function servers (t: Test, issuer: Issuer, specs: readonly ServerSpec[], host?: (app: FastifyInstance) => void): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  host?.(app)
  for (const { name, path, resource, scopes = {}, at = 'child' } of specs) {
    const options = { name, version: '1', path, scopes, auth: resource === undefined ? false as const : { resource, authorizationServers: [issuer.issuer], jwks: issuer.jwks } }
    if (at === 'root') await app.register(sake, options)
    else await app.register(async (child) => { await child.register(sake, options) }, { prefix: at === 'child' ? '' : at.prefix })
  }
  await app.ready()
  return app
}

/** The document at `url`, parsed, with its status. */
async function document (app: FastifyInstance, url: string): Promise<{ status: number, body: any }> {
  const res = await app.inject({ method: 'GET', url })
  return { status: res.statusCode, body: JSON.parse(res.body) }
}

t.test('two servers in child contexts: each serves exactly its own resource and scopes; the root form is neither\'s', async (t) => {
  const issuer = await startIssuer(t)
  const app = await servers(t, issuer, [
    { name: 'a', path: '/a/mcp', resource: 'https://x.example.com/a/mcp', scopes: { 'issues:read': 'Read issues', 'a:only': 'A only' } },
    { name: 'b', path: '/b/mcp', resource: 'https://x.example.com/b/mcp', scopes: { 'issues:read': 'Read issues', 'b:only': 'B only' } }
  ])
  const own = (path: string, scopes: string[]): unknown => ({ resource: `https://x.example.com${path}`, authorization_servers: [issuer.issuer], bearer_methods_supported: ['header'], scopes_supported: scopes })
  t.same(await document(app, '/.well-known/oauth-protected-resource/a/mcp'), { status: 200, body: own('/a/mcp', ['issues:read', 'a:only']) })
  t.same(await document(app, '/.well-known/oauth-protected-resource/b/mcp'), { status: 200, body: own('/b/mcp', ['issues:read', 'b:only']) })
  for (const path of ['/a/mcp', '/b/mcp']) {
    const refused = await app.inject({ ...modernRequest('tools/list'), url: path })
    t.equal(refused.headers['www-authenticate'], `Bearer resource_metadata="https://x.example.com/.well-known/oauth-protected-resource${path}"`, `${path}'s 401 names its own document`)
  }
  const root = await document(app, '/.well-known/oauth-protected-resource')
  t.equal(root.status, 404, 'the root form would send one server\'s clients to the other resource')
  t.same(root.body, { statusCode: 404, error: 'Not Found', message: 'Route GET:/.well-known/oauth-protected-resource not found' }, 'Fastify\'s own 404, as if there were no route')
  t.equal((await document(app, '/.well-known/oauth-protected-resource')).status, 404, 'and stays so')
})

t.test('one server in a child context, then one at the root itself: the same', async (t) => {
  const issuer = await startIssuer(t)
  const app = await servers(t, issuer, [
    { name: 'a', path: '/a/mcp', resource: 'https://x.example.com/a/mcp', scopes: { 'a:only': 'A only' } },
    { name: 'b', path: '/b/mcp', resource: 'https://x.example.com/b/mcp', scopes: { 'b:only': 'B only' }, at: 'root' }
  ])
  t.match(await document(app, '/.well-known/oauth-protected-resource/a/mcp'), { status: 200, body: { resource: 'https://x.example.com/a/mcp', scopes_supported: ['a:only'] } })
  t.match(await document(app, '/.well-known/oauth-protected-resource/b/mcp'), { status: 200, body: { resource: 'https://x.example.com/b/mcp', scopes_supported: ['b:only'] } })
  t.equal((await document(app, '/.well-known/oauth-protected-resource')).status, 404)
  for (const path of ['/a/mcp', '/b/mcp']) {
    const refused = await app.inject({ ...modernRequest('tools/list'), url: path })
    t.equal(refused.headers['www-authenticate'], `Bearer resource_metadata="https://x.example.com/.well-known/oauth-protected-resource${path}"`, `${path} answers as its own server`)
  }
})

t.test('the root form is the document of the server whose resource is at the root, whichever registers first', async (t) => {
  const issuer = await startIssuer(t)
  const rooted: ServerSpec = { name: 'rooted', path: '/mcp', resource: 'https://x.example.com/', scopes: { 'r:only': 'R only' } }
  const other: ServerSpec = { name: 'other', path: '/a/mcp', resource: 'https://x.example.com/a/mcp', scopes: { 'a:only': 'A only' } }
  for (const order of [[rooted, other], [other, rooted]]) {
    const app = await servers(t, issuer, order)
    const what = order.map((spec) => spec.name).join(', then ')
    for (const time of ['first', 'second']) {
      t.match(await document(app, '/.well-known/oauth-protected-resource'), { status: 200, body: { resource: 'https://x.example.com/', scopes_supported: ['r:only'] } }, `${what}: its own document (RFC 9728 §3.1), asked a ${time} time`)
    }
    t.match(await document(app, '/.well-known/oauth-protected-resource/mcp'), { status: 200, body: { resource: 'https://x.example.com/' } }, 'and at its endpoint\'s path')
    t.match(await document(app, '/.well-known/oauth-protected-resource/a/mcp'), { status: 200, body: { resource: 'https://x.example.com/a/mcp', scopes_supported: ['a:only'] } })
  }
})

t.test('two servers, one with auth on: the root form is its document, as with one server', async (t) => {
  const issuer = await startIssuer(t)
  const app = await servers(t, issuer, [
    { name: 'open', path: '/open/mcp', scopes: { 'o:only': 'O only' } },
    { name: 'a', path: '/a/mcp', resource: 'https://x.example.com/a/mcp', scopes: { 'a:only': 'A only' } }
  ])
  t.match(await document(app, '/.well-known/oauth-protected-resource'), { status: 200, body: { resource: 'https://x.example.com/a/mcp', scopes_supported: ['a:only'] } })
  t.equal((await document(app, '/.well-known/oauth-protected-resource/open/mcp')).status, 404, 'the server with auth off has no document')
})

t.test('two servers under one Fastify prefix: each its document below it; the prefix\'s root form is neither\'s', async (t) => {
  const issuer = await startIssuer(t)
  const app = await servers(t, issuer, [
    { name: 'a', path: '/a/mcp', resource: 'https://x.example.com/p/a/mcp', at: { prefix: '/p' } },
    { name: 'b', path: '/b/mcp', resource: 'https://x.example.com/p/b/mcp', at: { prefix: '/p' } }
  ])
  t.match(await document(app, '/p/.well-known/oauth-protected-resource/p/a/mcp'), { status: 200, body: { resource: 'https://x.example.com/p/a/mcp' } })
  t.match(await document(app, '/p/.well-known/oauth-protected-resource/p/b/mcp'), { status: 200, body: { resource: 'https://x.example.com/p/b/mcp' } })
  t.equal((await document(app, '/p/.well-known/oauth-protected-resource')).status, 404)
})

t.test('a root form the host declared itself stays the host\'s', async (t) => {
  const issuer = await startIssuer(t)
  const app = await servers(t, issuer, [
    { name: 'a', path: '/a/mcp', resource: 'https://x.example.com/a/mcp' },
    { name: 'b', path: '/b/mcp', resource: 'https://x.example.com/b/mcp' }
  ], (host) => host.get('/.well-known/oauth-protected-resource', async () => ({ mine: true })))
  t.same(await document(app, '/.well-known/oauth-protected-resource'), { status: 200, body: { mine: true } })
  t.match(await document(app, '/.well-known/oauth-protected-resource/b/mcp'), { status: 200, body: { resource: 'https://x.example.com/b/mcp' } })
})

t.test('two servers whose resources both have the root path are refused: one URI, two documents', async (t) => {
  const issuer = await startIssuer(t)
  await t.rejects(servers(t, issuer, [
    { name: 'a', path: '/a/mcp', resource: 'https://a.example.com/' },
    { name: 'b', path: '/b/mcp', resource: 'https://b.example.com' }
  ]), {
    code: 'SAKE_ERR_INVALID_OPTION',
    message: 'fastify-sake: option \'auth.resource\' is https://b.example.com, whose metadata (RFC 9728) is served at /.well-known/oauth-protected-resource, as is that of https://a.example.com/, another MCP server of this app: give each server a resource with its own path'
  })
})

t.test('with auth off there is no metadata and no token is asked for', async (t) => {
  const app = await build({ scopes: SCOPES })
  app.registerTool({ name: 'close_issue', scope: 'issues:write', execute: () => 'closed' })
  let seen: unknown = 'unset'
  app.addHook('preHandler', async (request) => { seen = request.mcpAuth })
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' })).statusCode, 404)
  const res = await app.inject(modernRequest('tools/call', { name: 'close_issue', arguments: {} }))
  t.equal(rpc(res).result.content[0].text, 'closed', 'every tool allowed whatever its scope, as the seeds say')
  t.equal(seen, null, 'request.mcpAuth is null')
})

t.test('app.mcp.scopes(): every declared scope, its description and what needs it', async (t) => {
  const app = await build({ scopes: { ...SCOPES, unused: 'Nothing uses this' } })
  app.registerTool({ name: 'list_issues', scope: 'issues:read', execute: () => 'x' })
  app.registerTool({ name: 'close_issue', scope: ['issues:read', 'issues:write'], args: { id: Type.Integer() }, execute: () => 'x' })
  app.registerTool({ name: 'open', execute: () => 'x' })
  app.registerResource({ uri: 'issues://settings', name: 'Settings', scope: 'issues:admin', read: () => 'x' })
  app.registerResource({ uriTemplate: 'issues://{id}', name: 'Issue', scope: 'issues:read', read: () => 'x' })
  app.registerPrompt(definePrompt({ name: 'triage', scope: 'issues:write', get: () => 'x' }))
  t.same(app.mcp.scopes(), [
    { scope: 'issues:read', description: 'Read issues', tools: ['list_issues', 'close_issue'], resources: ['issues://{id}'], prompts: [], skills: [] },
    { scope: 'issues:write', description: 'Change issues', tools: ['close_issue'], resources: [], prompts: ['triage'], skills: [] },
    { scope: 'issues:admin', description: 'Administer issues', tools: [], resources: ['issues://settings'], prompts: [], skills: [] },
    { scope: 'unused', description: 'Nothing uses this', tools: [], resources: [], prompts: [], skills: [] }
  ])
  t.ok(Object.isFrozen(app.mcp.scopes()[0].tools))
})

t.test('under a Fastify prefix: the challenge names the metadata URL the routes answer at, and app.mcp.path is the full path', async (t) => {
  const app = Fastify({ logger: false })
  let view: import('../../lib/index.js').McpView | undefined
  await app.register(async (child) => {
    await child.register(sake, {
      name: 'prefixed',
      version: '1.0.0',
      auth: { resource: 'http://127.0.0.1/a/mcp', authorizationServers: ['https://auth.example.com'], verify: () => ({ subject: 'alice' }) }
    })
    view = child.mcp
  }, { prefix: '/a' })
  await app.ready()
  t.teardown(() => app.close())
  t.equal(view?.path, '/a/mcp')
  const refused = await app.inject({ ...modernRequest('tools/list'), url: '/a/mcp' })
  t.equal(refused.statusCode, 401)
  const named = /resource_metadata="([^"]+)"/.exec(refused.headers['www-authenticate'] as string)?.[1]
  t.equal(named, 'http://127.0.0.1/a/.well-known/oauth-protected-resource/a/mcp')
  const doc = await app.inject({ method: 'GET', url: new URL(named!).pathname })
  t.equal(doc.statusCode, 200, 'the URL the challenge names answers')
  t.equal(JSON.parse(doc.body).resource, 'http://127.0.0.1/a/mcp', 'and names the resource as configured')
  const token = await app.inject({ ...modernRequest('tools/list', {}, { authorization: 'Bearer x' }), url: '/a/mcp' })
  t.equal(token.statusCode, 200, 'a token gets through under the prefix')
})
