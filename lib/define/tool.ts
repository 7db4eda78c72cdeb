/**
 * Tool definitions: the typed shape users write, the checks run at registration, and the compiled
 * form the server calls (wire JSON, validators and header rules built once).
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { SakeToolDefinitionError } from '../errors.js'
import type { Era } from '../spec/eras.js'
import { deepFreeze, isObject, isTypeBox, kind, plain as plainCopy } from '../values.js'
import { compile } from './ajv.js'
import { extractHeaders, type HeaderParam } from './header-params.js'
import type { Icon } from './content.js'
import type { McpConfig } from './config.js'
import { checkCommonFields, checkKnownKeys } from './common-fields.js'
import type { ToolErrorResult, WithMeta, WithText } from './result.js'
import type { CompletionContext, ToolContext } from './context.js'
import type { CompletionReturn } from './resource.js'
import { requirementOf, type Authentication, type Requirement, type ScopeRequirement } from './access.js'
import { META_UI_RESOURCE_URI } from '../spec/apps.js'
import { inlineUiResource, isUiUri, visibilityOf, type InlineUi, type Visibility } from './apps.js'

/** Advisory hints for clients (the spec's `*Hint` fields); never enforced by the server. */
export interface ToolAnnotations {
  title?: string
  readOnly?: boolean
  destructive?: boolean
  idempotent?: boolean
  openWorld?: boolean
}

/** `output` is either a map of properties (like `args`) or one whole TypeBox schema. */
export type OutputSpec = TProperties | TSchema

/** The TypeScript type of a tool's output. */
export type OutputOf<O> = O extends TSchema ? Static<O> : O extends TProperties ? Static<TObject<O>> : unknown

/** What `execute` may return: with `output`, a value of that type (possibly with `_meta`) or an error. */
export type ToolReturn<O> = [O] extends [undefined]
  ? unknown
  : OutputOf<O> | WithText<OutputOf<O>> | WithMeta<OutputOf<O> | WithText<OutputOf<O>>> | ToolErrorResult

interface ToolBase<O> {
  /** Unique on the server; 1–128 of `A-Z a-z 0-9 _ - .` */
  name: string
  title?: string
  description?: string
  icons?: Icon[]
  annotations?: ToolAnnotations
  /** Merged into the tool's `_meta` in `tools/list`. */
  meta?: Record<string, unknown>
  /** Milliseconds a client may cache a list page holding this tool; shortens the server's `ttl`. */
  ttl?: number
  /**
   * Answer every call as Server-Sent Events, so `ctx.progress` and `ctx.notify` reach the client
   * as the tool runs. A call that carries a progressToken (or, in 2026-07-28, a log level) streams
   * without it.
   */
  stream?: boolean
  /** The output schema (`outputSchema`); results are validated against it. */
  output?: O
  /** With `auth` on: the scope (or every one of several) a token must grant to call the tool. */
  scope?: ScopeRequirement
  /** With `auth` on: how the person must have signed in (step-up, RFC 9470). */
  authentication?: Authentication
  /**
   * Run as a task for a client that takes one: `'optional'` or `true` (as a task for a client
   * that takes one, inline for every other client), `'required'` (only as a task). The same
   * `execute` serves every case.
   */
  task?: 'optional' | 'required' | true
  /**
   * MCP Apps: the app the host shows with the tool's result. The URI of a `ui://` resource you
   * register with `registerResource`, or the app in place (`{ uri, html }` or `{ uri, read }`, with
   * `csp`, `permissions`, `domain`, `prefersBorder`), which registers that resource. Listed only to
   * clients that declared the extension; the result's `content` stays the text every client reads.
   */
  ui?: string | InlineUi
  /**
   * MCP Apps: who calls the tool. `['model', 'app']` (the default); `['app']` for a tool only the
   * app calls (a refresh button), which a client without MCP Apps does not see and cannot call.
   */
  visibility?: readonly Visibility[]
  /**
   * Your own settings for the tool, as a route's `config`: the host's hooks read it on
   * `request.mcp.config` (a rate limit, a cost). Never sent. Type its keys by augmenting `McpConfig`.
   */
  config?: McpConfig
}

/**
 * What `prepare` returns: the arguments `execute` receives, or a tool error (`toolError(...)`; a
 * thrown `ToolError` works too).
 */
export type Prepared<P> = P | ToolErrorResult

/**
 * `complete(arg, partial, ctx)` (optional): suggestions for one argument, given what is typed so
 * far (`completion/complete` with `{ type: 'ref/tool', name }`, this server's extension; and the
 * values a form of `ctx.elicit.form(..., { complete: [arg] })` offers). `arg` is one of the tool's
 * argument names.
 */
