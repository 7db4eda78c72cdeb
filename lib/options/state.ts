/**
 * The options of what the server holds for its callers: 2025 sessions, resumable streams' events,
 * tasks, open streams, questions waiting for answers, and 2026-07-28 `requestState`. Each store,
 * bound and timeout declared once (lib/option-spec.ts); every bound refuses at its limit, never
 * evicts another caller's.
 */
import { SakeOptionError } from '../errors.js'
import { MAX_TIMER, custom, group, implementation, integer, perCaller, type InputOf } from '../option-spec.js'
import { SESSION_STORE_METHODS, type SessionStore } from '../state/session-store.js'
import { EVENT_STORE_METHODS, type EventStore } from '../state/event-store.js'
import { TASK_STORE_METHODS, type TaskStore } from '../state/task-store.js'
import { decodeKeys } from '../state/request-state.js'

export const SESSIONS = {
  /** Where 2025 sessions live; default: in memory, bounded by the two options below. */
  store: implementation<SessionStore>('SessionStore', SESSION_STORE_METHODS),
  /** Milliseconds without a request after which a session ends. Default 30 minutes. */
  idleTimeout: integer({ default: 30 * 60_000, min: 1, unit: 'milliseconds' }),
  /**
   * Most sessions held at once (in Redis: across the fleet). At the bound a new `initialize` is
   * refused (503, `Retry-After`); no live session is ever dropped to make room. Default 10,000.
   */
  maxSessions: integer({ default: 10_000, min: 1, unit: 'sessions' }),
  /**
   * Most sessions one caller (a token's subject, else the client's address) holds at once; its next
   * `initialize` is refused (429, `Retry-After`). Default 100 (or `maxSessions`, when lower).
   */
  maxPerCaller: perCaller('maxSessions', { default: 100, unit: 'sessions' }),
  /**
   * Bytes one session may take as stored (its client's `initialize` capabilities and clientInfo,
   * its subscriptions): an `initialize` or a `resources/subscribe` beyond it is refused (-32602).
   * Default 16,384 (real clients' capabilities are a few hundred).
   */
  maxSize: integer({ default: 16 * 1024, min: 1024, unit: 'bytes' })
}
export interface SessionOptions extends InputOf<typeof SESSIONS> {}

export const STREAMS = {
  /**
   * Most event streams this instance holds open at once: 2025 GET streams, calls answered as
   * streams (counted from the call's start), 2026-07-28 `subscriptions/listen`. A new one is
   * refused (503). Default 10,000 (mind the process's file descriptor limit).
   */
  maxStreams: integer({ default: 10_000, min: 1, unit: 'streams' }),
  /** Most event streams one caller holds open on this instance; a new one is refused (429). Default 100. */
  maxPerCaller: perCaller('maxStreams', { default: 100, unit: 'streams' }),
  /**
   * Bytes an event stream may hold unsent for a client that reads slower than the server writes;
   * beyond it the connection is closed (a resumable stream's events stay in the event store for
   * `Last-Event-ID`). Default 262,144 (256 KiB).
   */
  maxBuffered: integer({ default: 256 * 1024, min: 1024, unit: 'bytes' })
}
export interface StreamOptions extends InputOf<typeof STREAMS> {}

export const QUESTIONS = {
  /** Most questions (`ctx.elicit`, `ctx.sample`, `ctx.roots` in 2025 sessions) waiting for answers on this instance. Default 1,000. */
  maxQuestions: integer({ default: 1000, min: 1, unit: 'questions' }),
  /** Most such questions waiting for one caller's answers; a new one is refused. Default 20. */
  maxPerCaller: perCaller('maxQuestions', { default: 20, unit: 'questions' })
}
export interface QuestionOptions extends InputOf<typeof QUESTIONS> {}

export const EVENTS = {
  /** Where events of resumable (2025-11-25) SSE streams are kept; default: in memory, bounded below. */
  store: implementation<EventStore>('EventStore', EVENT_STORE_METHODS, ['delete', 'close']),
  /** Most events the in-memory store keeps per stream. Default 1,000. */
  maxPerStream: integer({ default: 1000, min: 1, unit: 'events' }),
  /** Most events the in-memory store keeps in all. Default 100,000. */
  maxEvents: integer({ default: 100_000, min: 1, unit: 'events' }),
  /** Milliseconds after which an untouched stream's events are dropped. Default 5 minutes: long enough for a client to reconnect. */
  idleTimeout: integer({ default: 5 * 60_000, min: 1, unit: 'milliseconds' })
}
export interface EventOptions extends InputOf<typeof EVENTS> {}

