// `auth`, `scopes`, and `scope` / `authentication` on definitions: every mistake fails
// registration with a message saying what to change. Authorization is a security switch; a typo
// must never quietly serve without it.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import sake, { SakeOptionError, definePrompt } from '../../lib/index.js'
import { resolveOptions } from '../../lib/options/server.js'
import { build } from '../helpers/app.js'

const base = { name: 'test-server', version: '1.0.0' }
const auth = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'], verify: () => ({ subject: 'x' }) }

function refused (t: Test, options: Record<string, unknown>, message: RegExp | string): void {
  t.throws(() => resolveOptions({ ...base, ...options }), { name: 'SakeOptionError', code: 'SAKE_ERR_INVALID_OPTION', message }, String(message))
}

t.test('auth: false or absent is off', async (t) => {
  t.equal(resolveOptions({ ...base, auth: false }).auth, undefined)
  t.equal(resolveOptions(base).auth, undefined)
  refused(t, { auth: true }, "fastify-sake: option 'auth' must be false, or an object { resource, authorizationServers, verify | jwks | authenticate, ... }, got true (boolean)")
})

t.test('auth: the resource and its authorization servers', async (t) => {
  refused(t, { auth: { ...auth, resourse: 'x' } }, /^fastify-sake: unknown option 'auth\.resourse' \(did you mean 'auth\.resource'\?\)/)
  refused(t, { auth: { ...auth, resource: undefined } }, /^fastify-sake: option 'auth\.resource' must be this server's canonical URI, such as 'https:\/\/mcp\.example\.com\/mcp': an absolute http\(s\) URL without a fragment, got nothing$/)
  refused(t, { auth: { ...auth, resource: '/mcp' } }, /option 'auth\.resource' must be/)
  refused(t, { auth: { ...auth, resource: 'ftp://x.example.com/mcp' } }, /option 'auth\.resource' must be/)
  refused(t, { auth: { ...auth, resource: 'https://x.example.com/mcp#frag' } }, /option 'auth\.resource' must be/)
  refused(t, { auth: { ...auth, authorizationServers: [] } }, /^fastify-sake: option 'auth\.authorizationServers' must be a non-empty array of authorization server issuer URLs/)
  refused(t, { auth: { ...auth, authorizationServers: 'https://auth.example.com' } }, /option 'auth\.authorizationServers' must be/)
  refused(t, { auth: { ...auth, authorizationServers: ['https://ok.example.com', 'nope'] } }, /^fastify-sake: option 'auth\.authorizationServers\[1\]' must be an issuer URL/)
  const resolved = resolveOptions({ ...base, auth })
  t.equal(resolved.auth!.metadataUrl, 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp')
  t.equal(resolved.auth!.metadataPath, '/.well-known/oauth-protected-resource/mcp')
  t.ok(Object.isFrozen(resolved.auth) && Object.isFrozen(resolved.auth!.authorizationServers))
})

t.test('auth: exactly one way to check tokens', async (t) => {
  const { verify, ...noWay } = auth
  void verify
  refused(t, { auth: noWay }, "fastify-sake: option 'auth' needs exactly one way to check tokens: 'verify' (your function), 'jwks' (the built-in JWT verifier) or 'authenticate' (an existing auth hook); got none")
  refused(t, { auth: { ...auth, jwks: 'https://auth.example.com/jwks' } }, /got verify and jwks$/)
  refused(t, { auth: { ...auth, verify: 'yes' } }, /^fastify-sake: option 'auth\.verify' must be a function \(token, request\) => caller/)
  refused(t, { auth: { ...noWay, authenticate: {} } }, /^fastify-sake: option 'auth\.authenticate' must be a Fastify onRequest hook such as app\.authenticate/)
  refused(t, { auth: { ...noWay, authenticate: async () => {}, caller: 'user' } }, /^fastify-sake: option 'auth\.caller' must be a function/)
  refused(t, { auth: { ...auth, caller: () => undefined } }, "fastify-sake: option 'auth.caller' reads what 'auth.authenticate' left on the request; with 'auth.verify' the verifier returns the caller: remove it")
  refused(t, { auth: { ...auth, issuer: 'https://auth.example.com' } }, "fastify-sake: option 'auth.issuer' configures the built-in JWT verifier ('auth.jwks'); with 'auth.verify' your code checks the token, so it is never used: remove it, or check it in your code")
  refused(t, { auth: { ...noWay, authenticate: async () => {}, audience: 'x' } }, /option 'auth\.audience' configures the built-in JWT verifier/)
})

t.test('auth.jwks and its checks', async (t) => {
  const { verify, ...noWay } = auth
  void verify
  const jwks = { ...noWay, jwks: 'https://auth.example.com/.well-known/jwks.json' }
  const resolved = resolveOptions({ ...base, auth: jwks }).auth!.jwks!
  t.equal(resolved.url.href, jwks.jwks)
  t.same(resolved.issuer, ['https://auth.example.com'], 'issuer defaults to the authorization servers')
  t.same(resolved.audience, ['https://mcp.example.com/mcp'], 'audience defaults to the resource')
  t.notOk(resolved.algorithms.includes('none'))
  t.notOk(resolved.algorithms.some((alg) => alg.startsWith('HS')), 'no HMAC by default')
  t.equal(resolved.clockTolerance, 30)
  t.equal(resolveOptions({ ...base, auth: { ...noWay, jwks: new URL(jwks.jwks) } }).auth!.jwks!.url.href, jwks.jwks, 'a URL object')
  t.same(resolveOptions({ ...base, auth: { ...jwks, issuer: 'a', audience: ['b', 'c'], algorithms: ['ES256'], clockTolerance: 0 } }).auth!.jwks, { url: new URL(jwks.jwks), issuer: ['a'], audience: ['b', 'c'], algorithms: ['ES256'], clockTolerance: 0 })
  refused(t, { auth: { ...noWay, jwks: 'jwks.json' } }, /^fastify-sake: option 'auth\.jwks' must be the URL of the JSON Web Key Set: an absolute http\(s\) URL/)
  refused(t, { auth: { ...jwks, algorithms: ['none'] } }, /^fastify-sake: option 'auth\.algorithms' may only list asymmetric JWS algorithms \(RS256, .*\): a JWKS holds public keys, and 'none' is never accepted; got "none" \(string\)$/)
  refused(t, { auth: { ...jwks, algorithms: ['RS256', 'HS256'] } }, /may only list asymmetric JWS algorithms.*got "HS256"/)
  refused(t, { auth: { ...jwks, algorithms: [] } }, /^fastify-sake: option 'auth\.algorithms' must be a non-empty array of JWS algorithms/)
  refused(t, { auth: { ...jwks, issuer: [] } }, /^fastify-sake: option 'auth\.issuer' must be the accepted token issuer/)
  refused(t, { auth: { ...jwks, audience: [''] } }, /^fastify-sake: option 'auth\.audience' must be the accepted token audience/)
  for (const bad of [-1, 1.5, 301, '30']) refused(t, { auth: { ...jwks, clockTolerance: bad } }, /^fastify-sake: option 'auth\.clockTolerance' must be an integer from 0 to 300/)
  t.equal(resolveOptions({ ...base, auth: { ...jwks, clockTolerance: 7 } }).auth!.clockTolerance, 7, 'the same tolerance for a future auth_time')
})

t.test('auth.clockTolerance with every way: how far auth_time may be ahead for step-up', async (t) => {
  t.equal(resolveOptions({ ...base, auth }).auth!.clockTolerance, 30)
  t.equal(resolveOptions({ ...base, auth: { ...auth, clockTolerance: 0 } }).auth!.clockTolerance, 0)
  const { verify, ...noWay } = auth
  void verify
  t.equal(resolveOptions({ ...base, auth: { ...noWay, authenticate: async () => {}, clockTolerance: 300 } }).auth!.clockTolerance, 300)
  refused(t, { auth: { ...auth, clockTolerance: 301 } }, "fastify-sake: option 'auth.clockTolerance' must be an integer from 0 to 300 (seconds of clock skew allowed on exp, nbf and a future auth_time), got 301 (number)")
})

t.test('auth.hideForbidden and auth.metadata', async (t) => {
  t.equal(resolveOptions({ ...base, auth }).auth!.hideForbidden, false)
  t.equal(resolveOptions({ ...base, auth: { ...auth, hideForbidden: true } }).auth!.hideForbidden, true)
  refused(t, { auth: { ...auth, hideForbidden: 'yes' } }, "fastify-sake: option 'auth.hideForbidden' must be a boolean, got \"yes\" (string)")
  refused(t, { auth: { ...auth, metadata: [] } }, /^fastify-sake: option 'auth\.metadata' must be an object of Protected Resource Metadata fields/)
  refused(t, { auth: { ...auth, metadata: { resource: 'x' } } }, "fastify-sake: option 'auth.metadata' must not set 'resource': it comes from auth.resource, auth.authorizationServers and the header-only bearer method")
  refused(t, { auth: { ...auth, metadata: { authorization_servers: [] } } }, /must not set 'authorization_servers'/)
  refused(t, { auth: { ...auth, metadata: { size: 1n } } }, /^fastify-sake: option 'auth\.metadata' must be JSON \(it is served as it is\): /)
  const metadata = { resource_name: 'Issues' }
  const resolved = resolveOptions({ ...base, auth: { ...auth, metadata } })
  metadata.resource_name = 'changed'
  t.same(resolved.auth!.metadata, { resource_name: 'Issues' }, 'copied at registration')
})

t.test('scopes: scope tokens with descriptions', async (t) => {
  t.same([...resolveOptions({ ...base, scopes: { 'issues:read': 'Read issues' } }).scopes], [['issues:read', 'Read issues']])
  refused(t, { scopes: ['issues:read'] }, "fastify-sake: option 'scopes' must be an object of scope → description, such as { 'issues:read': 'Read issues' }, got [\"issues:read\"] (array)")
  refused(t, { scopes: { 'issues read': 'x' } }, 'fastify-sake: option \'scopes\' has the scope "issues read", which is not an OAuth scope token (printable ASCII without spaces, \'"\' or \'\\\')')
  refused(t, { scopes: { 'a"b': 'x' } }, /not an OAuth scope token/)
  refused(t, { scopes: { 'issues:read': '' } }, "fastify-sake: option 'scopes['issues:read']' must be a non-empty description (a consent page shows it), got \"\" (string)")
})

t.test('a register with a bad auth option fails, and nothing is served', async (t) => {
  const app = Fastify()
  await t.rejects(async () => { await app.register(sake, { ...base, auth: { ...auth, resource: 'nope' } } as never) }, SakeOptionError)
})

t.test('scope and authentication on definitions: registration errors', async (t) => {
  const app = await build({ scopes: { 'issues:read': 'Read issues', 'issues:write': 'Change issues' } })
  const tool = (extra: Record<string, unknown>) => ({ name: 'demo', execute: () => 'x', ...extra })
  const toolRefused = (extra: Record<string, unknown>, message: RegExp | string): void => {
    t.throws(() => app.registerTool(tool(extra) as never), { code: 'SAKE_ERR_INVALID_TOOL', message }, String(message))
  }
  toolRefused({ scope: 'issues:admin' }, "tool 'demo': scope 'issues:admin' is not declared; declare it in the plugin's scopes option, such as scopes: { 'issues:admin': 'What it allows' } (declared: issues:read, issues:write)")
  toolRefused({ scope: ['issues:read', 'nope'] }, /scope 'nope' is not declared/)
  toolRefused({ scope: [] }, "tool 'demo': 'scope' must be a scope name or a non-empty array of them, such as 'issues:read', got []")
  toolRefused({ scope: 7 }, /'scope' must be a scope name/)
  toolRefused({ authentication: 'mfa' }, "tool 'demo': 'authentication' must be an object { acr?: string[], maxAge?: seconds }, such as { acr: ['mfa'], maxAge: 300 }, got \"mfa\"")
  toolRefused({ authentication: {} }, "tool 'demo': 'authentication' needs 'acr', 'maxAge' or both")
  toolRefused({ authentication: { max_age: 5 } }, "tool 'demo': unknown option 'authentication.max_age'; known options are acr, maxAge")
  toolRefused({ authentication: { acr: [] } }, /'authentication\.acr' must be a non-empty array of acr values/)
  toolRefused({ authentication: { acr: ['a b'] } }, /'authentication\.acr' must be a non-empty array of acr values/)
  toolRefused({ authentication: { maxAge: -1 } }, "tool 'demo': 'authentication.maxAge' must be a non-negative integer (seconds since sign-in), got -1")
  t.equal(app.mcp.tools.has('demo'), false, 'nothing half-registered')
  app.registerTool(tool({ scope: ['issues:read', 'issues:read'], authentication: { acr: ['mfa'] } }) as never)
  t.same(app.mcp.scopes()[0].tools, ['demo'], 'a repeated scope counts once')

  t.throws(() => app.registerResource({ uri: 'a://b', name: 'n', scope: 'nope', read: () => 'x' }), { code: 'SAKE_ERR_INVALID_RESOURCE', message: /^resource 'a:\/\/b': scope 'nope' is not declared/ })
  t.throws(() => app.registerResource({ uriTemplate: 'a://{id}', name: 'n', scope: 'nope', read: () => 'x' }), { code: 'SAKE_ERR_INVALID_RESOURCE', message: /^resource template 'a:\/\/\{id\}': scope 'nope'/ })
  t.throws(() => app.registerResource({ uri: 'a://c', name: 'n', authentication: { maxAge: 1 }, read: () => 'x' } as never), { code: 'SAKE_ERR_INVALID_RESOURCE', message: /unknown option 'authentication'/ }, 'step-up is for tools')
  t.throws(() => app.registerPrompt(definePrompt({ name: 'p', scope: 'nope', get: () => 'x' })), { code: 'SAKE_ERR_INVALID_PROMPT', message: /^prompt 'p': scope 'nope' is not declared/ })

  const bare = await build()
  t.throws(() => bare.registerTool(tool({ scope: 'issues:read' }) as never), { message: "tool 'demo': scope 'issues:read' is not declared; declare it in the plugin's scopes option, such as scopes: { 'issues:read': 'What it allows' }" }, 'no scopes declared at all')
})
