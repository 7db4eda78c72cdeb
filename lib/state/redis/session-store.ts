/**
 * 2025 sessions in Redis: one JSON string per session under `<prefix>session:<id>`, expiring
 * after `idleTimeout` without use. A read is one round trip that also renews the expiry (GETEX).
 *
 * Bounded across the fleet (issue 40), per caller and in all, in Redis itself: a sorted set of every
 * session (`<prefix>sessions`, members `<id> <caller>`) and one per caller
 * (`<prefix>caller-sessions:<caller>`, members `<id>`), each scored by when the session was last
 * known in use. A read renews a session's expiry but not its score (no second command on the hot
 * path), so a member whose score is older than `idleTimeout` may have expired or may live on: it is
 * checked (its key's PTTL) when a bound is reached, and by a sweep every minute, then scored
 * again or removed. A member scored within `idleTimeout` is a live session. DELETE removes it at once.
 *
 * The scripts read session keys they are not given (the members they check): fine on one Redis
 * (or a primary with replicas); a Redis Cluster would need them in one slot.
 */
import { NO_CALLER, type Refusal } from '../quota.js'
import type { Session, SessionStore } from '../session-store.js'
import type { RedisConnection } from './connection.js'

/**
 * [all sessions] [now, idleTimeout, session key prefix, caller sets' prefix, most to check]: checks
 * the members of the set of every session last known in use before `now - idleTimeout`, oldest
 * first, `most` at most: scored again if their key lives, else removed from both sets.
 */
const CHECK_ALL = `
local function check_all(all, now, idle, prefix, callers, most)
  local stale = redis.call('ZRANGEBYSCORE', all, '-inf', string.format('(%d', now - idle), 'LIMIT', 0, most)
  for _, member in ipairs(stale) do
    local id, caller = string.match(member, '^(%S+) (.*)$')
    local ttl = redis.call('PTTL', prefix .. id)
    if ttl > 0 then
      redis.call('ZADD', all, now - idle + ttl, member)
      redis.call('ZADD', callers .. caller, 'XX', now - idle + ttl, id)
    else
      redis.call('ZREM', all, member)
      redis.call('ZREM', callers .. caller, id)
    end
  end
end
`

// [session, caller's sessions, all sessions] [json, idleTimeout, now, perCaller, total, session
// key prefix, caller sets' prefix, id, caller]: the session stored unless a bound refuses it
const CREATE = CHECK_ALL + `
local idle, now = tonumber(ARGV[2]), tonumber(ARGV[3])
local per_caller, total = tonumber(ARGV[4]), tonumber(ARGV[5])
if redis.call('ZCARD', KEYS[2]) >= per_caller then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', string.format('(%d', now - idle))) do
    local ttl = redis.call('PTTL', ARGV[6] .. id)
    local member = id .. ' ' .. ARGV[9]
    if ttl > 0 then
      redis.call('ZADD', KEYS[2], now - idle + ttl, id)
      redis.call('ZADD', KEYS[3], 'XX', now - idle + ttl, member)
    else
      redis.call('ZREM', KEYS[2], id)
      redis.call('ZREM', KEYS[3], member)
    end
  end
  if redis.call('ZCARD', KEYS[2]) >= per_caller then return 'caller' end
end
if redis.call('ZCARD', KEYS[3]) >= total then
  check_all(KEYS[3], now, idle, ARGV[6], ARGV[7], 1000)
  if redis.call('ZCARD', KEYS[3]) >= total then return 'total' end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', idle)
redis.call('ZADD', KEYS[2], now, ARGV[8])
redis.call('ZADD', KEYS[3], now, ARGV[8] .. ' ' .. ARGV[9])
return 'ok'`

// [session, all sessions] [caller sets' prefix, id]: the session gone, and from the sets that count it
const DELETE = `
local text = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
if not text then return 0 end
local ok, session = pcall(cjson.decode, text)
if ok and type(session) == 'table' and type(session.caller) == 'string' then
  redis.call('ZREM', KEYS[2], ARGV[2] .. ' ' .. session.caller)
  redis.call('ZREM', ARGV[1] .. session.caller, ARGV[2])
end
return 1`

// [all sessions] [now, idleTimeout, session key prefix, caller sets' prefix, most]
const SWEEP = CHECK_ALL + `
check_all(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5]))
return 1`

export interface RedisSessionBounds {
  readonly idleTimeout: number
  /** Most sessions across the fleet. */
  readonly maxSessions: number
  /** Most sessions one caller holds across the fleet. */
  readonly maxPerCaller: number
}

/** How often each instance checks the members last known in use too long ago, in ms, and how many at most. */
const SWEEP_INTERVAL = 60_000
const SWEEP_MOST = 1000

export class RedisSessionStore implements SessionStore {
  private readonly all: string
  private readonly callers: string
  private readonly keys: string
  private readonly timer: NodeJS.Timeout

  constructor (private readonly redis: RedisConnection, private readonly bounds: RedisSessionBounds, private readonly now: () => number = Date.now) {
    this.keys = `${redis.prefix}session:`
    this.all = `${redis.prefix}sessions`
    this.callers = `${redis.prefix}caller-sessions:`
    this.timer = setInterval(() => { this.sweep().catch(noop) }, SWEEP_INTERVAL)
    this.timer.unref()
  }

  private key (id: string): string {
    return this.keys + id
  }

  async get (id: string): Promise<Session | undefined> {
    const text = await this.redis.command('session', 'GETEX', this.key(id), 'PX', this.bounds.idleTimeout) as string | null
    return text === null ? undefined : JSON.parse(text) as Session
  }

  /** A changed session; one that ended (deleted, expired) stays ended (XX): a change racing a DELETE must not bring it back, uncounted. */
  async set (session: Session): Promise<void> {
    await this.redis.command('session', 'SET', this.key(session.id), JSON.stringify(session), 'PX', this.bounds.idleTimeout, 'XX')
  }

  /** A new session, counted, unless its caller or the fleet is at its bound. */
  async create (session: Session): Promise<true | Refusal> {
    const caller = session.caller ?? NO_CALLER
    const { idleTimeout, maxPerCaller, maxSessions } = this.bounds
    const outcome = await this.redis.script('session', CREATE, [this.key(session.id), this.callers + caller, this.all], [
      JSON.stringify(session), idleTimeout, this.now(), maxPerCaller, maxSessions, this.keys, this.callers, session.id, caller
    ]) as string
    return outcome === 'ok' ? true : outcome as Refusal
  }

  async delete (id: string): Promise<void> {
    await this.redis.script('session', DELETE, [this.key(id), this.all], [this.callers, id])
  }

  /** Checks the members last known in use too long ago (what the bounds do at the edge, ahead of time). */
  async sweep (): Promise<void> {
    await this.redis.script('session', SWEEP, [this.all], [this.now(), this.bounds.idleTimeout, this.keys, this.callers, SWEEP_MOST])
  }

  close (): void {
    clearInterval(this.timer)
  }
}

function noop (): void {}
