// The built-in JWT verifier against a real JWKS endpoint: every way a token can be wrong gets the
// same 401 challenge (the log, not the client, learns which claim failed); a good one gets through.
// Any other verifier plugs in too: the user's own `verify` (introspection, opaque tokens), whose
// answer becomes ctx.auth once it is checked.
import t from 'tap'
import Fastify from 'fastify'
import { SignJWT, base64url } from 'jose'
import { build, listen, portOf } from '../helpers/app.js'
import { modernRequest, rpc } from '../helpers/requests.js'
import { METADATA_URL, RESOURCE, SCOPES, authApp, bearer, startIssuer } from '../helpers/tokens.js'
import { captureLog } from '../helpers/logs.js'

const INVALID = `Bearer error="invalid_token", error_description="The access token is invalid", resource_metadata="${METADATA_URL}"`

t.test('a valid token calls a tool, and the caller reaches ctx.auth and request.mcpAuth', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  let seen: unknown
  app.addHook('preHandler', async (request) => { seen = request.mcpAuth })
  const now = Math.floor(Date.now() / 1000)
  const token = await issuer.sign({ acr: 'mfa', auth_time: now - 10, team: 'core' })
  const res = await app.inject(modernRequest('tools/call', { name: 'list_issues', arguments: {} }, bearer(token)))
  t.equal(res.statusCode, 200)
  t.equal(rpc(res).result.content[0].text, 'issues for alice')
  t.match(seen, { subject: 'alice', scopes: ['issues:read', 'issues:write'], acr: 'mfa', authTime: now - 10, claims: { team: 'core', iss: issuer.issuer } })
  t.ok(Object.isFrozen(seen), 'the caller is frozen')
  t.equal(typeof (seen as { expiresAt: number }).expiresAt, 'number')
  // a second request reuses the cached key set
  await app.inject(modernRequest('tools/call', { name: 'open', arguments: {} }, bearer(token)))
  t.equal(issuer.fetches(), 1, 'the JWKS is fetched once')
})

t.test('no token: 401 naming the metadata, with the scopes of the tool the headers name', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const res = await app.inject(modernRequest('tools/call', { name: 'close_issue', arguments: { id: 1 } }))
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}", scope="issues:read issues:write"`)
  t.same(rpc(res), { jsonrpc: '2.0', id: null, error: { code: -32600, message: rpc(res).error!.message } })
  t.match(rpc(res).error!.message, /^Unauthorized: this MCP server needs an OAuth access token/)
  const open = await app.inject(modernRequest('tools/call', { name: 'open', arguments: {} }))
  t.equal(open.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}"`, 'no scope for a tool without one')
  const list = await app.inject(modernRequest('tools/list'))
  t.equal(list.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}"`, 'no scope without Mcp-Name')
  const basic = await app.inject(modernRequest('tools/list', {}, { authorization: 'Basic YWxpY2U6c2VjcmV0' }))
  t.equal(basic.statusCode, 401, 'another scheme is no bearer token')
  t.equal(basic.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}"`)
  t.equal(issuer.fetches(), 0, 'nothing was verified')
})

