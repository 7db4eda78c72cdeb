/**
 * Every shared store on one Redis connection (the `redis` option): 2025 sessions, the events of
 * resumable streams, the bus, tasks, and the instances' inboxes. Each one is the contract's Redis implementation; what the
 * user gave in a store's own option replaces it (lib/index.ts).
 */
import type { Logger } from '../../spec/types.js'
import type { Bus } from '../bus.js'
import type { EventStore } from '../event-store.js'
import type { Inbox } from '../inbox.js'
import type { TaskStore } from '../task-store.js'
import { RedisBus } from './bus.js'
import type { RedisConnection } from './connection.js'
import { RedisEventStore } from './event-store.js'
import { RedisInbox } from './inbox.js'
import { RedisSessionStore } from './session-store.js'
import { RedisTaskStore } from './task-store.js'

export interface RedisStoreSettings {
  readonly sessions: { readonly idleTimeout: number, readonly maxSessions: number, readonly maxPerCaller: number }
  readonly events: { readonly maxPerStream: number, readonly idleTimeout: number }
  readonly tasks: { readonly maxTtl: number, readonly maxTasks: number, readonly maxPerCaller: number }
}

export interface RedisStores {
  readonly sessions: RedisSessionStore
  readonly events: EventStore
  readonly bus: Bus
  readonly tasks: TaskStore
  readonly inbox: Inbox
}

export function redisStores (redis: RedisConnection, settings: RedisStoreSettings, log: Logger): RedisStores {
  return {
    sessions: new RedisSessionStore(redis, settings.sessions),
    events: new RedisEventStore(redis, settings.events.maxPerStream, settings.events.idleTimeout),
    bus: new RedisBus(redis, log),
    tasks: new RedisTaskStore(redis, settings.tasks),
    inbox: new RedisInbox(redis)
  }
}
