/**
 * `x-mcp-header` on tool arguments (SEP-2243): finds every annotation in an input schema, refuses
 * the ones the spec forbids, and turns the sugar `header: 'X'` into the wire keyword. Clients drop
 * a tool whose annotation is invalid, so a bad one is a registration error here, not a silent loss.
 */
import { SakeHeaderDefinitionError } from '../errors.js'

/** One argument mirrored into an `Mcp-Param-{name}` request header. */
export interface HeaderParam {
  /** The name as declared, e.g. `Precision`. */
  readonly name: string
  /** The request header, lower-cased as Node exposes it: `mcp-param-precision`. */
  readonly header: string
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

/**
 * Walks `schema`, copying it into the wire form (`header` becomes `x-mcp-header`), and returns the
 * header parameters found. Throws `SakeHeaderDefinitionError` naming the tool and argument for an
 * annotation that is not a token, not unique, on a non-primitive, or not reachable through
 * `properties` alone.
 */
export function extractHeaders (tool: string, schema: Json): { schema: Json, headers: HeaderParam[] } {
  const headers: HeaderParam[] = []
  const seen = new Map<string, string>()

  // `reachable` stays true while the path from the root is made of `properties` steps only
  function walk (node: unknown, path: string[], reachable: boolean, isProperty: boolean): unknown {
    if (Array.isArray(node)) return node.map((item) => walk(item, path, false, false))
    if (!isObject(node)) return node
    const out: Json = {}
    let name: unknown
    for (const key of Object.keys(node)) {
      const value = node[key]
      if (key === SUGAR || key === ANNOTATION) {
        // `header` is only sugar where it sits on a schema that is a property; elsewhere leave it be
        if (key === SUGAR && !isProperty) {
          out[key] = value
          continue
        }
        if (name !== undefined && name !== value) {
          throw new SakeHeaderDefinitionError(`tool '${tool}': argument ${where(path)} has both 'header' and 'x-mcp-header'; use one`)
        }
        name = value
        continue
      }
      if (key === 'properties' && isObject(value)) {
        const props: Json = {}
        for (const prop of Object.keys(value)) {
          props[prop] = walk(value[prop], [...path, prop], reachable, true)
        }
        out[key] = props
      } else if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') {
        out[key] = value // data, not schema: never walk into it
      } else {
        out[key] = walk(value, [...path, key], false, false)
      }
    }
    if (name !== undefined) {
      out[ANNOTATION] = name
      check(name, node, path, reachable && isProperty)
    }
    return out
  }

  function check (name: unknown, node: Json, path: string[], reachable: boolean): void {
    const at = `tool '${tool}': argument ${where(path)}`
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw new SakeHeaderDefinitionError(`${at} has header name ${JSON.stringify(name)}; a header name must be a non-empty HTTP token (letters, digits and !#$%&'*+-.^_\`|~)`)
    }
    if (!reachable) {
      throw new SakeHeaderDefinitionError(`${at} has header '${name}' but is not reachable from the root through 'properties' alone (no items, anyOf/oneOf/allOf, not, if/then/else or $ref on the way)`)
    }
    const type = headerType(node)
    if (type === undefined) {
      throw new SakeHeaderDefinitionError(`${at} has header '${name}' but its type is ${JSON.stringify(node.type ?? 'unspecified')}; only string, integer and boolean arguments can be mirrored into headers`)
    }
    const lower = name.toLowerCase()
    const other = seen.get(lower)
    if (other !== undefined) {
      throw new SakeHeaderDefinitionError(`${at} has header '${name}', which clashes with '${other}' (header names are compared case-insensitively)`)
    }
    seen.set(lower, name)
    headers.push({ name, header: 'mcp-param-' + lower, path: [...path], type })
  }

  const wire = walk(schema, [], true, false) as Json
  return { schema: wire, headers }
}
