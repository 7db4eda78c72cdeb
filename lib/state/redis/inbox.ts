/**
 * The inbox in Redis (issue 29): a list per instance, `<prefix>inbox:<instance>`, pushed to by
 * whichever instance receives an answer and emptied, in one script, by the instance that asked.
 * A list nobody takes (its instance died) expires.
 *
 * What is kept is bounded (issue 40): each question asked is a key, `<prefix>question:<id>` (its
 * session, expiring with the question), and an answer is pushed only when that key names the
 * answer's session, which it then deletes: one answer per question asked, never one for a made-up
 * id. The list holds `INBOX_MAX_ANSWERS` answers and `INBOX_MAX_BYTES` bytes (counted beside it, in
 * `<prefix>inbox-bytes:<instance>`) at most, and its expiry is set when it is made, never renewed
 * by a push. The scripts name every key they touch: fine on a Redis Cluster once each instance's
 * keys share a slot (issue 45).
 */
import type { Inbox, LeftAnswer, Leaving } from '../inbox.js'
import type { RedisConnection } from './connection.js'

// [inbox, its byte count, the question] [message, ttl, session, most answers, most bytes]
const LEAVE = `
if redis.call('GET', KEYS[3]) ~= ARGV[3] then return 'unexpected' end
local bytes = tonumber(redis.call('GET', KEYS[2]) or '0')
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[4]) or bytes + #ARGV[1] > tonumber(ARGV[5]) then return 'full' end
redis.call('DEL', KEYS[3])
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('INCRBY', KEYS[2], #ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return 'kept'`

// [inbox, its byte count]: every message, and the list gone
const TAKE = `
local left = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1], KEYS[2])
return left`

/**
 * How long messages wait for an instance that does not take them, in ms. A live instance takes
 * them within a heartbeat; past this only a dead instance's list is left, which nobody will read.
 */
export const INBOX_TTL = 600_000
/** Answers one inbox holds at most: beyond, an answer is refused (503) until its instance takes them, within a heartbeat. */
export const INBOX_MAX_ANSWERS = 1000
/** Bytes one inbox holds at most (16 MiB), whatever the answers' count. */
export const INBOX_MAX_BYTES = 16 * 1024 * 1024

export class RedisInbox implements Inbox {
  private readonly prefix: string
  private readonly bytes: string
  private readonly questions: string

  constructor (private readonly redis: RedisConnection, private readonly limits = { answers: INBOX_MAX_ANSWERS, bytes: INBOX_MAX_BYTES }) {
    this.prefix = `${redis.prefix}inbox:`
    this.bytes = `${redis.prefix}inbox-bytes:`
    this.questions = `${redis.prefix}question:`
  }

  async expect (_instance: string, sessionId: string, id: string, timeout: number): Promise<void> {
    await this.redis.command('inbox', 'SET', this.questions + id, sessionId, 'PX', timeout)
  }

  async forget (id: string): Promise<void> {
    await this.redis.command('inbox', 'DEL', this.questions + id)
  }

  async leave (instance: string, left: LeftAnswer): Promise<Leaving> {
    return await this.redis.script('inbox', LEAVE, [this.prefix + instance, this.bytes + instance, this.questions + left.id], [
      JSON.stringify(left), INBOX_TTL, left.sessionId, this.limits.answers, this.limits.bytes
    ]) as Leaving
  }

  async take (instance: string): Promise<readonly LeftAnswer[]> {
    const left = await this.redis.script('inbox', TAKE, [this.prefix + instance, this.bytes + instance], []) as string[]
    return left.map((text) => JSON.parse(text) as LeftAnswer)
  }
}
