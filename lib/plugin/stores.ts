/**
 * The stores a server keeps its shared state in: each the user's own (its option), else the `redis`
 * option's (every store shared through one connection), else the in-memory default, bounded by its
 * options; and how to close the ones the plugin made.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { ResolvedOptions } from '../options/server.js'
import { MemorySessionStore } from '../state/memory-session-store.js'
import { SessionCache } from '../state/session-cache.js'
import { MemoryBus } from '../state/memory-bus.js'
import { MemoryEventStore } from '../state/memory-event-store.js'
import { MemoryTaskStore } from '../state/memory-task-store.js'
import { MemoryLiveness, type Liveness } from '../state/liveness.js'
import type { RedisConnection } from '../state/redis/connection.js'
import type { RedisStores } from '../state/redis/stores.js'
import type { RedisSessionStore } from '../state/redis/session-store.js'
import type { Bus } from '../state/bus.js'
import type { EventStore } from '../state/event-store.js'
import type { Inbox } from '../state/inbox.js'
import type { SessionStore } from '../state/session-store.js'
import type { TaskStore } from '../state/task-store.js'

/** The stores a server keeps its shared state in, and how to close the ones the plugin made. */
export interface Stores {
  readonly sessions: SessionStore
  readonly bus: Bus
  readonly events: EventStore
  readonly taskStore: TaskStore
  /** Which instances of the fleet are alive: Redis's heartbeats with the `redis` option, else this instance alone. */
  readonly liveness: Liveness
  /** Where answers to this instance's questions are left: Redis's with the `redis` option, else none (one instance). */
  readonly inbox: Inbox | undefined
  /** Closes what the plugin made: a store the user passed in is theirs to close. */
  close (): Promise<void>
}

/**
 * Each store: the user's own (its option), else the `redis` option's (every store shared through
 * one connection), else the in-memory default, bounded by its options.
 */
export async function openStores (options: ResolvedOptions, log: FastifyBaseLogger): Promise<Stores> {
  const instance = randomBytes(9).toString('base64url')
  const fleet = options.redis === undefined ? undefined : await openFleet(options, instance, log)
  const shared = fleet?.stores
  const bus = options.bus ?? shared?.bus ?? new MemoryBus()
  // Redis's sessions are read once a second per instance, not once a call (state/session-cache.ts)
  const sessions = options.sessions.store ?? (shared === undefined
    ? new MemorySessionStore(options.sessions)
    : cached(shared.sessions, bus, options.redis!.sessionCache, log))
  const events = options.events.store ?? shared?.events ?? new MemoryEventStore(options.events)
  const taskStore = options.tasks.store ?? shared?.tasks ?? new MemoryTaskStore(options.tasks)
  const liveness: Liveness = fleet?.liveness ?? new MemoryLiveness(instance)
  return {
    sessions,
    bus,
    events,
    taskStore,
    liveness,
    inbox: shared?.inbox,
    close: async () => {
      // this instance leaves the fleet first: a survivor takes over at once whatever it still owns
      await liveness.close?.()
      if (options.sessions.store === undefined) await sessions.close?.()
      if (options.bus === undefined) await bus.close?.()
      if (options.events.store === undefined) await events.close?.()
      if (options.tasks.store === undefined) await taskStore.close?.()
      await fleet?.redis.close()
    }
  }
}

/**
 * The `redis` option's connection, its stores and this instance's heartbeats. lib/state/redis/ (and
 * ioredis, which its connection imports) load here, with the option: a server without it never loads them.
 */
async function openFleet (options: ResolvedOptions, instance: string, log: FastifyBaseLogger):
Promise<{ redis: RedisConnection, stores: RedisStores, liveness: Liveness }> {
  const redisOptions = options.redis!
  const [{ connect }, { redisStores }, { RedisLiveness, workerConnection }] = await Promise.all([
    import('../state/redis/connection.js'), import('../state/redis/stores.js'), import('../state/redis/liveness.js')
  ])
  const redis = await connect(redisOptions, log)
  const stores = redisStores(redis, options, log)
  const heartbeats = { interval: redisOptions.heartbeat, deadAfter: redisOptions.deadAfter }
  const liveness = new RedisLiveness(redis, instance, heartbeats, workerConnection(redisOptions.url, redis.client))
  return { redis, stores, liveness }
}

function cached (store: RedisSessionStore, bus: Bus, maxAge: number, log: FastifyBaseLogger): SessionStore {
  return maxAge === 0 ? store : new SessionCache(store, bus, maxAge, log)
}
