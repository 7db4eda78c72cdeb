// Type tests for schemas of every library (issue 41): `execute`'s arguments and the output's type
// are inferred from TypeBox 0.34, TypeBox 1.x, Zod 4, Valibot (with its JSON Schema export) and
// ArkType, per argument (mixed kinds in one map included), as a whole input, and as the output.
// Each `@ts-expect-error` must stay an error: an argument that became `any` would leave it unused.
import Fastify from 'fastify'
import sake, { Type, defineTool, type ToolContext } from 'fastify-sake'
import Type1 from 'typebox'
import * as z from 'zod'
import * as v from 'valibot'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'

/** Fails to compile unless T is exactly Expected. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
function expectType<Expected> () {
  return <T>(value: T & (Equal<T, Expected> extends true ? unknown : never)): void => { void value }
}

const app = Fastify()
await app.register(sake, { name: 'types', version: '1.0.0' })

// ---- per argument, each kind, optional ones optional
app.registerTool({
  name: 'tb1',
  args: { a: Type1.Number(), b: Type1.Optional(Type1.String()), tags: Type1.Array(Type1.String()) },
  execute (args) {
    expectType<{ a: number, b?: string, tags: string[] }>()(args)
    // @ts-expect-error a is a number
    const wrong: string = args.a
    return String(wrong)
  }
})

app.registerTool({
  name: 'zod',
  args: { a: z.number(), b: z.string().optional(), n: z.string().transform((s) => s.length), d: z.number().default(1) },
  execute (args) {
    // what execute gets is each library's output: the transform's number, the default filled in
    expectType<{ a: number, b?: string | undefined, n: number, d: number }>()(args)
    return ''
  }
})

app.registerTool({
  name: 'valibot',
  args: { a: toStandardJsonSchema(v.number()), b: toStandardJsonSchema(v.optional(v.string())) },
  execute (args) {
    expectType<{ a: number, b?: string | undefined }>()(args)
    return ''
  }
})

app.registerTool({
  name: 'ark',
  args: { a: type('number'), s: type('string') },
  execute (args) {
    expectType<{ a: number, s: string }>()(args)
    return ''
  }
})

// ---- mixed kinds in one map
app.registerTool({
  name: 'mixed',
  args: { a: Type.Number(), b: Type1.String(), c: z.boolean(), d: type('string[]'), e: Type.Optional(Type.Integer()), f: z.string().optional() },
  execute (args, ctx) {
    expectType<{ a: number, b: string, c: boolean, d: string[], e?: number, f?: string | undefined }>()(args)
    expectType<ToolContext>()(ctx)
    // @ts-expect-error c is a boolean
    const wrong: number = args.c
    return String(wrong)
  }
})

// ---- a whole input of each kind
app.registerTool({ name: 'whole_tb1', input: Type1.Object({ a: Type1.Number() }), execute: (args) => { expectType<{ a: number }>()(args); return '' } })
app.registerTool({ name: 'whole_zod', input: z.object({ n: z.string().transform(Number) }), execute: (args) => { expectType<{ n: number }>()(args); return '' } })
app.registerTool({ name: 'whole_valibot', input: toStandardJsonSchema(v.object({ a: v.string() })), execute: (args) => { expectType<{ a: string }>()(args); return '' } })
app.registerTool({ name: 'whole_ark', input: type({ a: 'number', 'b?': 'string' }), execute: (args) => { expectType<{ a: number, b?: string }>()(args); return '' } })

// ---- the output's type: what execute may return is what the schema accepts
app.registerTool({ name: 'out_zod', output: z.object({ sum: z.number() }), execute: () => ({ sum: 1 }) })
// @ts-expect-error sum must be a number
app.registerTool({ name: 'out_zod_bad', output: z.object({ sum: z.number() }), execute: () => ({ sum: 'one' }) })
app.registerTool({ name: 'out_map', output: { sum: z.number(), label: Type1.String() }, execute: () => ({ sum: 1, label: 'x' }) })
// @ts-expect-error label must be a string
app.registerTool({ name: 'out_map_bad', output: { sum: z.number(), label: Type1.String() }, execute: () => ({ sum: 1, label: 2 }) })
app.registerTool({ name: 'out_tb1', output: Type1.Object({ ok: Type1.Boolean() }), execute: () => ({ ok: true }) })
// @ts-expect-error ok must be a boolean
app.registerTool({ name: 'out_tb1_bad', output: Type1.Object({ ok: Type1.Boolean() }), execute: () => ({ ok: 'yes' }) })
app.registerTool({ name: 'out_ark', output: type({ n: 'number' }), execute: () => ({ n: 1 }) })
// @ts-expect-error n must be a number
app.registerTool({ name: 'out_ark_bad', output: type({ n: 'number' }), execute: () => ({ n: '1' }) })

// ---- defineTool infers the same
export const defined = defineTool({
  name: 'defined',
  args: { q: z.string(), limit: Type1.Optional(Type1.Integer()) },
  execute (args) {
    expectType<{ q: string, limit?: number }>()(args)
    return ''
  }
})
app.registerTool([defined])

// ---- prepare sees the checked arguments (a transform's output)
app.registerTool({
  name: 'prepared',
  args: { n: z.string().transform((s) => s.length) },
  prepare: (args) => { expectType<{ n: number }>()(args); return { doubled: args.n * 2 } },
  execute: (args) => { expectType<{ doubled: number }>()(args); return '' }
})

// ---- complete's argument names come from the map
app.registerTool({
  name: 'completing',
  args: { city: z.string(), zip: Type1.String() },
  complete (arg) { expectType<'city' | 'zip'>()(arg); return [] },
  execute: () => ''
})

// ---- prompt arguments of each kind
app.registerPrompt({
  name: 'prompt_kinds',
  args: { code: z.string(), lang: z.string().optional(), style: Type1.String(), tone: Type1.Optional(Type1.String()), size: Type.String() },
  get (args) {
    expectType<{ code: string, lang?: string | undefined, style: string, tone?: string, size: string }>()(args)
    return args.code
  }
})
// @ts-expect-error prompt arguments are strings
app.registerPrompt({ name: 'prompt_number', args: { n: z.number() }, get: () => '' })
