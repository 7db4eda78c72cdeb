/**
 * Which instances of a fleet are alive (issue 29). On a shared store each instance announces itself
 * with a heartbeat, and records what its running calls own there (a task, a 2025-11-25 call's
 * resumable stream): when an instance stops beating, one survivor takes over what it owned, once,
 * and ends it with a clear outcome (`protocol/fleet.ts`). In memory there is one instance, which is
 * always alive and never taken over: nothing changes there.
 */

/** What a running call owns in the shared state, which a survivor ends if its instance dies. */
export type Owned =
  /** A task running on the instance (`protocol/tasks/lifecycle.ts`). */
  | { readonly kind: 'task', readonly taskId: string }
  /** A 2025-11-25 call's resumable stream, and the id of the request it answers. */
  | { readonly kind: 'stream', readonly streamId: string, readonly requestId: string | number }

/** A dead instance a survivor took over, with everything it still owned. */
export interface TakenOver {
  readonly instance: string
  readonly owned: readonly Owned[]
}

/**
 * - `instance`: this instance's id, unique across the fleet;
 * - `alive` says whether an instance is alive: false only for one known dead (taken over, or past
 *   its deadline); an instance the store does not know is taken as alive, never dead on a guess;
 * - `own` and `release` record and forget what a running call owns, under this instance (or,
 *   for `release`, under a dead instance being taken over: each thing once it was ended);
 * - `takeOver` returns the instances that stopped beating, each with what it still owned: of two
 *   survivors asking at once, only one gets each dead instance; one not declared `takenOver` within
 *   the dead interval (its survivor stopped midway) is handed out again, with what is left of it;
 * - `takenOver` says a takeover is done: the dead instance is forgotten;
 * - `close` stops this instance's heartbeat and says it left, so that a survivor takes over what
 *   it still owns without waiting for the heartbeat to expire.
 *
 * Every method but `instance` may return a value or a promise of one.
 */
export interface Liveness {
  readonly instance: string
  alive (instance: string): boolean | Promise<boolean>
  own (owned: Owned): void | Promise<void>
  release (owned: Owned, instance?: string): void | Promise<void>
  takeOver (): readonly TakenOver[] | Promise<readonly TakenOver[]>
  takenOver (instance: string): void | Promise<void>
  close? (): void | Promise<void>
}

/** One instance alone: nobody could take over what it owns, so it records nothing. */
export class MemoryLiveness implements Liveness {
  readonly instance: string

  constructor (instance: string) {
    this.instance = instance
  }

  alive (): boolean {
    return true
  }

  own (): void {}
  release (): void {}
  takenOver (): void {}

  takeOver (): readonly TakenOver[] {
    return []
  }
}