interface Completing<Name extends string> {
  complete? (arg: Name, partial: string, ctx: CompletionContext): CompletionReturn | Promise<CompletionReturn>
}

/** The argument names of a whole input schema: its properties' for a TypeBox object, else any string. */
export type ArgumentName<I> = I extends TObject<infer P> ? Extract<keyof P, string> : string

/**
 * `prepare(args, ctx)` (optional) runs before `execute` in the request itself and returns the
 * arguments `execute` receives, typed by what it returns. It may ask the client (`ctx.elicit`):
 * the place for a question whose answer decides whether the work starts at all.
 */
interface Preparing<In, P> {
  prepare? (args: In, ctx: ToolContext): Prepared<P> | Promise<Prepared<P>>
}

/** A tool whose arguments are a map of TypeBox properties; `execute` gets them typed. */
export interface ArgsToolDefinition<A extends TProperties, O extends OutputSpec | undefined, P = Static<TObject<A>>> extends ToolBase<O>, Preparing<Static<TObject<A>>, P>, Completing<Extract<keyof A, string>> {
  args?: A
  input?: undefined
  execute (args: P, ctx: ToolContext): ToolReturn<O> | Promise<ToolReturn<O>>
}

/** A tool whose whole input schema is one TypeBox schema (Sake's `input_schema`). */
export interface SchemaToolDefinition<I extends TSchema, O extends OutputSpec | undefined, P = Static<I>> extends ToolBase<O>, Preparing<Static<I>, P>, Completing<ArgumentName<I>> {
  args?: undefined
  input: I
  execute (args: P, ctx: ToolContext): ToolReturn<O> | Promise<ToolReturn<O>>
}

/** A tool whose input schema is a plain JSON Schema object; its arguments are untyped. */
export interface JsonSchemaToolDefinition<O extends OutputSpec | undefined, P = Record<string, unknown>> extends ToolBase<O>, Preparing<Record<string, unknown>, P>, Completing<string> {
  args?: undefined
  input: Record<string, unknown>
  execute (args: P, ctx: ToolContext): ToolReturn<O> | Promise<ToolReturn<O>>
}

/** Any tool definition, as `registerTool` takes it in an array. */
export interface ToolDefinition extends ToolBase<OutputSpec | undefined> {
  args?: TProperties
  input?: TSchema | Record<string, unknown>
  prepare? (args: any, ctx: ToolContext): unknown
  execute (args: any, ctx: ToolContext): unknown
  complete? (arg: string, partial: string, ctx: CompletionContext): CompletionReturn | Promise<CompletionReturn>
}

declare const defined: unique symbol

/**
 * A definition that went through `defineTool`'s typed overloads. `registerTool` takes these in
 * arrays and the `tools` option takes only these, so an untyped definition never slips past the
 * inference (the brand exists in the types alone).
 */
export interface DefinedTool extends ToolDefinition {
  readonly [defined]: true
}

