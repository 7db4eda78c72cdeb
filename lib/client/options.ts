/**
 * `createClient`'s options: their types, and the check that runs once, at creation, so a wrong one
 * fails with `SakeClientOptionError` naming the option, what it accepts and what arrived, before
 * any request is sent.
 */
import type { FastifyInstance } from 'fastify'
import { SakeClientOptionError } from '../errors.js'
import { got, nearest } from '../checks.js'
import { LOG_LEVELS } from '../spec/log-levels.js'
import { LEGACY_VERSIONS } from '../spec/eras.js'
import { isObject } from '../values.js'
import type { LogLevel, OnInput, Unanswered } from './types.js'

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

const PROCESS_KNOWN = ['command', 'args', 'env', 'cwd', 'stderr', 'closeTimeout']
const KNOWN = ['url', 'fetch', 'app', 'path', ...PROCESS_KNOWN, 'era', 'legacyVersion', 'headers', 'token', 'timeout', 'clientInfo', 'capabilities', 'onInput', 'unanswered', 'maxRounds', 'logLevel']
const CALL_KNOWN = ['signal', 'timeout', 'onInput', 'unanswered', 'onProgress', 'onLog', 'logLevel', 'headers', 'meta', 'task', 'fresh']

/** The longest timeout setTimeout keeps (about 24.8 days). */
const MAX_TIMEOUT = 2_147_483_647

function fail (option: string, accepts: string, value: unknown): never {
  throw new SakeClientOptionError(`fastify-sake/client: option '${option}' must be ${accepts}, got ${got(value)}`)
}

function unknownKeys (options: Record<string, unknown>, known: string[], what: string): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue
    const near = nearest(key, known)
    const hint = near === undefined ? '' : ` (did you mean '${near}'?)`
    throw new SakeClientOptionError(`fastify-sake/client: unknown ${what} '${key}'${hint}; known ones are ${known.join(', ')}`)
  }
}

function isHeaders (value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string')
}

function checkOnInput (name: string, value: unknown): void {
  if (value === undefined || typeof value === 'function') return
  if (!isObject(value)) fail(name, 'a map from question key to an answer (or a function of the question), or a function (request, key) => answer', value)
  for (const [key, answer] of Object.entries(value)) {
    if (typeof answer !== 'function' && !isObject(answer)) {
      fail(`${name}.${key}`, 'an answer ({ action: \'accept\', content }, a sampling result, { roots }) or a function (request, key) => answer', answer)
    }
  }
}

function checkTimeout (name: string, value: unknown): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) <= 0 || (value as number) > MAX_TIMEOUT)) {
    fail(name, `a positive integer of milliseconds (at most ${MAX_TIMEOUT})`, value)
  }
}

function checkCommon (o: Record<string, unknown>): void {
  if (o.era !== undefined && o.era !== 'modern' && o.era !== 'legacy' && o.era !== 'auto') fail('era', "'modern', 'legacy' or 'auto'", o.era)
  if (o.legacyVersion !== undefined && !(LEGACY_VERSIONS as readonly unknown[]).includes(o.legacyVersion)) fail('legacyVersion', LEGACY_VERSIONS.map((v) => `'${v}'`).join(', '), o.legacyVersion)
  if (o.headers !== undefined && !isHeaders(o.headers)) fail('headers', 'an object of header names to string values', o.headers)
  if (o.token !== undefined && typeof o.token !== 'string' && typeof o.token !== 'function') fail('token', 'a string or a function returning one (or a promise of one)', o.token)
  checkTimeout('timeout', o.timeout)
  const info = o.clientInfo
  if (info !== undefined && !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) fail('clientInfo', '{ name: string, version: string }', info)
  if (o.capabilities !== undefined && !isObject(o.capabilities)) fail('capabilities', 'an object (ClientCapabilities)', o.capabilities)
  checkOnInput('onInput', o.onInput)
  if (o.unanswered !== undefined && o.unanswered !== 'decline' && o.unanswered !== 'cancel' && o.unanswered !== 'error') fail('unanswered', "'decline', 'cancel' or 'error'", o.unanswered)
  if (o.maxRounds !== undefined && (!Number.isInteger(o.maxRounds) || (o.maxRounds as number) < 1)) fail('maxRounds', 'a positive integer', o.maxRounds)
  if (o.logLevel !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(o.logLevel)) fail('logLevel', `one of ${LOG_LEVELS.join(', ')}`, o.logLevel)
}

