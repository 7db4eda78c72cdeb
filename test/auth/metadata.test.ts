// Protected Resource Metadata (RFC 9728), at the path-suffixed well-known URI and the root one,
// served without a token; and `app.mcp.scopes()`, the same scopes for a consent page.
import t from 'tap'
import Fastify from 'fastify'
import sake, { Type, definePrompt } from '../../lib/index.js'
import { build } from '../helpers/app.js'
import { modernRequest, rpc } from '../helpers/requests.js'
import { RESOURCE, SCOPES, authApp, startIssuer } from '../helpers/tokens.js'

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

t.test('two servers in one app: each its suffixed document; the first keeps the root one', async (t) => {
  const issuer = await startIssuer(t)
  const app = Fastify()
  for (const [path, name] of [['/a/mcp', 'a'], ['/b/mcp', 'b']]) {
    await app.register(async (child) => {
      await child.register(sake, { name, version: '1', path, auth: { resource: `https://x.example.com${path}`, authorizationServers: [issuer.issuer], jwks: issuer.jwks } })
    })
  }
  const resource = async (url: string): Promise<string> => JSON.parse((await app.inject({ method: 'GET', url })).body).resource
  t.equal(await resource('/.well-known/oauth-protected-resource/a/mcp'), 'https://x.example.com/a/mcp')
  t.equal(await resource('/.well-known/oauth-protected-resource/b/mcp'), 'https://x.example.com/b/mcp')
  t.equal(await resource('/.well-known/oauth-protected-resource'), 'https://x.example.com/a/mcp')
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
    { scope: 'issues:read', description: 'Read issues', tools: ['list_issues', 'close_issue'], resources: ['issues://{id}'], prompts: [] },
    { scope: 'issues:write', description: 'Change issues', tools: ['close_issue'], resources: [], prompts: ['triage'] },
    { scope: 'issues:admin', description: 'Administer issues', tools: [], resources: ['issues://settings'], prompts: [] },
    { scope: 'unused', description: 'Nothing uses this', tools: [], resources: [], prompts: [] }
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