t.test('every bad token gets the same 401 invalid_token; the client never learns which check failed', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const now = Math.floor(Date.now() / 1000)
  const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify({ sub: 'alice', iss: issuer.issuer, aud: RESOURCE, exp: now + 3600, scope: 'issues:read' }))}.`
  const hmac = await new SignJWT({ scope: 'issues:read' }).setProtectedHeader({ alg: 'HS256' }).setSubject('alice').setIssuer(issuer.issuer).setAudience(RESOURCE).setExpirationTime(now + 3600).sign(new Uint8Array(32).fill(7))
  const cases: Array<[string, string]> = [
    ['expired', `Bearer ${await issuer.sign({ exp: now - 3600 })}`],
    ['not yet valid', `Bearer ${await issuer.sign({ nbf: now + 3600 })}`],
    ['wrong issuer', `Bearer ${await issuer.sign({ iss: 'https://evil.example.com' })}`],
    ['wrong audience', `Bearer ${await issuer.sign({ aud: 'https://other.example.com/mcp' })}`],
    ['wrong key', `Bearer ${await issuer.sign({}, { key: issuer.strangerKey })}`],
    ['unknown key id', `Bearer ${await issuer.sign({}, { key: issuer.strangerKey, kid: 'key-2' })}`],
    ['alg none', `Bearer ${none}`],
    ['HMAC', `Bearer ${hmac}`],
    ['not a JWT', 'Bearer not-a-jwt'],
    ['malformed header', 'Bearer a b'],
    ['empty bearer', 'Bearer']
  ]
  for (const [what, authorization] of cases) {
    const res = await app.inject(modernRequest('tools/call', { name: 'open', arguments: {} }, { authorization }))
    t.equal(res.statusCode, 401, what)
    t.equal(res.headers['www-authenticate'], INVALID, `${what}: the same challenge`)
    t.same(rpc(res).error, { code: -32600, message: 'Unauthorized: the access token is invalid, expired or not issued for this server', data: { error: 'invalid_token' } }, `${what}: the same body`)
  }
})

t.test('the log names the failed check at info level, never at error', async (t) => {
  const issuer = await startIssuer(t)
  const { logger, lines } = captureLog({ level: 'info' })
  const logged = await build({
    auth: { resource: RESOURCE, authorizationServers: [issuer.issuer], jwks: issuer.jwks }
  }, { logger })
  logged.registerTool({ name: 'open', execute: () => 'ok' })
  const now = Math.floor(Date.now() / 1000)
  const cases: Array<[string, RegExp]> = [
    [await issuer.sign({ exp: now - 3600 }), /ERR_JWT_EXPIRED/],
    [await issuer.sign({ nbf: now + 3600 }), /ERR_JWT_CLAIM_VALIDATION_FAILED: "nbf"/],
    [await issuer.sign({ iss: 'https://evil.example.com' }), /ERR_JWT_CLAIM_VALIDATION_FAILED: unexpected "iss"/],
    [await issuer.sign({ aud: 'https://other.example.com/mcp' }), /ERR_JWT_CLAIM_VALIDATION_FAILED: unexpected "aud"/],
    [await issuer.sign({}, { key: issuer.strangerKey }), /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/]
  ]
  for (const [token, reason] of cases) {
    lines.length = 0
    const res = await logged.inject(modernRequest('tools/call', { name: 'open', arguments: {} }, bearer(token)))
    t.equal(res.statusCode, 401)
    const line = lines.find((l) => l.msg === 'fastify-sake: access token refused')
    t.match(line, { level: 30, reason }, String(reason))
    t.notOk(lines.some((l) => (l.level as number) >= 50), 'nothing at error level')
  }
})

t.test('clock skew: a token expired a few seconds ago still passes, within the tolerance', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const now = Math.floor(Date.now() / 1000)
  const res = await app.inject(modernRequest('tools/call', { name: 'open', arguments: {} }, bearer(await issuer.sign({ exp: now - 5 }))))
  t.equal(res.statusCode, 200, 'within the default 30 s')
  const strict = await authApp(issuer, { clockTolerance: 0 })
  const refused = await strict.inject(modernRequest('tools/call', { name: 'open', arguments: {} }, bearer(await issuer.sign({ exp: now - 5 }))))
  t.equal(refused.statusCode, 401, 'clockTolerance: 0')
})

t.test('issuer, audience and algorithms can be set; a token without sub names nobody', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer, { issuer: 'https://login.example.com', audience: ['api://issues', RESOURCE], algorithms: ['RS256'] })
  const good = await app.inject(modernRequest('tools/call', { name: 'open', arguments: {} }, bearer(await issuer.sign({ iss: 'https://login.example.com', aud: 'api://issues' }))))
  t.equal(good.statusCode, 200)
  const defaultIssuer = await app.inject(modernRequest('tools/call', { name: 'open', arguments: {} }, bearer(await issuer.sign())))
  t.equal(defaultIssuer.statusCode, 401, 'the issuer option replaces the authorization servers')
  const noSub = await app.inject(modernRequest('tools/call', { name: 'open', arguments: {} }, bearer(await issuer.sign({ iss: 'https://login.example.com', sub: '' }))))
  t.equal(noSub.statusCode, 401)
})

t.test('scopes as scp (an array, as some servers issue them)', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  const res = await app.inject(modernRequest('tools/call', { name: 'list_issues', arguments: {} }, bearer(await issuer.sign({ scope: undefined, scp: ['issues:read'] }))))
  t.equal(res.statusCode, 200)
  const none = await app.inject(modernRequest('tools/call', { name: 'list_issues', arguments: {} }, bearer(await issuer.sign({ scope: undefined }))))
  t.equal(none.statusCode, 403, 'no scope claim: no scopes')
})

t.test('a JWKS that cannot be fetched is 503, not a 401 that would send clients to sign in again', async (t) => {
  const issuer = await startIssuer(t)
  const down = Fastify()
  down.get('/jwks.json', async (_request, reply) => reply.code(500).send('down'))
  await listen(t, down)
  const port = portOf(down)
  const { logger, lines } = captureLog({ level: 'info' })
  const app = await build({ auth: { resource: RESOURCE, authorizationServers: [issuer.issuer], jwks: `http://127.0.0.1:${port}/jwks.json` } }, { logger })
  const res = await app.inject(modernRequest('tools/list', {}, bearer(await issuer.sign())))
  t.equal(res.statusCode, 503)
  t.equal(res.headers['www-authenticate'], undefined)
  t.same(rpc(res).error, { code: -32603, message: 'Service Unavailable: access tokens cannot be checked right now; try again later' })
  t.ok(lines.some((l) => l.level === 50 && l.msg === 'fastify-sake: cannot verify access tokens'), 'logged at error')
  // nothing listening at all
  await down.close()
  const gone = await app.inject(modernRequest('tools/list', {}, bearer(await issuer.sign())))
  t.equal(gone.statusCode, 503)
})

