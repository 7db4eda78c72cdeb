/**
 * DNS-rebinding protection: the `Host` and `Origin` checks of the MCP routes' `onRequest` hook.
 *
 * A page on evil.example can rebind its name to 127.0.0.1 and make the victim's browser POST to a
 * local MCP server: the request then carries `Host: evil.example` (and `Origin: http://evil.example`),
 * which no local client sends. So on a loopback connection, by default, only loopback names pass.
 * Explicit lists replace the default and apply to every connection; `false` turns a check off.
 * `allowedOrigins` may also be the host's own decision: a function, or `'cors'` (what the host's
 * `@fastify/cors` allowed), so that a browser app's origins live in one list.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { got } from '../checks.js'
import { ProtocolError } from '../errors.js'
import { INVALID_REQUEST } from '../spec/jsonrpc.js'
import { headerValue } from './headers.js'

/** The loopback names the default accepts, as they appear in `Host` (IPv6 bracketed). */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]'])

/** A host name: DNS labels, an IPv4 address, or a bracketed IPv6 address. */
const HOSTNAME = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])$/
const PORT = /^[0-9]{1,5}$/

/** A `Host` value split into its lower-cased name and its port ('' when none); undefined when malformed. */
export function splitHost (value: string): { name: string, port: string } | undefined {
  const lower = value.trim().toLowerCase()
  const close = lower.startsWith('[') ? lower.indexOf(']') : -1
  const colon = lower.indexOf(':', close + 1)
  const name = colon === -1 ? lower : lower.slice(0, colon)
  const port = colon === -1 ? '' : lower.slice(colon + 1)
  if (!HOSTNAME.test(name)) return undefined
  if (colon !== -1 && (!PORT.test(port) || Number(port) > 65535)) return undefined
  return { name, port }
}

/**
 * Checks one `allowedHosts` entry (`host` or `host:port`, IPv6 bracketed) and returns it
 * normalised, or the reason it is wrong.
 */
export function hostEntry (entry: unknown): { value: string } | { problem: string } {
  if (typeof entry !== 'string' || entry === '') return { problem: 'is not a non-empty string' }
  if (entry.includes('://')) return { problem: 'is a URL; give a host name such as localhost or localhost:3000 (full origins go in allowedOrigins)' }
  const host = splitHost(entry)
  if (host === undefined) return { problem: 'is not a host name with an optional port (IPv6 addresses in brackets: [::1]:3000)' }
  return { value: host.port === '' ? host.name : `${host.name}:${host.port}` }
}

/** Checks one `allowedOrigins` entry (`scheme://host[:port]`) and returns it normalised, or the reason it is wrong. */
export function originEntry (entry: unknown): { value: string } | { problem: string } {
  if (typeof entry !== 'string' || entry === '') return { problem: 'is not a non-empty string' }
  const origin = parseOrigin(entry)
  if (origin === undefined) return { problem: 'is not an origin: give a scheme, a host and an optional port, such as https://app.example.com or http://localhost:5173, with no path, no trailing slash and no default port' }
  return { value: origin }
}

/**
 * The origin a value names when it is exactly an origin as browsers send it (`scheme://host[:port]`:
 * no path, no trailing slash, no default port), lower-cased; undefined otherwise, 'null' included.
 */
function parseOrigin (value: string): string | undefined {
  let origin: string
  try {
    origin = new URL(value).origin
  } catch {
    return undefined
  }
  return origin !== 'null' && origin === value.toLowerCase() ? origin : undefined
}

/** The host's own Origin check: the `Origin` as sent, and the request; true accepts. Synchronous. */
export type OriginCheck = (origin: string, request: FastifyRequest) => boolean

/**
 * The resolved policy: a list of accepted values, `false` (no check), or `undefined` (the loopback
 * default); for origins also the host's function, or `'cors'` (the host's `@fastify/cors` decides).
 */
export interface OriginPolicy {
  readonly allowedHosts: readonly string[] | false | undefined
  readonly allowedOrigins: readonly string[] | OriginCheck | 'cors' | false | undefined
}

/** Whether the connection arrived on a loopback address (127.0.0.0/8 or ::1, IPv4-mapped included). */
export function isLoopback (address: string | undefined): boolean {
  if (address === undefined) return false
  if (address === '::1') return true
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address
  return v4.startsWith('127.') && v4.split('.').length === 4
}

function hostAllowed (list: readonly string[] | undefined, value: string): boolean {
  const host = splitHost(value)
  if (host === undefined) return false
  if (list === undefined) return LOOPBACK_NAMES.has(host.name)
  return list.includes(host.name) || (host.port !== '' && list.includes(`${host.name}:${host.port}`))
}

function originAllowed (list: readonly string[] | undefined, value: string): boolean {
  const origin = parseOrigin(value)
  if (origin === undefined) return false
  if (list !== undefined) return list.includes(origin)
  const url = new URL(origin)
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname)
}