/** A tool as the server keeps it: checked, compiled, and ready to list and call. */
export interface CompiledTool {
  readonly kind: 'tool'
  readonly name: string
  readonly definition: ToolDefinition
  /** The `Tool` object of `tools/list`, per era. */
  readonly wire: Readonly<Record<Era, Record<string, unknown>>>
  readonly validate: ValidateFunction
  /** The argument names: the input schema's top-level properties, in order (what `complete` completes). */
  readonly arguments: readonly string[]
  readonly validateOutput: ValidateFunction | undefined
  /** Whether the output schema's root is an object (legacy clients need that). */
  readonly objectOutput: boolean
  readonly headers: readonly HeaderParam[]
  readonly ttl: number | undefined
  readonly stream: boolean
  /** `{ tool: name }`, made once: bound into the logger of every call's context. */
  readonly logBindings: Readonly<{ tool: string }>
  /** What it demands of the caller (`scope`, `authentication`); undefined: nothing. */
  readonly access: Requirement | undefined
  /** The definition's `config`, as given. */
  readonly config: Readonly<McpConfig> | undefined
  /** The `task` option, `true` read as `'optional'`; undefined for a tool that never runs as a task. */
  readonly task: TaskSupport | undefined
  /**
   * MCP Apps: the `ui://` resource of its app (`resourceUri`) and the resource an inline `ui`
   * registers (`inline`), or undefined for a tool without an app.
   */
  readonly ui: { readonly resourceUri: string, readonly inline: Readonly<Record<string, unknown>> | undefined } | undefined
  /** MCP Apps: `visibility` is `['app']`: not listed to, nor callable by, a client without the extension. */
  readonly appOnly: boolean
  /**
   * The `Tool` objects for a client without MCP Apps, when they differ from `wire` (which has
   * `_meta.ui`): null, not listed (an app-only tool); undefined, the same as `wire`.
   */
  readonly withoutApps: Readonly<Record<Era, Record<string, unknown>>> | null | undefined
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/
const NO_SCOPES: ReadonlyMap<string, string> = new Map()
const KNOWN_KEYS = ['name', 'title', 'description', 'icons', 'annotations', 'meta', 'ttl', 'stream', 'args', 'input', 'output', 'prepare', 'execute', 'scope', 'authentication', 'config', 'task', 'ui', 'visibility', 'complete']

/** How a tool runs as a task (`execution.taskSupport` in 2025-11-25 `tools/list`). */
export type TaskSupport = 'optional' | 'required'

function taskOf (def: ToolDefinition & { name: string }): TaskSupport | undefined {
  const task: unknown = def.task
  if (task === undefined || task === 'optional' || task === 'required') return task
  // true is Sake's "runs as a task where it can": inline for a client without tasks, as 'optional'
  if (task === true) return 'optional'
  fail(def.name, `'task' must be 'optional', 'required' or true, got ${typeof task === 'string' ? JSON.stringify(task) : kind(task)}`)
}

/** Sake's annotation names, and the spec's `*Hint` field each becomes on the wire. */
const HINTS = new Map<string, string>([
  ['readOnly', 'readOnlyHint'],
  ['destructive', 'destructiveHint'],
  ['idempotent', 'idempotentHint'],
  ['openWorld', 'openWorldHint']
])

function fail (name: unknown, message: string): never {
  const who = typeof name === 'string' ? `tool '${name}'` : 'tool definition'
  throw new SakeToolDefinitionError(`${who}: ${message}`)
}

/** A JSON copy of a part of the definition, as it will travel (see `values.ts`). */
function plain<T> (name: unknown, what: string, value: T): T {
  return plainCopy(value, (message) => fail(name, `${what} cannot be sent as JSON: ${message}`))
}

function inputSchemaOf (def: ToolDefinition): Record<string, unknown> {
  if (def.args !== undefined && def.input !== undefined) fail(def.name, "give either 'args' (a map of TypeBox properties) or 'input' (a whole JSON Schema), not both")
  if (def.input !== undefined) {
    if (!isObject(def.input)) fail(def.name, `'input' must be a JSON Schema object (TypeBox or plain), got ${kind(def.input)}`)
    const schema = plain(def.name, "'input'", def.input)
    if (schema.type !== 'object') fail(def.name, `'input' must be an object schema (type: "object"), got type ${JSON.stringify(schema.type ?? 'unspecified')}`)
    return schema
  }
  const args = def.args ?? {}
  if (!isObject(args) || isTypeBox(args)) fail(def.name, "'args' must be a map of argument names to TypeBox schemas, e.g. { a: Type.Number() }; use 'input' for a whole schema")
  for (const [key, value] of Object.entries(args)) {
    if (!isTypeBox(value)) fail(def.name, `argument '${key}' must be a TypeBox schema (e.g. Type.String()), got ${kind(value)}`)
  }
  // unknown arguments are refused, so a misspelt optional argument is reported instead of ignored
  return plain(def.name, "'args'", Type.Object(args, { additionalProperties: false }))
}

function outputSchemaOf (def: ToolDefinition): Record<string, unknown> | undefined {
  const output = def.output
  if (output === undefined) return undefined
  if (isTypeBox(output)) return plain(def.name, "'output'", output)
  if (!isObject(output)) fail(def.name, `'output' must be a map of TypeBox properties or a TypeBox schema, got ${kind(output)}`)
  // a property map never has a string under 'type': this is a plain JSON Schema, which TypeBox wraps
  if (typeof output.type === 'string' || typeof output.$schema === 'string') {
    fail(def.name, "'output' is a plain JSON Schema; wrap it as Type.Unsafe(schema), or give a map of TypeBox properties")
  }
  for (const [key, value] of Object.entries(output)) {
    if (!isTypeBox(value)) fail(def.name, `output property '${key}' must be a TypeBox schema, got ${kind(value)}`)
  }
  return plain(def.name, "'output'", Type.Object(output as TProperties))
}

function checkName (def: ToolDefinition): void {
  if (def.name === undefined) fail(undefined, "'name' is required: 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'")
  if (typeof def.name !== 'string' || !NAME.test(def.name)) {
    fail(def.name, `name ${JSON.stringify(def.name)} is not allowed; a tool name is 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'`)
  }
}

function checkAnnotations (name: string, annotations: unknown): void {
  if (!isObject(annotations)) fail(name, `'annotations' must be an object such as { readOnly: true }, got ${kind(annotations)}`)
  for (const [key, value] of Object.entries(annotations)) {
    if (value === undefined) continue // an optional hint left out, as TypeScript allows
    if (key === 'title') {
      if (typeof value !== 'string') fail(name, `'annotations.title' must be a string, got ${kind(value)}`)
    } else if (HINTS.has(key)) {
      if (typeof value !== 'boolean') fail(name, `'annotations.${key}' must be a boolean, got ${kind(value)}`)
    } else {
      fail(name, `unknown annotation '${key}'; known annotations are title, ${[...HINTS.keys()].join(', ')}`)
    }
  }
}

function checkOptional (def: ToolDefinition & { name: string }): void {
  checkCommonFields(def as unknown as Record<string, unknown>, "the tool's _meta", (message) => fail(def.name, message))
  if (def.stream !== undefined && typeof def.stream !== 'boolean') fail(def.name, `'stream' must be a boolean, got ${kind(def.stream)}`)
  if (def.annotations !== undefined) checkAnnotations(def.name, def.annotations)
}

function wireAnnotations (annotations: ToolAnnotations): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(annotations)) {
    if (value !== undefined) out[key === 'title' ? 'title' : HINTS.get(key)!] = value
  }
  return out
}

