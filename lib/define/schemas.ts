/**
 * The schema libraries a definition may use, told apart: TypeBox 0.34 (`@sinclair/typebox`),
 * TypeBox 1.x (`typebox`), and any Standard Schema that also exports JSON Schema (Zod 4, ArkType,
 * Valibot through `toStandardJsonSchema`). For each: the JSON Schema clients see, and how a value is
 * checked. TypeBox schemas are JSON Schema already, so ajv checks them; a Standard Schema is checked
 * by its own library (`~standard.validate`), so a refinement or a transform means what it means there.
 */
import type { Static as Static034, TOptional as TOptional034, TSchema as TSchema034 } from '@sinclair/typebox'
import { isThenable, isTypeBox, kind, plain } from '../values.js'

/**
 * The Standard Schema interfaces (standardschema.dev), as their authors ask libraries to copy them
 * rather than depend on a package: Standard Schema v1 (`validate`) and Standard JSON Schema v1
 * (`jsonSchema`), shapes and option types as published, so every library's schemas fit them.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>
}

export declare namespace StandardSchemaV1 {
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown, options?: Options | undefined) => Result<Output> | Promise<Result<Output>>
    readonly types?: Types<Input, Output> | undefined
  }
  export interface Options { readonly libraryOptions?: Record<string, unknown> | undefined }
  export type Result<Output> = SuccessResult<Output> | FailureResult
  export interface SuccessResult<Output> { readonly value: Output, readonly issues?: undefined }
  export interface FailureResult { readonly issues: readonly Issue[] }
  export interface Issue {
    readonly message: string
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined
  }
  export interface PathSegment { readonly key: PropertyKey }
  export interface Types<Input = unknown, Output = Input> { readonly input: Input, readonly output: Output }
}

/** A Standard Schema that also exports JSON Schema (Standard JSON Schema v1's `jsonSchema`). */
export interface StandardJsonSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output> & { readonly jsonSchema: StandardJsonSchemaV1.Converter }
}

export declare namespace StandardJsonSchemaV1 {
  export interface Converter {
    readonly input: (options: Options) => Record<string, unknown>
    readonly output: (options: Options) => Record<string, unknown>
  }
  export type Target = 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | ({} & string)
  export interface Options {
    readonly target: Target
    readonly libraryOptions?: Record<string, unknown> | undefined
  }
}

/** A TypeBox 1.x schema, as its types mark one (`'~kind'`). */
export interface TypeBox1Schema { readonly '~kind': string }

/**
 * TypeBox 1.x's static type for the kinds arguments and outputs are made of, read from the schema's
 * own type; another kind is `unknown`. Not `Static` from 'typebox': importing its types made a
 * user's compiler load some 350 more files (a small project's `tsc` with `skipLibCheck: false` went
 * from 18 s to 60 s and 1.2 GB), TypeBox 1.x user or not.
 */
export type TypeBox1Static<S> =
  S extends { readonly '~kind': 'String' } ? string
    : S extends { readonly '~kind': 'Number' | 'Integer' } ? number
      : S extends { readonly '~kind': 'Boolean' } ? boolean
        : S extends { readonly '~kind': 'Null' } ? null
          : S extends { readonly '~kind': 'Literal', readonly const: infer C } ? C
            : S extends { readonly '~kind': 'Enum', readonly enum: ReadonlyArray<infer E> } ? E
              : S extends { readonly '~kind': 'Array', readonly items: infer I } ? Array<TypeBox1Static<I>>
                : S extends { readonly '~kind': 'Tuple', readonly items: infer T extends readonly unknown[] } ? { -readonly [K in keyof T]: TypeBox1Static<T[K]> }
                  : S extends { readonly '~kind': 'Union', readonly anyOf: ReadonlyArray<infer U> } ? (U extends unknown ? TypeBox1Static<U> : never)
                    : S extends { readonly '~kind': 'Object', readonly properties: infer P } ? TypeBox1Object<P>
                      : S extends { readonly '~kind': 'Record', readonly patternProperties: infer R } ? Record<string, TypeBox1Static<R[keyof R]>>
                        : unknown

type TypeBox1OptionalKeys<P> = { [K in keyof P]: P[K] extends { readonly '~optional': true } ? K : never }[keyof P]
type TypeBox1Object<P> = Flatten<
  { [K in Exclude<keyof P, TypeBox1OptionalKeys<P>>]: TypeBox1Static<P[K]> } &
  { [K in TypeBox1OptionalKeys<P>]?: TypeBox1Static<P[K]> }
>

/** Any schema a definition may give: TypeBox 0.34 or 1.x, or a Standard Schema with JSON Schema. */
export type AnySchema = TSchema034 | TypeBox1Schema | StandardJsonSchemaV1<any, any>

/** A map of names to schemas (a tool's `args`, an `output` given by property). */
export type SchemaMap = Record<string, AnySchema>

