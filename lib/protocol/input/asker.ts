/**
 * What carries a question to the client (an `Asker`: `RoundTrip` in 2026-07-28, `StreamAsker` in
 * 2025 sessions), the shapes questions travel in, and the promise plumbing that keeps a question
 * nobody awaited from ever crashing the process.
 */
import type { RequestStateSealer } from '../../state/request-state.js'
import type { FormValidators } from './form-validators.js'

export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list'

/** A question as it travels (an entry of `inputRequests`, or a 2025 request). */
export interface InputRequest {
  readonly method: InputMethod
  readonly params: Record<string, unknown>
}

/** The plugin's settings for questions, shared by every call of one server. */
export interface InputSettings {
  readonly sealer: RequestStateSealer
  /** Milliseconds a 2025 question waits for its answer. */
  readonly timeout: number
  /** The compiled schemas of form elicitations (`ctx.elicit.form`), this server's own. */
  readonly validators: FormValidators
}

/** Carries a question to the client; resolves to its raw answer, or undefined when it cannot be asked. */
export interface Asker {
  ask (key: string, request: InputRequest): Promise<unknown>
  /** The answer to `key` is not what `method` returns: throws the era's error. */
  invalid (key: string, method: InputMethod, problem: string): never
}

/**
 * A 2025 question, asked once per key: the first `ask` sends it, a later one with the same key
 * (a handler asking again) gets the same answer. Both 2025 askers keep `asked` per call.
 */
export function askOnce (asked: Map<string, Promise<unknown>>, key: string, send: () => Promise<unknown>): Promise<unknown> {
  let answer = asked.get(key)
  if (answer === undefined) {
    answer = send()
    asked.set(key, answer)
  }
  return answer
}

/** Thrown through the handler when a 2026-07-28 question is unanswered; never an Error, never logged. */
export class InputRequiredSignal {
  readonly key: string
  constructor (key: string) { this.key = key }
}

/**
 * Marks a question's promise as handled, and returns it. A handler that starts two questions and
 * awaits one at a time leaves the second one's rejection (the round's end, in 2026-07-28; a
 * timeout, in a 2025 session) unobserved, and Node ends the process on an unhandled rejection:
 * a server must not crash for that. Whoever awaits the promise still gets the rejection.
 */
export function handled<T> (promise: Promise<T>): Promise<T> {
  promise.catch(noop)
  return promise
}

function noop (): void {}

/**
 * A 2026-07-28 question not answered yet: a thenable that never settles on its own. Awaiting it
 * (or `Promise.all`/`race` over it) rejects the awaiting code with the round's signal; `.then(f)`
 * without a rejection handler gives back the same thenable. So no promise of ours ever rejects
 * unobserved: here the rejection is the plugin's control flow, and a handler that chained a
 * question and never awaited it must not crash the process (Node ends it on an unhandled one).
 */
export class Unanswered implements PromiseLike<never> {
  readonly [Symbol.toStringTag] = 'Promise'
  constructor (private readonly signal: InputRequiredSignal) {}

  then<A = never, B = never> (_onFulfilled?: unknown, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    if (typeof onRejected !== 'function') return this as unknown as Promise<A | B>
    return handled(Promise.resolve(this.signal).then(onRejected))
  }

  catch<B = never> (onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<B> {
    return this.then(undefined, onRejected)
  }

  finally (onFinally?: (() => void) | null): Promise<never> {
    return this.then(undefined, (reason) => {
      onFinally?.()
      throw reason
    })
  }
}
