// The real clients against a server with auth on, over a real port: the 2026-07-28 client follows
// the 401 challenge to the metadata document and retries with a token; the 2025 SDK client works
// with a token and is refused without one; with two servers in one app, the 2026-07-28 client's own
// OAuth (client credentials) finds the second server's document and asks for its resource and scopes.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import sake, { Type } from '../../lib/index.js'
import { build, freePort, listen, portOf } from '../helpers/app.js'
import { SCOPES, startIssuer, type Issuer } from '../helpers/tokens.js'
import { legacyClient, modernClient } from '../helpers/clients.js'

/** The app with auth on, listening on a port chosen first: the resource URI tokens are issued for names it. */
async function serve (t: Test, issuer: Issuer): Promise<{ app: FastifyInstance, url: URL }> {
  const port = await freePort()
  const url = new URL(`http://127.0.0.1:${port}/mcp`)
  // scopes_supported: the minimal set for basic use, as the spec asks; more comes by step-up
  const metadata = { scopes_supported: ['issues:read'] }
  const app = await build({ scopes: SCOPES, auth: { resource: url.href, authorizationServers: [issuer.issuer], jwks: issuer.jwks, metadata } })
  app.registerTool({ name: 'whoami', scope: 'issues:read', execute: (_args, ctx) => `${ctx.auth!.subject} (${ctx.era})` })
  app.registerTool({ name: 'close_issue', scope: 'issues:write', args: { id: Type.Integer() }, execute: ({ id }) => `closed ${id}` })
  await listen(t, app, { port })
  return { app, url }
}

t.test('2026-07-28 client: 401, follows resource_metadata, gets a token, retries', async (t) => {
  const issuer = await startIssuer(t)
  const { url } = await serve(t, issuer)
  let token: string | undefined
  const challenges: string[] = []
  let metadata: any
  const { client } = await modernClient(t, url, { name: 'pin', version: '1' }, {
    transport: {
      authProvider: {
        token: async () => token,
        onUnauthorized: async ({ response, fetchFn }) => {
          const header = response.headers.get('www-authenticate')!
          challenges.push(header)
          const where = /resource_metadata="([^"]+)"/.exec(header)![1]
          metadata = await (await fetchFn(where)).json()
          // a real client would now run OAuth against metadata.authorization_servers[0]
          token = await issuer.sign({ sub: 'modern-user', aud: metadata.resource, iss: metadata.authorization_servers[0], scope: /scope="([^"]+)"/.exec(header)?.[1] ?? metadata.scopes_supported.join(' ') })
        }
      }
    }
  })
  const result = await client.callTool({ name: 'whoami', arguments: {} })
  t.same(result.content, [{ type: 'text', text: 'modern-user (modern)' }])
  t.equal(challenges.length, 1, 'one challenge, then the token works')
  t.equal(challenges[0], `Bearer resource_metadata="http://127.0.0.1:${url.port}/.well-known/oauth-protected-resource/mcp"`, 'server/discover names no tool: no scope in the challenge')
  t.same(metadata, { resource: url.href, authorization_servers: [issuer.issuer], bearer_methods_supported: ['header'], scopes_supported: ['issues:read'] })
  // the token only grants issues:read: the client reads the 403's challenge
  await t.rejects(client.callTool({ name: 'close_issue', arguments: { id: 3 } }), { message: 'Insufficient scope: required "issues:write"' })
})

t.test('2026-07-28 client without a way to get a token: connecting fails with the 401', async (t) => {
  const issuer = await startIssuer(t)
  const { url } = await serve(t, issuer)
  await t.rejects(modernClient(t, url, { name: 'pin', version: '1' }), { code: 'CLIENT_HTTP_AUTHENTICATION', data: { status: 401 }, message: /the server requires authorization \(HTTP 401\)/ })
})

t.test('2025 SDK client: a session with a token; without one, the 401', async (t) => {
  const issuer = await startIssuer(t)
  const { url } = await serve(t, issuer)
  const token = await issuer.sign({ sub: 'legacy-user', aud: url.href })
  const { client } = await legacyClient(t, url, { name: 'legacy', version: '1' }, { transport: { requestInit: { headers: { authorization: `Bearer ${token}` } } } })
  const result = await client.callTool({ name: 'whoami', arguments: {} })
  t.same(result.content, [{ type: 'text', text: 'legacy-user (legacy)' }])
  const tools = await client.listTools()
  t.same(tools.tools.map((tool) => tool.name), ['close_issue', 'whoami'])

  const failed = await legacyClient(t, url, { name: 'anonymous', version: '1' }).then(() => undefined, (err: { code?: number, message: string }) => err)
  t.ok(failed, 'connect is refused')
  t.equal(failed!.code, 401)
  t.match(failed!.message, /Unauthorized: this MCP server needs an OAuth access token/)
})