/** The type a schema accepts (Standard Schema's `InferInput`; a TypeBox schema's `Static`). */
export type SchemaInput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? (NonNullable<T> extends { readonly input: infer I } ? I : unknown)
  : S extends TSchema034 ? Static034<S>
    : S extends TypeBox1Schema ? TypeBox1Static<S>
      : unknown

/** The type a schema gives once it checked a value (Standard Schema's `InferOutput`: a transform's result). */
export type SchemaOutput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? (NonNullable<T> extends { readonly output: infer O } ? O : unknown)
  : S extends TSchema034 ? Static034<S>
    : S extends TypeBox1Schema ? TypeBox1Static<S>
      : unknown

/**
 * Whether a map entry may be left out: TypeBox's Optional, or a Standard Schema whose type on that
 * side takes undefined (a Zod default: optional in what a client sends, always there once checked).
 */
type IsOptional<S, Side extends 'input' | 'output'> = S extends TOptional034<TSchema034>
  ? true
  : S extends { readonly '~optional': true }
    ? true
    : S extends { readonly '~standard': unknown }
      ? (undefined extends (Side extends 'input' ? SchemaInput<S> : SchemaOutput<S>) ? true : false)
      : false

type OptionalKeys<M, Side extends 'input' | 'output'> = { [K in keyof M]: IsOptional<M[K], Side> extends true ? K : never }[keyof M]
type Flatten<T> = { [K in keyof T]: T[K] } & {}
type Of<S, Side extends 'input' | 'output'> = Side extends 'input' ? SchemaInput<S> : SchemaOutput<S>

/** The object a map of schemas describes, on one side of the check (what is sent, or what comes out). */
type ObjectOf<M, Side extends 'input' | 'output'> = Flatten<
  { [K in Exclude<keyof M, OptionalKeys<M, Side>>]: Of<M[K], Side> } &
  { [K in OptionalKeys<M, Side>]?: Of<M[K], Side> }
>

/** What `execute` receives for a map of argument schemas (after each library checked its argument). */
export type MapOutput<M> = ObjectOf<M, 'output'>
/** What a map of schemas accepts (a tool's output given by property). */
export type MapInput<M> = ObjectOf<M, 'input'>

/** How a schema value was made. */
export type SchemaKind = 'typebox' | 'typebox-1' | 'standard'

const TARGET = { target: 'draft-2020-12' } as const

function standardProps (value: unknown): Record<string, unknown> | undefined {
  // ArkType's types are functions: a schema may be either
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined
  const props = (value as Record<string, unknown>)['~standard']
  return typeof props === 'object' && props !== null ? props as Record<string, unknown> : undefined
}

/** The library a schema comes from, or undefined for anything else (plain JSON Schema included). */
export function schemaKind (value: unknown): SchemaKind | undefined {
  if (standardProps(value) !== undefined) return 'standard'
  if (isTypeBox(value)) return 'typebox'
  // TypeBox 1.x marks its schemas with a non-enumerable '~kind', which JSON leaves out
  if (typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)['~kind'] === 'string') return 'typebox-1'
  return undefined
}

/** How to make a Standard Schema of each library export JSON Schema, for the refusal's message. */
function howToExport (vendor: unknown): string {
  switch (vendor) {
    case 'zod': return 'Zod 3 schemas (and zod/v3) cannot export JSON Schema: use Zod 4.2 or later (import * as z from \'zod\')'
    case 'valibot': return 'wrap the schema with toStandardJsonSchema(schema) from @valibot/to-json-schema'
    case 'arktype': return 'use ArkType 2.1.28 or later, whose types export JSON Schema'
    default: return 'its library must implement Standard JSON Schema (~standard.jsonSchema, standardschema.dev), or give a TypeBox or plain JSON Schema instead'
  }
}

/** What a definition may give where a schema goes, for refusals. */
export const ACCEPTED = 'a TypeBox schema (@sinclair/typebox or typebox), or a Standard Schema that exports JSON Schema (Zod 4, ArkType, Valibot through toStandardJsonSchema)'

/**
 * The Standard Schema of `value`, checked: its `validate` and JSON Schema export are there.
 * `fail` gets the reason otherwise (no validate, no JSON Schema: a Zod 3 schema).
 */
export function standardOf (value: unknown, fail: (message: string) => never): StandardJsonSchemaV1['~standard'] {
  const props = standardProps(value)!
  if (props.version !== 1 || typeof props.validate !== 'function') {
    fail(`has a '~standard' property that is not Standard Schema v1 (version 1 with a validate function); give ${ACCEPTED}`)
  }
  const json = props.jsonSchema as Record<string, unknown> | undefined
  if (typeof json !== 'object' || json === null || typeof json.input !== 'function' || typeof json.output !== 'function') {
    fail(`is a Standard Schema (${typeof props.vendor === 'string' ? props.vendor : 'unknown library'}) that does not export JSON Schema, which clients need to see it; ${howToExport(props.vendor)}`)
  }
  return props as unknown as StandardJsonSchemaV1['~standard']
}

