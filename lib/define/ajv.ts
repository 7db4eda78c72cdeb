/**
 * The ajv instances tool schemas compile with, one per JSON Schema dialect: 2020-12 (the wire
 * default when `$schema` is absent), 2019-09, and draft-07 (which also takes draft-06). Each is
 * created on first use and shared by the process; each schema compiles once, at registration.
 */
import { createRequire } from 'node:module'
import type { Ajv2020 } from 'ajv/dist/2020.js'
import type { Ajv2019 } from 'ajv/dist/2019.js'
import type { Ajv, ValidateFunction, Options } from 'ajv'
import type addFormats from 'ajv-formats'
import { isObject } from '../values.js'
import { SCHEMA_MAPS, SCHEMA_VALUES } from './header-params.js'

// ajv and its formats (CommonJS) are required with the first schema compiled, each dialect's class
// with the first schema of its dialect (compiling is synchronous): importing the package loads none of them
const load = createRequire(import.meta.url)

/* c8 ignore next */ // ajv logs only for $comment (off) and for generated code that fails, whose error it throws itself
const quiet = (): void => {}

const options: Options = {
  allErrors: true, // every problem in one message, so the model fixes them in one retry
  useDefaults: true, // `execute` receives declared defaults
  verbose: true, // errors carry the offending data, for messages that say what arrived
  strict: false, // tool schemas carry extension keywords (`x-mcp-header`, `header`, vendors' own)
  validateFormats: true,
  // No optimisation pass over the generated code: it was a third of registration time (bench/
  // RESULTS.md, startup), and validates the same; V8 removes the leftovers it would have removed.
  code: { optimize: false },
  logger: {
    // a library does not print: ajv's own console logging would dump generated code on a failure
    log: quiet,
    error: quiet,
    // With `strict: false` ajv's only warning is an unknown `format`, which it would print and then
    // ignore: a misspelt 'date-time' would accept anything. Refuse it at registration instead.
    warn (message: unknown) { throw new Error(String(message).replace(' ignored', '')) }
  }
}

type AnyAjv = Ajv | Ajv2019 | Ajv2020

interface Dialect {
  /** The `$schema` URIs that name it: http or https, with or without the trailing '#'. */
  readonly pattern: RegExp
  /** The URI ajv registered its meta-schema under, which compile needs verbatim. */
  readonly uri: string
  readonly make: () => AnyAjv
}

function withFormats<T extends AnyAjv> (ajv: T): T {
  (load('ajv-formats') as typeof addFormats).default(ajv)
  return ajv
}

function draft07 (): Ajv {
  const ajv = withFormats(new (load('ajv').Ajv as typeof Ajv)(options))
  // ajv ships the draft-06 meta-schema but does not load it by default
  ajv.addMetaSchema(load('ajv/dist/refs/json-schema-draft-06.json'))
  return ajv
}

const DIALECTS: readonly Dialect[] = [
  { pattern: /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, uri: 'https://json-schema.org/draft/2020-12/schema', make: () => withFormats(new (load('ajv/dist/2020.js').Ajv2020 as typeof Ajv2020)(options)) },
  { pattern: /^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, uri: 'https://json-schema.org/draft/2019-09/schema', make: () => withFormats(new (load('ajv/dist/2019.js').Ajv2019 as typeof Ajv2019)(options)) },
  { pattern: /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, uri: 'http://json-schema.org/draft-07/schema#', make: draft07 },
  { pattern: /^https?:\/\/json-schema\.org\/draft-06\/schema#?$/, uri: 'http://json-schema.org/draft-06/schema#', make: draft07 }
]

const instances = new Map<Dialect['make'], AnyAjv>()

function instance (dialect: Dialect): AnyAjv {
  let ajv = instances.get(dialect.make)
  if (ajv === undefined) {
    ajv = dialect.make()
    instances.set(dialect.make, ajv)
  }
  return ajv
}

function dialectOf (uri: unknown): Dialect {
  if (uri === undefined) return DIALECTS[0]
  const dialect = typeof uri === 'string' ? DIALECTS.find((d) => d.pattern.test(uri)) : undefined
  if (dialect === undefined) {
    throw new Error(`$schema ${JSON.stringify(uri)} is not a dialect fastify-sake validates; use 2020-12 (the default when $schema is absent), 2019-09, draft-07 or draft-06`)
  }
  return dialect
}

/**
 * Validators by schema text (and dialect): tools share argument shapes (`{ id: string }` on a
 * thousand tools), and compiling each again was two thirds of registering one (issue 41). A
 * validator holds no state of its own between calls (`errors` is set by each), so one serves all.
 * Bounded, oldest out, for catalogs that change at run time.
 */
const compiled = new Map<string, ValidateFunction>()
const MAX_COMPILED = 4096

/**
 * Compiles a schema with the dialect its `$schema` names (2020-12 by default), once per distinct
 * schema text. Throws an Error saying why when the schema does not compile.
 */
export function compile (schema: Record<string, unknown>): ValidateFunction {
  const dialect = dialectOf(schema.$schema)
  const key = dialect.uri + '\n' + keyOf(schema)
  let validate = compiled.get(key)
  if (validate === undefined) {
    validate = compileNew(withoutAnnotations(schema) as Record<string, unknown>, dialect)
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!)
    compiled.set(key, validate)
  }
  return validate
}