/** MCP Apps on a tool: its app and who calls it, checked; undefined when it uses neither. */
interface Apps {
  readonly ui: CompiledTool['ui']
  readonly visibility: readonly Visibility[]
}

function appsOf (def: ToolDefinition & { name: string }): Apps | undefined {
  // checked first, for every tool: a hand-written _meta.ui would reach every client, negotiated or not
  if (isObject(def.meta) && (def.meta.ui !== undefined || def.meta[META_UI_RESOURCE_URI] !== undefined)) {
    fail(def.name, "give the app as 'ui' and 'visibility', not in 'meta': they are sent only to clients that declared MCP Apps")
  }
  if (def.ui === undefined && def.visibility === undefined) return undefined
  const failHere = (message: string): never => fail(def.name, message)
  const visibility = visibilityOf(def.visibility, failHere)
  const ui: unknown = def.ui
  if (ui === undefined) return { ui: undefined, visibility }
  if (typeof ui === 'string') {
    if (!isUiUri(ui)) fail(def.name, `'ui' must be the URI of a ui:// resource (registered with registerResource) or { uri, html } (the app in place), got ${JSON.stringify(ui)}`)
    return { ui: Object.freeze({ resourceUri: ui, inline: undefined }), visibility }
  }
  if (!isObject(ui)) fail(def.name, `'ui' must be the URI of a ui:// resource or { uri, html } (the app in place), got ${kind(ui)}`)
  const inline = Object.freeze(inlineUiResource(ui, failHere))
  return { ui: Object.freeze({ resourceUri: inline.uri as string, inline }), visibility }
}

/**
 * The tool's `Tool` objects with MCP Apps' `_meta.ui` (the extension's `{ resourceUri, visibility }`,
 * and the deprecated flat `ui/resourceUri` older hosts read), derived from the plain ones.
 */
function withApps (wire: CompiledTool['wire'], apps: Apps): CompiledTool['wire'] {
  const ui: Record<string, unknown> = {}
  if (apps.ui !== undefined) ui.resourceUri = apps.ui.resourceUri
  ui.visibility = apps.visibility
  const meta: Record<string, unknown> = { ...(wire.modern._meta as Record<string, unknown> | undefined), ui }
  if (apps.ui !== undefined) meta[META_UI_RESOURCE_URI] = apps.ui.resourceUri
  return deepFreeze({ modern: { ...wire.modern, _meta: meta }, legacy: { ...wire.legacy, _meta: meta } })
}

/** The `Tool` objects of `tools/list`: the modern one, and the legacy one derived from it. */
function wireOf (def: ToolDefinition, inputSchema: Record<string, unknown>, outputSchema: Record<string, unknown> | undefined, task: TaskSupport | undefined): CompiledTool['wire'] {
  const modern: Record<string, unknown> = { name: def.name }
  if (def.title !== undefined) modern.title = def.title
  if (def.description !== undefined) modern.description = def.description
  if (def.icons !== undefined) modern.icons = plain(def.name, "'icons'", def.icons)
  modern.inputSchema = inputSchema
  if (outputSchema !== undefined) modern.outputSchema = outputSchema
  if (def.annotations !== undefined) modern.annotations = wireAnnotations(def.annotations)
  if (def.meta !== undefined) modern._meta = plain(def.name, "'meta'", def.meta)

  // a 2025 outputSchema must have an object root: legacy clients get no schema rather than a wrong one
  const legacy = { ...modern }
  if (outputSchema !== undefined && outputSchema.type !== 'object') delete legacy.outputSchema
  // 2025-11-25 tasks are requester-driven: the client must know which tools take `params.task`
  if (task !== undefined) legacy.execution = { taskSupport: task }
  return deepFreeze({ modern, legacy })
}

