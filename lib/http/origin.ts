/**
 * DNS-rebinding protection: the `Host` and `Origin` checks of the MCP routes' `onRequest` hook.
 *
 * A page on evil.example can rebind its name to 127.0.0.1 (or to a LAN or container address) and
 * make the victim's browser POST to an MCP server it can reach: the request then carries
 * `Host: evil.example` and `Origin: http://evil.example`. So on a loopback connection, by default,
 * only loopback names pass; on any other connection an `Origin`, when sent, must be welcomed by the
 * operator: listed in `allowedOrigins`, or naming a host of `allowedHosts` (the service's own names).
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
 * The URL of a value that is exactly an origin as browsers send it (`scheme://host[:port]`: no path,
 * no trailing slash, no default port, any case); undefined otherwise, 'null' (an opaque origin) included.
 */
function originUrl (value: string): URL | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  return url.origin !== 'null' && url.origin === value.toLowerCase() ? url : undefined
}

/** The origin a value names (see originUrl), lower-cased; undefined when it is not one. */
function parseOrigin (value: string): string | undefined {
  return originUrl(value)?.origin
}

/** The host's own Origin check: the `Origin` as sent, and the request; true accepts. Synchronous. */
export type OriginCheck = (origin: string, request: FastifyRequest) => boolean

/**
 * The resolved policy: a list of accepted values, `false` (no check), or `undefined` (the default);
 * for origins also the host's function, or `'cors'` (the host's `@fastify/cors` decides).
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

function originAllowed (list: readonly string[], value: string): boolean {
  const origin = parseOrigin(value)
  return origin !== undefined && list.includes(origin)
}

/** The default on a loopback connection: an http(s) origin of a loopback name, on any port. */
function loopbackOrigin (value: string): boolean {
  const url = originUrl(value)
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname)
}

/**
 * The default on any other connection: an http(s) origin whose host, with its port (explicit, else
 * the scheme's default), `allowedHosts` accepts, as it would accept that `Host`: the operator named
 * those hosts as the service's own, so a page they serve is welcome. Without a list, no origin is.
 */
function ownHostOrigin (hosts: readonly string[] | false | undefined, value: string): boolean {
  if (hosts === undefined || hosts === false) return false
  const url = originUrl(value)
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false
  // WHATWG URL: hostname lower-cased, IPv6 bracketed, as allowedHosts entries are normalised
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80'
  return hosts.includes(url.hostname) || hosts.includes(`${url.hostname}:${port}`)
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

/** `local`: the connection arrived on a loopback address (asked only when the default applies). */
type OriginTest = (request: FastifyRequest, reply: FastifyReply, origin: string, local: boolean) => boolean

/** How a sent `Origin` is judged under the policy; undefined when it is not (`false`). */
function originTest (policy: OriginPolicy): OriginTest | undefined {
  const { allowedHosts, allowedOrigins: allowed } = policy
  if (allowed === false) return undefined
  if (allowed === 'cors') return (_request, reply, origin) => corsAllowed(reply, origin)
  if (typeof allowed === 'function') return (request, _reply, origin) => checkAllowed(allowed, request, origin)
  if (allowed !== undefined) return (_request, _reply, origin) => originAllowed(allowed, origin)
  return (_request, _reply, origin, local) => local ? loopbackOrigin(origin) : ownHostOrigin(allowedHosts, origin)
}

function forbidden (what: string, value: string, hint = ''): ProtocolError {
  // the value is the client's, shown back to it: JSON.stringify keeps control characters visible
  return new ProtocolError(INVALID_REQUEST, `Forbidden: ${what} ${JSON.stringify(value)} is not allowed${hint}`, 403)
}

/**
 * What the default's refusal off loopback tells the client (a browser's developer, most likely),
 * naming the options that welcome an origin; `null` (a sandboxed frame, a file: page, a redirect)
 * cannot be listed, only a function may accept it.
 */
const OFF_LOOPBACK_HINT = "; list it in allowedOrigins (or set allowedOrigins: 'cors' to follow @fastify/cors), or its host in allowedHosts if it is this service's own name (DNS-rebinding protection)"
const NULL_HINT = '; an opaque origin (a sandboxed frame, a file: page) is accepted only by an allowedOrigins function (DNS-rebinding protection)'

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
  const originOk = originTest(policy)
  const originRefused = allowedOrigins === 'cors'
    ? "fastify-sake: refused a request whose Origin the host's CORS setup does not allow (allowedOrigins: 'cors': no Access-Control-Allow-Origin for it on the reply, as @fastify/cors sets in its onRequest hook; DNS-rebinding protection)"
    : 'fastify-sake: refused a request whose Origin is not allowed (DNS-rebinding protection)'
  const elsewhereRefused = "fastify-sake: refused a request whose Origin is not allowed on a connection from another machine: welcome it with allowedOrigins (a list, 'cors' or a function) or name the service's own hosts in allowedHosts (DNS-rebinding protection)"
  const check = (request: FastifyRequest, reply: FastifyReply): ProtocolError | undefined => {
    // the Host default guards loopback connections only (a public service answers to names the
    // plugin cannot know); the Origin default guards every connection, loopback names on loopback
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
    // no Origin: not a browser's request (non-browser clients send none; a browser sends one on every POST)
    if (origin !== undefined && originOk !== undefined && !originOk(request, reply, origin, local)) {
      if (allowedOrigins === undefined && !local) {
        request.log.info({ origin }, elsewhereRefused)
        return forbidden('Origin', origin, origin === 'null' ? NULL_HINT : OFF_LOOPBACK_HINT)
      }
      request.log.info({ origin }, originRefused)
      return forbidden('Origin', origin)
    }
    return undefined
  }
  return function mcpOriginCheck (request, reply, done) {
    done(check(request, reply))
  }
}
