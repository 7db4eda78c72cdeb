// Starts the example server: `npm start` (HOST and PORT override 127.0.0.1:3000; PORT=0 picks a
// free port; AUTH=1 turns authorization on, see auth.js; REDIS_URL and MCP_STATE_KEY make it one
// instance of a fleet, see docs/fleet.md; DRAIN_DELAY, below).
//
// `node example-server/server.js --stdio`: the same server over stdio, for a local host that
// starts it (docs/stdio.md): no port is opened, stdout carries MCP messages alone and the logs go
// to stderr; the process exits once the host closes stdin.
import { createServer } from 'node:net'
import { build } from './app.js'

if (process.argv.includes('--stdio')) {
  const app = await build()
  await app.mcp.stdio()
  // a host that stops the server with a signal rather than by closing stdin
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
} else {
  await serveHttp()
}

async function serveHttp () {
  const host = process.env.HOST ?? '127.0.0.1'
  let port = Number(process.env.PORT ?? 3000)

  // AUTH=1: tokens are issued for this server's URL, so its port must be known before it starts
  if (process.env.AUTH === '1' && port === 0) {
    const probe = createServer()
    await new Promise((resolve) => probe.listen(0, host, resolve))
    port = probe.address().port
    await new Promise((resolve) => probe.close(resolve))
  }
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host

  const app = await build({ baseUrl: `http://${shown}:${port}` })
  await app.listen({ host, port })
  const { port: actual } = app.server.address()
  app.log.info(`MCP endpoint: http://${shown}:${actual}${app.mcp.path}`)

  // A rolling deploy (docs/fleet.md, "Draining and rolling deploys"): at SIGTERM the instance first
  // drains (/ready answers 503 for DRAIN_DELAY ms, default 0, while every request is still served:
  // set it to the gateway's check interval times its fall count), then closes: calls in flight
  // finish within the plugin's closeTimeout (10 s), open streams are handed to the fleet, tasks
  // finish or fail.
  // app.close() also waits for every open connection, and Node never counts as idle a socket that
  // has not sent a request yet (nodejs/node#63452; Node's fetch opens such a socket after an aborted
  // SSE stream, nodejs/undici#5845): those are closed at once, and past the closeTimeout and a second,
  // whatever is still open.
  const unused = new Set()
  app.server.on('connection', (socket) => {
    unused.add(socket)
    socket.once('close', () => unused.delete(socket))
  })
  app.server.on('request', (request) => unused.delete(request.socket))
  const drainDelay = Number(process.env.DRAIN_DELAY ?? 0)
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, async () => {
      await app.mcp.drain(drainDelay)
      setTimeout(() => app.server.closeAllConnections(), 11_000).unref()
      const closed = app.close()
      for (const socket of unused) socket.destroy()
      closed.then(() => process.exit(0), () => process.exit(1))
    })
  }
}