t.test('a verify function of the user\'s own (was the verify subtests of auth/verify)', async (t) => {
  const base = { resource: RESOURCE, authorizationServers: ['https://auth.example.com'] }

  /** Opaque tokens: a map, as an introspection endpoint would answer. */
  const tokens = new Map<string, unknown>([
    ['opaque-alice', { subject: 'alice', scopes: ['issues:read'], acr: 'mfa', authTime: 1, claims: { org: 'acme' } }],
    ['opaque-string-scopes', { subject: 'bob', scopes: 'issues:read issues:write' }],
    ['opaque-expired', { subject: 'carol', expiresAt: 1 }],
    ['opaque-bad-shape', { sub: 'dave' }],
    ['opaque-bad-scopes', { subject: 'erin', scopes: [1] }],
    ['opaque-bad-scopes-type', { subject: 'erin', scopes: 7 }],
    ['opaque-bad-acr', { subject: 'erin', acr: 1 }],
    ['opaque-bad-claims', { subject: 'erin', claims: 'x' }],
    ['opaque-bad-time', { subject: 'erin', authTime: 'yesterday' }],
    ['opaque-null', null],
    ['opaque-string', 'alice'],
    ['opaque-array', []]
  ])

  t.test('verify: any verifier plugs in; what it returns becomes ctx.auth', async (t) => {
    const seen: Array<{ token: string, url: string }> = []
    const { logger, lines } = captureLog({ level: 'info' })
    const app = await build({
      scopes: SCOPES,
      auth: {
        ...base,
        verify: async (token, request) => {
          seen.push({ token, url: request.url })
          if (!tokens.has(token)) throw new Error('introspection says inactive')
          return tokens.get(token) as never
        }
      }
    }, { logger })
    app.registerTool({ name: 'me', scope: 'issues:read', execute: (_args, ctx) => JSON.stringify(ctx.auth) })
    app.registerTool({ name: 'write', scope: 'issues:write', execute: () => 'written' })
    const call = (token: string, name = 'me') => app.inject(modernRequest('tools/call', { name, arguments: {} }, bearer(token)))

    const alice = await call('opaque-alice')
    t.same(JSON.parse(rpc(alice).result.content[0].text), { subject: 'alice', scopes: ['issues:read'], acr: 'mfa', authTime: 1, claims: { org: 'acme' } })
    t.same(seen[0], { token: 'opaque-alice', url: '/mcp' }, 'verify gets the token and the request')
    t.equal(rpc(await call('opaque-string-scopes', 'write')).result.content[0].text, 'written', 'scopes as a space-delimited string')

    const inactive = await call('opaque-unknown')
    t.equal(inactive.statusCode, 401)
    t.match(inactive.headers['www-authenticate'], /^Bearer error="invalid_token"/)
    t.match(lines.find((l) => l.msg === 'fastify-sake: access token refused'), { level: 30, reason: 'introspection says inactive' })

    const expired = await call('opaque-expired')
    t.equal(expired.statusCode, 401, 'a past expiresAt is refused even if verify accepted it')

    for (const token of ['opaque-bad-shape', 'opaque-bad-scopes', 'opaque-bad-scopes-type', 'opaque-bad-acr', 'opaque-bad-claims', 'opaque-bad-time', 'opaque-null', 'opaque-string', 'opaque-array']) {
      lines.length = 0
      const res = await call(token)
      t.equal(res.statusCode, 500, `${token}: a verifier bug is ours to fix, not the client's`)
      t.same(rpc(res).error, { code: -32603, message: 'Internal error' })
      t.match(lines.find((l) => l.level === 50)?.msg, /^fastify-sake: the auth verifier must return \{ subject/, token)
    }
  })

  t.test('verify that throws synchronously, or returns a plain value', async (t) => {
    const app = await build({
      auth: {
        ...base,
        verify: (token) => {
          if (token === 'boom') throw new TypeError('sync failure')
          return { subject: token }
        }
      }
    })
    app.registerTool({ name: 'me', execute: (_args, ctx) => `${ctx.auth!.subject} ${ctx.auth!.scopes.length}` })
    t.equal(rpc(await app.inject(modernRequest('tools/call', { name: 'me', arguments: {} }, bearer('zed')))).result.content[0].text, 'zed 0')
    t.equal((await app.inject(modernRequest('tools/call', { name: 'me', arguments: {} }, bearer('boom')))).statusCode, 401)
  })
})
