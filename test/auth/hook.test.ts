// An auth hook the service already has, instead of `verify` (here one shaped like @fastify/jwt's
// `app.authenticate`): what it leaves on the request (request.user read as JWT claims, or a custom
// caller) becomes ctx.auth, and its refusals get our challenge.
import t from 'tap'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { jwtVerify } from 'jose'
import { build, sleep } from '../helpers/app.js'
import { modernRequest, rpc } from '../helpers/requests.js'
import { METADATA_URL, RESOURCE, SCOPES, bearer, startIssuer } from '../helpers/tokens.js'
import { captureLog } from '../helpers/logs.js'

const base = { resource: RESOURCE, authorizationServers: ['https://auth.example.com'] }

/** A hook shaped like @fastify/jwt's: `request.jwtVerify()` then `request.user`. */
function jwtLike (jwks: (token: string) => Promise<Record<string, unknown>>) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization
    if (header === undefined) throw Object.assign(new Error('No Authorization was found in request.headers'), { statusCode: 401, code: 'FST_JWT_NO_AUTHORIZATION_IN_HEADER' })
    const user = await jwks(header.replace(/^Bearer /, ''));
    (request as unknown as { user: unknown }).user = user
  }
}

t.test('authenticate: an existing auth hook instead of verify; request.user read as JWT claims', async (t) => {
  const issuer = await startIssuer(t)
  const { createRemoteJWKSet } = await import('jose')
  const keys = createRemoteJWKSet(new URL(issuer.jwks))
  const verifyJwt = async (token: string): Promise<Record<string, unknown>> => (await jwtVerify(token, keys, { audience: RESOURCE })).payload
  const app = await build({ scopes: SCOPES, auth: { ...base, authenticate: jwtLike(verifyJwt) } })
  app.registerTool({ name: 'me', scope: 'issues:read', execute: (_args, ctx) => `${ctx.auth!.subject}: ${ctx.auth!.scopes.join(',')}` })
  const call = (headers: Record<string, string> = {}) => app.inject(modernRequest('tools/call', { name: 'me', arguments: {} }, headers))

  t.equal(rpc(await call(bearer(await issuer.sign()))).result.content[0].text, 'alice: issues:read,issues:write')
  const none = await call()
  t.equal(none.statusCode, 401)
  t.equal(none.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}", scope="issues:read"`, 'the hook threw without a token: the plain challenge')
  const bad = await call(bearer(await issuer.sign({}, { key: issuer.strangerKey })))
  t.equal(bad.statusCode, 401)
  t.match(bad.headers['www-authenticate'], /^Bearer error="invalid_token"/)
  const scopeless = await call(bearer(await issuer.sign({ scope: 'other' })))
  t.equal(scopeless.statusCode, 403, 'scopes still checked')
})

t.test('authenticate: a callback hook, a custom caller, and a hook that answers itself', async (t) => {
  const app = await build({
    auth: {
      ...base,
      authenticate (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) {
        const header = request.headers.authorization
        if (header === 'Bearer teapot') {
          void reply.code(418).send({ error: 'I am a teapot' })
          return done()
        }
        if (header === 'Bearer fails') return done(new Error('nope'))
        if (header === 'Bearer nobody') return done()
        if (header === 'Bearer weird') {
          (request as unknown as { session: unknown }).session = { user: 7 }
          return done()
        }
        (request as unknown as { session: unknown }).session = { user: header?.slice(7) }
        done()
      },
      caller: (request) => {
        const session = (request as unknown as { session?: { user: unknown } }).session
        return session === undefined ? undefined : { subject: session.user as string, scopes: [] }
      }
    }
  })
  app.registerTool({ name: 'me', execute: (_args, ctx) => ctx.auth!.subject })
  const call = (token: string) => app.inject(modernRequest('tools/call', { name: 'me', arguments: {} }, bearer(token)))
  t.equal(rpc(await call('zoe')).result.content[0].text, 'zoe')
  const teapot = await call('teapot')
  t.equal(teapot.statusCode, 418, 'the hook\'s own answer stands')
  t.equal((await call('fails')).statusCode, 401)
  const nobody = await call('nobody')
  t.equal(nobody.statusCode, 401, 'no caller on the request')
  t.match(nobody.headers['www-authenticate'], /error="invalid_token"/)
  t.equal((await call('weird')).statusCode, 500, 'a caller that is not one: our user\'s bug')
})

