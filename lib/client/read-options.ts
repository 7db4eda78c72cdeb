/**
 * `createClient`'s options and a call's, read once (lib/option-spec.ts, as the plugin reads its
 * own), so a wrong one fails with `SakeClientOptionError` naming the option, what it accepts and
 * what arrived, before any request is sent.
 */
import type { FastifyInstance } from 'fastify'
import { SakeClientOptionError } from '../errors.js'
import { custom, readGroup, refused, type Option, type Voice } from '../option-spec.js'
import { LOG_LEVELS } from '../spec/log-levels.js'
import { LEGACY_VERSIONS } from '../spec/eras.js'
import { isObject } from '../values.js'
import type { LogLevel, OnInput, Unanswered } from './types.js'
import type { FetchLike, ResolvedOptions, StderrMode, TokenSource } from './client-options.js'

/**
 * The client's errors: `SakeClientOptionError`, 'fastify-sake/client: option ...' (lib/option-spec.ts
 * reads its options as it reads the plugin's).
 */
const CLIENT: Voice = {
  refuse (message) { throw new SakeClientOptionError(`fastify-sake/client: ${message}`) },
  noun: 'option',
  known: 'known ones are'
}
const CALL: Voice = { ...CLIENT, noun: 'call option' }

/** The longest timeout setTimeout keeps (about 24.8 days). */
const MAX_TIMEOUT = 2_147_483_647

function fail (option: string, accepts: string, value: unknown): never {
  return refused(CLIENT, option, accepts, value)
}

function isHeaders (value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string')
}

function isFastify (value: unknown): value is FastifyInstance {
  return isObject(value) && typeof value.inject === 'function' && typeof value.ready === 'function'
}

/** An option whose value is checked by `ok`, `accepts` naming what it must be; `fallback` when absent. */
function checked<T> (ok: (value: unknown) => boolean, accepts: string, fallback?: T): Option<T, T> {
  return custom(fallback === undefined ? undefined : `\`${JSON.stringify(fallback)}\``, (value, { name, voice }) => {
    if (value === undefined) return fallback as T
    if (!ok(value)) refused(voice, name, accepts, value)
    return value as T
  })
}

const oneOf = (values: readonly unknown[]) => (value: unknown): boolean => values.includes(value)
const timeout = (value: unknown): boolean => Number.isInteger(value) && (value as number) > 0 && (value as number) <= MAX_TIMEOUT
const TIMEOUT = `a positive integer of milliseconds (at most ${MAX_TIMEOUT})`
const ON_INPUT = 'a map from question key to an answer (or a function of the question), or a function (request, key) => answer'
const UNANSWERED = "'decline', 'cancel' or 'error'"
const LOG_LEVEL = `one of ${LOG_LEVELS.join(', ')}`
const HEADERS = 'an object of header names to string values'

/** `onInput`: a function, or answers by key, each an answer object or a function. */
const onInput: Option<OnInput, OnInput | undefined> = custom(undefined, (value, { name, voice }) => {
  if (value === undefined || typeof value === 'function') return value as OnInput | undefined
  if (!isObject(value)) refused(voice, name, ON_INPUT, value)
  for (const [key, answer] of Object.entries(value)) {
    if (typeof answer !== 'function' && !isObject(answer)) {
      refused(voice, `${name}.${key}`, 'an answer ({ action: \'accept\', content }, a sampling result, { roots }) or a function (request, key) => answer', answer)
    }
  }
  return value as OnInput
})

/** The three transports, as the message of a client given none of them, or more than one, names them. */
const TRANSPORTS = "'url' (the MCP endpoint over HTTP, 'http://127.0.0.1:3000/mcp'), 'app' (a Fastify instance with fastify-sake, in-process) " +
  "and 'command' (a server process to start and speak to over stdio, 'node' with args ['server.js', '--stdio'])"

/** Which transport the options chose (one, or the error saying so). */
function transportOf (given: Readonly<Record<string, unknown>>): 'url' | 'app' | 'command' {
  const chosen = (['url', 'app', 'command'] as const).filter((name) => given[name] !== undefined)
  if (chosen.length !== 1) {
    throw new SakeClientOptionError(`fastify-sake/client: give exactly one of ${TRANSPORTS}, got ${chosen.length === 0 ? 'none' : chosen.map((name) => `'${name}'`).join(' and ')}`)
  }
  return chosen[0]!
}

