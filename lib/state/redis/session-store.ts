/**
 * 2025 sessions in Redis: one JSON string per session under `<prefix>session:<id>`, expiring
 * after `idleTimeout` without use. A read is one round trip that also renews the expiry (GETEX).
 */
import type { Session, SessionStore } from '../session-store.js'
import type { RedisConnection } from './connection.js'

export class RedisSessionStore implements SessionStore {
  constructor (private readonly redis: RedisConnection, private readonly idleTimeout: number) {}

  private key (id: string): string {
    return `${this.redis.prefix}session:${id}`
  }

  async get (id: string): Promise<Session | undefined> {
    const text = await this.redis.command('session', 'GETEX', this.key(id), 'PX', this.idleTimeout) as string | null
    return text === null ? undefined : JSON.parse(text) as Session
  }

  async set (session: Session): Promise<void> {
    await this.redis.command('session', 'SET', this.key(session.id), JSON.stringify(session), 'PX', this.idleTimeout)
  }

  async delete (id: string): Promise<void> {
    await this.redis.command('session', 'DEL', this.key(id))
  }
}
