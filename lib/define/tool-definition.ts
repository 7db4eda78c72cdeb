/**
 * Tool definitions as users write them: the typed shapes `registerTool` and `defineTool` take, with
 * each schema library's inference (`define/schemas.ts`). What the server makes of one is
 * `tool.ts`'s.
 */
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox'
import type { AnySchema, MapInput, MapOutput, SchemaInput, SchemaMap, SchemaOutput } from './schemas.js'
import type { Icon } from './content.js'
import type { McpConfig } from './config.js'
import type { ToolErrorResult, WithMeta, WithText } from './result.js'
import type { CompletionContext, ToolContext } from './handler-context.js'
import type { CompletionReturn } from './resource.js'
import type { Authentication, ScopeRequirement } from './requirement.js'
import type { InlineUi, Visibility } from './apps.js'

/** Advisory hints for clients (the spec's `*Hint` fields); never enforced by the server. */
export interface ToolAnnotations {
  title?: string
  readOnly?: boolean
  destructive?: boolean
  idempotent?: boolean
  openWorld?: boolean
}

/** `output` is either a map of properties (like `args`) or one whole schema, of any library `args` takes. */
export type OutputSpec = SchemaMap | AnySchema

/** The TypeScript type of a tool's output: what its schema accepts. */
export type OutputOf<O> = O extends AnySchema ? SchemaInput<O> : O extends SchemaMap ? MapInput<O> : unknown

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

/** The argument names of a whole input schema: its properties' for a TypeBox object or a typed Standard Schema, else any string. */
export type ArgumentName<I> = I extends TObject<infer P>
  ? Extract<keyof P, string>
  : SchemaInput<I> extends infer In ? (unknown extends In ? string : In extends Record<string, unknown> ? Extract<keyof In, string> : string) : string

/**
 * What `execute` receives for `args`: TypeBox 0.34's own `Static` for a map of its schemas (as
 * before), else each argument as its library gives it back (a Zod transform's output).
 */
export type ArgsOf<A> = A extends TProperties ? Static<TObject<A>> : MapOutput<A>

/**
 * `prepare(args, ctx)` (optional) runs before `execute` in the request itself and returns the
 * arguments `execute` receives, typed by what it returns. It may ask the client (`ctx.elicit`):
 * the place for a question whose answer decides whether the work starts at all.
 */
interface Preparing<In, P> {
  prepare? (args: In, ctx: ToolContext): Prepared<P> | Promise<Prepared<P>>
}

/** A tool whose arguments are a map of schemas (TypeBox, Zod, Valibot, ArkType…, mixed as you like); `execute` gets them typed. */
export interface ArgsToolDefinition<A extends SchemaMap, O extends OutputSpec | undefined, P = ArgsOf<A>> extends ToolBase<O>, Preparing<ArgsOf<A>, P>, Completing<Extract<keyof A, string>> {
  args?: A
  input?: undefined
  execute (args: P, ctx: ToolContext): ToolReturn<O> | Promise<ToolReturn<O>>
}

/** A tool whose whole input schema is one schema of any library `args` takes (Sake's `input_schema`). */
export interface SchemaToolDefinition<I extends AnySchema, O extends OutputSpec | undefined, P = SchemaOutput<I>> extends ToolBase<O>, Preparing<SchemaOutput<I>, P>, Completing<ArgumentName<I>> {
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
  args?: SchemaMap
  input?: AnySchema | Record<string, unknown>
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

/**
 * Declares a tool in its own module, typed like `registerTool`'s argument.
 * @example
 * export const add = defineTool({
 *   name: 'add',
 *   args: { a: Type.Number(), b: Type.Number() },
 *   execute: ({ a, b }) => a + b
 * })
 */
export function defineTool<const A extends SchemaMap = {}, const O extends OutputSpec | undefined = undefined, P = ArgsOf<A>> (def: ArgsToolDefinition<A, O, P>): DefinedTool
export function defineTool<I extends AnySchema, const O extends OutputSpec | undefined = undefined, P = SchemaOutput<I>> (def: SchemaToolDefinition<I, O, P>): DefinedTool
export function defineTool<const O extends OutputSpec | undefined = undefined, P = Record<string, unknown>> (def: JsonSchemaToolDefinition<O, P>): DefinedTool
export function defineTool (def: ToolDefinition): DefinedTool {
  return def as DefinedTool
}

/** Tool argument for a string restricted to a list of values, typed as their union. */
export function StringEnum<const T extends readonly string[]> (values: T, options: Record<string, unknown> = {}): ReturnType<typeof Type.Unsafe<T[number]>> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] })
}
