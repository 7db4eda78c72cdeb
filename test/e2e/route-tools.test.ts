// Host routes as MCP tools, as a new user would try them: GET /users/:id and POST /users exposed
// with config.mcp, auth on with really signed JWTs, both real clients over a real port.
import t, { type Test } from 'tap'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from '../../lib/index.js'
import { build, freePort, listen } from '../helpers/app.js'
import { startIssuer, type Issuer } from '../helpers/tokens.js'
import { legacyClient, modernClient } from '../helpers/clients.js'

const User = Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.Optional(Type.String()) })

/** The host app: its own onRequest hook on the routes, two routes exposed, a route that fails. */
async function serve (t: Test, issuer: Issuer): Promise<{ app: FastifyInstance, url: URL, runs: string[] }> {
  const port = await freePort()
  const url = new URL(`http://127.0.0.1:${port}/mcp`)
  const app = await build({
    scopes: { 'users:read': 'Read users', 'users:write': 'Create users' },
    auth: { resource: url.href, authorizationServers: [issuer.issuer], jwks: issuer.jwks }
  })
  const runs: string[] = []
  const users = new Map<number, { id: number, name: string, email?: string }>([[1, { id: 1, name: 'Ada', email: 'ada@example.com' }]])
  await app.register(async (api) => {
    api.addHook('onRequest', async (request) => { runs.push(`${request.method} ${request.url}`) })
    api.get('/users/:id', {
      schema: {
        params: Type.Object({ id: Type.Integer() }),
        querystring: Type.Object({ withEmail: Type.Optional(Type.Boolean()) }),
        response: { 200: User }
      },
      config: { mcp: { name: 'get_user' } }
    }, async (request, reply) => {
      const { id } = request.params as { id: number }
      const user = users.get(id)
      if (user === undefined) return await (reply as FastifyReply).code(404).send({ message: `no user ${id}` })
      const { withEmail } = request.query as { withEmail?: boolean }
      return withEmail === true ? user : { id: user.id, name: user.name }
    })
    api.post('/users', {
      schema: { body: Type.Object({ name: Type.String({ minLength: 1 }) }), response: { 201: User } },
      config: { mcp: { name: 'create_user', scope: 'users:write' } }
    }, async (request, reply) => {
      const user = { id: users.size + 1, name: (request.body as { name: string }).name }
      users.set(user.id, user)
      return await reply.code(201).send(user)
    })
    api.get('/crash', { config: { mcp: { name: 'crash' } } }, async () => { throw new Error('secret detail') })
  }, { prefix: '/api' })
  await listen(t, app, { port })
  return { app, url, runs }
}

const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } })

t.test('2026-07-28 client: lists the routes as tools, calls them, 404 and 500 are tool errors, create_user needs users:write', async (t) => {
  const issuer = await startIssuer(t)
  const { app, url, runs } = await serve(t, issuer)
  const reader = await issuer.sign({ aud: url.href, scope: 'users:read' })
  const { client } = await modernClient(t, url, { name: 'routes', version: '1' }, { transport: { requestInit: bearer(reader) } })

  const { tools } = await client.listTools()
  const getUser = tools.find((tool) => tool.name === 'get_user')!
  t.same(getUser.inputSchema.properties, { id: { type: 'integer' }, withEmail: { type: 'boolean' } }, "the route's params and querystring")
  t.same(getUser.inputSchema.required, ['id'])
  t.same(getUser.annotations, { readOnlyHint: true })
  t.same(getUser.outputSchema?.required, ['id', 'name'], 'the 200 schema')
  t.same(tools.find((tool) => tool.name === 'create_user')!.inputSchema.properties, { name: { type: 'string', minLength: 1 } })

  runs.length = 0
  const got = await client.callTool({ name: 'get_user', arguments: { id: 1, withEmail: true } })
  t.same(got.structuredContent, { id: 1, name: 'Ada', email: 'ada@example.com' })
  t.same(runs, ['GET /api/users/1?withEmail=true'], "the host's onRequest hook ran once, for the route")

  const missing = await client.callTool({ name: 'get_user', arguments: { id: 99 } })
  t.equal(missing.isError, true)
  t.same(missing.content, [{ type: 'text', text: 'GET /api/users/99 answered 404 Not Found: no user 99' }])

  const crash = await client.callTool({ name: 'crash', arguments: {} })
  t.same(crash.content, [{ type: 'text', text: "Tool 'crash' failed: the route answered 500 Internal Server Error" }])
  t.equal(crash.isError, true)

  runs.length = 0
  await t.rejects(client.callTool({ name: 'create_user', arguments: { name: 'Grace' } }), { message: 'Insufficient scope: required "users:write"' })
  t.same(runs, [], 'the route never ran for a refused call')

  const writer = await issuer.sign({ aud: url.href, scope: 'users:read users:write' })
  const { client: allowed } = await modernClient(t, url, { name: 'writer', version: '1' }, { transport: { requestInit: bearer(writer) } })
  const created = await allowed.callTool({ name: 'create_user', arguments: { name: 'Grace' } })
  t.same(created.structuredContent, { id: 2, name: 'Grace' }, "the route's 201 body")

  t.same(app.mcp.scopes().find((scope) => scope.scope === 'users:write')?.tools, ['create_user'])
  const metadata: any = await (await fetch(`http://127.0.0.1:${url.port}/.well-known/oauth-protected-resource/mcp`)).json()
  t.same(metadata.scopes_supported, ['users:read', 'users:write'])
})