/**
 * `'cors'`: the host's CORS hook (`@fastify/cors`, an `onRequest` hook of the host's context, so it
 * ran before ours) set `Access-Control-Allow-Origin` for an origin it allows, and nothing for one it
 * does not. Accepted: `*` or this very origin, compared as the browser compares them (exactly).
 */
function corsAllowed (reply: FastifyReply, origin: string): boolean {
  const allowed = reply.getHeader('access-control-allow-origin')
  return allowed === '*' || allowed === origin
}

/** The host's function, held to its contract: anything but a boolean is a bug, never a yes. */
function checkAllowed (allowed: OriginCheck, request: FastifyRequest, origin: string): boolean {
  const verdict: unknown = allowed(origin, request)
  if (typeof verdict === 'boolean') return verdict
  const shown = typeof (verdict as { then?: unknown } | null)?.then === 'function' ? 'a promise' : got(verdict)
  // an Error, not a ProtocolError: the routes' error handler logs it and answers 500
  throw new TypeError(`fastify-sake: the allowedOrigins function returned ${shown} for Origin ${JSON.stringify(origin)}; it must return true or false, synchronously`)
}

type OriginTest = (request: FastifyRequest, reply: FastifyReply, origin: string) => boolean

/** How a sent `Origin` is judged under the policy; undefined when it is not (`false`). */
function originTest (allowed: OriginPolicy['allowedOrigins']): OriginTest | undefined {
  if (allowed === false) return undefined
  if (allowed === 'cors') return (_request, reply, origin) => corsAllowed(reply, origin)
  if (typeof allowed === 'function') return (request, _reply, origin) => checkAllowed(allowed, request, origin)
  return (_request, _reply, origin) => originAllowed(allowed, origin)
}

function forbidden (what: string, value: string): ProtocolError {
  // the value is the client's, shown back to it: JSON.stringify keeps control characters visible
  return new ProtocolError(INVALID_REQUEST, `Forbidden: ${what} ${JSON.stringify(value)} is not allowed`, 403)
}

/** Per connection, whether it arrived on a loopback address: a keep-alive connection is asked once. */
const loopbackSockets = new WeakMap<object, boolean>()

function onLoopback (request: FastifyRequest): boolean {
  let local = loopbackSockets.get(request.socket)
  if (local === undefined) {
    // app.inject's fake socket (light-my-request) has no localAddress, only the remoteAddress it
    // simulates (127.0.0.1 unless `inject({ remoteAddress })` says otherwise): it decides, as the
    // peer of a real connection would (a loopback connection has loopback at both ends)
    local = isLoopback(request.socket.localAddress ?? request.socket.remoteAddress)
    loopbackSockets.set(request.socket, local)
  }
  return local
}

/**
 * The `onRequest` hook for the MCP routes, or undefined when both checks are off. It passes a 403
 * ProtocolError on, which the routes' error handler turns into a JSON-RPC error (-32600).
 *
 * It runs on every request, so it is a callback hook (no promise to await) that checks a `Host`
 * equal to the last one it accepted only once (bench/RESULTS.md: the profile of a tools/call).
 */
export function originGuard (policy: OriginPolicy): onRequestHookHandler | undefined {
  const { allowedHosts, allowedOrigins } = policy
  if (allowedHosts === false && allowedOrigins === false) return undefined
  let acceptedHost: string | undefined
  const originOk = originTest(allowedOrigins)
  const originRefused = allowedOrigins === 'cors'
    ? "fastify-sake: refused a request whose Origin the host's CORS setup does not allow (allowedOrigins: 'cors': no Access-Control-Allow-Origin for it on the reply, as @fastify/cors sets in its onRequest hook; DNS-rebinding protection)"
    : 'fastify-sake: refused a request whose Origin is not allowed (DNS-rebinding protection)'
  const check = (request: FastifyRequest, reply: FastifyReply): ProtocolError | undefined => {
    // the defaults (undefined) guard loopback connections only: elsewhere there is no local server to rebind to
    const local = (allowedHosts === undefined || allowedOrigins === undefined) && onLoopback(request)
    if (allowedHosts !== false && (allowedHosts !== undefined || local)) {
      const host = request.host
      if (host !== acceptedHost) {
        if (!hostAllowed(allowedHosts, host)) {
          request.log.info({ host }, 'fastify-sake: refused a request whose Host is not allowed (DNS-rebinding protection)')
          return forbidden('Host', host)
        }
        acceptedHost = host
      }
    }
    const origin = headerValue(request.headers, 'origin')
    // no Origin: not a browser's cross-origin request (non-browser clients send none)
    if (origin !== undefined && originOk !== undefined && (allowedOrigins !== undefined || local)) {
      if (!originOk(request, reply, origin)) {
        request.log.info({ origin }, originRefused)
        return forbidden('Origin', origin)
      }
    }
    return undefined
  }
  return function mcpOriginCheck (request, reply, done) {
    done(check(request, reply))
  }
}
