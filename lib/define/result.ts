/**
 * What a tool returns, turned into a `CallToolResult`:
 * - a string: one text block;
 * - content blocks made by the helpers (one, or an array): sent as they are;
 * - any other JSON value: JSON text plus `structuredContent` (legacy clients only take an object
 *   there, so a non-object goes as text alone to them);
 * - `withMeta(value, meta)`: one of the above plus `_meta` on the result;
 * - `withText(value, text)`: `text` as the content, `value` as `structuredContent` (what an MCP
 *   App renders while the model and text-only clients read the text);
 * - `toolError(message)` or a thrown `ToolError`: `isError: true` with the message.
 */
import { ToolError } from '../errors.js'
import { isContent, type ContentBlock } from './content.js'

const kWithMeta = Symbol('fastify-sake.withMeta')
const kWithText = Symbol('fastify-sake.withText')

/** A value sent as `structuredContent` with its own text for `content`; made by `withText`. */
export interface WithText<T> {
  readonly [kWithText]: string
  readonly value: T
}

/**
 * `value` as `structuredContent` and `text` as the result's one text block, instead of the value's
 * JSON: the summary a model or a client without the tool's app reads, while the app renders the
 * data. A client that cannot take this `structuredContent` (a 2025-03-26 session, or a non-object
 * in a 2025 one) gets the value's JSON as a second text block.
 * @example
 * return withText({ count: 42 }, 'The counter is at 42.')
 */
export function withText<T> (value: T, text: string): WithText<T> {
  if (typeof text !== 'string') throw new TypeError(`withText(value, text): text must be a string, got ${typeof text}`)
  return { [kWithText]: text, value }
}

function isWithText (value: unknown): value is WithText<unknown> {
  return typeof value === 'object' && value !== null && kWithText in value
}

/** The payload an output schema checks: the value inside `withText`, or the value itself. */
export function payloadOf (value: unknown): unknown {
  return isWithText(value) ? value.value : value
}

/** A value with `_meta` for the result; made by `withMeta`. */
export interface WithMeta<T> {
  readonly [kWithMeta]: true
  readonly value: T
  readonly meta: Record<string, unknown>
}

/** A failed tool call the model should see; made by `toolError`. */
export interface ToolErrorResult {
  readonly [kWithMeta]: false
  readonly error: ToolError
}

/** Adds `_meta` to the result of a tool call. */
export function withMeta<T> (value: T, meta: Record<string, unknown>): WithMeta<T> {
  return { [kWithMeta]: true, value, meta }
}

/** A tool error result (`isError: true`), the same as throwing `new ToolError(message)`. */
export function toolError (message: string, options?: { meta?: Record<string, unknown> }): ToolErrorResult {
  return { [kWithMeta]: false, error: new ToolError(message, options) }
}

export interface CallToolResult {
  content: ContentBlock[] | Array<{ type: 'text', text: string }>
  structuredContent?: unknown
  isError?: boolean
  _meta?: Record<string, unknown>
}

/**
 * The result of a tool that returned a JSON value: its JSON is both the text block and the
 * structured content. Kept in a private field, which JSON.stringify, a spread and deep equality
 * all skip, so that `structuredResultBody` serialises the value once, not twice (serialising a
 * tools/call result is the largest cost of the plugin's hot path: bench/RESULTS.md).
 */
class ValueResult implements CallToolResult {
  content: Array<{ type: 'text', text: string }>
  structuredContent: unknown
  // declared only: a result has these keys when something sets them, never as undefined
  declare isError?: boolean
  declare _meta?: Record<string, unknown>
  readonly #json: string

  constructor (json: string, value: unknown) {
    this.content = [{ type: 'text', text: json }]
    this.structuredContent = value
    this.#json = json
  }

