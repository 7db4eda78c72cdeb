/**
 * A tool as the server keeps it: a definition (`tool-definition.ts`) checked at registration and
 * compiled once into what the server calls (wire JSON, validators and header rules).
 */
import type { ValidateFunction } from 'ajv'
import { SakeToolDefinitionError } from '../errors.js'
import type { Era } from '../spec/eras.js'
import { deepFreeze, isObject, kind, plain as plainCopy } from '../values.js'
import { ACCEPTED, isOptional, jsonSchemaOf, schemaKind, standardOf, type StandardParts, type StandardProps } from './schemas.js'
import { compile } from './ajv.js'
import { extractHeaders, type HeaderParam } from './header-params.js'
import type { McpConfig } from './config.js'
import { checkCommonFields, checkKnownKeys } from './common-fields.js'
import { requirementOf, type Requirement } from './requirement.js'
import { META_UI_RESOURCE_URI } from '../spec/apps.js'
import { inlineUiResource, isUiUri, visibilityOf, type Visibility } from './apps.js'
import type { ToolAnnotations, ToolDefinition } from './tool-definition.js'

/** A tool as the server keeps it: checked, compiled, and ready to list and call. */
export interface CompiledTool {
  readonly kind: 'tool'
  readonly name: string
  readonly definition: ToolDefinition
  /** The `Tool` object of `tools/list`, per era. */
  readonly wire: Readonly<Record<Era, Record<string, unknown>>>
  /** ajv's check of the arguments: all of them, but the Standard Schema ones, which `standard` checks. */
  readonly validate: ValidateFunction
  /** The arguments a Standard Schema checks (its library's `validate`, after ajv); undefined: none. */
  readonly standard: StandardParts | undefined
  /** The argument names: the input schema's top-level properties, in order (what `complete` completes). */
  readonly arguments: readonly string[]
  /** ajv's check of the output (TypeBox, plain JSON Schema); undefined for none, or a Standard Schema's. */
  readonly validateOutput: ValidateFunction | undefined
  /** The output's Standard Schema, whose library checks results; undefined for none, or ajv's. */
  readonly standardOutput: StandardParts | undefined
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

/**
 * A schema of a tool, as clients see it (`wire`) and as ajv checks it (`checked`: the parts a
 * Standard Schema's library checks are left open to ajv), with those Standard Schemas.
 */
interface Compiled {
  readonly wire: Record<string, unknown>
  readonly checked: Record<string, unknown>
  readonly standard: StandardParts | undefined
}

/** The JSON Schema of a schema of any kind; a refusal names the tool and `what` (`argument 'a'`). */
function exported (name: unknown, what: string, value: unknown, side: 'input' | 'output'): Record<string, unknown> {
  return jsonSchemaOf(value, side, (message) => fail(name, `${what} ${message}`))
}

function standardAt (name: unknown, what: string, value: unknown): StandardProps {
  return standardOf(value, (message) => fail(name, `${what} ${message}`))
}

/**
 * The object schema of a map of schemas (`args`, an `output` by property): what TypeBox 0.34's
 * `Type.Object` would make when they are all its schemas (as before), else built from each one's JSON.
 * `closed`: unknown properties refused (arguments; a misspelt optional one is reported, not ignored).
 */
function objectOf (name: unknown, noun: string, map: Record<string, unknown>, side: 'input' | 'output', closed: boolean): Compiled {
  // an object literal, not a spread of options: V8 gives every object spread that way a hidden
  // class of its own (measured: 10,000 tools, some 2 MB of them, issue 41)
  const objectSchema = (): Record<string, unknown> => closed ? { additionalProperties: false, type: 'object' } : { type: 'object' }
  const kinds = Object.entries(map).map(([key, value]) => {
    const found = schemaKind(value)
    if (found === undefined) {
      fail(name, `${noun} '${key}' must be ${ACCEPTED}, got ${isObject(value) ? `a plain object${side === 'input' ? " (a plain JSON Schema goes whole, as 'input')" : ' (a plain JSON Schema goes as Type.Unsafe(schema))'}` : kind(value)}`)
    }
    return found
  })
  if (kinds.every((found) => found === 'typebox')) {
    // what Type.Object would make, without its deep clone of every property: one JSON copy of the
    // map (TypeBox's symbols left behind), `required` from the Optional marks
    const properties = plain(name, `'${side === 'input' ? 'args' : 'output'}'`, map)
    const required = Object.keys(map).filter((key) => !isOptional(map[key]))
    const wire = objectSchema()
    // slice: a copy of exactly its length (filter's array keeps room to grow: 120 B a tool, kept for ever)
    if (required.length > 0) wire.required = required.slice()
    wire.properties = properties
    return { wire, checked: wire, standard: undefined }
  }
  const properties: Record<string, unknown> = {}
  const checked: Record<string, unknown> = {}
  const required: string[] = []
  const standard: Array<readonly [string, StandardProps]> = []
  for (const [key, value] of Object.entries(map)) {
    const what = `${noun} '${key}'`
    const property = asProperty(key, exported(name, what, value, side))
    properties[key] = property
    if (schemaKind(value) === 'standard') {
      standard.push([key, standardAt(name, what, value)])
      checked[key] = {} // its library checks it, after ajv
    } else {
      checked[key] = property
    }
    if (!isOptional(value)) required.push(key)
  }
  const shape = (props: Record<string, unknown>): Record<string, unknown> => {
    // the key order of TypeBox's Type.Object, so a mixed map lists as an all-TypeBox one does
    const schema = objectSchema()
    if (required.length > 0) schema.required = required.slice() // exactly its length, as above
    schema.properties = props
    return schema
  }
  return { wire: shape(properties), checked: shape(checked), standard: standard.length === 0 ? undefined : { whole: undefined, props: standard } }
}

/**
 * A schema placed under an object as its property `key`: its `$schema` goes (only a root has one),
 * and its own references (`#`, `#/$defs/X`: a recursive Zod schema's) now start at that property.
 */
function asProperty (key: string, schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema
  const base = '#/properties/' + encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'))
  const rebase = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rebase)
    if (!isObject(node)) return node
    const out: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(node)) {
      out[name] = name === '$ref' && typeof value === 'string' && value.startsWith('#') ? base + value.slice(1) : rebase(value)
    }
    return out
  }
  return rebase(rest) as Record<string, unknown>
}

