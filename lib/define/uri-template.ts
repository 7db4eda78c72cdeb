/**
 * URI templates (RFC 6570) for resource templates, as far as matching a URI back to its variables
 * needs: level 1 `{var}` (one or more characters other than '/'), plus level 2 `{+var}` (one or
 * more characters, '/' included) for path-like values. Other operators, and several variables in
 * one expression, are refused at registration: a template we cannot match must never be listed.
 */

/** A template checked and compiled to a matcher. */
export interface UriTemplate {
  readonly template: string
  /** The variable names, in order of appearance. */
  readonly variables: readonly string[]
  /** The decoded variables of a URI the template matches, or undefined. */
  match (uri: string): Record<string, string> | undefined
}

// RFC 6570 §2.3 varname: ALPHA / DIGIT / "_" / pct-encoded, with single dots between
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/
const EXPRESSION = /\{([^{}]*)\}/g

function escapeRegExp (literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Parses a template; returns the problem as a sentence when it is not one we can match.
 */
export function parseUriTemplate (template: string): UriTemplate | string {
  const variables: string[] = []
  let source = '^'
  let last = 0
  for (const found of template.matchAll(EXPRESSION)) {
    const literal = template.slice(last, found.index)
    if (/[{}]/.test(literal)) return `unbalanced '{' or '}' in ${JSON.stringify(template)}`
    source += escapeRegExp(literal)
    last = found.index + found[0].length
    const body = found[1]
    const reserved = body.startsWith('+')
    const name = reserved ? body.slice(1) : body
    if (!VARNAME.test(name)) {
      return `expression ${found[0]} is not supported; use {name} (any characters but '/') or {+name} (any characters), where name is letters, digits and '_'`
    }
    if (variables.includes(name)) return `variable '${name}' appears twice`
    variables.push(name)
    source += reserved ? '(.+?)' : '([^/]+?)'
  }
  const tail = template.slice(last)
  if (/[{}]/.test(tail)) return `unbalanced '{' or '}' in ${JSON.stringify(template)}`
  source += escapeRegExp(tail) + '$'
  const pattern = new RegExp(source, 's')
  return Object.freeze({
    template,
    variables: Object.freeze(variables),
    match (uri: string): Record<string, string> | undefined {
      const m = pattern.exec(uri)
      if (m === null) return undefined
      const vars: Record<string, string> = Object.create(null)
      for (let i = 0; i < variables.length; i++) {
        try {
          // expansion percent-encodes, so matching decodes: "John%20Doe" is the value "John Doe"
          vars[variables[i]] = decodeURIComponent(m[i + 1])
        } catch {
          return undefined // malformed percent-encoding: no template value could expand to it
        }
      }
      return vars
    }
  })
}