/** Keywords that say what a value means, never whether it is valid: tools' schemas differ mostly in these. */
const ANNOTATIONS = new Set(['title', 'description', 'examples', '$comment', 'deprecated', 'x-mcp-header', 'header'])

/**
 * The schema without its annotations, in every subschema (not under `properties`' names, nor in
 * `default`, `const` or `enum` values): what a validator depends on, so that a thousand tools whose
 * arguments differ only in their descriptions share one.
 */
function withoutAnnotations (node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutAnnotations)
  if (!isObject(node)) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (ANNOTATIONS.has(key)) continue
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      const map: Record<string, unknown> = {}
      for (const [name, sub] of Object.entries(value)) map[name] = withoutAnnotations(sub)
      out[key] = map
    } else {
      out[key] = SCHEMA_VALUES.has(key) ? withoutAnnotations(value) : value
    }
  }
  return out
}

/**
 * The text of `withoutAnnotations(node)` as JSON.stringify writes it, made without that copy: the
 * cache is asked once for every tool, and most asks find a validator (issue 41). The schemas are
 * JSON by now (copied when registered, or made by a library's export), so no cycle is met here.
 * Names and short strings are quoted from a cache, numbers and booleans written directly: a
 * third of the time of JSON.stringify on each (10,000 tools: 94 → 34 ms).
 */
function keyOf (node: unknown): string {
  if (Array.isArray(node)) {
    let text = '['
    for (let i = 0; i < node.length; i++) text += (i === 0 ? '' : ',') + keyOf(node[i])
    return text + ']'
  }
  if (!isObject(node)) return primitive(node) ?? 'null'
  let text = '{'
  for (const key in node) {
    const value = node[key]
    // left out as JSON.stringify leaves them out
    if (ANNOTATIONS.has(key) || value === undefined || typeof value === 'function' || typeof value === 'symbol') continue
    let inner: string
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      inner = '{'
      for (const name in value) {
        if (value[name] === undefined) continue
        inner += (inner.length === 1 ? '' : ',') + quoted(name) + ':' + keyOf(value[name])
      }
      inner += '}'
    } else if (SCHEMA_VALUES.has(key)) {
      inner = keyOf(value)
    } else {
      // a value with a toJSON that gives undefined writes 'undefined': no JSON text is that, so no other key matches it
      inner = typeof value === 'object' ? String(JSON.stringify(value)) : String(primitive(value))
    }
    text += (text.length === 1 ? '' : ',') + quoted(key) + ':' + inner
  }
  return text + '}'
}

/** A primitive as JSON.stringify writes it (undefined where it writes nothing). */
function primitive (value: unknown): string | undefined {
  switch (typeof value) {
    case 'string': return quoted(value)
    // JSON writes a non-finite number as null; 'NaN' or 'Infinity' here only keys it apart from null
    case 'number': return '' + value
    case 'boolean': return value ? 'true' : 'false'
    default: return JSON.stringify(value) // null; undefined, a function, a symbol: undefined; a BigInt throws
  }
}

/** Property names and short values ('type', 'number', 'a') recur in every schema: quoted once. */
const QUOTED = new Map<string, string>()
const MAX_QUOTED = 4096

function quoted (text: string): string {
  let json = QUOTED.get(text)
  if (json === undefined) {
    json = JSON.stringify(text)
    if (text.length <= 32 && QUOTED.size < MAX_QUOTED) QUOTED.set(text, json)
  }
  return json
}

function compileNew (schema: Record<string, unknown>, dialect: Dialect): ValidateFunction {
  const ajv = instance(dialect)
  const copy = schema.$schema === undefined ? schema : { ...schema, $schema: dialect.uri }
  // ajv keeps a root $id registered on the shared instance and would refuse the same schema the
  // next time (another tool, or the same tool on a second server in the process): forget it after
  // compiling, unless the id was already taken before us (then compile fails and it is not ours)
  const owned = typeof copy.$id !== 'string' || ajv.getSchema(copy.$id) === undefined
  try {
    return ajv.compile(copy)
  } finally {
    if (owned) ajv.removeSchema(copy)
  }
}
