/**
 * Tasks in Redis. A record is a hash, `<prefix>task:<id>`, one field per record field, each value
 * the field's JSON (so a tool's result is stored as the JSON text it was, never re-encoded by Lua,
 * which would round numbers); `version` is compared and bumped by a script, which is the
 * compare-and-set. A live record expires a grace period after its ttl (the lifecycle fails it at
 * the ttl; the grace covers an instance that died meanwhile), a terminal one at its ttl or
 * `keepUntil`. Each owner's task ids are in a sorted set by creation time, `<prefix>owner:<owner>`,
 * trimmed of ids older than any record can live, for `tasks/list` (2025-11-25).
 *
 * Bounded across the fleet (issue 40): every task is in `<prefix>tasks` (`<taskId> <caller>`) and
 * in its caller's `<prefix>caller-tasks:<caller>`, scored by when its record expires: at creation
 * `createdAt + ttl + grace`, and again at each transition, which moves its end (a finished task
 * ends at its ttl or `keepUntil`); a delete removes it. So the counts are what is past no score,
 * exact without reading any record. TRANSITION writes the counted sets of the record's caller,
 * keys it is not given: fine on one Redis (or a primary with replicas); a Redis Cluster would need
 * them in one slot.
 */
import { TERMINAL, type TaskPage, type TaskPatch, type TaskRecord, type TaskStore } from '../task-store.js'
import { NO_CALLER, type Refusal } from '../quota.js'
import type { RedisConnection } from './connection.js'

// [task key, owner key, caller's tasks, all tasks] [expireAt, createdAt, taskId, now, oldest kept,
// perCaller, total, caller, field, value, ...]; the counted sets are scored by when each record
// expires (TRANSITION scores a record again when its end moves): what is past it is gone
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[4])
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 'caller' end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. ARGV[4])
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[7]) then return 'total' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[1], ARGV[3] .. ' ' .. ARGV[8])
if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[1]) - tonumber(ARGV[4]) then redis.call('PEXPIREAT', KEYS[3], ARGV[1]) end
redis.call('HSET', KEYS[1], unpack(ARGV, 9))
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[5])
local keep = tonumber(ARGV[1]) - tonumber(ARGV[4])
if redis.call('PTTL', KEYS[2]) < keep then redis.call('PEXPIRE', KEYS[2], keep) end
return 1`

// [task key] [version, grace, key prefix, taskId, field, value, ...]; an empty value deletes the
// field. The record's end moves (finished: its ttl or keepUntil): so does its score in the counts
const TRANSITION = `
local version = redis.call('HGET', KEYS[1], 'version')
if not version or tonumber(version) ~= tonumber(ARGV[1]) then return 0 end
for i = 5, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('HSET', KEYS[1], 'version', tonumber(version) + 1)
local f = redis.call('HMGET', KEYS[1], 'status', 'createdAt', 'ttl', 'keepUntil', 'caller')
local ends = tonumber(f[2]) + tonumber(f[3])
if f[1] == '"completed"' or f[1] == '"failed"' or f[1] == '"cancelled"' then
  ends = tonumber(f[4] or '') or ends
else
  ends = ends + tonumber(ARGV[2])
end
redis.call('PEXPIREAT', KEYS[1], ends)
if f[5] then
  local caller = cjson.decode(f[5])
  redis.call('ZADD', ARGV[3] .. 'caller-tasks:' .. caller, 'XX', ends, ARGV[4])
  redis.call('ZADD', ARGV[3] .. 'tasks', 'XX', ends, ARGV[4] .. ' ' .. caller)
