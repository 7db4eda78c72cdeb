/**
 * Small helpers over plain values that every layer uses: what a value is (for error messages that
 * never echo it), and JSON copies detached from the caller's objects.
 */
import { Kind, type TSchema } from '@sinclair/typebox'

/** A JSON object: not null, not an array. */
export function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A promise or any thenable, as `await` would wait for: the hot path awaits only these, so a sync
 * value (a sync tool's, the in-memory store's) costs no turn of the microtask queue.
 */
export function isThenable<T> (value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function'
}

/** A short description of a JSON value's type for error messages: never echoes the value. */
export function describe (value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined' // a handler's return value, not parsed JSON
  if (Array.isArray(value)) return 'an array'
  const type = typeof value
  // parsed JSON leaves object, string, number and boolean
  return type === 'object' ? 'an object' : `a ${type}`
}

/** What arrived, in a few words (`typeof` says 'object' for arrays and null too): for definition errors. */
export function kind (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}

/**
 * A JSON copy, detached from the user's object, so a later change there cannot make what is
 * listed differ from what was checked; drops TypeBox's symbol keys and what JSON cannot carry.
 * `onError` gets the reason when the value cannot be serialised (a BigInt, a cycle).
 */
export function plain<T> (value: T, onError: (message: string) => never): T {
  try {
    return JSON.parse(JSON.stringify(value))
  } catch (err) {
    onError((err as Error).message)
  }
}

/** Freezes a JSON value all the way down: `app.mcp` hands out these objects. */
export function deepFreeze<T> (value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}

/** A schema made by TypeBox (it carries TypeBox's `Kind` symbol). */
export function isTypeBox (value: unknown): value is TSchema {
  return typeof value === 'object' && value !== null && Kind in value
}
