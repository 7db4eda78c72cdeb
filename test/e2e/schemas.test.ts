// Schemas of every library served to real clients over a real port (issue 41): for TypeBox 0.34,
// TypeBox 1.x, Zod 4, Valibot (with its JSON Schema export) and ArkType, a tool per form (per
// argument, whole input, whole output) listed with the right JSON types, called by the official
// SDK v2 client (2026-07-28) and SDK v1 client (a 2025-11-25 session): a good call answers with
// structured content the client's own output-schema check accepts, a bad argument is a tool error
// that never reaches execute, and a result that does not match its output schema is an error.
import t from 'tap'
import { Type } from '../../lib/index.js'
import Type1 from 'typebox'
import * as z from 'zod'
import * as v from 'valibot'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import { build, listen } from '../helpers/app.js'
import { legacyClient, modernClient } from '../helpers/clients.js'

const KINDS = {
  typebox: { num: Type.Number(), str: Type.String(), obj: (p: any) => Type.Object(p), opt: Type.Optional(Type.String()) },
  typebox1: { num: Type1.Number(), str: Type1.String(), obj: (p: any) => Type1.Object(p), opt: Type1.Optional(Type1.String()) },
  zod: { num: z.number(), str: z.string(), obj: (p: any) => z.object(p), opt: z.string().optional() },
  valibot: { num: toStandardJsonSchema(v.number()), str: toStandardJsonSchema(v.string()), obj: (p: any) => toStandardJsonSchema(v.object(Object.fromEntries(Object.entries(p).map(([k]) => [k, k === 'sum' || k === 'a' || k === 'b' ? v.number() : v.string()])))), opt: toStandardJsonSchema(v.optional(v.string())) },
  arktype: { num: type('number'), str: type('string'), obj: (p: any) => type(Object.fromEntries(Object.entries(p).map(([k]) => [k, k === 'sum' || k === 'a' || k === 'b' ? 'number' : 'string']))), opt: type('string') }
} as const

t.test('every kind, every form, both SDK clients', async (t) => {
  const app = await build()
  const executed: string[] = []
  for (const [kind, s] of Object.entries(KINDS)) {
    app.registerTool({
      name: `${kind}_args`,
      args: { a: s.num, b: s.num, label: s.opt },
      output: { sum: s.num },
      execute: ({ a, b }: any) => { executed.push(`${kind}_args`); return a === 13 ? { sum: 'thirteen' } : { sum: a + b } }
    } as never)
    app.registerTool({
      name: `${kind}_whole`,
      input: s.obj({ a: s.num, b: s.num }),
      output: s.obj({ sum: s.num }),
      execute: ({ a, b }: any) => { executed.push(`${kind}_whole`); return a === 13 ? { sum: 'thirteen' } : { sum: a + b } }
    } as never)
  }
  const url = new URL(await listen(t, app))
  const modern = (await modernClient(t, url, { name: 'v2', version: '1' })).client
  const legacy = (await legacyClient(t, url, { name: 'v1', version: '1' }, { terminate: true })).client
  for (const [era, client] of [['2026-07-28', modern], ['2025-11-25', legacy]] as const) {
    const { tools } = await client.listTools()
    for (const kind of Object.keys(KINDS)) {
      const args = tools.find((tool) => tool.name === `${kind}_args`)!
      t.same((args.inputSchema.properties as any).a.type, 'number', `${era} ${kind}: listed per argument`)
      t.same(args.inputSchema.required, kind === 'arktype' ? ['a', 'b', 'label'] : ['a', 'b'], `${era} ${kind}: required as declared`)
      t.same((args.outputSchema!.properties as any).sum.type, 'number')
      const whole = tools.find((tool) => tool.name === `${kind}_whole`)!
      t.same(Object.keys(whole.inputSchema.properties!).sort(), ['a', 'b'], `${era} ${kind}: whole input listed`)
      t.same((whole.outputSchema!.properties as any).sum.type, 'number', `${era} ${kind}: whole output listed`)

      for (const form of ['args', 'whole']) {
        const name = `${kind}_${form}`
        const extra = form === 'args' && kind === 'arktype' ? { label: 'x' } : {}
        const good = await client.callTool({ name, arguments: { a: 1, b: 2, ...extra } })
        t.same(good.structuredContent, { sum: 3 }, `${era} ${name}: answered, and the client's own check of the output passed`)
        executed.length = 0
        const bad = await client.callTool({ name, arguments: { a: 'one', b: 2, ...extra } })
        t.equal(bad.isError, true, `${era} ${name}: a bad argument is a tool error`)
        t.match((bad.content as any)[0].text, new RegExp(`^Invalid arguments for tool '${name}': .*'a'`))
        t.same(executed, [], `${era} ${name}: execute never ran`)
        const wrong = await client.callTool({ name, arguments: { a: 13, b: 0, ...extra } })
        t.equal(wrong.isError, true, `${era} ${name}: a result that does not match is an error`)
        t.notOk(wrong.structuredContent, 'not data')
      }
    }
  }
})
