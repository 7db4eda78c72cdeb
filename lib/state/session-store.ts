/**
 * Legacy (2025) sessions: what a session remembers, and the store contract behind them. The
 * modern era needs none of this; only `initialize`-based clients get a session.
 */
import type { ClientInfo } from '../spec/types.js'
import type { LegacyVersion } from '../spec/eras.js'
import type { Refusal } from './quota.js'

export interface Session {
  /** Visible ASCII, cryptographically random. */
  readonly id: string
  /** The version `initialize` negotiated. */
  readonly protocolVersion: LegacyVersion
  readonly client: ClientInfo
  /** Set once `notifications/initialized` arrived. */
  initialized: boolean
  /** The level `logging/setLevel` chose; until then no log messages are sent. */
  logLevel?: string
  /** URIs `resources/subscribe` asked updates for (`notifications/resources/updated` on the GET stream). */
  subscriptions?: string[]
  /** With `auth` on: the subject of the token that opened the session; only that subject may use it. */
  subject?: string
  /**
   * Who opened it, as quotas count (`sub:<subject>`, or `ip:<address>` without auth): a store
   * bounds the sessions each caller holds by it (issue 40). Absent on a session stored before.
   */
  readonly caller?: string
  /**
   * When `initialize` opened the session (`Date.now()`, ms since the epoch): stored with it, so
   * that whichever instance ends it can measure how long it lasted (`mcp.server.session.duration`).
   * Absent on a session stored before this field existed, whose end then measures nothing.
   */
  readonly createdAt?: number
}

/**
 * Where sessions live. Methods may return a value or a promise of one, so an in-memory store
 * costs no extra tick and a networked one fits the same contract.
 *
 * - `get` returns the live session and counts as activity (it resets idle expiry);
 * - `set` stores a changed session; in a store with `create`, only one that is there (a change that
 *   raced a DELETE must not bring the session back);
 * - `create` (optional) stores a new session unless the store's bounds refuse it: true when stored,
 *   else which bound refused it (`'caller'`: `session.caller` holds as many as it may; `'total'`:
 *   the store is full). It never drops a live session to make room. A store without it is given
 *   new sessions with `set`, and bounds nothing;
 * - `delete` ends a session: a later `get` returns undefined;
 * - `close` (optional) releases timers and connections when the server closes.
 */
export interface SessionStore {
  get (id: string): Session | undefined | Promise<Session | undefined>
  set (session: Session): void | Promise<void>
  create? (session: Session): true | Refusal | Promise<true | Refusal>
  delete (id: string): void | Promise<void>
  close? (): void | Promise<void>
}

export const SESSION_STORE_METHODS = ['get', 'set', 'delete'] as const
