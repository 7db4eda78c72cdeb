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
 * Frozen as it is made (what `deepFreeze` would do after, without walking it again; `deepFreeze`
 * then skips it).
 * `onError` gets the reason when the value cannot be serialised (a BigInt, a cycle).
 *
 * What `JSON.parse(JSON.stringify(value))` gives, made in one walk: the copy shares the user's
 * strings instead of parsing new ones, which halved the time and the strings of registering
 * 10,000 tools (issue 41). The rules are JSON.stringify's: `toJSON` first, boxed primitives
 * unboxed, a non-finite number as null, a function, symbol or undefined left out of an object
 * (null in an array), a BigInt or a cycle refused.
 */
export function plain<T> (value: T, onError: (message: string) => never): Readonly<T> {
  try {
    const copy = jsonCopy(value, '', [])
    if (copy === undefined) throw new TypeError(`${typeof value} is not JSON`)
    return copy as T
  } catch (err) {
    onError((err as Error).message)
  }
}

/** One value of `plain`'s copy; undefined where JSON.stringify would leave the value out. `open`: the objects being copied, for cycles. */
function jsonCopy (given: unknown, key: string, open: object[]): unknown {
  let value = given
  if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
    const toJSON = (value as { toJSON?: unknown }).toJSON
    if (typeof toJSON === 'function') value = toJSON.call(value, key)
  }
  switch (typeof value) {
    case 'string': case 'boolean': return value
    case 'number': return Number.isFinite(value) ? value + 0 : null // -0 is written 0
    case 'bigint': throw new TypeError('Do not know how to serialize a BigInt')
    case 'object': break
    default: return undefined // undefined, a function, a symbol
  }
  if (value === null) return null
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return jsonCopy(value.valueOf(), key, open)
  if (open.includes(value)) throw new TypeError('Converting circular structure to JSON')
  open.push(value)
  let out: unknown
  if (Array.isArray(value)) {
    const array = new Array<unknown>(value.length)
    for (let i = 0; i < value.length; i++) array[i] = jsonCopy(value[i], String(i), open) ?? null
    out = Object.freeze(array)
  } else {
    const object: Record<string, unknown> = {}
    for (const name of Object.keys(value)) {
      const child = jsonCopy((value as Record<string, unknown>)[name], name, open)
      if (child === undefined) continue
      // JSON.parse makes '__proto__' an own property; assigning it would set the prototype
      if (name === '__proto__') Object.defineProperty(object, name, { value: child, enumerable: true, writable: true, configurable: true })
      else object[name] = child
    }
    out = Object.freeze(object)
  }
  open.pop()
  return out
}

/**
 * Freezes a JSON value all the way down: `app.mcp` hands out these objects. A frozen object met on
 * the way was frozen here (every caller passes its own copies), its children first: it is skipped.
 */
export function deepFreeze<T> (value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  for (const key in value) {
    const child = value[key]
    if (typeof child === 'object' && child !== null) deepFreeze(child)
  }
  return Object.freeze(value)
}

/** A schema made by TypeBox (it carries TypeBox's `Kind` symbol). */
export function isTypeBox (value: unknown): value is TSchema {
  return typeof value === 'object' && value !== null && Kind in value
}