t.test('the 403 names users:write on the wire', async (t) => {
  const issuer = await startIssuer(t)
  const { url } = await serve(t, issuer)
  const token = await issuer.sign({ aud: url.href, scope: 'users:read' })
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'create_user' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_user', arguments: { name: 'x' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } } } })
  })
  t.equal(response.status, 403)
  t.match(response.headers.get('www-authenticate'), /^Bearer error="insufficient_scope", scope="users:write", resource_metadata="/)
})

t.test('2025 SDK client: the same route tools in a session', async (t) => {
  const issuer = await startIssuer(t)
  const { url, runs } = await serve(t, issuer)
  const token = await issuer.sign({ aud: url.href, scope: 'users:read users:write' })
  const { client } = await legacyClient(t, url, { name: 'legacy', version: '1' }, { transport: { requestInit: bearer(token) } })
  runs.length = 0
  const got = await client.callTool({ name: 'get_user', arguments: { id: 1 } })
  t.same(got.structuredContent, { id: 1, name: 'Ada' })
  t.same(runs, ['GET /api/users/1'])
  const created = await client.callTool({ name: 'create_user', arguments: { name: 'Lin' } })
  t.same(created.structuredContent, { id: 2, name: 'Lin' })
  const missing = await client.callTool({ name: 'get_user', arguments: { id: 5 } })
  t.equal(missing.isError, true)
})

t.test("a route's own auth (the forwarded token, checked again by the host) and request.mcpAuth", async (t) => {
  const issuer = await startIssuer(t)
  const port = await freePort()
  const url = new URL(`http://127.0.0.1:${port}/mcp`)
  const app = await build({ auth: { resource: url.href, authorizationServers: [issuer.issuer], jwks: issuer.jwks } })
  const seen: Array<{ authorization: unknown, subject: unknown }> = []
  app.get('/me', {
    onRequest: async (request, reply) => {
      seen.push({ authorization: request.headers.authorization, subject: request.mcpAuth?.subject })
      if (request.headers.authorization === undefined) return await reply.code(401).send({ message: 'sign in first' })
    },
    config: { mcp: { name: 'me' } }
  }, async (request) => ({ subject: request.mcpAuth?.subject ?? 'anonymous' }))
  await listen(t, app, { port })
  const token = await issuer.sign({ aud: url.href, sub: 'bob' })
  const { client } = await modernClient(t, url, { name: 'me', version: '1' }, { transport: { requestInit: bearer(token) } })
  const me = await client.callTool({ name: 'me', arguments: {} })
  t.same(me.structuredContent, { subject: 'bob' }, 'request.mcpAuth is the verified caller in the handler')
  t.same(seen, [{ authorization: `Bearer ${token}`, subject: 'bob' }], 'the token travels; the route hook sees the caller')
  const http = await fetch(`http://127.0.0.1:${port}/me`)
  t.equal(http.status, 401, "an HTTP client without the token is refused by the route's own hook")
})