/** One whole schema (`input`, `output`): its JSON, and its Standard Schema when its library checks it. */
function wholeOf (name: unknown, what: string, value: unknown, side: 'input' | 'output'): Compiled {
  const wire = exported(name, what, value, side)
  if (schemaKind(value) !== 'standard') return { wire, checked: wire, standard: undefined }
  // ajv checks nothing but the kind of value the export promises; its library checks the rest
  return { wire, checked: side === 'input' ? { type: 'object' } : {}, standard: { whole: standardAt(name, what, value), props: [] } }
}

function inputOf (def: ToolDefinition): Compiled {
  if (def.args !== undefined && def.input !== undefined) fail(def.name, "give either 'args' (a map of argument names to schemas) or 'input' (one whole schema), not both")
  const input: unknown = def.input
  if (input !== undefined) {
    if (schemaKind(input) === undefined && !isObject(input)) fail(def.name, `'input' must be ${ACCEPTED}, or a plain JSON Schema object; got ${kind(input)}`)
    const compiled = schemaKind(input) === undefined
      ? { wire: plain(def.name, "'input'", input as Record<string, unknown>), checked: undefined, standard: undefined }
      : wholeOf(def.name, "'input'", input, 'input')
    const type = compiled.wire.type
    if (type !== 'object') fail(def.name, `'input' must be an object schema (type: "object"), got type ${JSON.stringify(type ?? 'unspecified')}`)
    return { wire: compiled.wire, checked: compiled.checked ?? compiled.wire, standard: compiled.standard }
  }
  const args: unknown = def.args ?? {}
  if (!isObject(args) || schemaKind(args) !== undefined) fail(def.name, "'args' must be a map of argument names to schemas, e.g. { a: Type.Number() } or { a: z.number() }; use 'input' for a whole schema")
  return objectOf(def.name, 'argument', args, 'input', true)
}

function outputOf (def: ToolDefinition): Compiled | undefined {
  const output: unknown = def.output
  if (output === undefined) return undefined
  if (schemaKind(output) !== undefined) return wholeOf(def.name, "'output'", output, 'output')
  if (!isObject(output)) fail(def.name, `'output' must be a map of property names to schemas, or one whole schema (${ACCEPTED}); got ${kind(output)}`)
  // a property map never has a string under 'type': this is a plain JSON Schema, which TypeBox wraps
  if (typeof output.type === 'string' || typeof output.$schema === 'string') {
    fail(def.name, "'output' is a plain JSON Schema; wrap it as Type.Unsafe(schema), or give a map of property names to schemas")
  }
  return objectOf(def.name, 'output property', output, 'output', false)
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
  // Object.assign, not a spread: V8 gives each object spread from another a hidden class of its own
  const legacy: Record<string, unknown> = Object.assign({}, modern)
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

  const input = inputOf(def)
  const { schema: inputSchema, headers } = extractHeaders(def.name, input.wire)
  const output = outputOf(def)
  const outputSchema = output?.wire

  let validate: ValidateFunction
  let validateOutput: ValidateFunction | undefined
  try {
    validate = compile(input.checked === input.wire ? inputSchema : input.checked)
  } catch (err) {
    fail(def.name, `its input schema does not compile: ${(err as Error).message}`)
  }
  try {
    validateOutput = output === undefined ? undefined : compile(output.checked)
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
    standard: input.standard,
    arguments: Object.freeze(isObject(inputSchema.properties) ? Object.keys(inputSchema.properties) : []),
    validateOutput,
    standardOutput: output?.standard,
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
