/**
 * A shared store's 2025 sessions, kept by this instance for a moment (`maxAge` ms). A 2025 client
 * calls again and again on one session, and without a copy here every call would first wait for a
 * round trip to the store: on a Redis fleet, the largest cost of a call (bench/RESULTS.md).
 *
 * What another instance changes or ends reaches the copies here through the bus (`sessionChanged`,
 * `sessionEnded`) as soon as it is done; when the bus misses it (its connection blinked), a copy
 * is dropped at the latest `maxAge` after it was read. The read that refills a copy renews the
 * store's idle expiry, so `maxAge` must stay well under the store's idle timeout (options.ts).
 */
import type { Logger } from '../spec/types.js'
import type { Bus } from './bus.js'
import type { Refusal } from './quota.js'
import type { Session, SessionStore } from './session-store.js'

interface Copy {
  readonly session: Session
  readonly until: number
}

export class SessionCache implements SessionStore {
  private readonly copies = new Map<string, Copy>()
  /** Counts the copies dropped by the bus: a read that began before a drop must not keep what it read. */
  private drops = 0
  private readonly unsubscribe: () => void

  /** `maxSize`: the copies kept at most; the oldest goes first (a copy is cheap, a read only a round trip). */
  /** `store`: one that bounds new sessions itself (`create`), as the plugin's Redis store does. */
  constructor (
    private readonly store: SessionStore & Pick<Required<SessionStore>, 'create'>,
    private readonly bus: Bus,
    private readonly maxAge: number,
    private readonly log: Logger,
    private readonly maxSize = 10_000
  ) {
    this.unsubscribe = bus.subscribe((event) => {
      if (event.type === 'sessionEnded' || event.type === 'sessionChanged') this.drop(event.sessionId)
    })
  }

  /** Copies kept now, for tests. */
  get size (): number {
    return this.copies.size
  }

  /** Sync when this instance holds a fresh copy: no promise, no round trip on a session's hot path. */
  get (id: string): Session | undefined | Promise<Session | undefined> {
    const copy = this.copies.get(id)
    if (copy !== undefined) {
      if (copy.until > Date.now()) return copy.session
      this.copies.delete(id)
    }
    const drops = this.drops
    return Promise.resolve(this.store.get(id)).then((session) => {
      if (session !== undefined && drops === this.drops) this.keep(session)
      return session
    })
  }

  /**
   * Stored, kept here, and every other instance told to drop its copy. A bus that fails is logged,
   * not thrown: the session is saved, and the other copies are gone within `maxAge` anyway.
   */
  async set (session: Session): Promise<void> {
    await this.store.set(session)
    // this instance's copy dropped here, not left to the bus: a read begun before the change must not
    // keep what it read, and the bus reaches this instance's listeners late behind a large fan-out
    // (state/memory-bus.ts); its drop then only costs the next read a round trip
    this.drop(session.id)
    try {
      const told = this.bus.publish({ type: 'sessionChanged', sessionId: session.id })
      this.keep(session)
      await told
    } catch (err) {
      this.log.warn({ err }, 'fastify-sake: a 2025 session changed, but the bus could not tell the other instances; their copies are dropped within redis.sessionCache ms')
    }
  }

  /** A new session, stored unless the store's bounds refuse it, and kept here (no other instance has a copy of it yet). */
  async create (session: Session): Promise<true | Refusal> {
    const created = await this.store.create(session)
    if (created === true) this.keep(session)
    return created
  }

  /** Gone here first, then from the store; the others hear it from the bus (`Sessions.end` publishes `sessionEnded`). */
  async delete (id: string): Promise<void> {
    this.drop(id)
    await this.store.delete(id)
  }

  close (): void | Promise<void> {
    this.unsubscribe()
    this.copies.clear()
    return this.store.close?.()
  }

  private keep (session: Session): void {
    this.copies.delete(session.id)
    if (this.copies.size >= this.maxSize) this.copies.delete(this.copies.keys().next().value!)
    this.copies.set(session.id, { session, until: Date.now() + this.maxAge })
  }

  private drop (id: string): void {
    this.drops++
    this.copies.delete(id)
  }
}
