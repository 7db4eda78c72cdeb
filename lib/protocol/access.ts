/**
 * The per-request access check: may this caller make this call? The answer is an outcome, an
 * `AccessRefusal` naming what is missing, never an HTTP challenge: where the metadata document
 * lives, and how a refusal is written on the wire, is the HTTP edge's business.
 */
import { AccessRefusal } from '../errors.js'
import { factsOf } from '../spec/methods.js'
import type { AuthInfo } from '../spec/types.js'
import { allows } from '../define/access.js'
import type { Registry } from '../define/registry.js'
import { targetOf } from './inbound.js'
import { accessOf, describeTarget, type Target } from './target.js'

/**
 * Seconds a token's `auth_time` may be ahead of this server's clock (the authorization server's
 * clock may run a little ahead): `auth.clockTolerance` when set, else this.
 */
export const CLOCK_SKEW = 30

/**
 * Why the caller may not make a call to `target`, or undefined when it may. Scopes come first: a
 * client re-authorizing for them may well satisfy the step-up in the same sign-in. The refusal
 * names every scope the operation needs, held or not: the 2025-11-25 text asks for that, and the
 * 2026-07-28 text allows it. A `maxAge` needs an `auth_time` in the past: one later than now plus
 * `skew` seconds proves no recent sign-in (a clock gone wrong, a value in milliseconds, a forged
 * claim), so it gets the step-up refusal, as a missing one does.
 */
export function refusalOf (target: Target | undefined, caller: AuthInfo, skew = CLOCK_SKEW, now = Date.now() / 1000): AccessRefusal | undefined {
  const requirement = target === undefined ? undefined : accessOf(target)
  if (requirement === undefined) return undefined
  if (!allows(requirement, caller.scopes)) return AccessRefusal.scope(requirement.scopes, describeTarget(target!))
  const stepUp = requirement.stepUp
  if (stepUp === undefined) return undefined
  const acrOk = stepUp.acr === undefined || (caller.acr !== undefined && stepUp.acr.includes(caller.acr))
  const authTime = caller.authTime
  const ageOk = stepUp.maxAge === undefined || (authTime !== undefined && authTime <= now + skew && now - authTime <= stepUp.maxAge)
  return acrOk && ageOk ? undefined : AccessRefusal.stepUp(stepUp.acr, stepUp.maxAge, describeTarget(target!))
}

/**
 * The scopes the item named by `Mcp-Method` / `Mcp-Name` needs: a hint for the challenge of a
 * request that brought no token, never a decision (the body decides, once it is read).
 */
export function scopesNamed (registry: Registry, method: string, name: string): readonly string[] | undefined {
  const kind = factsOf(method)?.target
  const target = kind === undefined ? undefined : targetOf(registry, kind, { name, uri: name })
  return target === undefined ? undefined : accessOf(target)?.scopes
}
