/**
 * Instance liveness in Redis (issue 29). `<prefix>instances` is a sorted set of instance ids, each
 * scored with its last heartbeat (Redis's own clock, so that the instances' clocks never matter);
 * `<prefix>owns:<instance>` is the set of what that instance's running calls own. A survivor's
 * `takeOver` moves, in one script, every instance whose heartbeat is older than `deadAfter` to
 * `<prefix>claiming` (scored with when), and reads what each still owns: of two survivors asking at
 * once, the one whose script moved an instance gets it. The survivor forgets each thing as it ends
 * it, then the claim (`takenOver`); a claim older than `deadAfter` (its survivor died midway) is
 * handed out again with what is left. A dead instance leaves a tombstone, `<prefix>dead:<instance>`,
 * for an hour: what it asked a client then gets a clear error.
 *
 * The heartbeat runs on a worker thread with a Redis connection of its own: a busy instance (a tool
 * that holds the event loop for a minute) still beats, and is never taken for dead.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { Liveness, Owned, TakenOver } from '../liveness.js'
import type { RedisClient, RedisConnection } from './connection.js'

export interface HeartbeatSettings {
  /** Milliseconds between two heartbeats. */
  readonly interval: number
  /** Milliseconds without a heartbeat after which an instance is taken for dead. */
  readonly deadAfter: number
}

// [instances] [instance]: its heartbeat now, and the owned set kept as long as it beats
const NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)"

const BEAT = `${NOW}
redis.call('ZADD', KEYS[1], now, ARGV[1])
return 1`

