// Starts the example server: `npm start` (HOST and PORT override 127.0.0.1:3000; PORT=0 picks a free port).
import { build } from './app.js'

const host = process.env.HOST ?? '127.0.0.1'
const port = Number(process.env.PORT ?? 3000)

const app = await build()
await app.listen({ host, port })
const { port: actual } = app.server.address()
app.log.info(`MCP endpoint: http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${actual}${app.mcp.path}`)

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
}