function isFastify (value: unknown): value is FastifyInstance {
  return isObject(value) && typeof value.inject === 'function' && typeof value.ready === 'function'
}

/** The three transports, as the message of a client given none of them, or more than one, names them. */
const TRANSPORTS = "'url' (the MCP endpoint over HTTP, 'http://127.0.0.1:3000/mcp'), 'app' (a Fastify instance with fastify-sake, in-process) " +
  "and 'command' (a server process to start and speak to over stdio, 'node' with args ['server.js', '--stdio'])"

/** What the HTTP options are refused with beside `command`: each says what to do instead. */
const NOT_OVER_STDIO: Record<string, string> = {
  fetch: "absent with 'command' (the client speaks to the process over its stdin and stdout)",
  path: "absent with 'command' (stdio has no endpoint path)",
  headers: "absent with 'command' (stdio carries no HTTP headers: give the server what it needs in 'env')",
  token: "absent with 'command' (stdio carries no Authorization header: a stdio server takes its credentials from its environment, 'env')"
}

const DEFAULT_CLOSE_TIMEOUT = 5000

/** The process of a `{ command }` client: what it runs, where, and how it is stopped. */
function checkProcess (o: Record<string, unknown>): ProcessOptions {
  const { command, args, env, cwd, stderr, closeTimeout } = o
  if (typeof command !== 'string' || command.trim() === '') fail('command', "a non-empty string: the program to start ('node', or a path)", command)
  if (args !== undefined && !(Array.isArray(args) && args.every((arg) => typeof arg === 'string'))) fail('args', "an array of strings (['server.js', '--stdio'])", args)
  if (env !== undefined && !(isObject(env) && Object.values(env).every((value) => value === undefined || typeof value === 'string'))) {
    fail('env', 'an object of variable names to string values (undefined leaves a variable out)', env)
  }
  if (cwd !== undefined && typeof cwd !== 'string' && !(cwd instanceof URL && cwd.protocol === 'file:')) fail('cwd', 'a directory, as a path or a file: URL', cwd)
  if (stderr !== undefined && stderr !== 'pipe' && stderr !== 'inherit' && stderr !== 'ignore') fail('stderr', "'pipe', 'inherit' or 'ignore'", stderr)
  checkTimeout('closeTimeout', closeTimeout)
  for (const [name, accepts] of Object.entries(NOT_OVER_STDIO)) if (o[name] !== undefined) fail(name, accepts, o[name])
  return Object.freeze({
    command,
    args: Object.freeze([...(args as string[] | undefined) ?? []]),
    env: Object.freeze({ ...(env as Record<string, string | undefined> | undefined) }),
    cwd: cwd as string | URL | undefined,
    stderr: stderr ?? 'pipe',
    closeTimeout: (closeTimeout as number | undefined) ?? DEFAULT_CLOSE_TIMEOUT
  })
}