// [instances] [instance]: left (closed); a score of 0 is older than any deadline
const LEAVE = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then redis.call('ZADD', KEYS[1], 0, ARGV[1]) end
return 1`

// [instances, claiming] [deadAfter, asker]: the instances past their deadline (deadAfter -1: only
// those that left, scored 0), the asker never among them, moved to the claims (whoever moves one
// takes it over); and the claims older than deadAfter, whose survivor stopped before it was done
const DEAD = `${NOW}
local cutoff = now - tonumber(ARGV[1])
if tonumber(ARGV[1]) < 0 then cutoff = 1 end
local dead = {}
for _, instance in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. cutoff)) do
  if instance ~= ARGV[2] then
    redis.call('ZREM', KEYS[1], instance)
    redis.call('ZADD', KEYS[2], now, instance)
    dead[#dead + 1] = instance
  end
end
if tonumber(ARGV[1]) >= 0 then
  for _, instance in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. (now - tonumber(ARGV[1])))) do
    redis.call('ZADD', KEYS[2], now, instance)
    dead[#dead + 1] = instance
  end
end
return dead`

// [owns, tombstone] [tombstone ms]: what a dead instance still owns; its tombstone set
const CLAIM = `
redis.call('SET', KEYS[2], 1, 'PX', ARGV[1])
return redis.call('SMEMBERS', KEYS[1])`

// [claiming, owns] [instance]: a takeover done
const DONE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1`

// [instances, tombstone] [instance, deadAfter]: 0 when known dead, else 1
const ALIVE = `${NOW}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local beat = redis.call('ZSCORE', KEYS[1], ARGV[1])
if beat and now - tonumber(beat) > tonumber(ARGV[2]) then return 0 end
return 1`

/** How long a dead instance's tombstone is kept, in ms: longer than any question waits for its answer. */
const TOMBSTONE = 3_600_000

/** What one owned thing is in the set: the same text for `own` and `release`. */
function member (owned: Owned): string {
  return JSON.stringify(owned.kind === 'task' ? ['task', owned.taskId] : ['stream', owned.streamId, owned.requestId])
}

function parse (text: string): Owned {
  const value = JSON.parse(text) as unknown[]
  return value[0] === 'task' ? { kind: 'task', taskId: value[1] as string } : { kind: 'stream', streamId: value[1] as string, requestId: value[2] as string | number }
}

export class RedisLiveness implements Liveness {
  private readonly instances: string
  /** Dead instances being taken over, scored with when: a claim that grows old was left unfinished. */
  private readonly claiming: string
  private readonly owns: string
  private readonly dead: string
  private readonly heartbeat: Worker
  /** Settles when the heartbeat's thread has ended (after `close`, or if it ever crashed). */
  private readonly stopped: Promise<void>
  /**
   * Since when this instance's connection has been up (undefined: it is down). After an outage
   * every heartbeat in Redis is stale, live instances' too: nobody but an instance that left is
   * taken over until they all had `deadAfter` to beat again.
   */
  private upSince: number | undefined

  constructor (private readonly redis: RedisConnection, readonly instance: string, private readonly settings: HeartbeatSettings, connection: WorkerConnection) {
    this.instances = `${redis.prefix}instances`
    this.claiming = `${redis.prefix}claiming`
    this.owns = `${redis.prefix}owns:`
    this.dead = `${redis.prefix}dead:`
    this.heartbeat = new Worker(HEARTBEAT, {
      eval: true,
      workerData: { ...connection, beat: BEAT, leave: LEAVE, keys: [this.instances], instance, interval: settings.interval }
    })
    // the worker's timer keeps beating; the process may still exit without waiting for it
    this.heartbeat.unref()
    this.stopped = new Promise((resolve) => { this.heartbeat.once('exit', () => resolve()) })
    // connect() waited for the connection: it is up now, or Redis was away at the start
    this.upSince = Date.now()
    redis.client.on('close', () => { this.upSince = undefined })
    redis.client.on('ready', () => { this.upSince = Date.now() })
  }

  async alive (instance: string): Promise<boolean> {
    if (instance === this.instance) return true
    try {
      return await this.redis.script('liveness', ALIVE, [this.instances, this.dead + instance], [instance, this.settings.deadAfter]) === 1
    } catch {
      // Redis away: nobody is taken for dead on a guess
      return true
    }
  }

  async own (owned: Owned): Promise<void> {
    await this.redis.command('liveness', 'SADD', this.owns + this.instance, member(owned))
  }

  async release (owned: Owned, instance = this.instance): Promise<void> {
    await this.redis.command('liveness', 'SREM', this.owns + instance, member(owned))
  }

  async takenOver (instance: string): Promise<void> {
    await this.redis.script('liveness', DONE, [this.claiming, this.owns + instance], [instance])
  }

  async takeOver (): Promise<readonly TakenOver[]> {
    // just (re)connected: only instances that said they left, until the live ones had time to beat
    const settled = this.upSince !== undefined && Date.now() - this.upSince >= this.settings.deadAfter
    // every key named in KEYS (never built inside a script), so that a client's keyPrefix applies to all
    const dead = await this.redis.script('liveness', DEAD, [this.instances, this.claiming], [settled ? this.settings.deadAfter : -1, this.instance]) as string[]
    const taken: TakenOver[] = []
    for (const instance of dead) {
      const owned = await this.redis.script('liveness', CLAIM, [this.owns + instance, this.dead + instance], [TOMBSTONE]) as string[]
      taken.push({ instance, owned: owned.map(parse) })
    }
    return taken
  }

  /** Stops the heartbeat, after saying this instance left (so that a survivor takes over what is left at once). */
  async close (): Promise<void> {
    // a message to a thread that already ended goes nowhere; its exit has settled `stopped`
    this.heartbeat.postMessage('leave')
    await this.stopped
  }
}

/** How the heartbeat's worker connects: the URL, or a client's options (what of them a thread can receive). */
export interface WorkerConnection {
  readonly ioredis: string
  readonly url?: string | undefined
  readonly options?: Record<string, unknown> | undefined
}

/**
 * The worker's connection, from the server's: the same URL, or the options of the user's client
 * (host, port, password, db, tls…; functions such as a retry strategy cannot cross to a thread).
 */
export function workerConnection (url: string | undefined, client: RedisClient): WorkerConnection {
  const ioredis = createRequire(import.meta.url).resolve('ioredis')
  if (url !== undefined) return { ioredis, url }
  const options: Record<string, unknown> = {}
  for (const [key, value] of Object.entries((client as unknown as { options?: Record<string, unknown> }).options ?? {})) {
    try {
      options[key] = structuredClone(value)
    } catch {
      // a function (a retry strategy, say): the worker's client uses ioredis's default
    }
  }
  return { ioredis, options }
}

/**
 * The heartbeat thread (CommonJS, run from this text: nothing to resolve on disk, whatever loads
 * the package): a heartbeat now and every `interval` ms, failures ignored (Redis away: the next one
 * tries again; the server's own connection reports the outage), and one at every reconnection,
 * tried at least every `interval`; on 'leave', a last word and exit.
 */
const HEARTBEAT = `
const { workerData, parentPort } = require('node:worker_threads')
const { Redis } = require(workerData.ioredis)
// reconnects within one interval of Redis coming back (ioredis's default waits up to 2 s): the
// others' pause after an outage (deadAfter, at least two intervals) must cover this beat
const own = { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (times) => Math.min(times * 50, workerData.interval) }
const client = workerData.url !== undefined
  ? new Redis(workerData.url, own)
  : new Redis({ ...workerData.options, ...own, lazyConnect: false })
client.on('error', () => {})
const beat = () => client.eval(workerData.beat, 1, ...workerData.keys, workerData.instance).catch(() => {})
// at every (re)connection: after an outage, the stale score is renewed at once
client.on('ready', beat)
const timer = setInterval(beat, workerData.interval)
parentPort.on('message', async () => {
  clearInterval(timer)
  try { await client.eval(workerData.leave, 1, ...workerData.keys, workerData.instance) } catch {}
  client.disconnect()
  process.exit(0)
})
`