/**
 * An option of one transport: refused beside another with what to do instead (`absent`), else
 * read by `read`.
 */
function only<T> (transport: 'url' | 'app' | 'command' | 'http', absent: Record<string, string>, read: (value: unknown, name: string) => T): Option<T, T | undefined> {
  return custom(undefined, (value, { name, given }) => {
    const chosen = transportOf(given)
    if (value === undefined) return undefined
    if (chosen !== transport && !(transport === 'http' && chosen !== 'command')) fail(name, absent[chosen]!, value)
    return read(value, name)
  })
}

/** What a process option is refused with beside `url` or `app`. */
const WITHOUT_COMMAND = "absent without 'command' (it describes the server process a { command } client starts)"
const PROCESS_ONLY = { url: WITHOUT_COMMAND, app: WITHOUT_COMMAND }

/** What the HTTP options are refused with beside `command`: each says what to do instead. */
const NOT_OVER_STDIO = {
  fetch: "absent with 'command' (the client speaks to the process over its stdin and stdout)",
  path: "absent with 'command' (stdio has no endpoint path)",
  headers: "absent with 'command' (stdio carries no HTTP headers: give the server what it needs in 'env')",
  token: "absent with 'command' (stdio carries no Authorization header: a stdio server takes its credentials from its environment, 'env')"
}

/** `createClient`'s options, in the order they are read (and listed when a key is unknown). */
const OPTIONS = {
  url: custom<string | URL, string | undefined>(undefined, (url, { given }) => {
    transportOf(given)
    if (url === undefined) return undefined
    if (typeof url !== 'string' && !(url instanceof URL)) fail('url', 'an absolute http(s) URL, as a string or a URL', url)
    const parsed = URL.canParse(String(url)) ? new URL(String(url)) : undefined
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) fail('url', "an absolute http(s) URL ('http://127.0.0.1:3000/mcp')", url)
    return parsed.href
  }),
  fetch: only<FetchLike>('url', { app: "absent with 'app' (requests go through app.inject)", command: NOT_OVER_STDIO.fetch }, (value, name) => {
    if (typeof value !== 'function') fail(name, 'a function (the fetch API)', value)
    return value as FetchLike
  }),
  app: only<FastifyInstance>('app', {}, (value, name) => isFastify(value) ? value : fail(name, 'a Fastify instance (with fastify-sake registered)', value)),
  path: only<string>('app', { url: "absent with 'url' (the path is part of the URL)", command: NOT_OVER_STDIO.path }, (value, name) => {
    if (typeof value !== 'string' || !value.startsWith('/')) fail(name, "a path starting with '/'", value)
    return value
  }),
  command: only<string>('command', {}, (value, name) => {
    if (typeof value !== 'string' || value.trim() === '') fail(name, "a non-empty string: the program to start ('node', or a path)", value)
    return value
  }),
  args: only<readonly string[]>('command', PROCESS_ONLY, (value, name) => {
    if (!(Array.isArray(value) && value.every((arg) => typeof arg === 'string'))) fail(name, "an array of strings (['server.js', '--stdio'])", value)
    return Object.freeze([...value as string[]])
  }),
  env: only<Readonly<Record<string, string | undefined>>>('command', PROCESS_ONLY, (value, name) => {
    if (!(isObject(value) && Object.values(value).every((item) => item === undefined || typeof item === 'string'))) {
      fail(name, 'an object of variable names to string values (undefined leaves a variable out)', value)
    }
    return Object.freeze({ ...value as Record<string, string | undefined> })
  }),
  cwd: only<string | URL>('command', PROCESS_ONLY, (value, name) => {
    if (typeof value !== 'string' && !(value instanceof URL && value.protocol === 'file:')) fail(name, 'a directory, as a path or a file: URL', value)
    return value
  }),
  stderr: only<StderrMode>('command', PROCESS_ONLY, (value, name) => oneOf(['pipe', 'inherit', 'ignore'])(value) ? value as StderrMode : fail(name, "'pipe', 'inherit' or 'ignore'", value)),
  closeTimeout: only<number>('command', PROCESS_ONLY, (value, name) => timeout(value) ? value as number : fail(name, TIMEOUT, value)),
  era: checked<'modern' | 'legacy' | 'auto'>(oneOf(['modern', 'legacy', 'auto']), "'modern', 'legacy' or 'auto'", 'auto'),
  legacyVersion: checked<string>(oneOf(LEGACY_VERSIONS), LEGACY_VERSIONS.map((v) => `'${v}'`).join(', '), '2025-11-25'),
  headers: only<Record<string, string>>('http', { command: NOT_OVER_STDIO.headers }, (value, name) => isHeaders(value) ? value : fail(name, HEADERS, value)),
  token: only<TokenSource>('http', { command: NOT_OVER_STDIO.token }, (value, name) => {
    if (typeof value !== 'string' && typeof value !== 'function') fail(name, 'a string or a function returning one (or a promise of one)', value)
    return value as TokenSource
  }),
  timeout: checked<number>(timeout, TIMEOUT, 60_000),
  clientInfo: checked<{ name: string, version: string, [key: string]: unknown }>((info) => isObject(info) && typeof info.name === 'string' && typeof info.version === 'string', '{ name: string, version: string }', { name: 'fastify-sake-client', version: '0.1.0' }),
  capabilities: checked<Record<string, unknown>>(isObject, 'an object (ClientCapabilities)'),
  onInput,
  unanswered: checked<Unanswered>(oneOf(['decline', 'cancel', 'error']), UNANSWERED, 'decline'),
  maxRounds: checked<number>((value) => Number.isInteger(value) && (value as number) >= 1, 'a positive integer', 10),
  logLevel: checked<LogLevel>(oneOf(LOG_LEVELS), LOG_LEVEL)
}

