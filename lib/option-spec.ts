/**
 * Options as data (issue 42): each option is declared once, with what it accepts, its default and
 * how a given value is read; the resolvers, the defaults, the option errors, the public types and
 * the check of docs/options.md all come from those declarations. The server's options
 * (lib/options/) and the client's (lib/client/options.ts) are declared with it.
 */
import { SakeOptionError } from './errors.js'
import { got, unknownKeyProblem } from './checks.js'
import { isObject } from './values.js'

/** How a reader's errors speak: the server's (`SakeOptionError`, 'fastify-sake: ...') or the client's. */
export interface Voice {
  /** Throws this reader's error with `message` after its prefix. */
  refuse (message: string): never
  /** How an unknown key is called in its message: 'option', 'call option'. */
  readonly noun: string
  /** How the known keys are introduced: 'known options are', 'known ones are'. */
  readonly known: string
}

/** The plugin's: `SakeOptionError`, 'fastify-sake: option ...'. */
export const SERVER_VOICE: Voice = {
  refuse (message) { throw new SakeOptionError(`fastify-sake: ${message}`) },
  noun: 'option',
  known: 'known options are'
}

/** Throws the error of an option that is not what it must be. */
export function refused (voice: Voice, option: string, accepts: string, value: unknown): never {
  return voice.refuse(`option '${option}' must be ${accepts}, got ${got(value)}`)
}

/** What a declaration's `read` sees besides the value: the group read so far, and the root's. */
export interface Reading {
  /** The option's full name, as errors show it (`sessions.maxPerCaller`). */
  readonly name: string
  /** Whose errors to throw. */
  readonly voice: Voice
  /** The values of the group's options declared before this one, already read. */
  readonly group: Readonly<Record<string, unknown>>
  /** The group's input as given (for an option that reads a neighbour as given, e.g. Fastify's register options). */
  readonly given: Readonly<Record<string, unknown>>
  /** The root's values read so far (a group's option may depend on another group's). */
  readonly root: Readonly<Record<string, unknown>>
}

/**
 * One option. `In` is what a user may give, `Out` what the server uses once it is read.
 * `shown` is its default as docs/options.md writes it (a test holds the page to it): `1800000`,
 * `'/mcp'`, or words such as `in memory`; undefined for an option with no default to document.
 */
export interface Option<In, Out> {
  readonly shown: string | undefined
  /** Reads the given value (undefined when absent) into what the server uses, or throws the option's error. */
  readonly read: (value: unknown, reading: Reading) => Out
  /** A group's own declarations, for the documentation check. */
  readonly members?: Declarations
  /** Type-only: what a user may give. */
  readonly input?: In
}

/** A group of options, by key, in the order they are read. */
export type Declarations = Readonly<Record<string, Option<any, any>>>

/** What a user may give for a group: each key optional, with the JSDoc of its declaration. */
export type InputOf<D extends Declarations> = { [K in keyof D]?: D[K] extends Option<infer In, any> ? In : never }

/** A group once read: each key as the server uses it. */
export type ResolvedOf<D extends Declarations> = { readonly [K in keyof D]: D[K] extends Option<any, infer Out> ? Out : never }

/** The longest delay a Node timer takes; beyond it, `setTimeout` fires after 1 ms instead. */
export const MAX_TIMER = 2_147_483_647

interface IntegerSpec {
  readonly default: number
  /** The least value taken. */
  readonly min: number
  /** The greatest (MAX_TIMER for a delay); none when absent. */
  readonly max?: number
  /** What it counts, for the message: 'milliseconds', 'bytes'. */
  readonly unit: string
}

/** The error's words for an integer option. */
function integerAccepts (spec: Omit<IntegerSpec, 'default'>): string {
  if (spec.max === undefined) return `an integer >= ${spec.min} (${spec.unit})`
  // the bound of a delay is Node's, not ours: say so, or the user looks for a reason in the option
  return `an integer from ${spec.min} to ${spec.max} (${spec.unit}${spec.max === MAX_TIMER ? '; a Node timer goes no further' : ''})`
}

/** Reads an integer within bounds; `fallback` when absent. */
export function readInteger (value: unknown, name: string, spec: Omit<IntegerSpec, 'default'>, fallback: number, voice: Voice = SERVER_VOICE): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < spec.min || value > (spec.max ?? Number.MAX_SAFE_INTEGER)) {
    refused(voice, name, integerAccepts(spec), value)
  }
  return value
}

/** An integer option: a count, bytes, milliseconds. */
export function integer (spec: IntegerSpec): Option<number, number> {
  return { shown: `\`${spec.default}\``, read: (value, { name, voice }) => readInteger(value, name, spec, spec.default, voice) }
}

/**
 * A per-caller bound under its group's total (`<group>.<total>`): by default the smaller of
 * `fallback` and the total; given above the total, refused (it could never be reached).
 */
