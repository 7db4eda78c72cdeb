/**
 * Fastify's `requestTimeout` defaults to 0, no limit: a client that sends its request slowly (a
 * byte now and then) holds its connection, and the request's place, for ever. It is a server option,
 * fixed before any plugin runs, so the plugin cannot set it; it says so, once, when the app listens
 * where other machines can reach it (docs/production.md). Loopback (a local host, a sidecar) and
 * stdio, which never listens, are left alone.
 */
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { isLoopback } from './origin.js'

/** The servers already warned about: one line per app, however many MCP servers it registers. */
const warned = new WeakSet<object>()

/**
 * Adds the `onListen` hook that warns when the server's request timeout is 0 and it listens on an
 * address that is not loopback. It reads the server's own `requestTimeout`, which Fastify sets from
 * its option: an HTTP/2 server has none (its sessions are bounded by `http2SessionTimeout`), and a
 * `serverFactory`'s server keeps its own.
 */
export function warnOnRequestTimeout (app: FastifyInstance): void {
  app.addHook('onListen', async function requestTimeoutCheck () {
    const server = app.server as { requestTimeout?: unknown }
    if (server.requestTimeout !== 0 || warned.has(server)) return
    // a pipe (Unix socket) is a string: not a network address
    const reachable = (app.addresses() as Array<AddressInfo | string>)
      .filter((address): address is AddressInfo => typeof address !== 'string' && !isLoopback(address.address))
    if (reachable.length === 0) return
    warned.add(server)
    const addresses = reachable.map((one) => one.family === 'IPv6' ? `[${one.address}]:${one.port}` : `${one.address}:${one.port}`)
    app.log.warn({ addresses }, `fastify-sake: Fastify's requestTimeout is 0 (its default: no limit) and the server listens on ${addresses.join(', ')}, where other machines reach it: a client that sends its request slowly holds its connection open for ever. Set it when you create the app, Fastify({ requestTimeout: 60_000 }); see https://github.com/fastify-sake/fastify-sake/blob/main/docs/production.md`)
  })
}
