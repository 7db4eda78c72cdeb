/**
 * What callers hold, counted in this process against two bounds (issue 40): per caller and in all.
 * At a bound the new thing is refused; nothing held is ever taken away to make room, so one caller
 * cannot push another's sessions, streams, tasks or questions out. A caller is a string the
 * transport names it by (`sub:<subject>` with a verified token, `ip:<address>` without one).
 *
 * The in-memory stores count with it, and so do the things only a process holds (open streams,
 * questions waiting for answers); Redis counts shared state in Redis itself (`redis/`).
 */
import { QuotaExceededError, type QuotaLimit } from '../errors.js'
import type { Logger } from '../spec/types.js'

/** What a session or task stored without a caller (before quotas existed) counts as. */
export const NO_CALLER = ''

/** Which bound refused something new: the caller's own, or the whole store's. */
export type Refusal = 'caller' | 'total'

export interface QuotaBounds {
  /** Most one caller holds. */
  readonly perCaller: number
  /** Most held in all. */
  readonly total: number
}

export class Quota {
  private readonly held = new Map<string, number>()
  private count = 0

  constructor (readonly limit: QuotaLimit, readonly bounds: QuotaBounds) {}

  /** How many `caller` holds. */
  of (caller: string): number {
    return this.held.get(caller) ?? 0
  }

  /** Which bound a new one for `caller` would break, if any (the caller's own first: its flood is its fault, 429). */
  check (caller: string): Refusal | undefined {
    if (this.of(caller) >= this.bounds.perCaller) return 'caller'
    if (this.count >= this.bounds.total) return 'total'
    return undefined
  }

  /** Counts one more for `caller`, whatever the bounds (a store taking back what it held before). */
  add (caller: string): void {
    this.held.set(caller, this.of(caller) + 1)
    this.count++
  }

  /** Counts one more for `caller` unless a bound refuses it: then nothing is counted, and the refusal is returned. */
  take (caller: string): Refusal | undefined {
    const refusal = this.check(caller)
    if (refusal === undefined) this.add(caller)
    return refusal
  }

  /** One fewer for `caller` (what it held ended). */
  give (caller: string): void {
    const mine = this.held.get(caller)
    if (mine === undefined) return
    if (mine <= 1) this.held.delete(caller)
    else this.held.set(caller, mine - 1)
    this.count--
  }

  /** The error a refusal answers with, logged once at `warn` with the caller and the bound. */
  refused (refusal: Refusal, caller: string, log: Logger): QuotaExceededError {
    return quotaRefusal(this.limit, refusal, refusal === 'caller' ? this.bounds.perCaller : this.bounds.total, caller, log)
  }

  clear (): void {
    this.held.clear()
    this.count = 0
  }
}

/** The error a quota's refusal answers with (in-process or in a store), logged once at `warn` with the caller and the bound. */
export function quotaRefusal (limit: QuotaLimit, refusal: Refusal, max: number, caller: string, log: Logger): QuotaExceededError {
  const error = new QuotaExceededError(limit, refusal, max)
  log.warn({ caller, limit, bound: refusal, max, option: error.option }, `fastify-sake: refused: ${error.message}`)
  return error
}
