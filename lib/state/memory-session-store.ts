/**
 * The default session store: a Map kept in least-recently-used order, bounded by a count and by
 * idle time, so a server that is never sent DELETE does not grow without limit.
 */
import type { Session, SessionStore } from './session-store.js'

export interface MemorySessionStoreOptions {
  /** Most sessions kept; the least recently used one is dropped to make room. */
  maxSessions: number
  /** A session unused for this many milliseconds ends. */
  idleTimeout: number
  /** Clock, for tests. */
  now?: () => number
}

interface Entry {
  session: Session
  lastSeen: number
}

export class MemorySessionStore implements SessionStore {
  private readonly entries = new Map<string, Entry>()
  /** The key set last, so the last in Map order: a session asked again and again is not moved. */
  private newest: string | undefined
  private readonly maxSessions: number
  private readonly idleTimeout: number
  private readonly now: () => number
  private timer: NodeJS.Timeout | undefined

  constructor (options: MemorySessionStoreOptions) {
    this.maxSessions = options.maxSessions
    this.idleTimeout = options.idleTimeout
    this.now = options.now ?? Date.now
    // sweep often enough that an idle session outlives its timeout by at most half of it
    this.timer = setInterval(() => this.sweep(), Math.max(1000, Math.min(this.idleTimeout / 2, 60_000)))
    this.timer.unref()
  }

  get size (): number {
    return this.entries.size
  }

  get (id: string): Session | undefined {
    const entry = this.entries.get(id)
    if (entry === undefined) return undefined
    const now = this.now()
    if (now - entry.lastSeen > this.idleTimeout) {
      this.delete(id)
      return undefined
    }
    entry.lastSeen = now
    // re-insert: Map order is insertion order, so the first key is always the least recently used.
    // Skipped for the newest (a client's requests in a row): each delete leaves a hole in the Map
    // until it rehashes, and this ran on every 2025 request (1.3 % of a call's time in the profile)
    if (id !== this.newest) {
      this.entries.delete(id)
      this.entries.set(id, entry)
      this.newest = id
    }
    return entry.session
  }

  set (session: Session): void {
    const existing = this.entries.get(session.id)
    if (existing !== undefined) {
      existing.session = session
      return
    }
    if (this.entries.size >= this.maxSessions) {
      const oldest = this.entries.keys().next().value as string
      this.entries.delete(oldest)
    }
    this.entries.set(session.id, { session, lastSeen: this.now() })
    this.newest = session.id
  }

  delete (id: string): void {
    this.entries.delete(id)
    if (id === this.newest) this.newest = undefined
  }

  /** Drops every session idle for longer than the timeout. */
  sweep (): void {
    const limit = this.now() - this.idleTimeout
    // entries are in least-recently-used order: the first live one ends the sweep
    for (const [id, entry] of this.entries) {
      if (entry.lastSeen >= limit) break
      this.delete(id)
    }
  }

  close (): void {
    clearInterval(this.timer)
    this.timer = undefined
    this.entries.clear()
    this.newest = undefined
  }
}
