/**
 * A stdio connection on its streams: the input's bytes to the connection, its lines to the output,
 * and the ends of both. The process's stdout is held for the protocol while the connection runs
 * (`stdout.ts`); another output (a socket's end, a test's stream) is written as it is.
 */
import type { Readable, Writable } from 'node:stream'
import { StdioConnection } from './connection.js'
import type { StdioSettings } from './settings.js'
import { holdStdout, type HeldStdout } from './stdout.js'

/** What `app.mcp.stdio()` resolves to. */
export interface StdioHandle {
  /** Settles once the connection closed: the client closed its input, or the server (or `close()`) closed it. */
  readonly closed: Promise<void>
  /** Stops this connection as `app.close()` would: listens end, calls in flight get `closeTimeout` ms. */
  close (): Promise<void>
}

export interface StdioStreams {
  readonly input: Readable
  readonly output: Writable
  /** The app's logger, redirected to stderr while it writes to the held stdout. */
  readonly logger: unknown
}

export class StdioTransport implements StdioHandle {
  readonly closed: Promise<void>
  private readonly connection: StdioConnection
  private readonly held: HeldStdout | undefined
  private readonly detach: () => void

  constructor (settings: Omit<StdioSettings, 'write' | 'buffered'>, streams: StdioStreams) {
    const { input, output } = streams
    this.held = output === process.stdout ? holdStdout(streams.logger) : undefined
    const write = this.held?.write ?? ((line: string) => output.write(line))
    // a pipe to the host is written asynchronously: what the host has not read waits in `output`
    this.connection = new StdioConnection({ ...settings, write, buffered: () => output.writableLength })
    const onData = (chunk: Buffer | string): void => { this.connection.data(typeof chunk === 'string' ? Buffer.from(chunk) : chunk) }
    const onEnd = (): void => { this.connection.inputEnded() }
    // a broken pipe: the client is gone, as when it closes its end
    const onError = (err: Error): void => {
      settings.log.warn({ err }, 'fastify-sake: the stdio stream failed; the client is taken to be gone')
      this.connection.inputEnded()
    }
    input.on('data', onData)
    input.once('end', onEnd)
    input.once('close', onEnd)
    input.on('error', onError)
    output.on('error', onError)
    this.detach = () => {
      input.off('data', onData)
      input.off('end', onEnd)
      input.off('close', onEnd)
      input.off('error', onError)
      output.off('error', onError)
      // nothing more is read: a process whose stdin is destroyed can exit
      input.destroy()
    }
    this.closed = this.connection.closed
  }

  /** Settles once the client closed its input and the calls it made were answered. */
  get inputEnded (): Promise<void> {
    return this.connection.ended
  }

  async close (): Promise<void> {
    await this.connection.close()
    this.detach()
  }

  /** Gives stdout back (the app closed). */
  release (): void {
    this.held?.release()
  }
}
