/**
 * The inbox in Redis (issue 29): a list per instance, `<prefix>inbox:<instance>`, pushed to by
 * whichever instance receives an answer and emptied, in one script, by the instance that asked.
 * A list nobody takes (its instance died) expires.
 */
import type { Inbox, LeftAnswer } from '../inbox.js'
import type { RedisConnection } from './connection.js'

// [inbox] [message, ttl]: one more message, and the list's expiry renewed
const LEAVE = `
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`

// [inbox]: every message, and the list gone
const TAKE = `
local left = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1])
return left`

/**
 * How long messages wait for an instance that does not take them, in ms. A live instance takes
 * them within a heartbeat; past this only a dead instance's list is left, which nobody will read.
 */
export const INBOX_TTL = 600_000

export class RedisInbox implements Inbox {
  private readonly prefix: string

  constructor (private readonly redis: RedisConnection) {
    this.prefix = `${redis.prefix}inbox:`
  }

  async leave (instance: string, left: LeftAnswer): Promise<void> {
    await this.redis.script('inbox', LEAVE, [this.prefix + instance], [JSON.stringify(left), INBOX_TTL])
  }

  async take (instance: string): Promise<readonly LeftAnswer[]> {
    const left = await this.redis.script('inbox', TAKE, [this.prefix + instance], []) as string[]
    return left.map((text) => JSON.parse(text) as LeftAnswer)
  }
}