/**
 * An OAuth authorization server for the client credentials grant: its metadata (RFC 8414) and a token
 * endpoint that signs, with `issuer`'s JWKS key, a token for the `resource` and `scope` asked for.
 */
async function startAuthorizationServer (t: Test, issuer: Issuer): Promise<{ url: string, grants: Array<Record<string, string | undefined>> }> {
  const server = Fastify()
  const grants: Array<Record<string, string | undefined>> = []
  let url = ''
  server.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
  server.get('/.well-known/oauth-authorization-server', async () => ({
    issuer: url,
    authorization_endpoint: `${url}/authorize`,
    token_endpoint: `${url}/token`,
    response_types_supported: ['code'],
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic']
  }))
  server.post('/token', async (request) => {
    const form = request.body as Record<string, string>
    grants.push({ ...form, authorization: request.headers.authorization })
    return { access_token: await issuer.sign({ sub: 'robot', iss: url, aud: form.resource, scope: form.scope }), token_type: 'Bearer', expires_in: 3600 }
  })
  await listen(t, server)
  url = `http://127.0.0.1:${portOf(server)}`
  return { url, grants }
}

t.test('two servers in one app: a 2026-07-28 client with client credentials discovers the second\'s own metadata, resource and scopes', async (t) => {
  const issuer = await startIssuer(t)
  const as = await startAuthorizationServer(t, issuer)
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const app = Fastify()
  const wellKnown: string[] = []
  app.addHook('onRequest', async (request) => { if (request.url.startsWith('/.well-known/')) wellKnown.push(request.url) })
  const servers: Array<{ name: string, path: string, scopes: Record<string, string> }> = [
    { name: 'issues', path: '/issues/mcp', scopes: { 'issues:read': 'Read issues' } },
    { name: 'admin', path: '/admin/mcp', scopes: { 'issues:read': 'Read issues', 'admin:users': 'Manage users' } }
  ]
  for (const { name, path, scopes } of servers) {
    await app.register(async (child) => {
      await child.register(sake, { name, version: '1', path, scopes, auth: { resource: origin + path, authorizationServers: [as.url], jwks: issuer.jwks } })
      child.registerTool({ name: 'whoami', scope: 'issues:read', execute: (_args, ctx) => `${ctx.auth!.subject} on ${name} with ${ctx.auth!.scopes.join(' ')}` })
    })
  }
  await listen(t, app, { port })

  const { ClientCredentialsProvider, discoverOAuthServerInfo } = await import('@modelcontextprotocol/client')
  const authProvider = new ClientCredentialsProvider({ clientId: 'robot', clientSecret: 's3cret', expectedIssuer: as.url })
  const url = new URL(`${origin}/admin/mcp`)
  const { client } = await modernClient(t, url, { name: 'robot', version: '1' }, { transport: { authProvider } })
  const result = await client.callTool({ name: 'whoami', arguments: {} })
  t.same(result.content, [{ type: 'text', text: 'robot on admin with issues:read admin:users' }], 'the token works on the second server')
  t.same(wellKnown, ['/.well-known/oauth-protected-resource/admin/mcp'], 'the 401 named the second server\'s own document, and the client read only that one')
  t.equal(as.grants.length, 1)
  t.match(as.grants[0], {
    grant_type: 'client_credentials',
    resource: `${origin}/admin/mcp`,
    scope: 'issues:read admin:users',
    authorization: `Basic ${Buffer.from('robot:s3cret').toString('base64')}`
  }, 'a token for the second server\'s resource, with exactly its scopes_supported (no scope in the challenge of server/discover)')

  // without a challenge to follow, the client builds the well-known URIs itself: the path-suffixed form first
  const found = await discoverOAuthServerInfo(url)
  t.same(found.resourceMetadata, { resource: `${origin}/admin/mcp`, authorization_servers: [as.url], bearer_methods_supported: ['header'], scopes_supported: ['issues:read', 'admin:users'] })
  t.equal(found.authorizationServerUrl, as.url)
})
