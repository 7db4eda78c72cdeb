// Starts the example server: `npm start` (HOST and PORT override 127.0.0.1:3000; PORT=0 picks a
// free port; AUTH=1 turns authorization on, see auth.js; REDIS_URL and MCP_STATE_KEY make it one
// instance of a fleet, see the README's "Running several instances").
import { createServer } from 'node:net'
import { build } from './app.js'

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

// app.close() waits for every open connection; a client may hold one it never sends on (Node's
// fetch reopens a socket after an aborted SSE stream, nodejs/undici#5845), so after a short grace
// the connections still open are closed: the example stops in about a second whatever its clients do
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    setTimeout(() => app.server.closeAllConnections(), 1000).unref()
    app.close().then(() => process.exit(0), () => process.exit(1))
  })
}
