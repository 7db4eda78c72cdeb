// Waiting in tests: until() for some state to appear (it fails naming what never came), sleep() for time that must pass. Loads nothing, so any test can use it.

/** Resolves after `ms` milliseconds of real time. */
export const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Waits for some state to appear, instead of sleeping and hoping it is there by then: polls
 * `condition` every `interval` ms (default 10) and resolves with its first truthy value; after
 * `timeout` ms (default 5000: generous, since it costs time only when the state never comes) it
 * rejects with an error naming `what` it waited for, so a test that fails says what never happened.
 */
export async function until<T> (condition: () => T | Promise<T>, options: { what: string, timeout?: number, interval?: number }): Promise<NonNullable<T>> {
  const { what, timeout = 5000, interval = 10 } = options
  const deadline = Date.now() + timeout
  for (;;) {
    const value = await condition()
    if (value) return value as NonNullable<T>
    if (Date.now() >= deadline) throw new Error(`until: gave up after ${timeout} ms waiting for ${what}`)
    await sleep(interval)
  }
}
