/**
 * The `{ command }` transport: a `fetch` over a server process's stdin and stdout (the stdio
 * binding, newline-delimited JSON-RPC), so a stdio client runs exactly the code an HTTP one runs,
 * in both eras. The process starts on the first request. A request is written as a line and
 * answered with an event stream of what the server sends for it (progress, log messages, its
 * questions), ending with its response: what a 2025 call's stream carries over HTTP. A
 * notification, or the client's answer to a question, is written and answered 202.
 *
 * stdio does not say which request a notification or a question belongs to, so: a response goes
 * to its request (by id); a notification to every request waiting (a call's `onProgress` takes
 * only its own `progressToken`; a log message reaches every call waiting with `onLog`); a question
 * to the oldest request waiting that may be asked one (`tools/call`, `prompts/get`,
 * `resources/read`, `tasks/result`), or, when none waits, to `unprompted` (the client answers it
 * from its own `onInput`). A request given up (its signal aborted, its stream left unread) is
 * cancelled with `notifications/cancelled`: there is no stream to close.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { statSync } from 'node:fs'
import type { Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { LineSplitter } from '../spec/lines.js'
import { META_PROTOCOL_VERSION } from '../spec/meta-keys.js'
import { factsOf } from '../spec/methods.js'
import { isObject } from '../values.js'
import { ServerProcessError, type ServerProcessReason } from './errors.js'
import type { FetchLike, ProcessOptions } from './client-options.js'

type Message = Record<string, unknown>

/** How much of the process's stderr is kept (its end), and of a stray stdout line quoted, in characters. */
const STDERR_TAIL = 2000
const QUOTED = 200

const encoder = new TextEncoder()

/** A request written to the process, until its response comes or it is given up. */
interface Waiting {
  readonly id: unknown
  readonly controller: ReadableStreamDefaultController<Uint8Array>
  /** The request's protocol version when it was a 2026-07-28 one: its cancellation says so too. */
  readonly version: unknown
  /** Whether the server may ask the client something while it answers this request. */
  readonly asks: boolean
  readonly detach: () => void
}

/** Why the client is stopping the process: `close()`, or it broke the binding's rules. */
type StopReason = 'close' | 'input' | 'output'

/**
 * The processes still running: signalled when the client's own process exits without having
 * closed them (a test that forgot `close()`), so none outlives it. The hook is installed with the
 * first process.
 */
const running = new Set<ChildProcess>()
let exitHook = false

/** Sends `name` to the process's group (it leads one: what a wrapper such as npx started goes too), else to the process. */
function signalGroup (child: ChildProcess, name: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, name)
  /* c8 ignore next 3 -- Windows has no process groups; elsewhere the group is gone only once every process of it exited */
  } catch {
    child.kill(name)
  }
}

/**
 * The transport of a `{ command }` client: a `fetch` that starts the process on first use, and a
 * `close` that stops it; the request after a `close` starts a new one.
 */
export class StdioTransport {
  readonly #options: ProcessOptions
  readonly #unprompted: (message: Message) => void
  readonly #commandLine: string
  #process: ServerProcess | undefined
  #closing: Promise<void> | undefined

  constructor (options: ProcessOptions, unprompted: (message: Message) => void) {
    this.#options = options
    this.#unprompted = unprompted
    this.#commandLine = [options.command, ...options.args].join(' ')
  }

  /** The transport, as the client's core speaks it: only the body of `init` and its signal matter. */
  readonly fetch: FetchLike = async (_url, init) => {
    init.signal?.throwIfAborted()
    // neither to the process going away nor to a new one, which a 2025 session has not opened
    if (this.#closing !== undefined) throw new ServerProcessError('exit', this.#commandLine, `the client is closing the server process '${this.#commandLine}' (close()): the request was not sent`)
    this.#process ??= new ServerProcess(this.#options, this.#commandLine, this.#unprompted)
    return this.#process.send(JSON.parse(init.body!) as Message, init.signal)
  }

  /**
   * Stops the process the way the binding asks: its stdin closed, then SIGTERM after
   * `closeTimeout` ms, then SIGKILL after as long again; resolves once it exited. A request still
   * waiting fails with `ServerProcessError`, as does one made meanwhile.
   */
  async close (): Promise<void> {
    const current = this.#process
    if (current === undefined) return
    this.#closing ??= current.stop('close').finally(() => {
      this.#process = undefined
      this.#closing = undefined
    })
    await this.#closing
  }
}

