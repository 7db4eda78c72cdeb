/**
 * Prompt definitions: the typed shape users write (arguments are strings, declared with TypeBox so
 * `get` sees them typed), the checks run at registration, and the shaping of what `get` returns
 * into a `GetPromptResult`.
 */
import { type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { SakePromptDefinitionError } from '../errors.js'
import type { Era } from '../spec/eras.js'
import { deepFreeze, isObject, kind, plain } from '../values.js'
import { isOptional, jsonSchemaOf, schemaKind, standardOf, type MapOutput, type StandardJsonSchemaV1, type StandardParts, type StandardProps, type TypeBox1Schema } from './schemas.js'
import { compile } from './ajv.js'
import { isContent, type ContentBlock, type Icon } from './content.js'
import { checkCommonFields, checkKnownKeys } from './common-fields.js'
import type { McpConfig } from './config.js'
import type { CompletionReturn } from './resource.js'
import type { CompletionContext, RequestContext } from './handler-context.js'
import { requirementOf, type Requirement, type ScopeRequirement } from './requirement.js'

/**
 * A prompt argument: a string schema of TypeBox (`Type.String()`, `StringEnum([...])`, or
 * `Type.Optional` of one; 0.34 or 1.x) or of a Standard Schema library (`z.string()`, `.optional()`).
 */
export type PromptArgument = (TSchema & { static: string }) | TypeBox1Schema | StandardJsonSchemaV1<string | undefined, unknown>

/** What `get` receives: TypeBox 0.34's own `Static` for its schemas, else each library's output. */
export type PromptArgsOf<A> = A extends TProperties ? Static<TObject<A>> : MapOutput<A>

/** The arguments of a prompt, by name. */
export type PromptArguments = Record<string, PromptArgument>

/** One message of a prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant'
  content: ContentBlock
}

/** What `get` returns: a string (one user message), messages, or messages with a description. */
export type PromptReturn = string | readonly PromptMessage[] | { description?: string, messages: readonly PromptMessage[] }

interface PromptBase {
  /** Unique on the server; 1–128 of `A-Z a-z 0-9 _ - .` */
  name: string
  title?: string
  description?: string
  icons?: Icon[]
  /** Sent as the prompt's `_meta` in `prompts/list`. */
  meta?: Record<string, unknown>
  /** Milliseconds a client may cache a `prompts/list` page holding this prompt. */
  ttl?: number
  /** With `auth` on: the scope (or every one of several) a token must grant to get it. */
  scope?: ScopeRequirement
  /** Your own settings, as a route's `config`: the host's hooks read it on `request.mcp.config`. Never sent. Type its keys by augmenting `McpConfig`. */
  config?: McpConfig
}

/** A prompt whose arguments are declared in `args`; `get` gets them typed. */
export interface TypedPromptDefinition<A extends PromptArguments> extends PromptBase {
  args?: A
  get (args: PromptArgsOf<A>, ctx: RequestContext): PromptReturn | Promise<PromptReturn>
  /** Suggestions for one argument (`completion/complete`). */
  complete? (argument: string, partial: string, ctx: CompletionContext): CompletionReturn | Promise<CompletionReturn>
}

/** Any prompt definition, as `registerPrompt` takes it in an array. */
export interface PromptDefinition extends PromptBase {
  args?: PromptArguments
  get (args: Record<string, string | undefined>, ctx: RequestContext): PromptReturn | Promise<PromptReturn>
  complete? (argument: string, partial: string, ctx: CompletionContext): CompletionReturn | Promise<CompletionReturn>
}

/** A prompt as the server keeps it. */
export interface CompiledPrompt {
  readonly kind: 'prompt'
  readonly name: string
  readonly definition: PromptDefinition
  readonly wire: Readonly<Record<Era, Record<string, unknown>>>
  /** The declared argument names, in order, and those that are required. */
  readonly arguments: readonly string[]
  readonly required: readonly string[]
  readonly validate: ValidateFunction
  /** The arguments a Standard Schema's library checks (after ajv); undefined: none. */
  readonly standard: StandardParts | undefined
  readonly ttl: number | undefined
  /** What it demands of the caller (`scope`); undefined: nothing. */
  readonly access: Requirement | undefined
  /** The definition's `config`, as given. */
  readonly config: Readonly<McpConfig> | undefined
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/
const KNOWN_KEYS = ['name', 'title', 'description', 'icons', 'meta', 'ttl', 'args', 'get', 'complete', 'scope', 'config']
const ROLES = new Set(['user', 'assistant'])
const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link'])

function fail (name: unknown, message: string): never {
  const who = typeof name === 'string' ? `prompt '${name}'` : 'prompt definition'
  throw new SakePromptDefinitionError(`${who}: ${message}`)
}

function checkOptional (def: Record<string, unknown>, name: string): void {
  checkCommonFields(def, "the prompt's _meta", (message) => fail(name, message))
  if (typeof def.get !== 'function') fail(name, `'get' must be a function (args, ctx) => messages, got ${kind(def.get)}`)
  if (def.complete !== undefined && typeof def.complete !== 'function') fail(name, `'complete' must be a function (argument, partial, ctx) => values, got ${kind(def.complete)}`)
}

/**
 * Checks a definition and compiles it. Throws `SakePromptDefinitionError` with a message naming
 * the prompt and what to change. `scopes`: the declared scopes its `scope` must come from.
 */
export function compilePrompt (def: PromptDefinition, scopes: ReadonlyMap<string, string> = new Map()): CompiledPrompt {
  if (!isObject(def)) throw new SakePromptDefinitionError(`a prompt definition must be an object, got ${kind(def)}`)
  const raw = def as unknown as Record<string, unknown>
  if (raw.name === undefined) fail(undefined, "'name' is required: 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'")
  if (typeof raw.name !== 'string' || !NAME.test(raw.name)) {
    fail(raw.name, `name ${JSON.stringify(raw.name)} is not allowed; a prompt name is 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'`)
  }
  const name = raw.name
  checkKnownKeys(raw, KNOWN_KEYS, (message) => fail(name, message))
  checkOptional(raw, name)

  const args = raw.args ?? {}
  if (!isObject(args) || schemaKind(args) !== undefined) fail(name, "'args' must be a map of argument names to string schemas, e.g. { code: Type.String({ description: 'The code' }) } or { code: z.string() }")
  const listed: Array<Record<string, unknown>> = []
  const required: string[] = []
  const properties: Record<string, unknown> = {}
  const standard: Array<readonly [string, StandardProps]> = []
  for (const [key, schema] of Object.entries(args)) {
    const found = schemaKind(schema)
    const json = found === undefined ? undefined : jsonSchemaOf(schema, 'input', (message) => fail(name, `argument '${key}' ${message}`))
    if (json === undefined || json.type !== 'string') {
      fail(name, `argument '${key}' must be a string schema (Type.String(), StringEnum([...]), z.string(), or an optional one): prompt arguments are strings, got ${json !== undefined ? `type ${JSON.stringify(json.type ?? 'unspecified')}` : isObject(schema) ? 'a plain object' : kind(schema)}`)
    }
    const optional = isOptional(schema)
    const entry: Record<string, unknown> = { name: key }
    if (typeof json.title === 'string') entry.title = json.title
    if (typeof json.description === 'string') entry.description = json.description
    entry.required = !optional
    listed.push(entry)
    if (!optional) required.push(key)
    const { $schema: _dialect, ...property } = json
    if (found === 'standard') {
      standard.push([key, standardOf(schema, (message) => fail(name, `argument '${key}' ${message}`))])
      properties[key] = { type: 'string' } // its library checks the rest, after ajv
    } else {
      properties[key] = property
    }
  }
  let validate: ValidateFunction
  try {
    validate = compile({ additionalProperties: false, type: 'object', properties })
  } catch (err) {
    fail(name, `its arguments do not compile: ${(err as Error).message}`)
  }

  const wire: Record<string, unknown> = { name }
  for (const key of ['title', 'description', 'icons'] as const) {
    if (raw[key] !== undefined) wire[key] = raw[key]
  }
  if (listed.length > 0) wire.arguments = listed
  if (raw.meta !== undefined) wire._meta = raw.meta
  const copy = deepFreeze(plain(wire, (message) => fail(name, `its definition cannot be sent as JSON: ${message}`)))
  return Object.freeze({
    kind: 'prompt' as const,
    name,
    definition: def,
    wire: Object.freeze({ modern: copy, legacy: copy }),
    arguments: Object.freeze(Object.keys(args)),
    required: Object.freeze(required),
    validate,
    standard: standard.length === 0 ? undefined : { whole: undefined, props: standard },
    ttl: raw.ttl as number | undefined,
    access: requirementOf(raw, scopes, (message) => fail(name, message)),
    config: raw.config as McpConfig | undefined
  })
}

function contentOf (content: ContentBlock | string): ContentBlock {
  return typeof content === 'string' ? { type: 'text', text: content } : content
}

/** A message from the user; a string is one text block. */
export function userMessage (content: ContentBlock | string): PromptMessage {
  return { role: 'user', content: contentOf(content) }
}

/** A message from the assistant; a string is one text block. */
export function assistantMessage (content: ContentBlock | string): PromptMessage {
  return { role: 'assistant', content: contentOf(content) }
}

function checkMessage (message: unknown, i: number): PromptMessage {
  if (!isObject(message)) throw new TypeError(`message ${i} is ${kind(message)}, not { role, content }`)
  if (!ROLES.has(message.role as string)) throw new TypeError(`message ${i} has role ${JSON.stringify(message.role)}; a role is 'user' or 'assistant'`)
  const content = message.content
  if (!isContent(content) && !(isObject(content) && CONTENT_TYPES.has(content.type as string))) {
    throw new TypeError(`message ${i} has content that is not a content block; build it with text(), image(), audio(), resource() or resourceLink()`)
  }
  return { role: message.role as PromptMessage['role'], content: content as ContentBlock }
}

/**
 * Turns what `get` returned into `{ description?, messages }`; throws a TypeError naming the
 * problem when it is not a shape we know (the caller logs it and answers -32603).
 */
export function shapePrompt (returned: unknown, description: string | undefined): { description?: string, messages: PromptMessage[] } {
  let messages: unknown
  if (typeof returned === 'string') {
    messages = [userMessage(returned)]
  } else if (Array.isArray(returned)) {
    messages = returned
  } else if (isObject(returned) && Array.isArray(returned.messages)) {
    if (returned.description !== undefined) {
      if (typeof returned.description !== 'string') throw new TypeError("'description' must be a string")
      description = returned.description
    }
    messages = returned.messages
  } else {
    throw new TypeError(`get() returned ${kind(returned)}; it returns a string, an array of messages, or { description?, messages }`)
  }
  const result: { description?: string, messages: PromptMessage[] } = { messages: (messages as unknown[]).map(checkMessage) }
  if (description !== undefined) result.description = description
  return result
}

declare const defined: unique symbol

/** A prompt that went through `definePrompt`'s typed signature; the `prompts` option takes these. */
export interface DefinedPrompt extends PromptDefinition {
  readonly [defined]: true
}

/**
 * Declares a prompt in its own module, typed like `registerPrompt`'s argument.
 * @example
 * export const review = definePrompt({
 *   name: 'code_review',
 *   args: { code: Type.String({ description: 'The code to review' }) },
 *   get: ({ code }) => `Please review this code:\n${code}`
 * })
 */
export function definePrompt<const A extends PromptArguments = {}> (def: TypedPromptDefinition<A>): DefinedPrompt {
  return def as unknown as DefinedPrompt
}
