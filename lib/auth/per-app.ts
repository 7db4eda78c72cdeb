/**
 * State that every Fastify context of one app shares, whichever context a server is registered in:
 * the scope catalogue and the root metadata route. A decorator made by a plugin in a child context
 * never reaches its parent (encapsulation), and Fastify has no public handle on the root instance;
 * `initialConfig` is the one public object that Fastify makes once per app and every context
 * inherits unchanged, so it keys the state (weakly: a closed app's state goes with it).
 */
import type { FastifyInstance } from 'fastify'

/** A getter of the app's own `T`, made on first use. */
export function perApp<T> (make: () => T): (app: FastifyInstance) => T {
  const states = new WeakMap<object, T>()
  return (app) => {
    const key = app.initialConfig
    let state = states.get(key)
    if (state === undefined) {
      state = make()
      states.set(key, state)
    }
    return state
  }
}
