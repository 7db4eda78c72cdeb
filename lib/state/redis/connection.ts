/**
 * The Redis connection the stores share (issue 16): the user's ioredis client (the one
 * `@fastify/redis` decorates, say: one pool for the whole service), or one made from a URL.
 * Every command goes through `command`/`script`, which bound it in time: a Redis that is down or
 * slow fails the request with a `StoreUnavailableError` naming the store, never a hang.
 */
import { createHash } from 'node:crypto'
import { StoreUnavailableError } from '../../errors.js'
import type { Logger } from '../../spec/types.js'

/**
 * The part of an ioredis (5 or later) client the stores use. `call` sends any command; the
 * subscriber is a `duplicate` (a connection in subscriber mode can do nothing else).
 */
export interface RedisClient {
  call (command: string, ...args: Array<string | number>): Promise<unknown>
  duplicate (override?: Record<string, unknown>): RedisClient
  subscribe (...channels: string[]): Promise<unknown>
  on (event: string, listener: (...args: any[]) => void): unknown
  quit (): Promise<unknown>
  disconnect (): void
}

export interface RedisSettings {
  /** Prepended to every key and channel, so that several servers share one Redis. */
  readonly prefix: string
  /** Milliseconds a command may take before the request fails with 503. */
  readonly timeout: number
}

export class RedisConnection {
  readonly prefix: string
  private readonly timeout: number
  private readonly shas = new Map<string, string>()
  private readonly subscribers: RedisClient[] = []

  /**
   * `owned`: made by the plugin (from a URL), so closed with it, and bounded by ioredis's own
   * `commandTimeout` (no timer of ours per command); a user's client is left open, and each of its
   * commands gets our timer, whatever its own settings.
   */
  constructor (readonly client: RedisClient, settings: RedisSettings, private readonly owned: boolean) {
    this.prefix = settings.prefix
    this.timeout = settings.timeout
  }

  /** Runs one command for `store`; rejects with `StoreUnavailableError` when Redis fails or is too slow. */
  async command (store: string, command: string, ...args: Array<string | number>): Promise<unknown> {
    if (this.owned) return await this.client.call(command, ...args).catch((err: unknown) => { throw this.unavailable(store, err) })
    return await this.bounded(store, this.client.call(command, ...args))
  }

  /** Runs a Lua script (EVALSHA, loaded with EVAL the first time or after a Redis restart). */
  async script (store: string, lua: string, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    let sha = this.shas.get(lua)
    if (sha === undefined) {
      sha = createHash('sha1').update(lua).digest('hex')
      this.shas.set(lua, sha)
    }
    try {
      return await this.command(store, 'EVALSHA', sha, keys.length, ...keys, ...args)
    } catch (err) {
      if (!(err as Error).message.includes('NOSCRIPT')) throw err
      return await this.command(store, 'EVAL', lua, keys.length, ...keys, ...args)
    }
  }

  /**
   * A new connection for a subscriber (closed with this one). Its user subscribes on every `ready`
   * (see `RedisBus`): ioredis's own `autoResubscribe` sends SUBSCRIBE after a reconnect with no
   * handler, so a connection closed before Redis answers it (an app closing while Redis comes
   * back) rejected a promise nobody held: an unhandled rejection, which ends a Node process.
   */
  subscriber (log: Logger): RedisClient {
    const client = this.client.duplicate({ enableOfflineQueue: true, autoResubscribe: false, lazyConnect: false })
    watch(client, log)
    this.subscribers.push(client)
    return client
  }

  async close (): Promise<void> {
    for (const client of this.subscribers.splice(0)) client.disconnect()
    if (this.owned) {
      try {
        await this.client.quit()
      } catch {
        // already disconnected: quit has nothing to do
        this.client.disconnect()
      }
    }
  }

  private async bounded<T> (store: string, pending: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new StoreUnavailableError(store, `Redis did not answer within ${this.timeout} ms`)), this.timeout)
    })
    try {
      const value = await Promise.race([pending, late])
      clearTimeout(timer)
      return value
    } catch (err) {
      clearTimeout(timer)
      if (err instanceof StoreUnavailableError) {
        // the command may still settle later: its outcome is nobody's now
        pending.catch(noop)
        throw err
      }
      throw this.unavailable(store, err)
    }
  }

  private unavailable (store: string, err: unknown): StoreUnavailableError {
    const message = (err as Error).message
    // ioredis's commandTimeout says "Command timed out": the same words as our own bound's
    return new StoreUnavailableError(store, message === 'Command timed out' ? `Redis did not answer within ${this.timeout} ms` : `Redis: ${message}`)
  }
}

function noop (): void {}

/** The `redis` option once checked: a URL to connect to, or a client, and the settings. */
export interface RedisOption extends RedisSettings {
  readonly url?: string | undefined
  readonly client?: RedisClient | undefined
}

/**
 * Opens the connection: the given client as it is, or an ioredis client for the URL, made to
 * fail fast while Redis is away (no offline queue, so a command errors at once; reconnection is
 * ioredis's own, automatic and unbounded). The time bound is ours (`bounded`), for every client alike.
 */
export async function connect (option: RedisOption, log: Logger): Promise<RedisConnection> {
  if (option.client !== undefined) return new RedisConnection(option.client, option, false)
  let Redis: new (url: string, options: Record<string, unknown>) => RedisClient
  try {
    Redis = (await import('ioredis')).Redis as unknown as typeof Redis
  /* c8 ignore start: ioredis is a devDependency here, so it is always found; the message is for users who forgot it */
  } catch {
    throw new Error("fastify-sake: option 'redis' with a URL needs the ioredis package: npm install ioredis (or pass a client: redis: app.redis)")
  }
  /* c8 ignore stop */
  const client = new Redis(option.url!, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // the time bound of every command, kept by ioredis itself: no timer and race of ours per command
    commandTimeout: option.timeout,
    // commands sent in the same turn of the event loop go out in one write: under load, many requests share a syscall
    enableAutoPipelining: true,
    // a Redis that is down at start must not keep the server from starting: commands fail with 503 meanwhile
    lazyConnect: false
  })
  watch(client, log)
  // the first requests must not fail for a connection still being made: wait for it, within the
  // timeout; a Redis that is down then must not keep the server from starting (503 until it is up)
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, option.timeout)
    client.on('ready', () => {
      clearTimeout(timer)
      resolve()
    })
  })
  return new RedisConnection(client, option, true)
}

/**
 * Logs a lost connection once (ioredis emits 'error' at every failed reconnect, and without a
 * listener Node would throw it) and its return.
 */
export function watch (client: RedisClient, log: Logger): void {
  let down = false
  client.on('error', (err: Error) => {
    if (down) return
    down = true
    log.warn({ err }, 'fastify-sake: the Redis connection failed; requests that need shared state get 503 until it is back (ioredis reconnects)')
  })
  client.on('ready', () => {
    if (!down) return
    down = false
    log.info('fastify-sake: the Redis connection is back')
  })
}
