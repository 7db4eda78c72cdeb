// An authorization server as small as a test needs: signing keys generated with jose, their
// public halves served as a JWKS by a real Fastify server on a real port, and a token minter.
import Fastify, { type FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload, type CryptoKey } from 'jose'
import { Type } from '../../lib/index.js'
import type { SakeOptions } from '../../lib/index.js'
import { build } from '../helpers/app.js'

export const RESOURCE = 'https://mcp.example.com/mcp'
export const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'

export interface Issuer {
  /** The issuer identifier (`iss`), also the authorization server URL. */
  readonly issuer: string
  readonly jwks: string
  /** How many times the JWKS was fetched. */
  readonly fetches: () => number
  /** A token signed by the JWKS key: `sub: alice`, audience RESOURCE, one hour, unless `claims` say otherwise. */
  sign: (claims?: JWTPayload, options?: { key?: CryptoKey, alg?: string, kid?: string }) => Promise<string>
  /** A key pair the JWKS does not publish. */
  readonly strangerKey: CryptoKey
}

export async function startIssuer (t: Test): Promise<Issuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256')
  const stranger = await generateKeyPair('RS256')
  const jwk = { ...await exportJWK(publicKey), kid: 'key-1', alg: 'RS256', use: 'sig' }
  let fetches = 0
  const server: FastifyInstance = Fastify()
  server.get('/jwks.json', async () => {
    fetches++
    return { keys: [jwk] }
  })
  await server.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => server.close())
  const { port } = server.server.address() as { port: number }
  const issuer = `http://127.0.0.1:${port}`
  return {
    issuer,
    jwks: `${issuer}/jwks.json`,
    fetches: () => fetches,
    strangerKey: stranger.privateKey,
    sign: async (claims = {}, options = {}) => {
      const now = Math.floor(Date.now() / 1000)
      return await new SignJWT({ scope: 'issues:read issues:write', ...claims })
        .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? 'key-1', typ: 'at+jwt' })
        .setIssuer(claims.iss ?? issuer)
        .setSubject(claims.sub ?? 'alice')
        .setAudience(claims.aud ?? RESOURCE)
        .setIssuedAt(now)
        .setExpirationTime(claims.exp ?? now + 3600)
        .sign(options.key ?? privateKey)
    }
  }
}

export const SCOPES = { 'issues:read': 'Read issues', 'issues:write': 'Change issues', 'issues:admin': 'Administer issues' }

/** An app with auth on (the built-in JWT verifier against `issuer`) and tools under each scope. */
export async function authApp (issuer: Issuer, auth: Partial<NonNullable<Exclude<SakeOptions['auth'], false>>> = {}, options: Partial<SakeOptions> = {}): Promise<FastifyInstance> {
  const app = await build({
    scopes: SCOPES,
    auth: { resource: RESOURCE, authorizationServers: [issuer.issuer], jwks: issuer.jwks, ...auth } as NonNullable<Exclude<SakeOptions['auth'], false>>,
    ...options
  })
  app.registerTool({ name: 'open', execute: () => 'anyone' })
  app.registerTool({ name: 'list_issues', scope: 'issues:read', execute: (_args, ctx) => `issues for ${ctx.auth?.subject ?? 'nobody'}` })
  app.registerTool({ name: 'close_issue', scope: ['issues:read', 'issues:write'], args: { id: Type.Integer() }, execute: ({ id }) => `closed ${id}` })
  app.registerTool({ name: 'stream_admin', scope: 'issues:admin', stream: true, execute: (_args, ctx) => { ctx.progress(1, 2); return 'done' } })
  app.registerTool({ name: 'delete_repo', authentication: { acr: ['mfa', 'hwk'], maxAge: 300 }, execute: () => 'deleted' })
  app.registerTool({ name: 'recent_only', authentication: { maxAge: 60 }, execute: () => 'fresh' })
  return app
}

export function bearer (token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}
