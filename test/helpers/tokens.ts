// An authorization server as small as a test needs: signing keys (generated once per process), their public halves served as a JWKS on a real port, a token minter, and an app with auth on.
import Fastify, { type FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload, type CryptoKey, type GenerateKeyPairResult } from 'jose'
import { Type } from '../../lib/index.js'
import type { SakeOptions } from '../../lib/index.js'
import { build, listen, portOf } from './app.js'

export const RESOURCE = 'https://mcp.example.com/mcp'
export const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
export const SCOPES = { 'issues:read': 'Read issues', 'issues:write': 'Change issues', 'issues:admin': 'Administer issues' }

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

// RSA key generation takes ~180 ms a pair: every issuer of this process shares the same two pairs
// (the JWKS key and the stranger's). Issuers still differ by their URL, and so by `iss`.
let keys: Promise<[GenerateKeyPairResult, GenerateKeyPairResult]> | undefined

/** The two RS256 key pairs of this process, generated on first use. */
async function keyPairs (): Promise<[GenerateKeyPairResult, GenerateKeyPairResult]> {
  keys ??= Promise.all([generateKeyPair('RS256'), generateKeyPair('RS256')])
  return await keys
}

/** Starts an issuer: its JWKS (kid key-1) served on 127.0.0.1 until `t` ends. */
export async function startIssuer (t: Test): Promise<Issuer> {
  const [{ publicKey, privateKey }, stranger] = await keyPairs()
  const jwk = { ...await exportJWK(publicKey), kid: 'key-1', alg: 'RS256', use: 'sig' }
  let fetches = 0
  const server: FastifyInstance = Fastify()
  server.get('/jwks.json', async () => {
    fetches++
    return { keys: [jwk] }
  })
  await listen(t, server)
  const issuer = `http://127.0.0.1:${portOf(server)}`
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

/** The Authorization header of a bearer token. */
export function bearer (token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}
