/**
 * The per-request access check: may this caller make this call? The answer is an outcome, an
 * `AccessRefusal` naming what is missing, never an HTTP challenge: where the metadata document
 * lives, and how a refusal is written on the wire, is the HTTP edge's business.
 */
import { AccessRefusal, ProtocolError } from '../errors.js'
import { INVALID_PARAMS } from '../spec/jsonrpc.js'
import { factsOf } from '../spec/methods.js'
import type { AuthInfo } from '../spec/types.js'
import { allows } from '../define/requirement.js'
import type { Registry } from '../define/registry.js'
import type { TaskRecord } from '../state/task-store.js'
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
 * Why `caller` may not read the task `record` (its status, questions, result) or act on it, or
 * undefined when it may: what the call of its tool asked of its caller (scopes, step-up), asked
 * again of every reader, since one subject's tokens are not all alike. Only for the task's owner
 * (another principal has been told the task is unknown already). A task whose tool this server
 * does not serve (removed since it was made, or made by another version of the server on a shared
 * store) cannot be checked, so it is refused, with a -32602 saying so.
 */
export function taskRefusalOf (registry: Registry, record: TaskRecord, caller: AuthInfo, skew: number): ProtocolError | undefined {
  const tool = record.tool === undefined ? undefined : registry.tools.get(record.tool)
  if (tool === undefined) {
    const made = record.tool === undefined ? 'does not record the tool that made it' : `was made by tool '${record.tool}', which this server does not serve`
    return new ProtocolError(INVALID_PARAMS,
      `Invalid params: task ${JSON.stringify(record.taskId)} ${made}: what that tool asks of a caller cannot be checked, so the task cannot be read here`)
  }
  return refusalOf(tool, caller, skew)
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
