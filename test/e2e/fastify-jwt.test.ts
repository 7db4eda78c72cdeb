// `auth.authenticate` with the real @fastify/jwt (issue 11), the recipe of docs/authorization.md:
// tokens really signed (HS256, the host's secret), verified by `request.jwtVerify()` with the
// audience and issuer pinned, in a host that also has async onSend and onError hooks of its own
// (logging, metrics). Both ways a host writes the hook: one that throws, and @fastify/jwt's
// README's `try { await request.jwtVerify() } catch (err) { reply.send(err) }`. Both real clients
// over a real port, and raw requests where a status or a header is the point.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import fastifyJwt from '@fastify/jwt'
import { SignJWT } from 'jose'
import sake from '../../lib/index.js'
import { freePort, listen } from '../helpers/app.js'
import { SCOPES } from '../helpers/tokens.js'
import { legacyClient, modernClient } from '../helpers/clients.js'
import { open, streamPost } from '../helpers/network.js'
import { captureLog } from '../helpers/logs.js'

const SECRET = 'a shared HS256 secret of at least 32 bytes, for tests'
const ISSUER = 'https://auth.example.com'

type Hook = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => Promise<void>

const RECIPES: Array<{ name: string, hook: (app: FastifyInstance) => Hook }> = [
  {
    name: 'a hook that throws: async (request) => { await request.jwtVerify() }',
    hook: () => async (request) => { await request.jwtVerify() }
  },
  {
    name: "@fastify/jwt's README: app.authenticate, reply.send(err) on a refused token",
    hook: (app) => {
      app.decorate('authenticate', async function (request: FastifyRequest, reply: FastifyReply) {
        try {
          await request.jwtVerify()
        } catch (err) {
          reply.send(err)
        }
      })
      return (app as unknown as { authenticate: Hook }).authenticate
    }
  }
]

interface Served {
  app: FastifyInstance
  url: URL
  metadataUrl: string
  /** Signs a token with the host's secret: sub alice, issues:read, one hour, for this server, unless `claims` say otherwise. */
  sign: (claims?: Record<string, unknown>) => string
  /** What the handler of `whoami` saw, call by call. */
  seen: Array<{ auth: unknown, user: unknown }>
  /** Tool executions (any tool). */
  runs: () => number
  /** The host's own onError hook: how many errors it saw. */
  hostErrors: () => number
  /** What was logged at warn or above about a request ("Reply was already sent", say). */
  requestWarnings: () => unknown[]
}

/** The host app: @fastify/jwt, its own async hooks, fastify-sake with `authenticate` (the recipe's hook), on a port chosen first. */
async function serve (t: Test, recipe: typeof RECIPES[number]): Promise<Served> {
  const port = await freePort()
  const url = new URL(`http://127.0.0.1:${port}/mcp`)
  const log = captureLog({ level: 'warn' })
  const app = Fastify({ logger: log.logger })
  // as the built-in `jwks` verifier checks: audience and issuer pinned (a token for another server
  // is refused), sub and exp required
  await app.register(fastifyJwt, { secret: SECRET, verify: { allowedAud: url.href, allowedIss: ISSUER, requiredClaims: ['sub', 'exp'] } })
  // hooks that take a moment, as an error reporter or a metrics exporter does: the reply of a
  // refusal is not written yet when a hook that called reply.send(err) returns
  let errors = 0
  app.addHook('onError', async () => {
    await new Promise((resolve) => setTimeout(resolve, 5))
    errors++
  })
  app.addHook('onSend', async (_request, reply, payload) => {
    await new Promise((resolve) => setTimeout(resolve, 5))
    reply.header('x-host', 'seen')
    return payload
  })
  await app.register(sake, {
    name: 'issues',
    version: '1.0.0',
    scopes: SCOPES,
    auth: { resource: url.href, authorizationServers: [ISSUER], authenticate: recipe.hook(app) }
  })
  const seen: Served['seen'] = []
  let runs = 0
  app.registerTool({
    name: 'whoami',
    scope: 'issues:read',
    execute: (_args, ctx) => {
      runs++
      seen.push({ auth: ctx.auth, user: ctx.request!.user })
      return `${ctx.auth!.subject} (${ctx.era})`
    }
  })
  app.registerTool({ name: 'close_issue', scope: ['issues:read', 'issues:write'], execute: () => { runs++; return 'closed' } })
  await listen(t, app, { port })
  const now = Math.floor(Date.now() / 1000)
  return {
    app,
    url,
    metadataUrl: `${url.origin}/.well-known/oauth-protected-resource/mcp`,
    sign: (claims = {}) => app.jwt.sign({ sub: 'alice', scope: 'issues:read', iss: ISSUER, aud: url.href, iat: now, exp: now + 3600, ...claims }),
    seen,
    runs: () => runs,
    hostErrors: () => errors,
    requestWarnings: () => log.lines.filter((line) => line.level >= 40 && line.reqId !== undefined).map((line) => line.msg)
  }
}

