/**
 * Registration-time checks shared by every option reader (the plugin's, `auth`'s, the
 * definitions'): messages that name the option, what it accepts and what it got.
 */
import { SakeOptionError } from './errors.js'

/** A value as an option error shows it: short JSON and its type. */
export function got (value: unknown): string {
  if (value === undefined) return 'nothing'
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'number') return `${String(value)} (number)` // JSON would show NaN as null
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value
  let json: string
  try {
    json = String(JSON.stringify(value))
  } catch {
    return type // a BigInt or a circular object: the type is all we can show
  }
  // a whole object passed by mistake would flood the message
  return `${json.length > 60 ? json.slice(0, 57) + '...' : json} (${type})`
}

/** Throws the `SakeOptionError` of an option that is not what it must be. */
export function fail (option: string, accepts: string, value: unknown): never {
  throw new SakeOptionError(`fastify-sake: option '${option}' must be ${accepts}, got ${got(value)}`)
}

/** Edit distance counting a swap of neighbours as one edit, to suggest what a typo meant. */
function distance (a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i])
  for (let j = 1; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
    }
  }
  return d[a.length][b.length]
}

/** The known option a typo most likely meant: one edit away for short names, two for longer. */
export function nearest (key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase()
  return known.find((k) => distance(lower, k.toLowerCase()) <= (k.length > 5 ? 2 : 1))
}

const OPTION_WORDS = { noun: 'option', known: 'known options are' }

/**
 * The first key that is not a known option, as a message naming it, the option a typo meant and the
 * known ones; undefined when every key is known. For readers that throw their own error class.
 */
export function unknownKeyProblem (options: Record<string, unknown>, known: readonly string[], prefix = '', words: { readonly noun: string, readonly known: string } = OPTION_WORDS): string | undefined {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      const near = nearest(key, known)
      const hint = near === undefined ? '' : ` (did you mean '${prefix}${near}'?)`
      return `unknown ${words.noun} '${prefix}${key}'${hint}; ${words.known} ${known.map((k) => prefix + k).join(', ')}`
    }
  }
  return undefined
}

/** Throws on the first key that is not a known option, suggesting the one a typo meant. */
export function unknownKeys (options: Record<string, unknown>, known: readonly string[], prefix: string): void {
  const problem = unknownKeyProblem(options, known, prefix)
  if (problem !== undefined) throw new SakeOptionError(`fastify-sake: ${problem}`)
}

/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/

/** A scope (or `acr` value) that fits into a `WWW-Authenticate` challenge. */
export function isScopeToken (value: unknown): value is string {
  return typeof value === 'string' && SCOPE_TOKEN.test(value)
}
