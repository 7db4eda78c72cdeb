/**
 * The era, decided once, on first use: `'modern'` at once, a 2025 session (`initialize`), or for
 * `'auto'` the probe (`server/discover`) first; what the server said of itself; and every request
 * sent in that era, with the 2025 session's log level and a session that is gone opened again.
 */
import { AuthChallengeError, HttpError, RpcError } from './errors.js'
import { META_SERVER_INFO } from '../spec/meta-keys.js'
import { HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION } from '../spec/jsonrpc.js'
import { isLegacyVersion } from '../spec/eras.js'
import { isObject } from '../values.js'
import type { ResolvedOptions } from './client-options.js'
import { capabilitiesFor } from './input.js'
import type { Cache } from './pages.js'
import type { CallOptions, ListOptions, RequestOptions } from './request-options.js'
import type { LogLevel, ServerDescription } from './types.js'
import { MODERN, type Extras, type Message, type Wire } from './wire.js'

/** Errors a 2026-07-28 server answers a well-meant request with: a modern server, not a 2025 one. */
const MODERN_ERRORS = new Set([HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION])

/** A server's description, from `server/discover` (its `_meta` names the server) or `initialize`. */
function described (era: 'modern' | 'legacy', version: string, result: Message, info: unknown): ServerDescription {
  const versions = era === 'legacy' ? [version] : result.supportedVersions
  return {
    era,
    protocolVersion: version,
    serverInfo: isObject(info) ? info as ServerDescription['serverInfo'] : undefined,
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    supportedVersions: Array.isArray(versions) ? versions.filter((v): v is string => typeof v === 'string') : [],
    result
  }
}

function describeModern (result: Message): ServerDescription {
  return described('modern', MODERN, result, isObject(result._meta) ? result._meta[META_SERVER_INFO] : undefined)
}

export class Handshake {
  #description: ServerDescription | undefined
  #connecting: Promise<void> | undefined
  #sessionLevel: LogLevel | undefined

  /** `wire`: whose era it sets; `cache`: where `server/discover` is kept. */
  constructor (private readonly options: ResolvedOptions, private readonly wire: Wire, private readonly cache: Cache) {}

  /** What the server said of itself, once the client has heard it. */
  get description (): ServerDescription | undefined { return this.#description }

  async ready (): Promise<void> {
    // a connection under way decides the era first: `#probe` sets 'modern' before its answer,
    // and a call made meanwhile must not go out as 2026-07-28 to a server that turns out 2025-only
    // (it stays set once done: later calls await a settled promise; close() and a lost session clear it)
    if (this.#connecting !== undefined) {
      await this.#connecting
      return
    }
    this.#connecting = this.#connect().catch((err: unknown) => {
      this.#connecting = undefined
      throw err
    })
    await this.#connecting
  }

  async #connect (): Promise<void> {
    const { era } = this.options
    if (era === 'modern') {
      this.wire.use('modern', MODERN)
      return
    }
    if (era === 'auto' && await this.#probe()) return
    await this.#initialize()
  }

  /**
   * `server/discover`, as the spec's dual-era client does it: a result, or a modern error, is a
   * 2026-07-28 server; anything else (a 2025 server's 400 without a modern error, a 404, a 405)
   * means a 2025 session. A version list without 2026-07-28 means a 2025 session too. Over stdio
   * an error has no HTTP status: a modern one there means a modern server, and any other (a 2025
   * server's -32601 or -32600), or no answer within `timeout`, a 2025 session.
   */
  async #probe (): Promise<boolean> {
    this.wire.use('modern', MODERN)
    try {
      const description = describeModern(await this.request('server/discover', {}, {}))
      const versions = description.supportedVersions
      if (versions.length === 0 || versions.includes(MODERN)) {
        this.#description = description
        return true
      }
    } catch (err) {
      if (err instanceof AuthChallengeError || this.#modernRefusal(err)) {
        this.wire.use(undefined, undefined)
        throw err
      }
    }
    this.wire.use(undefined, undefined)
    return false
  }

  /**
   * Whether the probe's error came from a 2026-07-28 server: a modern error, with a 400 over HTTP
   * (none over stdio), and for an unsupported version a `supported` list that names 2026-07-28.
   */
  #modernRefusal (err: unknown): boolean {
    const status = this.options.process === undefined ? 400 : undefined
    if (!(err instanceof RpcError) || err.status !== status || !MODERN_ERRORS.has(err.code)) return false
    const supported = isObject(err.data) && Array.isArray(err.data.supported) ? err.data.supported : undefined
    return err.code !== UNSUPPORTED_PROTOCOL_VERSION || supported?.includes(MODERN) === true
  }

  async #initialize (): Promise<void> {
    const o = this.options
    const capabilities = capabilitiesFor([o.onInput], o.unanswered, o.capabilities)
    const params = { protocolVersion: o.legacyVersion, capabilities, clientInfo: o.clientInfo }
    this.wire.use('legacy', undefined)
    const result = await this.request('initialize', params, {}).catch((err: unknown) => {
      this.wire.era = undefined
      throw err
    })
    const version = result.protocolVersion
    if (!isLegacyVersion(version)) {
      this.wire.era = undefined
      this.wire.session = undefined
      const answered = `initialize: the server answered protocol version ${JSON.stringify(version)}`
      const speaks = `it speaks ${o.legacyVersion} and the other 2025 revisions`
      throw new HttpError(200, `${answered}, which this client does not speak (${speaks})`, JSON.stringify(result))
    }
    this.wire.version = version
    await this.wire.notify('notifications/initialized')
    this.#description = described('legacy', version, result, result.serverInfo)
    if (o.logLevel !== undefined) await this.#setLevel(o.logLevel, {})
  }

  async #setLevel (level: LogLevel, options: RequestOptions): Promise<void> {
    if (this.#sessionLevel === level || this.#description?.capabilities.logging === undefined) return
    await this.request('logging/setLevel', { level }, options)
    this.#sessionLevel = level
  }

  /** What the server says of itself: the 2025 session's `initialize` result, or `server/discover` (cached). */
  async describe (options: ListOptions): Promise<ServerDescription> {
    if (this.wire.era === 'legacy') return this.#description!
    const load = async (): Promise<Message> => await this.request('server/discover', {}, options)
    const result = await this.cache.get('server/discover', options, load)
    this.#description = describeModern(result)
    return this.#description
  }

  /**
   * Forgets the session and what the server said in it (it is gone, or the client closes), and with
   * `era: 'auto'` the era, so that the next request connects again; gives back the connection that
   * was under way, if any.
   */
  forget (): Promise<void> | undefined {
    const connecting = this.#connecting
    this.#connecting = undefined
    if (this.options.era === 'auto') this.wire.era = undefined
    this.wire.session = undefined
    this.#description = undefined
    this.#sessionLevel = undefined
    return connecting
  }

  /** One request and its answer; a 2025 session that is gone (404) is opened again, once. */
  async request (method: string, params: Message, call: CallOptions, extras: Extras = {}): Promise<Message> {
    if (this.wire.era === 'legacy' && method !== 'initialize' && method !== 'logging/setLevel') {
      const level = this.wire.logLevel(call)
      if (level !== undefined) await this.#setLevel(level, call)
    }
    try {
      return await this.wire.send(method, params, call, extras)
    } catch (err) {
      const failed = err instanceof RpcError || err instanceof HttpError
      const gone = this.wire.era === 'legacy' && this.wire.session !== undefined && failed && err.status === 404
      if (!gone || method === 'initialize') throw err
      this.forget()
      await this.ready()
      return await this.wire.send(method, params, call, extras)
    }
  }
}