/**
 * The JSON Schema clients see for a schema of any kind: TypeBox's own JSON (its symbol and
 * non-enumerable keys dropped), or the library's export of its input or output side, draft 2020-12.
 * `fail` gets the reason when it cannot be made (a Zod transform's output, a Date).
 */
export function jsonSchemaOf (value: unknown, side: 'input' | 'output', fail: (message: string) => never): Record<string, unknown> {
  let exported: unknown = value
  if (schemaKind(value) === 'standard') {
    const props = standardOf(value, fail)
    try {
      exported = props.jsonSchema[side](TARGET)
    } catch (err) {
      fail(`cannot be exported as JSON Schema (its ${side}): ${(err as Error).message}`)
    }
    if (typeof exported !== 'object' || exported === null || Array.isArray(exported)) fail(`exported as JSON Schema ${kind(exported)}, not an object`)
  }
  return plain(exported as Record<string, unknown>, (message) => fail(`cannot be sent as JSON: ${message}`))
}

/**
 * Whether a map entry may be left out: TypeBox's Optional, or a Standard Schema that accepts
 * `undefined` (its `validate`, asked once at registration; an async answer counts as no).
 */
export function isOptional (value: unknown): boolean {
  switch (schemaKind(value)) {
    case 'typebox': return (value as Record<symbol, unknown>)[Symbol.for('TypeBox.Optional')] === 'Optional'
    case 'typebox-1': return (value as Record<string, unknown>)['~optional'] === true
    case 'standard': {
      let result: unknown
      try {
        result = (value as StandardJsonSchemaV1)['~standard'].validate(undefined)
      } catch {
        return false
      }
      if (isThenable(result)) {
        Promise.resolve(result).catch(() => {}) // asked only to learn; its failure is no one's
        return false
      }
      return (result as StandardSchemaV1.Result<unknown>).issues === undefined
    }
    default: return false
  }
}

/** A path segment of an issue, as text. */
function segment (part: PropertyKey | StandardSchemaV1.PathSegment): string {
  return String(typeof part === 'object' && part !== null ? part.key : part)
}

/**
 * A library's issues as one sentence, in the words of ajv's (`messages.ts`): each names where (an
 * argument, or a property of the output) and gives the library's own message.
 */
export function explainIssues (issues: readonly StandardSchemaV1.Issue[], noun: string, prefix: readonly string[] = []): string {
  const phrases: string[] = []
  for (const issue of issues) {
    // Array.from, not map: ArkType's path is an Array subclass whose map makes another of its kind
    const path = [...prefix, ...Array.from(issue.path ?? [], segment)].join('.')
    const text = path === '' ? `the value: ${issue.message}` : `${noun} '${path}': ${issue.message}`
    if (!phrases.includes(text)) phrases.push(text)
  }
  const shown = phrases.slice(0, 8)
  const more = phrases.length - shown.length
  return shown.join('; ') + (more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : '')
}

/** What a library's check made of a value: the value it gives (a transform's), or why it refused. */
export type Checked = { readonly value: unknown, readonly problems?: undefined } | { readonly problems: string }

/** A Standard Schema's `~standard`, checked to export JSON Schema. */
export type StandardProps = StandardJsonSchemaV1['~standard']

/** The Standard Schemas of a tool's input or output: of the whole value, or of some of its properties. */
export interface StandardParts {
  readonly whole: StandardProps | undefined
  readonly props: ReadonlyArray<readonly [string, StandardProps]>
}

function settle<T> (results: ReadonlyArray<T | Promise<T>>, then: (settled: readonly T[]) => Checked): Checked | Promise<Checked> {
  return results.some(isThenable) ? Promise.all(results).then(then) : then(results as T[])
}

/**
 * Checks a value ajv already accepted (its shape, the TypeBox parts) with the libraries of its
 * Standard parts: the value as they give it back (each property its library's output: a Zod
 * transform's), or the problems, `noun` naming where (`argument`, `property`). Sync unless a
 * library answers with a promise (an async refinement); a library that throws, throws.
 */
export function checkStandard (parts: StandardParts, value: unknown, noun: string): Checked | Promise<Checked> {
  if (parts.whole !== undefined) {
    return settle([parts.whole.validate(value)], ([result]) => result!.issues === undefined
      ? { value: result!.value }
      : { problems: explainIssues(result!.issues, noun) })
  }
  // ajv checked it is an object before any property's library is asked
  const object = value as Record<string, unknown>
  const results = parts.props.map(([name, props]) => props.validate(object[name]))
  return settle(results, (settled) => {
    const problems: string[] = []
    const checked = { ...object }
    settled.forEach((result, i) => {
      const name = parts.props[i]![0]
      if (result.issues !== undefined) problems.push(explainIssues(result.issues, noun, [name]))
      else if (result.value !== undefined || Object.hasOwn(object, name)) checked[name] = result.value
    })
    return problems.length === 0 ? { value: checked } : { problems: problems.join('; ') }
  })
}
