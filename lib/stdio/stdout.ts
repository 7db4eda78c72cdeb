/**
 * Standard output belongs to the protocol while a stdio transport runs on it: the binding allows
 * nothing on it but MCP messages, and one stray line (a `console.log` in a tool, a logger writing
 * to stdout as Fastify's does by default) breaks the client's reading. So, for as long as the
 * transport holds it:
 *
 * - `process.stdout.write` is sent to stderr, where the binding lets a server log (a tool's
 *   `console.log` included); the transport writes its messages through the original;
 * - a pino logger (Fastify's) whose destination is stdout (file descriptor 1, pino's default, or
 *   `process.stdout`) is given stderr instead. Pino children share their root's destination through
 *   the prototype chain, so the one object that owns it is changed, and every request logger
 *   follows. A logger that writes from a worker thread (a pino `transport`) cannot be redirected
 *   from here: it must be given `destination: 2` (docs/stdio.md).
 *
 * Both are put back at `release`.
 */

/** What writes the transport's messages, and gives stdout back. */
export interface HeldStdout {
  write (text: string): boolean
  release (): void
}

/** Pino keeps a logger's destination under this symbol (`pino.symbols.streamSym`), not a global one. */
const PINO_STREAM = 'pino.stream'

/** Takes stdout for the protocol (see above); `logger`: the app's, redirected when it writes there. */
export function holdStdout (logger: unknown): HeldStdout {
  const stdout = process.stdout
  const original = stdout.write
  const write = original.bind(stdout) as (text: string) => boolean
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write
  const restoreLogger = redirectPino(logger)
  let released = false
  return {
    write,
    release: () => {
      if (released) return
      released = true
      stdout.write = original
      restoreLogger()
    }
  }
}

/** Points a pino logger that writes to stdout at stderr; returns what puts it back. */
function redirectPino (logger: unknown): () => void {
  // the object that owns the destination: the root logger, or a child given a destination of its own
  let owner: object | null = typeof logger === 'object' ? logger : null
  let key: symbol | undefined
  for (; owner !== null; owner = Object.getPrototypeOf(owner)) {
    key = Object.getOwnPropertySymbols(owner).find((symbol) => symbol.description === PINO_STREAM)
    if (key !== undefined) break
  }
  if (owner === null || key === undefined) return noop
  const holder = owner as Record<symbol, unknown>
  const stream = holder[key] as { fd?: unknown } | undefined
  if (stream !== process.stdout && stream?.fd !== 1) return noop
  holder[key] = process.stderr
  return () => { holder[key!] = stream }
}

function noop (): void {}
