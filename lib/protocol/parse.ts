/**
 * One message's JSON text to its value, whatever carried it (an HTTP body, a line of stdio), or
 * the refusal that answers it. Two refusals keep the id of a text that is readable JSON, so the
 * client can match them to its request:
 *
 * - a `__proto__` or `constructor.prototype` key anywhere (prototype pollution, were anything to
 *   merge the value into an object): refused, not stripped, since a stripped key would silently
 *   change what a tool receives;
 * - nesting deeper than `MAX_DEPTH`: refused before any recursive work on the value (serialising it
 *   into an error message, validating, logging) can overflow the stack.
 */
import sjson from 'secure-json-parse'
import { ProtocolError, RefusedBodyError } from '../errors.js'
import { PARSE_ERROR, idOf } from '../spec/jsonrpc.js'

/** The deepest nesting of objects and arrays a message may have (the envelope itself is 2 of it). */
export const MAX_DEPTH = 64

const SJSON = { protoAction: 'error', constructorAction: 'error' } as const

/** Parses one message's text; throws the ProtocolError that answers a text that cannot be taken. */
export function parseMessage (text: string): unknown {
  let value: unknown
  try {
    value = sjson.parse(text, undefined, SJSON)
  } catch (err) {
    if (!(err instanceof SyntaxError) || err.message !== 'Object contains forbidden prototype property') {
      throw new ProtocolError(PARSE_ERROR, `Parse error: ${(err as Error).message}`, 400)
    }
    // JSON.parse makes `__proto__` an own property, never the prototype: safe to read the id from
    // (secure-json-parse took a byte order mark, JSON.parse does not)
    const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
    throw new RefusedBodyError('Invalid Request: the message holds a "__proto__" or "constructor.prototype" key, which this server refuses', idOf(JSON.parse(json)))
  }
  if (nestsDeeper(text, MAX_DEPTH)) {
    throw new RefusedBodyError(`Invalid Request: the message nests objects and arrays more than ${MAX_DEPTH} levels deep`, idOf(value))
  }
  return value
}

/**
 * Whether valid JSON text nests objects and arrays deeper than `limit`. A text with no more than
 * `limit` opening brackets cannot, which the native `indexOf` tells without a character loop: the
 * loop runs only for texts with many brackets.
 */
export function nestsDeeper (text: string, limit: number): boolean {
  let opening = 0
  for (let at = text.indexOf('{'); at !== -1 && opening <= limit; at = text.indexOf('{', at + 1)) opening++
  for (let at = text.indexOf('['); at !== -1 && opening <= limit; at = text.indexOf('[', at + 1)) opening++
  if (opening <= limit) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash: the next character is escaped, a quote included
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true
    } else if (c === 0x7d || c === 0x5d) {
      depth--
    }
  }
  return false
}