export const TASKS = {
  /** Where tasks live; default: in memory, bounded by `maxTasks`. */
  store: implementation<TaskStore>('TaskStore', TASK_STORE_METHODS),
  /**
   * Most tasks held at once, running or finished and kept until their ttl (in Redis: across the
   * fleet). At the bound a new task is refused (503); no task is dropped to make room. Default 10,000.
   */
  maxTasks: integer({ default: 10_000, min: 1, unit: 'tasks' }),
  /** Most tasks one caller holds at once, running or kept; its next one is refused (429). Default 100 (or `maxTasks`, when lower). */
  maxPerCaller: perCaller('maxTasks', { default: 100, unit: 'tasks' }),
  /** Milliseconds a task is kept when its creator asks no ttl. Default 10 minutes. */
  ttl: integer({ default: 10 * 60_000, min: 1, max: MAX_TIMER, unit: 'milliseconds' }),
  /** The longest ttl granted, in milliseconds. Default one hour. */
  maxTtl: integer({ default: 60 * 60_000, min: 1, max: MAX_TIMER, unit: 'milliseconds' }),
  /** Suggested polling interval (`pollInterval`), in milliseconds. Default 1 second. */
  pollInterval: integer({ default: 1000, min: 0, unit: 'milliseconds' }),
  /**
   * How long `app.close()` gives running tasks, in milliseconds: with a store that outlives the
   * process (Redis, or your own), they may finish within it, and whatever still runs then fails;
   * in memory they fail at once and their handlers get this long to stop. Default 5 seconds.
   */
  closeTimeout: integer({ default: 5000, min: 0, max: MAX_TIMER, unit: 'milliseconds' })
}
export interface TaskOptions extends InputOf<typeof TASKS> {}

export const REQUEST_STATE = {
  /**
   * The key ring sealing 2026-07-28 `requestState` (AES-256-GCM): 32-byte keys, base64 text or
   * bytes. The first seals, all open: rotate by putting a new key first and keeping the old one for
   * one `ttl`. Default: one random key per process, which only works while every round of a call
   * reaches the same process; a fleet (or a restart mid-call) needs shared keys.
   */
  keys: custom<Array<string | Uint8Array>, readonly Buffer[] | undefined>('one random key per process', (value) => {
    if (value === undefined) return undefined
    try {
      return Object.freeze(decodeKeys(value))
    } catch (err) {
      // decodeKeys names the key at fault ("requestState keys[1] is ...")
      throw new SakeOptionError(`fastify-sake: option ${(err as Error).message}`)
    }
  }),
  /** Milliseconds a `requestState` stays valid. Default 10 minutes: a person answers the question between rounds. */
  ttl: integer({ default: 10 * 60_000, min: 1, unit: 'milliseconds' })
}
export interface RequestStateOptions extends InputOf<typeof REQUEST_STATE> {}

/** The groups, as the root declares them (where their JSDoc is). */
export const STATE_GROUPS = {
  sessions: group<typeof SESSIONS, SessionOptions>(SESSIONS, 'an object { store?, idleTimeout?, maxSessions?, maxPerCaller?, maxSize? }'),
  events: group<typeof EVENTS, EventOptions>(EVENTS, 'an object { store?, maxPerStream?, maxEvents?, idleTimeout? }'),
  tasks: group<typeof TASKS, TaskOptions>(TASKS, 'an object { store?, maxTasks?, maxPerCaller?, ttl?, maxTtl?, pollInterval?, closeTimeout? }'),
  streams: group<typeof STREAMS, StreamOptions>(STREAMS, 'an object { maxStreams?, maxPerCaller?, maxBuffered? }'),
  questions: group<typeof QUESTIONS, QuestionOptions>(QUESTIONS, 'an object { maxQuestions?, maxPerCaller? }'),
  requestState: group<typeof REQUEST_STATE, RequestStateOptions>(REQUEST_STATE, 'an object { keys?, ttl? }, e.g. { keys: [process.env.MCP_STATE_KEY] }')
}
