/** Naming a JSON value's type in error messages, without ever echoing the value. */

/** A short description of a JSON value's type for error messages: never echoes the value. */
export function describe (value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined' // a handler's return value, not parsed JSON
  if (Array.isArray(value)) return 'an array'
  const type = typeof value
  // parsed JSON leaves object, string, number and boolean
  return type === 'object' ? 'an object' : `a ${type}`
}