/** Checks `createClient`'s options and fills in the defaults. */
export function resolveOptions (options: unknown): ResolvedOptions {
  if (!isObject(options)) fail('(the options)', "an object with 'url' (HTTP), 'app' (a Fastify instance, in-process) or 'command' (a server process, over stdio)", options)
  const read = readGroup(OPTIONS, options, '', '', undefined, CLIENT)
  return Object.freeze({
    url: read.url,
    fetch: read.fetch,
    app: read.app,
    path: read.path,
    process: read.command === undefined
      ? undefined
      : Object.freeze({ command: read.command, args: read.args ?? Object.freeze([]), env: read.env ?? Object.freeze({}), cwd: read.cwd, stderr: read.stderr ?? 'pipe', closeTimeout: read.closeTimeout ?? 5000 }),
    era: read.era,
    legacyVersion: read.legacyVersion,
    headers: Object.freeze({ ...read.headers }),
    token: read.token,
    timeout: read.timeout,
    clientInfo: read.clientInfo,
    capabilities: Object.freeze({ ...read.capabilities }),
    onInput: read.onInput,
    unanswered: read.unanswered,
    maxRounds: read.maxRounds,
    logLevel: read.logLevel
  })
}

/** A call's options (the last argument of `callTool` and the other methods). */
const CALL_OPTIONS = {
  signal: checked<AbortSignal>((value) => value instanceof AbortSignal, 'an AbortSignal'),
  timeout: checked<number>(timeout, TIMEOUT),
  onInput,
  unanswered: checked<Unanswered>(oneOf(['decline', 'cancel', 'error']), UNANSWERED),
  onProgress: checked<unknown>((value) => typeof value === 'function', 'a function'),
  onLog: checked<unknown>((value) => typeof value === 'function', 'a function'),
  logLevel: checked<LogLevel>(oneOf(LOG_LEVELS), LOG_LEVEL),
  headers: checked<Record<string, string>>(isHeaders, HEADERS),
  meta: checked<Record<string, unknown>>(isObject, 'an object (merged into params._meta)'),
  task: checked<unknown>((task) => typeof task === 'boolean' || (isObject(task) && (task.ttl === undefined || (Number.isInteger(task.ttl) && (task.ttl as number) > 0))), 'true, or { ttl } with ttl a positive integer of milliseconds'),
  fresh: checked<boolean>((value) => typeof value === 'boolean', 'a boolean')
}

/** Checks a call's options (the last argument of `callTool` and the other methods). */
export function checkCallOptions (options: unknown): void {
  if (options === undefined) return
  if (!isObject(options)) fail('(call options)', 'an object', options)
  readGroup(CALL_OPTIONS, options, '', '', undefined, CALL)
}
