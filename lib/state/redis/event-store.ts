/**
 * Resumable SSE streams in Redis: one Redis stream per SSE stream, `<prefix>events:<streamId>`,
 * trimmed to about `maxPerStream` entries (XADD MAXLEN ~) and expiring `idleTimeout` after its last
 * append. An event id is `<streamId>:<entry id>`, so that any instance finds the stream again from
 * `Last-Event-ID`. One round trip per append and per replay.
 */
import type { EventStore, Replay } from '../event-store.js'
import type { RedisConnection } from './connection.js'

// the stream's entry and its expiry in one round trip
const APPEND = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'm', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return id`

// nothing for a stream that expired (or never was), nor for an id past its newest entry (never
// issued: a made-up Last-Event-ID must not attach to a live stream); else the entries after the id
const REPLAY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
if newest ~= nil then
  local lms, lseq = string.match(newest[1], '^(%d+)-(%d+)$')
  local ms, seq = string.match(ARGV[1], '^(%d+)-(%d+)$')
  lms, lseq, ms, seq = tonumber(lms), tonumber(lseq), tonumber(ms), tonumber(seq)
  if ms > lms or (ms == lms and seq > lseq) then return false end
end
return redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+')`

/** A Redis stream entry id (`<ms>-<seq>`): anything else in an event id is not ours. */
const ENTRY = /^\d+-\d+$/

export class RedisEventStore implements EventStore {
  constructor (private readonly redis: RedisConnection, private readonly maxPerStream: number, private readonly idleTimeout: number) {}

  private key (streamId: string): string {
    return `${this.redis.prefix}events:${streamId}`
  }

  async append (streamId: string, message: string): Promise<string> {
    const entry = await this.redis.script('event', APPEND, [this.key(streamId)], [this.maxPerStream, message, this.idleTimeout]) as string
    return `${streamId}:${entry}`
  }

  async replay (eventId: string): Promise<Replay | undefined> {
    const cut = eventId.lastIndexOf(':')
    if (cut <= 0) return undefined
    const streamId = eventId.slice(0, cut)
    const entry = eventId.slice(cut + 1)
    if (!ENTRY.test(entry)) return undefined
    const entries = await this.redis.script('event', REPLAY, [this.key(streamId)], [entry]) as Array<[string, string[]]> | null
    if (entries === null) return undefined
    return { streamId, events: entries.map(([id, fields]) => ({ id: `${streamId}:${id}`, message: fields[1]! })) }
  }
}
