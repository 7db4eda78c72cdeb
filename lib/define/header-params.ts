/**
 * `x-mcp-header` on tool arguments (SEP-2243): finds every annotation in an input schema, refuses
 * the ones the spec forbids, and turns the sugar `header: 'X'` into the wire keyword. Clients drop
 * a tool whose annotation is invalid, so a bad one is a registration error here, not a silent loss.
 */
import { SakeHeaderDefinitionError } from '../errors.js'
import { PARAM_PREFIX, SHOWN } from '../spec/headers.js'

/** One argument mirrored into an `Mcp-Param-{name}` request header. */
export interface HeaderParam {
  /** The name as declared, e.g. `Precision`. */
  readonly name: string
  /** The request header, lower-cased as Node exposes it: `mcp-param-precision`. */
  readonly header: string
  /** The header as messages name it: `Mcp-Param-Precision`. */
  readonly display: string
  /** Property names from the arguments object down to the value. */
  readonly path: readonly string[]
  readonly type: 'string' | 'integer' | 'boolean'
}

// RFC 9110 token: 1*tchar
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const ANNOTATION = 'x-mcp-header'
const SUGAR = 'header'
const PRIMITIVES = new Set(['string', 'integer', 'boolean'])

type Json = Record<string, unknown>

function isObject (value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function headerType (schema: Json): HeaderParam['type'] | undefined {
  const type = schema.type
  if (typeof type === 'string') return PRIMITIVES.has(type) ? type as HeaderParam['type'] : undefined
  if (Array.isArray(type)) {
    // [T, 'null'] is allowed: a null value simply sends no header
    const rest = type.filter((t) => t !== 'null')
    if (rest.length === 1 && PRIMITIVES.has(rest[0])) return rest[0]
  }
  return undefined
}

function where (path: string[]): string {
  return path.length === 0 ? 'the root of the input schema' : `'${path.join('.')}'`
}

// Keywords whose value is a map of names to schemas (the names are not keywords), and keywords
// whose value is a schema or a list of schemas. Any other keyword is copied as it is: its value is
// data (const, enum, default, examples) or belongs to a keyword we do not know, and may be anything.
/** Keywords whose value is a map of subschemas, and those whose value is a subschema or a list of them. */
export const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'])
export const SCHEMA_VALUES: ReadonlySet<string> = new Set([
  'items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'contains', 'additionalProperties',
  'unevaluatedProperties', 'propertyNames', 'contentSchema', 'not', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf'
])

/** Whether a `header` or `x-mcp-header` keyword is anywhere in the schema (where `extractHeaders` would look). */
function annotated (node: unknown): boolean {
  if (Array.isArray(node)) return node.some(annotated)
  if (!isObject(node)) return false
  if (Object.hasOwn(node, SUGAR) || Object.hasOwn(node, ANNOTATION)) return true
  for (const key of Object.keys(node)) {
    const value = node[key]
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      for (const entry of Object.keys(value)) if (annotated(value[entry])) return true
    } else if (SCHEMA_VALUES.has(key) && annotated(value)) {
      return true
    }
  }
  return false
}

/**
 * Walks `schema`, copying it into the wire form (`header` becomes `x-mcp-header`), and returns the
 * header parameters found. Throws `SakeHeaderDefinitionError` naming the tool and argument for an
 * annotation that is not a token, not unique, on a non-primitive, or not reachable through
 * `properties` alone.
 */
export function extractHeaders (tool: string, schema: Json): { schema: Json, headers: HeaderParam[] } {
  // most tools mirror nothing: their schema is the wire form already, and is not copied again
  if (!annotated(schema)) return { schema, headers: [] }
  const headers: HeaderParam[] = []
  const seen = new Map<string, string>()

  // `node` is a schema; `reachable` stays true while the path from the root is made of
  // `properties` steps only, and `isProperty` is true when the last step was one
  function walk (node: unknown, path: string[], reachable: boolean, isProperty: boolean): unknown {
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, String(i)], false, false))
    if (!isObject(node)) return node
    const out: Json = {}
    for (const key of Object.keys(node)) {
      const value = node[key]
      // read below: `header` leaves the wire schema, `x-mcp-header` is written back
      if (key === SUGAR || key === ANNOTATION) continue
      if (key === 'properties' && isObject(value)) {
        const props: Json = {}
        for (const prop of Object.keys(value)) props[prop] = walk(value[prop], [...path, prop], reachable, true)
        out[key] = props
      } else if (SCHEMA_MAPS.has(key) && isObject(value)) {
        const map: Json = {}
        for (const entry of Object.keys(value)) map[entry] = walk(value[entry], [...path, key, entry], false, false)
        out[key] = map
      } else if (SCHEMA_VALUES.has(key)) {
        out[key] = walk(value, [...path, key], false, false)
      } else {
        out[key] = value
      }
    }
    if (Object.hasOwn(node, SUGAR) || Object.hasOwn(node, ANNOTATION)) {
      const name = nameOf(node, path)
      out[ANNOTATION] = name
      check(name, node, path, reachable && isProperty)
    }
    return out
  }

  function nameOf (node: Json, path: string[]): unknown {
    const sugar = node[SUGAR]
    const annotation = node[ANNOTATION]
    if (!Object.hasOwn(node, SUGAR)) return annotation
    if (Object.hasOwn(node, ANNOTATION) && sugar !== annotation) {
      throw new SakeHeaderDefinitionError(`tool '${tool}': argument ${where(path)} has both header ${JSON.stringify(sugar)} and x-mcp-header ${JSON.stringify(annotation)}; give the header name once, as 'header' or as 'x-mcp-header'`)
    }
    return sugar
  }

  function check (name: unknown, node: Json, path: string[], reachable: boolean): void {
    const at = `tool '${tool}': argument ${where(path)}`
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw new SakeHeaderDefinitionError(`${at} has header name ${JSON.stringify(name)}; a header name must be a non-empty HTTP token (letters, digits and !#$%&'*+-.^_\`|~, no spaces or colons)`)
    }
    if (!reachable) {
      throw new SakeHeaderDefinitionError(`${at} has header '${name}' but is not reachable from the root through 'properties' alone (no items, anyOf/oneOf/allOf, not, if/then/else, $defs or $ref on the way)`)
    }
    const type = headerType(node)
    if (type === undefined) {
      throw new SakeHeaderDefinitionError(`${at} has header '${name}' but its type is ${JSON.stringify(node.type ?? 'unspecified')}; only string, integer and boolean arguments can be mirrored into headers (not number, object or array)`)
    }
    const lower = name.toLowerCase()
    const other = seen.get(lower)
    if (other !== undefined) {
      throw new SakeHeaderDefinitionError(`${at} has header '${name}', which clashes with '${other}' (header names must be unique in a tool, compared case-insensitively)`)
    }
    seen.set(lower, name)
    headers.push({ name, header: PARAM_PREFIX + lower, display: SHOWN[PARAM_PREFIX] + name, path: [...path], type })
  }

  const wire = walk(schema, [], true, false) as Json
  return { schema: wire, headers }
}