/** Checks `createClient`'s options and fills in the defaults. */
export function resolveOptions (options: unknown): ResolvedOptions {
  if (!isObject(options)) fail('(the options)', "an object with 'url' (HTTP), 'app' (a Fastify instance, in-process) or 'command' (a server process, over stdio)", options)
  unknownKeys(options, KNOWN, 'option')
  const given = ['url', 'app', 'command'].filter((name) => options[name] !== undefined)
  if (given.length !== 1) {
    throw new SakeClientOptionError(`fastify-sake/client: give exactly one of ${TRANSPORTS}, got ${given.length === 0 ? 'none' : given.map((name) => `'${name}'`).join(' and ')}`)
  }
  const { url, app } = options
  let href: string | undefined
  let server: ProcessOptions | undefined
  if (url !== undefined) {
    if (typeof url !== 'string' && !(url instanceof URL)) fail('url', 'an absolute http(s) URL, as a string or a URL', url)
    const parsed = URL.canParse(String(url)) ? new URL(String(url)) : undefined
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) fail('url', "an absolute http(s) URL ('http://127.0.0.1:3000/mcp')", url)
    href = parsed.href
    if (options.fetch !== undefined && typeof options.fetch !== 'function') fail('fetch', 'a function (the fetch API)', options.fetch)
    if (options.path !== undefined) fail('path', "absent with 'url' (the path is part of the URL)", options.path)
  } else if (app !== undefined) {
    if (!isFastify(app)) fail('app', 'a Fastify instance (with fastify-sake registered)', app)
    if (options.fetch !== undefined) fail('fetch', "absent with 'app' (requests go through app.inject)", options.fetch)
    if (options.path !== undefined && (typeof options.path !== 'string' || !options.path.startsWith('/'))) fail('path', "a path starting with '/'", options.path)
  } else {
    server = checkProcess(options)
  }
  if (server === undefined) {
    const stray = PROCESS_KNOWN.find((name) => options[name] !== undefined)
    if (stray !== undefined) fail(stray, "absent without 'command' (it describes the server process a { command } client starts)", options[stray])
  }
  checkCommon(options)
  const o = options as CommonOptions & { fetch?: FetchLike, app?: FastifyInstance, path?: string }
  return Object.freeze({
    url: href,
    fetch: o.fetch,
    app: o.app,
    path: o.path,
    process: server,
    era: o.era ?? 'auto',
    legacyVersion: o.legacyVersion ?? '2025-11-25',
    headers: Object.freeze({ ...o.headers }),
    token: o.token,
    timeout: o.timeout ?? 60_000,
    clientInfo: o.clientInfo ?? { name: 'fastify-sake-client', version: '0.1.0' },
    capabilities: Object.freeze({ ...o.capabilities }),
    onInput: o.onInput,
    unanswered: o.unanswered ?? 'decline',
    maxRounds: o.maxRounds ?? 10,
    logLevel: o.logLevel
  })
}

/** Checks a call's options (the last argument of `callTool` and the other methods). */
export function checkCallOptions (options: unknown): void {
  if (options === undefined) return
  if (!isObject(options)) fail('(call options)', 'an object', options)
  unknownKeys(options, CALL_KNOWN, 'call option')
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) fail('signal', 'an AbortSignal', options.signal)
  checkTimeout('timeout', options.timeout)
  checkOnInput('onInput', options.onInput)
  if (options.unanswered !== undefined && options.unanswered !== 'decline' && options.unanswered !== 'cancel' && options.unanswered !== 'error') fail('unanswered', "'decline', 'cancel' or 'error'", options.unanswered)
  for (const name of ['onProgress', 'onLog'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') fail(name, 'a function', options[name])
  }
  if (options.logLevel !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(options.logLevel)) fail('logLevel', `one of ${LOG_LEVELS.join(', ')}`, options.logLevel)
  if (options.headers !== undefined && !isHeaders(options.headers)) fail('headers', 'an object of header names to string values', options.headers)
  if (options.meta !== undefined && !isObject(options.meta)) fail('meta', 'an object (merged into params._meta)', options.meta)
  const task = options.task
  if (task !== undefined && typeof task !== 'boolean' && !(isObject(task) && (task.ttl === undefined || (Number.isInteger(task.ttl) && (task.ttl as number) > 0)))) {
    fail('task', 'true, or { ttl } with ttl a positive integer of milliseconds', task)
  }
  if (options.fresh !== undefined && typeof options.fresh !== 'boolean') fail('fresh', 'a boolean', options.fresh)
}