export function perCaller (total: string, spec: { readonly default: number, readonly unit: string }): Option<number, number> {
  return {
    shown: `\`${spec.default}\``,
    read (value, { name, group, voice }) {
      const limit = group[total] as number
      const bound = readInteger(value, name, { min: 1, unit: spec.unit }, Math.min(spec.default, limit), voice)
      const groupName = name.slice(0, name.lastIndexOf('.'))
      if (bound > limit) refused(voice, name, `at most ${groupName}.${total} (${limit}): one caller cannot hold more than the server holds in all`, bound)
      return bound
    }
  }
}

/** A string option: non-empty; `required` ones have no default. */
export function text (required: boolean): Option<string, string | undefined> {
  return {
    shown: required ? 'required' : undefined,
    read (value, { name, voice }) {
      if (value === undefined && !required) return undefined
      if (typeof value !== 'string' || value.length === 0) refused(voice, name, 'a non-empty string', value)
      return value
    }
  }
}

/** A boolean option. `accepts`: the error's words for it. */
export function flag (fallback: boolean, accepts = 'true or false'): Option<boolean, boolean> {
  return {
    shown: `\`${fallback}\``,
    read (value, { name, voice }) {
      const given = value === undefined ? fallback : value
      if (typeof given !== 'boolean') refused(voice, name, accepts, given)
      return given
    }
  }
}

/** An option read by its own function, whose documented default is `shown`. */
export function custom<In, Out> (shown: string | undefined, read: (value: unknown, reading: Reading) => Out): Option<In, Out> {
  return { shown, read }
}

/**
 * A group of options (`sessions: { ... }`): absent is `{}`, anything but an object is refused with
 * `accepts`, an unknown key is refused naming the one a typo meant, then each declared option is
 * read in order. The result is frozen.
 */
export function group<D extends Declarations, In = InputOf<D>> (members: D, accepts: string): Option<In, ResolvedOf<D>> {
  return {
    shown: undefined,
    members,
    read: (value, { name, root, voice }) => readGroup(members, value, name, accepts, root, voice)
  }
}

/**
 * Reads a group's (or the root's) options. `name`: the group's, '' for the root. `root`: the
 * root's values read so far ('' reads the root, whose values are its own).
 */
export function readGroup<D extends Declarations> (members: D, value: unknown, name: string, accepts: string, root?: Readonly<Record<string, unknown>>, voice: Voice = SERVER_VOICE): ResolvedOf<D> {
  const given = value === undefined ? {} : value
  if (!isObject(given)) refused(voice, name, accepts, value)
  const prefix = name === '' ? '' : `${name}.`
  const known = Object.keys(members)
  const unknown = unknownKeyProblem(given, known, prefix, voice)
  if (unknown !== undefined) voice.refuse(unknown)
  const out: Record<string, unknown> = {}
  for (const key of known) {
    out[key] = members[key]!.read(given[key], { name: prefix + key, voice, group: out, given, root: root ?? out })
  }
  return Object.freeze(out) as ResolvedOf<D>
}

/** Every option a declaration holds, by full name (`sessions.maxPerCaller`), groups included: for the documentation check. */
export function documented (members: Declarations, prefix = ''): Array<{ readonly name: string, readonly shown: string | undefined, readonly group: boolean }> {
  const out: Array<{ name: string, shown: string | undefined, group: boolean }> = []
  for (const [key, option] of Object.entries(members)) {
    out.push({ name: prefix + key, shown: option.shown, group: option.members !== undefined })
    if (option.members !== undefined) out.push(...documented(option.members, `${prefix}${key}.`))
  }
  return out
}

/** Two or more names as a sentence lists them: `a and b`, `a, b and c` (every contract has two methods or more). */
function listed (names: readonly string[]): string {
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`
}

/**
 * A store or bus the user passes in (sessions, events, tasks, bus), checked now: a missing method
 * would otherwise fail on first use (a session store's, on the first 2025 client). Absent: the
 * server's own, in memory.
 */
export function implementation<T> (contract: string, methods: readonly string[], optional: readonly string[] = ['close']): Option<T, T | undefined> {
  return {
    shown: 'in memory',
    read (value, { name, voice }) {
      if (value === undefined) return undefined
      if (typeof value === 'function') refused(voice, name, `a ${contract} instance (new MyStore()), not a class or a function`, value)
      if (!isObject(value)) refused(voice, name, `a ${contract} object with ${listed(methods)} methods`, value)
      for (const method of [...methods, ...optional]) {
        const member = value[method]
        if (typeof member === 'function' || (member === undefined && optional.includes(method))) continue
        const problem = member === undefined ? 'is missing' : `is not a function (got ${got(member)})`
        voice.refuse(`option '${name}' must implement ${contract} (${methods.join(', ')} and optionally ${optional.join(', ')}): its '${method}' method ${problem}`)
      }
      return value as T
    }
  }
}
