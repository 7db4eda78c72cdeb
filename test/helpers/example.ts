// Starts the example server as its own process on a free port, as a user would with `npm start`.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const server = fileURLToPath(new URL('../../example-server/server.js', import.meta.url))

export interface Running {
  url: URL
  child: ChildProcess
  /** What the server printed until it listened (the sample token of AUTH=1, for one). */
  output: string
  stop: () => Promise<void>
}

/** Runs `node example-server/server.js` with PORT=0 and resolves once it listens. */
export async function startExample (env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [server], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  let buffer = ''
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`example server did not start: ${buffer}`)), 15_000)
    child.once('exit', (code) => reject(new Error(`example server exited with ${code}: ${buffer}`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      const match = /MCP endpoint: (http:\/\/\S+?)"/.exec(buffer)
      if (match !== null) {
        clearTimeout(timer)
        resolve(new URL(match[1]))
      }
    })
  })
  child.stdout!.resume()
  return {
    url,
    child,
    output: buffer,
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  }
}