/** One run of the server's process: its requests waiting, how it failed, how it is being stopped. */
class ServerProcess {
  readonly #options: ProcessOptions
  readonly #unprompted: (message: Message) => void
  /** The command line, for messages. */
  readonly #commandLine: string
  readonly #child: ChildProcess
  /** Settles once the process exited and its streams closed. */
  readonly #closed: Promise<void>
  readonly #waiting = new Map<string, Waiting>()
  #failure: ServerProcessError | undefined
  #spawnError: Error | undefined
  /** Why the client is stopping the process, and whether it had to signal it (it did not exit when its stdin closed). */
  #stopping: { reason: StopReason, signalled: boolean } | undefined
  #stopped: Promise<void> | undefined
  /** The server's stdout, as lines: a response can be as long as the server makes it, so no limit. */
  readonly #lines = new LineSplitter(Infinity, {
    line: (text) => { this.#line(text) },
    /* c8 ignore next -- no line is over an infinite limit */
    overlong: () => {}
  })

  #stderr = ''

  constructor (options: ProcessOptions, commandLine: string, unprompted: (message: Message) => void) {
    this.#options = options
    this.#unprompted = unprompted
    this.#commandLine = commandLine
    const { command, args, env, cwd, stderr } = options
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', stderr],
      // the leader of a process group of its own, so a stop reaches what a wrapper (npx, a shell) started
      detached: process.platform !== 'win32',
      windowsHide: true
    })
    this.#child = child
    running.add(child)
    if (!exitHook) {
      exitHook = true
      // checked by test/client/stdio.test.ts in a child process ('a program that forgets close()'),
      // whose coverage is not counted: the test's own process closes all it starts
      /* c8 ignore next */
      process.once('exit', () => { for (const child of running) signalGroup(child, 'SIGTERM') })
    }
    let closed!: () => void
    this.#closed = new Promise((resolve) => { closed = resolve })
    child.once('error', (err) => { this.#spawnError = err })
    child.once('close', (code, signal) => {
      running.delete(child)
      this.#fail(this.#ended(code, signal))
      closed()
    })
    // a write that failed: the process closed its stdin (or is exiting, which 'close' then reports)
    child.stdin!.on('error', () => { void this.stop('input') })
    child.stdout!.on('data', (chunk: Buffer) => { this.#lines.push(chunk) })
    if (stderr === 'pipe') {
      child.stderr!.setEncoding('utf8')
      child.stderr!.on('data', (chunk: string) => { this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL) })
    }
    this.#ref()
  }

  /** Writes a message: a request gets the stream its answer comes on; anything else, 202. */
  send (message: Message, signal: AbortSignal | undefined): Response {
    if (this.#failure !== undefined) throw this.#failure
    if (typeof message.method !== 'string' || !('id' in message)) {
      this.#write(message)
      return new Response(null, { status: 202 })
    }
    const body = this.#wait(message, signal)
    this.#write(message)
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
  }

  /** Ends the process: stdin closed, then SIGTERM, then SIGKILL, each after `closeTimeout`; resolves once it is gone. */
  async stop (reason: StopReason): Promise<void> {
    if (this.#stopped === undefined) {
      this.#stopping = { reason, signalled: false }
      this.#stopped = this.#stopSequence(this.#stopping)
    }
    await this.#stopped
  }

  async #stopSequence (stopping: { signalled: boolean }): Promise<void> {
    this.#ref()
    this.#child.stdin!.end()
    if (await this.#exitWithin()) return
    stopping.signalled = true
    signalGroup(this.#child, 'SIGTERM')
    if (await this.#exitWithin()) return
    signalGroup(this.#child, 'SIGKILL')
    await this.#closed
  }

  async #exitWithin (): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<false>((resolve) => { timer = setTimeout(resolve, this.#options.closeTimeout, false) })
    const exited = await Promise.race([this.#closed.then(() => true), timeout])
    clearTimeout(timer)
    return exited
  }

  /** The stream a request's answer comes on, registered before the request is written. */
  #wait (message: Message, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
    const key = JSON.stringify(message.id)
    const meta = isObject(message.params) && isObject(message.params._meta) ? message.params._meta : {}
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        const onAbort = (): void => {
          this.#giveUp(key, signal!.reason)
          controller.error(signal!.reason)
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        const asks = factsOf(message.method as string)?.asks === true
        this.#waiting.set(key, { id: message.id, controller, version: meta[META_PROTOCOL_VERSION], asks, detach: () => signal?.removeEventListener('abort', onAbort) })
        this.#ref()
      },
      // the client stopped reading before the response: it wants none (a question it would not answer)
      cancel: (reason) => { this.#giveUp(key, reason) }
    })
  }

  /** A request the client no longer waits for: the server is told, as the binding cancels. */
  #giveUp (key: string, reason: unknown): void {
    const waiting = this.#settle(key)
    // answered already: the client stopped reading with the response still unread (a handler threw)
    if (waiting === undefined) return
    const params: Message = { requestId: waiting.id, reason: reason instanceof Error ? reason.message : String(reason ?? 'the client stopped waiting for the answer') }
    if (waiting.version !== undefined) params._meta = { [META_PROTOCOL_VERSION]: waiting.version }
    this.#write({ jsonrpc: '2.0', method: 'notifications/cancelled', params })
  }

  /** Takes a request off the waiting list. */
  #settle (key: string): Waiting | undefined {
    const waiting = this.#waiting.get(key)
    if (waiting === undefined) return undefined
    this.#waiting.delete(key)
    waiting.detach()
    this.#ref()
    return waiting
  }

  /** Writes a line; on a stdin that ended or broke the write fails, and its 'error' stops the process (once). */
  #write (message: Message): void {
    this.#child.stdin!.write(JSON.stringify(message) + '\n')
  }

  /** One line of stdout (blank ones are skipped): a message, else the process broke the binding. */
  #line (text: string): void {
    if (this.#failure !== undefined) return
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {}
    // a JSON log line (pino on stdout) is JSON too: only a JSON-RPC message is one
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      const quoted = JSON.stringify(text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text)
      this.#fail(this.#error('output', `the server process '${this.#commandLine}' wrote a line to stdout that is not a JSON-RPC message: ${quoted} (stdout carries MCP messages only; logs belong on stderr)`))
      void this.stop('output')
      return
    }
    const event = encoder.encode(`data: ${JSON.stringify(message)}\n\n`)
    if (typeof message.method !== 'string') {
      const waiting = this.#settle(JSON.stringify(message.id))
      // none: the response to a request the client gave up, sent before the cancel arrived
      if (waiting === undefined) return
      waiting.controller.enqueue(event)
      waiting.controller.close()
    } else if ('id' in message) {
      const asked = [...this.#waiting.values()].find((waiting) => waiting.asks)
      if (asked === undefined) this.#unprompted(message)
      else asked.controller.enqueue(event)
    } else {
      for (const waiting of this.#waiting.values()) waiting.controller.enqueue(event)
    }
  }

  /**
   * Keeps the client's process alive while a request waits or the process is being stopped, and
   * only then: an idle client does not hold it open.
   */
  #ref (): void {
    const child = this.#child
    const streams = [child.stdout, child.stderr].filter((stream) => stream !== null) as Socket[]
    if (this.#waiting.size > 0 || this.#stopping !== undefined) {
      child.ref()
      for (const stream of streams) stream.ref()
    } else {
      child.unref()
      for (const stream of streams) stream.unref()
    }
  }

  /** From now on every request fails with `error`; those waiting, at once. */
  #fail (error: ServerProcessError): void {
    this.#failure ??= error
    for (const key of [...this.#waiting.keys()]) this.#settle(key)!.controller.error(this.#failure)
  }

  /** What the process's end is reported as. */
  #ended (code: number | null, signal: NodeJS.Signals | null): ServerProcessError {
    const spawnError = this.#spawnError
    if (spawnError !== undefined) {
      const { cwd, command } = this.#options
      const dir = cwd instanceof URL ? fileURLToPath(cwd) : cwd
      const hint = (spawnError as NodeJS.ErrnoException).code !== 'ENOENT'
        ? ''
        : dir !== undefined && !isDirectory(dir) ? ` (cwd '${dir}' is not a directory)` : ` ('${command}' is not a program on PATH, nor a path to one)`
      return this.#error('spawn', `could not start the server process '${this.#commandLine}': ${spawnError.message}${hint}`, { cause: spawnError })
    }
    const how = signal === null ? `exited with code ${code}` : `was stopped by ${signal}`
    const stopping = this.#stopping
    const deaf = stopping?.reason === 'input' && stopping.signalled
    const why = stopping?.reason === 'close'
      ? ': the client closed it (close()) before it answered'
      : deaf ? ': it had closed its stdin while it still ran, so the client stopped it' : ''
    return this.#error(deaf ? 'input' : 'exit', `the server process '${this.#commandLine}' ${how}${why}`, { exitCode: code, signal })
  }

  #error (reason: ServerProcessReason, message: string, ended: { exitCode?: number | null, signal?: string | null, cause?: unknown } = {}): ServerProcessError {
    return new ServerProcessError(reason, this.#commandLine, message, { ...ended, stderr: this.#options.stderr === 'pipe' ? this.#stderr : undefined })
  }
}

function isDirectory (path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