end
return 1`

// [task key, owner key, caller's tasks, all tasks] [taskId, caller]
const DELETE = `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1] .. ' ' .. ARGV[2])
return 1`

export interface RedisTaskStoreOptions {
  /** The longest ttl the lifecycle grants (`tasks.maxTtl`): bounds how long an owner's index keeps an id. */
  readonly maxTtl: number
  /** Most tasks across the fleet, running or kept (`tasks.maxTasks`). Default: no bound. */
  readonly maxTasks?: number
  /** Most tasks one caller holds across the fleet (`tasks.maxPerCaller`). Default: `maxTasks`. */
  readonly maxPerCaller?: number
  /** How long a live task outlives its ttl in Redis, for the lifecycle to fail it first. Default 5 minutes. */
  readonly grace?: number
  readonly now?: () => number
}

export class RedisTaskStore implements TaskStore {
  private readonly grace: number
  private readonly maxLife: number
  /** Every task, `<taskId> <caller>`, scored by when its record expires at the latest: the fleet's count. */
  private readonly all: string
  private readonly now: () => number
  private readonly maxTasks: number
  private readonly maxPerCaller: number

  constructor (private readonly redis: RedisConnection, options: RedisTaskStoreOptions) {
    this.grace = options.grace ?? 300_000
    this.maxLife = options.maxTtl + this.grace
    this.now = options.now ?? Date.now
    this.all = `${redis.prefix}tasks`
    this.maxTasks = options.maxTasks ?? Number.MAX_SAFE_INTEGER
    this.maxPerCaller = options.maxPerCaller ?? this.maxTasks
  }

  private callerKey (caller: string): string {
    return `${this.redis.prefix}caller-tasks:${caller}`
  }

  private key (taskId: string): string {
    return `${this.redis.prefix}task:${taskId}`
  }

  private ownerKey (owner: string): string {
    return `${this.redis.prefix}owner:${owner}`
  }

  /** A new record, counted for its caller, unless its caller or the fleet holds as many as the bounds allow. */
  async create (record: TaskRecord): Promise<boolean | Refusal> {
    const now = this.now()
    const caller = record.caller ?? NO_CALLER
    const created = await this.redis.script('task', CREATE, [this.key(record.taskId), this.ownerKey(record.owner), this.callerKey(caller), this.all], [
      record.createdAt + record.ttl + this.grace, record.createdAt, record.taskId, now, now - this.maxLife,
      this.maxPerCaller, this.maxTasks, caller, ...fields(record as unknown as Record<string, unknown>)
    ])
    return created === 1 || (typeof created === 'string' ? created as Refusal : false)
  }

  async get (taskId: string): Promise<TaskRecord | undefined> {
    const flat = await this.redis.command('task', 'HGETALL', this.key(taskId)) as string[]
    const record = decode(flat)
    if (record === undefined) return undefined
    // Redis expires the key; this covers the moments its clock and ours disagree
    if (TERMINAL.has(record.status) && this.now() >= (record.keepUntil ?? record.createdAt + record.ttl)) return undefined
    return record
  }

  async transition (taskId: string, version: number, patch: TaskPatch): Promise<boolean> {
    const changed = await this.redis.script('task', TRANSITION, [this.key(taskId)], [version, this.grace, this.redis.prefix, taskId, ...fields(patch as Record<string, unknown>, true)])
    return changed === 1
  }

  async list (owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined> {
    const key = this.ownerKey(owner)
    let start = 0
    if (cursor !== undefined) {
      const rank = await this.redis.command('task', 'ZRANK', key, cursor) as number | null
      if (rank === null) return undefined
      start = rank + 1
    }
    const ids = await this.redis.command('task', 'ZRANGE', key, start, start + limit) as string[]
    const page = ids.slice(0, limit)
    const records = await Promise.all(page.map(async (id) => await this.get(id)))
    // ids whose record expired are skipped; the index drops them once older than any record lives
    const tasks = records.filter((record): record is TaskRecord => record !== undefined)
    return ids.length > limit ? { tasks, nextCursor: page[page.length - 1] } : { tasks }
  }

  async delete (taskId: string): Promise<void> {
    const [owner, caller] = await this.redis.command('task', 'HMGET', this.key(taskId), 'owner', 'caller') as Array<string | null>
    if (owner === null) return
    const counted = caller === null ? NO_CALLER : JSON.parse(caller) as string
    await this.redis.script('task', DELETE, [this.key(taskId), this.ownerKey(JSON.parse(owner!) as string), this.callerKey(counted), this.all], [taskId, counted])
  }
}

/** A record (or a patch) as hash fields: each value its JSON; in a patch, an undefined field is '' (deleted). */
function fields (values: Readonly<Record<string, unknown>>, patch = false): string[] {
  const flat: string[] = []
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) {
      if (patch) flat.push(name, '')
      continue
    }
    flat.push(name, JSON.stringify(value))
  }
  return flat
}

/** HGETALL's answer (`call` gives Redis's flat array: name, value, ...) as a record; undefined for none. */
function decode (flat: string[]): TaskRecord | undefined {
  if (flat.length === 0) return undefined
  const record: Record<string, unknown> = {}
  for (let i = 0; i < flat.length; i += 2) record[flat[i]!] = JSON.parse(flat[i + 1]!)
  return record as unknown as TaskRecord
}
