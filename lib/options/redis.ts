/**
 * The `redis` option (docs/fleet.md): the connection, the instance's heartbeat and the session
 * copies, declared once (lib/option-spec.ts).
 */
import { fail } from '../checks.js'
import { isObject } from '../values.js'
import { MAX_TIMER, custom, integer, readGroup, readInteger, type InputOf, type Option, type ResolvedOf } from '../option-spec.js'
import type { RedisClient } from '../state/redis/connection.js'

const ACCEPTS = 'a redis:// or rediss:// URL, an ioredis client (app.redis of @fastify/redis), or { url | client, prefix?, timeout?, heartbeat?, deadAfter?, sessionCache? }'
const CLIENT_METHODS = ['call', 'duplicate', 'subscribe', 'on', 'quit', 'disconnect']

export const REDIS = {
  /** A `redis://` or `rediss://` URL (needs the `ioredis` package); give it or `client`. */
  url: custom<string, string | undefined>(undefined, (url, { given }) => {
    if ((url === undefined) === (given.client === undefined)) fail('redis', `${ACCEPTS}: exactly one of url and client`, given)
    if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url) || !URL.canParse(url))) fail('redis.url', 'a redis:// or rediss:// URL, such as redis://127.0.0.1:6379', url)
    return url
  }),
  /** An ioredis client (`app.redis` of `@fastify/redis`): one pool for the service; the plugin never closes a client it did not make. */
  client: custom<RedisClient, RedisClient | undefined>(undefined, (client, { name }) => {
    if (client === undefined) return undefined
    if (!isObject(client)) fail(name, 'an ioredis client', client)
    const missing = CLIENT_METHODS.filter((method) => typeof client[method] !== 'function')
    if (missing.length > 0) fail(name, `an ioredis client (5 or later); this one lacks ${missing.join(', ')}`, client)
    return client as unknown as RedisClient
  }),
  /** Prepended to every key and channel, so that several servers share one Redis. Default `'sake:'`. */
  prefix: custom<string, string>("`'sake:'`", (value, { name }) => {
    const prefix = value ?? 'sake:'
    if (typeof prefix !== 'string') fail(name, "a string put before every key, such as 'sake:'", prefix)
    return prefix
  }),
  /** Milliseconds a Redis command may take before the request fails with 503. Default 2000. */
  timeout: integer({ default: 2000, min: 1, max: MAX_TIMER, unit: 'milliseconds' }),
  /**
   * Milliseconds between two heartbeats of this instance (issue 29: a fleet's survivors end what a
   * dead instance was running). Default 2000.
   */
  heartbeat: integer({ default: 2000, min: 100, max: MAX_TIMER, unit: 'milliseconds' }),
  /**
   * Milliseconds without a heartbeat after which an instance is taken for dead: its tasks fail and
   * its resumable streams end with an error. At least twice `heartbeat`. Default 8000 (with the
   * default heartbeat, a dead instance is found within about 10 s).
   */
  deadAfter: custom<number, number>('`8000`', (value, { name, group }) => {
    const heartbeat = group.heartbeat as number
    const deadAfter = readInteger(value, name, { min: 1, max: MAX_TIMER, unit: 'milliseconds' }, Math.max(8000, 2 * heartbeat))
    // one late heartbeat must not make a live instance dead
    if (deadAfter < 2 * heartbeat) fail(name, `at least twice redis.heartbeat (${2 * heartbeat} ms), so that one late heartbeat does not make a live instance dead`, deadAfter)
    return deadAfter
  }),
  /**
   * Milliseconds this instance reuses a 2025 session it read from Redis, instead of reading it
   * again for every call. What another instance changes or ends reaches it through the bus at
   * once; if the bus missed it, at the latest after this long. At most half of
   * `sessions.idleTimeout`. Default 1000; 0 reads every time.
   */
  sessionCache: custom<number, number>('`1000`', (value, { name, root }) => {
    // a copy in use does not renew the session's expiry in Redis: the read that refills it does
    const longest = Math.floor((root.sessions as { idleTimeout: number }).idleTimeout / 2)
    const sessionCache = readInteger(value, name, { min: 0, max: MAX_TIMER, unit: 'milliseconds; 0 reads every time' }, Math.min(1000, longest))
    if (sessionCache > longest) fail(name, `at most half of sessions.idleTimeout (${longest} ms), so that a session in use never expires in Redis between two reads`, sessionCache)
    return sessionCache
  })
}

export interface RedisOptions extends InputOf<typeof REDIS> {}

/**
 * The `redis` option once checked: the connection's settings, the heartbeat's
 * (`state/redis/liveness.ts`) and the session copies' (`state/session-cache.ts`).
 */
export type ResolvedRedis = ResolvedOf<typeof REDIS>

/** `redis`: a URL, an ioredis client, or `{ url | client, ... }`; absent, none. */
export const REDIS_OPTION: Option<string | RedisClient | RedisOptions, ResolvedRedis | undefined> & { members: typeof REDIS } = {
  shown: 'none',
  members: REDIS,
  read (value, { root }) {
    if (value === undefined) return undefined
    const given = typeof value === 'string' ? { url: value } : isObject(value) && typeof value.call === 'function' ? { client: value } : isObject(value) ? value : fail('redis', ACCEPTS, value)
    return readGroup(REDIS, given, 'redis', ACCEPTS, root)
  }
}
