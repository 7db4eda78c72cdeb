/**
 * Turns ajv's errors into sentences a model can act on: which argument, which rule, what arrived.
 * Only runs when validation fails, so it may take its time.
 */
import type { ErrorObject } from 'ajv'
import { describe } from '../values.js'

const MAX_ERRORS = 8

function pointerToPath (pointer: string): string {
  return pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~')).join('.')
}

function got (value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `, got ${String(value)}`
  if (typeof value === 'string') return value.length <= 40 ? `, got ${JSON.stringify(value)}` : `, got a string of ${value.length} characters`
  return `, got ${describe(value)}`
}

/** `1 item`, `2 items`. */
function count (n: unknown, word: string): string {
  return `${String(n)} ${word}${n === 1 ? '' : 's'}`
}

function list (values: unknown): string {
  return (values as unknown[]).map((v) => JSON.stringify(v)).join(', ')
}

/** One ajv error as a phrase; `noun` is `argument` for tool input, `property` for output. */
function phrase (error: ErrorObject, noun: string): string | undefined {
  const path = pointerToPath(error.instancePath)
  const subject = path === '' ? 'the value' : `${noun} '${path}'`
  const p = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required': {
      const full = path === '' ? String(p.missingProperty) : `${path}.${String(p.missingProperty)}`
      return `missing required ${noun} '${full}'`
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const extra = String(p.additionalProperty ?? p.unevaluatedProperty)
      return path === '' ? `unknown ${noun} '${extra}'` : `unknown property '${extra}' in ${subject}`
    }
    case 'type':
      return `${subject} must be ${typeNames(p.type)}${got(error.data)}`
    case 'enum':
      return `${subject} must be one of ${list(p.allowedValues)}${got(error.data)}`
    case 'const':
      return `${subject} must be ${JSON.stringify(p.allowedValue)}${got(error.data)}`
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${subject} must be ${String(p.comparison)} ${String(p.limit)}${got(error.data)}`
    case 'minLength':
      return `${subject} must be at least ${count(p.limit, 'character')} long${got(error.data)}`
    case 'maxLength':
      return `${subject} must be at most ${count(p.limit, 'character')} long${got(error.data)}`
    case 'pattern':
      return `${subject} must match the pattern ${String(p.pattern)}${got(error.data)}`
    case 'format':
      return `${subject} must be a valid ${String(p.format)}${got(error.data)}`
    case 'minItems':
      return `${subject} must have at least ${count(p.limit, 'item')}`
    case 'maxItems':
      return `${subject} must have at most ${count(p.limit, 'item')}`
    case 'if':
      return undefined // the failing branch reports the real cause
    default:
      return `${subject} ${error.message ?? 'is invalid'}`
  }
}

function article (type: string): string {
  if (type === 'null') return 'null'
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
}

/** `'integer'` → "an integer"; `['string', 'null']` (ajv's params for a type list) → "a string or null". */
function typeNames (type: unknown): string {
  const types = Array.isArray(type) ? type.map(String) : String(type).split(',')
  return types.map(article).join(' or ')
}

function plural (noun: string): string {
  return noun.endsWith('y') ? noun.slice(0, -1) + 'ies' : noun + 's'
}

/** All of ajv's errors, de-duplicated and capped, joined into one sentence. */
export function explain (errors: ErrorObject[] | null | undefined, noun = 'argument'): string {
  const phrases: string[] = []
  for (const error of errors ?? []) {
    const text = phrase(error, noun)
    if (text !== undefined && !phrases.includes(text)) phrases.push(text)
  }
  if (phrases.length === 0) return `the ${plural(noun)} do not match the schema`
  const shown = phrases.slice(0, MAX_ERRORS)
  const more = phrases.length - shown.length
  return shown.join('; ') + (more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : '')
}
