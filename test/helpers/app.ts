// The app under test and its life: build it, listen on a real port, check refused registrations, and wait (sleep, until, deferred).
import type { IncomingMessage } from 'node:http'
import { createServer, type Socket } from 'node:net'
import type { Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import sake, { type SakeOptions } from '../../lib/index.js'

/** An app with fastify-sake registered (logger off unless given), not yet ready. */
export async function build (options: Partial<SakeOptions> = {}, fastifyOptions: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, ...fastifyOptions })
  await app.register(sake, { name: 'test-server', version: '1.0.0', ...options })
  return app
}

export interface ListenOptions {
  /** Address to listen on; default 127.0.0.1 ('::' for a dual-stack listener). */
  host?: string
  /** Port; default 0 (any free one). Give one from `freePort()` when the URL must be known before `build`. */
  port?: number
  /** Close the app at the end of `t` (default true); false when the test closes it itself. */
  teardown?: boolean
}

/**
 * Listens on a real port and returns the endpoint URL (`http://host:port/mcp`; an IPv6 host in
 * brackets). The app closes when `t` ends unless `teardown: false` (`closeListening`).
 */
export async function listen (t: Test, app: FastifyInstance, options: ListenOptions = {}): Promise<string> {
  const { host = '127.0.0.1', port = 0, teardown = true } = options
  const close = closeListening(app)
  await app.listen({ host, port })
  if (teardown) t.teardown(close)
  return `http://${host.includes(':') ? `[${host}]` : host}:${portOf(app)}/mcp`
}

/**
 * Returns a function that closes `app` (call it before `app.listen`) and, as it does, destroys
 * the sockets that never sent a request: the graceful close of everything else is left to Fastify.
 *
 * Aborting a fetch whose response is still streaming (the v2 client closing a
 * subscriptions/listen, or a call stream) makes undici re-queue the aborted request, open a
 * fresh connection for it and then drop it: a socket that never sends anything
 * (nodejs/undici#5845; Node 22's undici 6.29.1 does it, Node 20's 6.24.1 does not). Node's
 * `server.close()` does not count a socket with no request as idle (nodejs/node#63452), so
 * `app.close()` waited ~70 s for that one (until Node's own headers-timeout sweep; tap gives a file 30 s).
 */
export function closeListening (app: FastifyInstance): () => Promise<void> {
  const unused = new Set<Socket>()
  let closing = false
  app.server.on('connection', (socket: Socket) => {
    if (closing) return socket.destroy()
    unused.add(socket)
    socket.once('close', () => unused.delete(socket))
  })
  app.server.on('request', (request: IncomingMessage) => unused.delete(request.socket))
  return async () => {
    closing = true
    const closed = app.close()
    for (const socket of unused) socket.destroy()
    await closed
  }
}

/**
 * Resolves once `app` has begun to close: its preClose hooks ran, fastify-sake's first (it stops
 * taking requests and tasks there), this one after it. Call it before the app is ready.
 */
export async function closeBegun (app: FastifyInstance): Promise<void> {
  await new Promise<void>((resolve) => { app.addHook('preClose', async () => { resolve() }) })
}

/** The port a listening app is bound to. */
export function portOf (app: FastifyInstance): number {
  return (app.server.address() as { port: number }).port
}

/** A free port on 127.0.0.1, so a URL (a resource URI tokens are issued for) is known before the app is built. */
export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * Asserts that registering the plugin with exactly `options` (no defaults merged in) fails with
 * SAKE_ERR_INVALID_OPTION and `message`; `what` names the assertion (default: the message).
 */
export async function refusesRegister (t: Test, options: unknown, message: RegExp | string, what?: string): Promise<void> {
  const app = Fastify({ logger: false })
  await t.rejects(async () => { await app.register(sake, options as any) }, { code: 'SAKE_ERR_INVALID_OPTION', name: 'SakeOptionError', message }, what ?? String(message))
  await app.close()
}

// sleep and until live in until.ts (which loads nothing), and are here too for the tests that import them with build and listen
export { sleep, until } from './until.js'

export interface Deferred<T = void> {
  promise: Promise<T>
  resolve: (value: T) => void
  reject: (reason: unknown) => void
}

/** A promise with its resolve and reject at hand: a gate a test opens when it is ready. */
export function deferred<T = void> (): Deferred<T> {
  const gate = {} as Deferred<T>
  gate.promise = new Promise<T>((resolve, reject) => { gate.resolve = resolve; gate.reject = reject })
  return gate
}
