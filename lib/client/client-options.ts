/**
 * `createClient`'s options, as types: a union by transport, which declarations cannot make. They are
 * read by read-options.ts.
 */
import type { FastifyInstance } from 'fastify'
import type { OnInput, Unanswered, LogLevel } from './types.js'

/** A `fetch` as the client uses it: the global one, undici's, or a test's. */
export type FetchLike = (url: string, init: { method: string, headers: Record<string, string>, body?: string, signal?: AbortSignal }) => Promise<Response>

/** The bearer token, or a function giving it for each request (to refresh it); undefined: none. */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>)

/** What every client takes, whatever its transport. */
export interface CommonOptions {
  /**
   * `'modern'`: 2026-07-28, stateless. `'legacy'`: a 2025 session (`initialize`, `Mcp-Session-Id`).
   * `'auto'` (the default): `server/discover` first, and a 2025 session when the server does not
   * speak 2026-07-28.
   */
  era?: 'modern' | 'legacy' | 'auto'
  /** The 2025 revision `initialize` asks for (default `'2025-11-25'`). */
  legacyVersion?: '2025-11-25' | '2025-06-18' | '2025-03-26'
  /** Headers sent with every request (an API key, a tenant). The `Mcp-*` headers are the client's own. */
  headers?: Record<string, string>
  /** `Authorization: Bearer <token>` on every request; a function is called for each request. */
  token?: TokenSource
  /** Milliseconds a request may take (every round of it), default 60000. A call's `timeout` overrides it. */
  timeout?: number
  /** `clientInfo`, default `{ name: 'fastify-sake-client', version: '0.1.0' }`. */
  clientInfo?: { name: string, version: string, [key: string]: unknown }
  /**
   * Merged over the capabilities the client derives from `onInput` (elicitation always; sampling
   * and roots when `onInput` can answer them): `extensions` for MCP Apps, say.
   */
  capabilities?: Record<string, unknown>
  /** Answers to the server's questions, by key (see `OnInput`); a call's own `onInput` wins. */
  onInput?: OnInput
  /** A question `onInput` does not answer: declined (the default), cancelled, or an `UnansweredInputError`. */
  unanswered?: Unanswered
  /** Most rounds of questions one call may take before it fails (default 10). */
  maxRounds?: number
  /** The log level asked for: per request in 2026-07-28, with `logging/setLevel` in a 2025 session. */
  logLevel?: LogLevel
}

/** Over HTTP, with `fetch`. */
export interface UrlOptions extends CommonOptions {
  /** The MCP endpoint, `http://127.0.0.1:3000/mcp`. */
  url: string | URL
  /** The `fetch` to use (default: the global one). */
  fetch?: FetchLike
  app?: never
  path?: never
  command?: never
}

/** In-process, over `app.inject`: no port, the same requests as over HTTP. */
export interface AppOptions extends CommonOptions {
  /** A Fastify instance with fastify-sake registered (readied on first use). */
  app: FastifyInstance
  /** The endpoint's path (default: the plugin's, `app.mcp.path`, else `/mcp`). */
  path?: string
  url?: never
  fetch?: never
  command?: never
}

/** What becomes of the server process's stderr: kept (its end is in a `ServerProcessError`), shown in the client's, or dropped. */
export type StderrMode = 'pipe' | 'inherit' | 'ignore'

/**
 * Over stdio: the client starts `command` (on the first request) and speaks newline-delimited
 * JSON-RPC on its stdin and stdout. No HTTP, so no `headers` nor `token`: a stdio server takes its
 * credentials from its environment (`env`).
 */
export interface CommandOptions extends Omit<CommonOptions, 'headers' | 'token'> {
  /** The program to start: `'node'`, or a path. Not run through a shell. */
  command: string
  /** Its arguments: `['example-server/server.js', '--stdio']`. */
  args?: readonly string[]
  /** Set over the client's own environment (`process.env`); a variable set to undefined is left out. */
  env?: Record<string, string | undefined>
  /** The directory it runs in (default: the client's). */
  cwd?: string | URL
  /**
   * Its stderr: `'pipe'` (the default) keeps the last of it for a `ServerProcessError`'s message;
   * `'inherit'` writes it to the client's stderr; `'ignore'` drops it.
   */
  stderr?: StderrMode
  /**
   * Milliseconds `close()` waits for the process to exit once its stdin is closed, and again after
   * SIGTERM, before SIGKILL (default 5000).
   */
  closeTimeout?: number
  headers?: never
  token?: never
  url?: never
  app?: never
  fetch?: never
  path?: never
}

export type ClientOptions = UrlOptions | AppOptions | CommandOptions

/** A `{ command }` client's process, as `createClient` checked it. */
export interface ProcessOptions {
  readonly command: string
  readonly args: readonly string[]
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string | URL | undefined
  readonly stderr: StderrMode
  readonly closeTimeout: number
}

/** The options once checked, defaults filled in. */
export interface ResolvedOptions {
  readonly url: string | undefined
  readonly fetch: FetchLike | undefined
  readonly app: FastifyInstance | undefined
  readonly path: string | undefined
  /** The server process to start, for a `{ command }` client. */
  readonly process: ProcessOptions | undefined
  readonly era: 'modern' | 'legacy' | 'auto'
  readonly legacyVersion: string
  readonly headers: Readonly<Record<string, string>>
  readonly token: TokenSource | undefined
  readonly timeout: number
  readonly clientInfo: { name: string, version: string, [key: string]: unknown }
  readonly capabilities: Readonly<Record<string, unknown>>
  readonly onInput: OnInput | undefined
  readonly unanswered: Unanswered
  readonly maxRounds: number
  readonly logLevel: LogLevel | undefined
}