  static body (result: object): string | undefined {
    if (!(#json in result)) return undefined
    const json = result.#json
    const { content, _meta, isError } = result
    // changed in place since `shape` made it: serialised as it now is (a copy is a plain object)
    if (content.length !== 1 || content[0]!.text !== json || _meta !== undefined || isError !== undefined) return undefined
    return '"content":[{"type":"text","text":' + JSON.stringify(json) + '}],"structuredContent":' + json
  }
}

/**
 * `JSON.stringify(result)` without its braces (`"content":[…],"structuredContent":…`) for a result
 * `shape` made from a JSON value, with the value serialised once; undefined for any other result.
 */
export function structuredResultBody (result: object): string | undefined {
  return ValueResult.body(result)
}

function isWrapper (value: unknown): value is WithMeta<unknown> | ToolErrorResult {
  return typeof value === 'object' && value !== null && kWithMeta in value
}

/** Splits a return value into its payload and `_meta`, and spots tool errors. */
export function unwrap (value: unknown): { value: unknown, meta: Record<string, unknown> | undefined, error: ToolError | undefined } {
  if (isWrapper(value)) {
    if (!value[kWithMeta]) return { value: undefined, meta: value.error.meta, error: value.error }
    // withMeta(toolError(...), meta) is still an error: unwrap the inside, its own meta winning
    const inner = unwrap(value.value)
    return { value: inner.value, meta: inner.meta === undefined ? value.meta : { ...value.meta, ...inner.meta }, error: inner.error }
  }
  if (value instanceof ToolError) return { value: undefined, meta: value.meta, error: value }
  return { value, meta: undefined, error: undefined }
}

/**
 * What a tool returned, as its result: a tool error (`toolError`, a returned `ToolError`) as
 * `isError`; anything else shaped (`shape`) once `valid` (its output schema's check of the payload,
 * when the tool has one) accepts it. Undefined when `valid` refuses: the caller reports the failure.
 * Throws `shape`'s TypeError for a value JSON cannot carry.
 */
export function resultOf (returned: unknown, structured: boolean, objectOnly: boolean, valid: ((payload: unknown) => boolean) | undefined): CallToolResult | undefined {
  let value = returned
  let meta: Record<string, unknown> | undefined
  // a plain value (the common case) is taken as it is: nothing to unwrap, no parts to allocate
  if (isWrapper(returned) || returned instanceof ToolError) {
    const parts = unwrap(returned)
    if (parts.error !== undefined) return errorResult(parts.error.message, parts.meta)
    value = parts.value
    meta = parts.meta
  }
  if (valid !== undefined && !valid(payloadOf(value))) return undefined
  return shape(value, meta, structured, objectOnly)
}

/** A result with `isError: true` and one text block. */
export function errorResult (message: string, meta?: Record<string, unknown>): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: message }], isError: true }
  if (meta !== undefined) result._meta = meta
  return result
}

/**
 * Shapes a payload. `objectOnly` is true for clients whose `structuredContent` must be an object;
 * `structured` is false for clients that predate structured output. Throws a TypeError for a value
 * JSON cannot carry (a BigInt, a cycle, a function); the caller reports it as the tool's failure.
 */
export function shape (value: unknown, meta: Record<string, unknown> | undefined, structured: boolean, objectOnly: boolean): CallToolResult {
  let result: CallToolResult
  if (isWithText(value)) {
    const json = JSON.stringify(value.value)
    if (json === undefined) throw new TypeError(`a ${typeof value.value} cannot be sent as JSON`)
    result = { content: [{ type: 'text', text: value[kWithText] }] }
    if (structured && (!objectOnly || (typeof value.value === 'object' && value.value !== null && !Array.isArray(value.value)))) {
      result.structuredContent = value.value
    } else {
      result.content.push({ type: 'text', text: json }) // the data is not lost on a client without structuredContent
    }
  } else if (typeof value === 'string') {
    result = { content: [{ type: 'text', text: value }] }
  } else if (value === undefined) {
    result = { content: [] }
  } else if (isContent(value)) {
    result = { content: [value] }
  } else if (Array.isArray(value) && value.length > 0 && value.every(isContent)) {
    result = { content: value }
  } else {
    const json = JSON.stringify(value)
    // a function or a symbol has no JSON form, and JSON.stringify says so with undefined, not a throw
    if (json === undefined) throw new TypeError(`a ${typeof value} cannot be sent as JSON`)
    if (structured && (!objectOnly || (typeof value === 'object' && value !== null && !Array.isArray(value)))) {
      if (meta === undefined) return new ValueResult(json, value)
      result = { content: [{ type: 'text', text: json }], structuredContent: value }
    } else {
      result = { content: [{ type: 'text', text: json }] }
    }
  }
  if (meta !== undefined) result._meta = meta
  return result
}