/** A 2026-07-28 tools/call of `name` over the network (Mcp-Name set), with `authorization` if given. */
async function call (url: URL, name: string, authorization?: string): Promise<{ status: number, challenge: string | null, host: string | null, body: any }> {
  const res = await streamPost(url.href, 'tools/call', { name, arguments: {} }, authorization === undefined ? {} : { authorization })
  return { status: res.status, challenge: res.headers.get('www-authenticate'), host: res.headers.get('x-host'), body: await res.json() }
}

for (const recipe of RECIPES) {
  t.test(recipe.name, async (t) => {
    t.test('a valid token with the scope: both clients call the tool; the claims @fastify/jwt decoded reach ctx', async (t) => {
      const served = await serve(t, recipe)
      const modernToken = served.sign({ sub: 'modern-user', name: 'Modern' })
      const { client } = await modernClient(t, served.url, { name: 'modern', version: '1' }, { transport: { authProvider: { token: async () => modernToken } } })
      t.same((await client.callTool({ name: 'whoami', arguments: {} })).content, [{ type: 'text', text: 'modern-user (modern)' }])

      const legacyToken = served.sign({ sub: 'legacy-user', name: 'Legacy', scope: 'issues:read issues:write' })
      const legacy = await legacyClient(t, served.url, { name: 'legacy', version: '1' }, { transport: { requestInit: { headers: { authorization: `Bearer ${legacyToken}` } } }, terminate: true })
      t.same((await legacy.client.callTool({ name: 'whoami', arguments: {} })).content, [{ type: 'text', text: 'legacy-user (legacy)' }])
      t.same((await legacy.client.callTool({ name: 'close_issue', arguments: {} })).content, [{ type: 'text', text: 'closed' }], 'both scopes: the two-scope tool too')

      t.equal(served.seen.length, 2)
      for (const [i, token] of [modernToken, legacyToken].entries()) {
        const claims = served.app.jwt.decode<Record<string, unknown>>(token)!
        t.equal(claims.name, i === 0 ? 'Modern' : 'Legacy', 'the decoded token is the one sent')
        t.same(served.seen[i].user, claims, 'ctx.request!.user: what request.jwtVerify() decoded')
        t.same(served.seen[i].auth, {
          subject: claims.sub,
          scopes: (claims.scope as string).split(' '),
          acr: undefined,
          authTime: undefined,
          expiresAt: claims.exp,
          claims
        }, 'ctx.auth: request.user read as JWT claims')
      }
    })

    t.test('no token: 401 with the challenge naming the metadata (and the tool\'s scope); the metadata is served there', async (t) => {
      const served = await serve(t, recipe)
      const none = await call(served.url, 'whoami')
      t.equal(none.status, 401)
      t.equal(none.challenge, `Bearer resource_metadata="${served.metadataUrl}", scope="issues:read"`)
      t.match(none.body, { jsonrpc: '2.0', error: { code: -32600, message: /^Unauthorized: this MCP server needs an OAuth access token/ } })
      t.equal(none.body.error.data, undefined, 'no error code without a token (RFC 6750 §3.1)')
      t.equal(none.host, 'seen', 'the host\'s onSend hook ran on the refusal')

      const basic = await call(served.url, 'close_issue', 'Basic YWxpY2U6c2VjcmV0')
      t.equal(basic.status, 401, 'another scheme is no bearer token either')
      t.equal(basic.challenge, `Bearer resource_metadata="${served.metadataUrl}", scope="issues:read issues:write"`)

      // a 2025 client starts with initialize, which names no tool: the plain challenge
      const init = await open(served.url.href, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
      })
      t.equal(init.status, 401)
      t.equal(init.headers.get('www-authenticate'), `Bearer resource_metadata="${served.metadataUrl}"`)
      await init.json()

      const metadata = await (await fetch(/resource_metadata="([^"]+)"/.exec(none.challenge!)![1])).json()
      t.same(metadata, { resource: served.url.href, authorization_servers: [ISSUER], bearer_methods_supported: ['header'], scopes_supported: Object.keys(SCOPES) })

      await t.rejects(modernClient(t, served.url, { name: 'anonymous', version: '1' }), { code: 'CLIENT_HTTP_AUTHENTICATION', data: { status: 401 } }, 'the 2026-07-28 client without a token')
      await t.rejects(legacyClient(t, served.url, { name: 'anonymous', version: '1' }), { code: 401, message: /Unauthorized: this MCP server needs an OAuth access token/ }, 'the 2025 client without a token')
      t.equal(served.runs(), 0, 'no tool ran')
      t.same(served.requestWarnings(), [], 'each refusal answered once')
    })

    t.test('an expired, wrongly signed, malformed or misaddressed token: 401 invalid_token', async (t) => {
      const served = await serve(t, recipe)
      const now = Math.floor(Date.now() / 1000)
      const claims = { sub: 'alice', scope: 'issues:read', iss: ISSUER, aud: served.url.href, exp: now + 3600 }
      const invalid = `Bearer error="invalid_token", error_description="The access token is invalid", resource_metadata="${served.metadataUrl}"`
      const refused: Array<[string, string]> = [
        ['expired', served.sign({ iat: now - 7200, exp: now - 3600 })],
        ['signed with another secret', await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('not the host secret, but as long as it is'))],
        ['for another server (aud)', served.sign({ aud: 'https://other.example.com/mcp' })],
        ['from another issuer', served.sign({ iss: 'https://evil.example.com' })],
        ['without exp', served.sign({ exp: undefined })],
        ['not a JWT', 'not-a-jwt']
      ]
      for (const [what, token] of refused) {
        const res = await call(served.url, 'whoami', `Bearer ${token}`)
        t.equal(res.status, 401, `${what}: 401`)
        t.equal(res.challenge, invalid, `${what}: the invalid_token challenge`)
        t.match(res.body, { error: { code: -32600, message: 'Unauthorized: the access token is invalid, expired or not issued for this server', data: { error: 'invalid_token' } } }, `${what}: the body says the same`)
      }
      const expired = refused[0][1]
      await t.rejects(legacyClient(t, served.url, { name: 'expired', version: '1' }, { transport: { requestInit: { headers: { authorization: `Bearer ${expired}` } } } }), { code: 401, message: /the access token is invalid/ }, 'the 2025 client with an expired token')
      t.equal(served.runs(), 0, 'no tool ran')
      // the 2026-07-28 client reads the challenge and gets a fresh token (here: the host signs one), then retries
      let token = expired
      const challenges: Array<string | null> = []
      const { client } = await modernClient(t, served.url, { name: 'expired', version: '1' }, {
        transport: {
          authProvider: {
            token: async () => token,
            onUnauthorized: async ({ response }) => {
              challenges.push(response.headers.get('www-authenticate'))
              token = served.sign({ sub: 'refreshed' })
            }
          }
        }
      })
      t.same(challenges, [invalid], 'one invalid_token challenge, then the fresh token works')
      t.same((await client.callTool({ name: 'whoami', arguments: {} })).content, [{ type: 'text', text: 'refreshed (modern)' }])
      t.ok(served.hostErrors() >= refused.length, 'the host\'s onError hook saw the refusals')
      t.same(served.requestWarnings(), [], 'each refusal answered once')
    })

    t.test('a token without the tool\'s scope: 403 insufficient_scope naming it; both clients are refused', async (t) => {
      const served = await serve(t, recipe)
      const readOnly = served.sign()
      const res = await call(served.url, 'close_issue', `Bearer ${readOnly}`)
      t.equal(res.status, 403)
      t.equal(res.challenge, `Bearer error="insufficient_scope", scope="issues:read issues:write", resource_metadata="${served.metadataUrl}", error_description="The access token lacks a scope this operation needs"`)
      t.match(res.body, { error: { code: -32600, data: { error: 'insufficient_scope' } } })

      const { client } = await modernClient(t, served.url, { name: 'modern', version: '1' }, { transport: { authProvider: { token: async () => readOnly } } })
      t.same((await client.callTool({ name: 'whoami', arguments: {} })).content, [{ type: 'text', text: 'alice (modern)' }], 'the scope it has is enough for whoami')
      await t.rejects(client.callTool({ name: 'close_issue', arguments: {} }), { name: 'InsufficientScopeError', requiredScope: 'issues:read issues:write' }, 'the 2026-07-28 client reads the scopes from the challenge')
      const legacy = await legacyClient(t, served.url, { name: 'legacy', version: '1' }, { transport: { requestInit: { headers: { authorization: `Bearer ${readOnly}` } } }, terminate: true })
      await t.rejects(legacy.client.callTool({ name: 'close_issue', arguments: {} }), { code: 403, message: /"data":\{"error":"insufficient_scope","scopes":\["issues:read","issues:write"\]\}/ }, 'the 2025 client gets the 403 and its body')
      t.equal(served.runs(), 1, 'only whoami ran')
    })
  })
}