t.test('authenticate: a hook that sends its own 401 error still gets our challenge', async (t) => {
  const { logger, lines } = captureLog({ level: 'info' })
  const app = await build({
    auth: {
      ...base,
      // @fastify/jwt's README: try { await request.jwtVerify() } catch (err) { reply.send(err) }
      authenticate: async (request, reply) => {
        if (request.headers.authorization !== 'Bearer good') {
          const err = Object.assign(new Error('Authorization token is invalid'), { statusCode: 401 })
          return reply.send(err)
        }
        (request as unknown as { user: unknown }).user = { sub: 'gus', scope: 'a' }
      }
    }
  }, { logger })
  app.registerTool({ name: 'me', execute: (_args, ctx) => ctx.auth!.subject })
  t.equal(rpc(await app.inject(modernRequest('tools/call', { name: 'me', arguments: {} }, bearer('good')))).result.content[0].text, 'gus')
  const bad = await app.inject(modernRequest('tools/call', { name: 'me', arguments: {} }, bearer('bad')))
  t.equal(bad.statusCode, 401)
  t.match(bad.headers['www-authenticate'], /^Bearer error="invalid_token", error_description="The access token is invalid", resource_metadata=/)
  t.ok(lines.some((l) => l.msg === 'fastify-sake: access token refused by the authenticate hook' && l.reason === 'Authorization token is invalid'))
  const none = await app.inject(modernRequest('tools/call', { name: 'me', arguments: {} }))
  t.equal(none.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}"`)
})

t.test('authenticate without a caller: request.user without sub is refused', async (t) => {
  const app = await build({ auth: { ...base, authenticate: async (request) => { (request as unknown as { user: unknown }).user = { name: 'no sub' } } } })
  const res = await app.inject(modernRequest('tools/list', {}, bearer('x')))
  t.equal(res.statusCode, 401)
  const none = await build({ auth: { ...base, authenticate: async () => {} } })
  t.equal((await none.inject(modernRequest('tools/list', {}, bearer('x')))).statusCode, 401, 'no request.user at all')
})

t.test('authenticate: a hook that sends its own 401 error, in a host with async onError and onSend hooks', async (t) => {
  // regression: reply.send(err) was not written yet when the hook returned (the host's hooks take
  // a moment), so ours went on and answered again: with the onError hook still running, Fastify
  // threw FST_ERR_SEND_INSIDE_ONERR (the process died); and the no-token challenge lacked the scope hint
  const { logger, lines } = captureLog({ level: 'warn' })
  const app = await build({
    scopes: SCOPES,
    auth: {
      ...base,
      authenticate: async (request, reply) => {
        if (request.headers.authorization === 'Bearer good') {
          (request as unknown as { user: unknown }).user = { sub: 'gus', scope: 'issues:read' }
          return
        }
        const err = request.headers.authorization === undefined
          ? Object.assign(new Error('No Authorization was found in request.headers'), { statusCode: 401 })
          : Object.assign(new Error('Authorization token is invalid'), { statusCode: 401 })
        reply.send(err)
      }
    }
  }, { logger })
  let errors = 0
  app.addHook('onError', async () => {
    await sleep(2) // hooks that take time, as real ones do
    errors++
  })
  app.addHook('onSend', async (_request, _reply, payload) => {
    await sleep(2) // as above
    return payload
  })
  let runs = 0
  app.registerTool({ name: 'me', scope: 'issues:read', execute: (_args, ctx) => { runs++; return ctx.auth!.subject } })
  const call = (headers: Record<string, string> = {}) => app.inject(modernRequest('tools/call', { name: 'me', arguments: {} }, headers))

  t.equal(rpc(await call(bearer('good'))).result.content[0].text, 'gus')
  const none = await call()
  t.equal(none.statusCode, 401)
  t.equal(none.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}", scope="issues:read"`, 'the scope hint, as when a hook throws')
  const bad = await call(bearer('bad'))
  t.equal(bad.statusCode, 401)
  t.match(bad.headers['www-authenticate'], /^Bearer error="invalid_token", /)
  t.equal(rpc(bad).error?.message, 'Unauthorized: the access token is invalid, expired or not issued for this server')
  t.equal(runs, 1, 'the tool ran for the good token only')
  t.equal(errors, 2, 'the host\'s onError hook saw each refusal once')
  t.same(lines.filter((line) => line.reqId !== undefined).map((line) => line.msg), [], 'each refusal answered once: no "Reply was already sent"')
})
