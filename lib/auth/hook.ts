/**
 * The `onRequest` hook of the MCP routes when `auth` is on: finds the bearer token, has it
 * verified, and puts the caller on `request.mcpAuth`, before the body is even read (an anonymous
 * caller never costs us a parse). What the caller may then do is checked once the body says what
 * it asks for (`protocol/access-check.ts`, called by the HTTP edge).
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { BadCaller, ProtocolError, TokenRefused, VerifierUnavailable } from '../errors.js'
import { INTERNAL_ERROR } from '../spec/jsonrpc.js'
import type { Registry } from '../define/registry.js'
import { scopesNamed } from '../protocol/access-check.js'
import { invalidToken, missingToken } from './challenge.js'
import type { AuthenticateHook, ResolvedAuth } from './auth-options.js'
import { callerFromClaims, jwksVerifier, toAuthInfo } from './verify.js'
import { METHOD, NAME } from '../spec/headers.js'

/** RFC 6750 §2.1: `Bearer` then a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i

/**
 * The token of an `Authorization: Bearer` header: undefined when there is none (absent, or
 * another scheme: the request lacks bearer authentication), null when it is malformed.
 */
export function bearerToken (header: string | undefined): string | null | undefined {
  if (header === undefined || !/^bearer(?: |$)/i.test(header)) return undefined
  return BEARER.exec(header)?.[1] ?? null
}

const unavailable = new ProtocolError(INTERNAL_ERROR, 'Service Unavailable: access tokens cannot be checked right now; try again later', 503)
const internal = new ProtocolError(INTERNAL_ERROR, 'Internal error', 500)

/**
 * Runs the user's hook, async or callback style, as Fastify would. True when it answered the
 * request itself (`reply.send`, or `reply.hijack`). A `reply.send(err)` (@fastify/jwt's recipe)
 * goes through the error handler and the onError and onSend hooks, which may be async:
 * `reply.sent` can still be false when the hook returns, so the call itself is noted. Otherwise we
 * would go on and answer a second time (with an async onError hook, Fastify throws: the process dies).
 */
async function runHook (hook: AuthenticateHook, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  let answered = false
  const send = reply.send
  reply.send = function (this: FastifyReply, payload?: unknown) {
    answered = true
    return send.call(this, payload)
  }
  try {
    if (hook.length >= 3) {
      await new Promise<void>((resolve, reject) => {
        hook.call(request.server, request, reply, (err) => { err === undefined || err === null ? resolve() : reject(err) })
      })
    } else {
      // an async hook takes no callback (Fastify would refuse one that asks for both)
      await (hook as (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown).call(request.server, request, reply)
    }
  } finally {
    reply.send = send
  }
  return answered || reply.sent
}

/**
 * No usable token: the challenge names the scopes of the tool the headers say is called (a hint
 * only: the body decides). Also for an authenticate hook's own 401 without a token (http/routes.ts).
 */
export function missingFor (metadataUrl: string, registry: Registry, request: FastifyRequest): ProtocolError {
  const method = request.headers[METHOD]
  const name = request.headers[NAME]
  return missingToken(metadataUrl, typeof method === 'string' && typeof name === 'string' ? scopesNamed(registry, method, name) : undefined)
}

export async function authHook (auth: ResolvedAuth, registry: Registry): Promise<onRequestHookHandler> {
  const { metadataUrl } = auth
  const jwt = auth.jwks === undefined ? undefined : await jwksVerifier(auth.jwks)
  const verify = auth.verify

  const missing = (request: FastifyRequest): ProtocolError => missingFor(metadataUrl, registry, request)

  const refuse = (request: FastifyRequest, err: unknown): ProtocolError => {
    if (err instanceof VerifierUnavailable) {
      request.log.error({ err }, 'fastify-sake: cannot verify access tokens')
      return unavailable
    }
    if (err instanceof BadCaller) {
      request.log.error({ err }, err.message)
      return internal
    }
    // a refused token is bad input, not our failure: logged below error level
    request.log.info({ reason: err instanceof TokenRefused ? err.reason : (err as Error)?.message }, 'fastify-sake: access token refused')
    return invalidToken(metadataUrl)
  }

  if (auth.authenticate !== undefined) {
    const { hook, caller = (request: FastifyRequest) => callerFromClaims((request as unknown as { user?: unknown }).user) } = auth.authenticate
    return async function authenticate (request, reply) {
      const sent = bearerToken(request.headers.authorization)
      try {
        // the hook answered the request itself (its own 401): that answer stands; returning the
        // reply (a thenable, settled once the answer is sent) holds Fastify until it is written
        if (await runHook(hook, request, reply)) return reply
        const found = caller(request)
        if (found === undefined || found === null) throw new TokenRefused('the authenticate hook left no caller on the request')
        request.mcpAuth = toAuthInfo(found)
      } catch (err) {
        throw sent === undefined && !(err instanceof BadCaller) ? missing(request) : refuse(request, err)
      }
    }
  }

  return async function verifyBearer (request) {
    const token = bearerToken(request.headers.authorization)
    if (token === undefined) throw missing(request)
    try {
      if (token === null) throw new TokenRefused('the Authorization header is not "Bearer <token>"')
      request.mcpAuth = jwt !== undefined ? await jwt(token) : toAuthInfo(await verify!(token, request))
    } catch (err) {
      throw refuse(request, err)
    }
  }
}
