// A store's interval timer, captured: the test fires the sweep itself and sees whether it was unref'd and cleared.
import type { Test } from 'tap'

export interface CapturedTimer { fn: () => void, ms: number, unref: boolean }

/** Replaces setInterval and clearInterval for the test `t`: `timers` gathers every interval set, `cleared` every clearInterval call. */
export function captureIntervals (t: Test) {
  const timers: CapturedTimer[] = []
  t.capture(globalThis, 'setInterval', ((fn: () => void, ms: number) => {
    const timer = { fn, ms, unref: false }
    timers.push(timer)
    return { unref () { timer.unref = true; return this } }
  }) as any)
  const cleared = t.capture(globalThis, 'clearInterval', () => {})
  return { timers, cleared }
}