/**
 * Checks a definition and compiles it. Throws `SakeToolDefinitionError` or
 * `SakeHeaderDefinitionError` with a message naming the tool and what to change. `scopes`: the
 * declared scopes its `scope` must come from.
 */
export function compileTool (def: ToolDefinition, scopes: ReadonlyMap<string, string> = NO_SCOPES): CompiledTool {
  if (!isObject(def)) throw new SakeToolDefinitionError(`a tool definition must be an object, got ${kind(def)}`)
  checkName(def)
  // unknown keys first: a misspelt 'execute' is better reported as the typo than as missing
  checkKnownKeys(def as unknown as Record<string, unknown>, KNOWN_KEYS, (message) => fail(def.name, message))
  if (typeof def.execute !== 'function') fail(def.name, `'execute' must be a function (args, ctx) => result, got ${kind(def.execute)}`)
  if (def.prepare !== undefined && typeof def.prepare !== 'function') fail(def.name, `'prepare' must be a function (args, ctx) => arguments for execute, got ${kind(def.prepare)}`)
  if (def.complete !== undefined && typeof def.complete !== 'function') fail(def.name, `'complete' must be a function (arg, partial, ctx) => values, got ${kind(def.complete)}`)
  checkOptional(def)
  const task = taskOf(def)
  const apps = appsOf(def)

  const { schema: inputSchema, headers } = extractHeaders(def.name, inputSchemaOf(def))
  const outputSchema = outputSchemaOf(def)

  let validate: ValidateFunction
  let validateOutput: ValidateFunction | undefined
  try {
    validate = compile(inputSchema)
  } catch (err) {
    fail(def.name, `its input schema does not compile: ${(err as Error).message}`)
  }
  try {
    validateOutput = outputSchema === undefined ? undefined : compile(outputSchema)
  } catch (err) {
    fail(def.name, `its output schema does not compile: ${(err as Error).message}`)
  }

  const plainWire = wireOf(def, inputSchema, outputSchema, task)
  const appOnly = apps !== undefined && !apps.visibility.includes('model')
  return Object.freeze({
    kind: 'tool' as const,
    name: def.name,
    definition: def,
    // `wire` is the tool as a client with MCP Apps sees it; `withoutApps` as any other client does
    wire: apps === undefined ? plainWire : withApps(plainWire, apps),
    withoutApps: apps === undefined ? undefined : appOnly ? null : plainWire,
    ui: apps?.ui,
    appOnly,
    validate,
    arguments: Object.freeze(isObject(inputSchema.properties) ? Object.keys(inputSchema.properties) : []),
    validateOutput,
    objectOutput: outputSchema === undefined || outputSchema.type === 'object',
    headers: Object.freeze(headers),
    ttl: def.ttl,
    stream: def.stream === true,
    logBindings: Object.freeze({ tool: def.name }),
    // last: a scope that is not declared is refused once the rest of the definition is known good
    access: requirementOf(def, scopes, (message) => fail(def.name, message)),
    config: def.config,
    task
  })
}

/**
 * Declares a tool in its own module, typed like `registerTool`'s argument.
 * @example
 * export const add = defineTool({
 *   name: 'add',
 *   args: { a: Type.Number(), b: Type.Number() },
 *   execute: ({ a, b }) => a + b
 * })
 */
export function defineTool<const A extends TProperties = {}, const O extends OutputSpec | undefined = undefined, P = Static<TObject<A>>> (def: ArgsToolDefinition<A, O, P>): DefinedTool
export function defineTool<I extends TSchema, const O extends OutputSpec | undefined = undefined, P = Static<I>> (def: SchemaToolDefinition<I, O, P>): DefinedTool
export function defineTool<const O extends OutputSpec | undefined = undefined, P = Record<string, unknown>> (def: JsonSchemaToolDefinition<O, P>): DefinedTool
export function defineTool (def: ToolDefinition): DefinedTool {
  return def as DefinedTool
}

/** Tool argument for a string restricted to a list of values, typed as their union. */
export function StringEnum<const T extends readonly string[]> (values: T, options: Record<string, unknown> = {}): ReturnType<typeof Type.Unsafe<T[number]>> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] })
}
