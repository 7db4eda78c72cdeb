// Tool definitions through compileTool: every option of a plain tool, what reaches the wire, and
// every mistake refused at registration with SAKE_ERR_INVALID_TOOL and a message naming it.
// Also what each part of a definition becomes: `args`, a map of TypeBox properties, becomes the
// tool's inputSchema (closed, with `required` from the non-optional ones; every argument type and
// option of the seeds; defaults reach `execute`); `input`, a whole TypeBox or plain JSON Schema, is
// taken as written (its dialects and `$id` handling are in ajv.test.ts); `output`, a property map
// (like args) or one whole TypeBox schema, is sent as outputSchema and validates what execute
// returns, and legacy clients need an object root.
import t, { type Test } from 'tap'
import { Type } from '@sinclair/typebox'
import Type1 from 'typebox'
import * as z from 'zod'
import * as v from 'valibot'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import { compileTool } from '../../lib/define/tool.js'
import { StringEnum, type ToolDefinition } from '../../lib/define/tool-definition.js'
import { toolError } from '../../lib/define/result.js'
import { build } from '../helpers/app.js'
import { createClient } from '../../lib/client/index.js'

const execute = (): string => 'ok'

function tool (extra: Record<string, unknown> = {}): ToolDefinition {
  return { name: 'demo', execute, ...extra } as ToolDefinition
}

function refused (t: Test, def: unknown, message: RegExp, what?: string): void {
  t.throws(() => compileTool(def as ToolDefinition), { code: 'SAKE_ERR_INVALID_TOOL', name: 'SakeToolDefinitionError', message }, what ?? String(message))
}

t.test('name', async (t) => {
  t.test('accepts 1 to 128 characters of A-Z a-z 0-9 _ - .', async (t) => {
    for (const name of ['a', 'Z', '0', '_', '-', '.', 'get_user-v2.1', 'x'.repeat(128), 'ABCxyz019_.-']) {
      t.equal(compileTool(tool({ name })).name, name, `'${name.slice(0, 20)}'`)
    }
  })

  t.test('refuses anything else, naming the name and the rule', async (t) => {
    for (const name of ['', 'x'.repeat(129), 'has space', 'a/b', 'a:b', 'café', 'tab\there', 'new\nline', 'a,b', 'emoji🙂']) {
      refused(t, tool({ name }), new RegExp(`name ${escape(JSON.stringify(name))} is not allowed; a tool name is 1 to 128 characters`), JSON.stringify(name).slice(0, 20))
    }
  })

  t.test('a non-string name is named too', async (t) => {
    refused(t, tool({ name: 42 }), /^tool definition: name 42 is not allowed/)
    refused(t, tool({ name: null }), /^tool definition: name null is not allowed/)
  })

  t.test('a missing name says it is required', async (t) => {
    refused(t, { execute }, /^tool definition: 'name' is required/)
  })

  t.test('the message names the tool the way it was written', async (t) => {
    refused(t, tool({ name: 'bad name' }), /^tool 'bad name': name "bad name" is not allowed/)
  })
})

t.test('a definition that is not an object', async (t) => {
  refused(t, null, /^a tool definition must be an object, got null$/)
  refused(t, 'add', /^a tool definition must be an object, got string$/)
  refused(t, [tool()], /^a tool definition must be an object, got an array$/)
  refused(t, undefined, /got undefined$/)
})

t.test('execute', async (t) => {
  refused(t, { name: 'demo' }, /^tool 'demo': 'execute' must be a function \(args, ctx\) => result, got undefined$/)
  refused(t, { name: 'demo', execute: 'run' }, /'execute' must be a function .*got string$/)
  // a misspelt execute is reported as the typo, which is the thing to fix
  refused(t, { name: 'demo', exec: execute }, /^tool 'demo': unknown option 'exec'; known options are name, title, description, icons, annotations, meta, ttl, stream, args, input, output, prepare, execute, scope, authentication, config, task, ui, visibility, complete$/)
  t.equal(compileTool(tool()).definition.execute, execute, 'the definition is kept for calls')
  refused(t, tool({ prepare: { args: 1 } }), /^tool 'demo': 'prepare' must be a function \(args, ctx\) => arguments for execute, got object$/)
})

t.test('complete: a function, kept on the definition; the argument names it completes', async (t) => {
  refused(t, tool({ complete: ['a', 'b'] }), /^tool 'demo': 'complete' must be a function \(arg, partial, ctx\) => values, got an array$/)
  refused(t, tool({ complete: 'a' }), /^tool 'demo': 'complete' must be a function .*got string$/)
  const complete = (): string[] => []
  const compiled = compileTool(tool({ args: { b: Type.String(), a: Type.Optional(Type.Integer({ header: 'A' })) }, complete }))
  t.equal(compiled.definition.complete, complete)
  t.same(compiled.arguments, ['b', 'a'], 'the input schema\'s properties, in order, header arguments included')
  t.ok(Object.isFrozen(compiled.arguments))
  t.same(compileTool(tool({ input: Type.Object({ q: Type.String() }) })).arguments, ['q'])
  t.same(compileTool(tool({ input: { type: 'object' } })).arguments, [], 'a schema without properties has no argument names')
  t.same(compileTool(tool()).arguments, [])
})

t.test('unknown definition keys are refused, not ignored', async (t) => {
  refused(t, tool({ descripton: 'typo' }), /^tool 'demo': unknown option 'descripton' \(did you mean 'description'\?\); known options are name, title, description,/)
  // MCP Apps' options are known now, and checked (test/define/apps.test.ts)
  refused(t, tool({ ui: true }), /^tool 'demo': 'ui' must be the URI of a ui:\/\/ resource/)
  refused(t, tool({ visibility: true }), /^tool 'demo': 'visibility' must be/)
})

t.test('task: optional, required or true; execution.taskSupport in the 2025 list only', async (t) => {
  const plain = compileTool(tool())
  t.equal(plain.task, undefined)
  t.notOk('execution' in plain.wire.legacy, 'a tool without task lists no execution (forbidden by default)')
  const optional = compileTool(tool({ task: 'optional' }))
  t.equal(optional.task, 'optional')
  t.same(optional.wire.legacy.execution, { taskSupport: 'optional' })
  t.notOk('execution' in optional.wire.modern, 'the 2026-07-28 extension is server-directed: no execution on its Tool')
  t.equal(compileTool(tool({ task: 'required' })).task, 'required')
  const yes = compileTool(tool({ task: true }))
  t.equal(yes.task, 'optional', 'true reads as optional: a task where the client takes one, inline elsewhere')
  t.same(yes.wire.legacy.execution, { taskSupport: 'optional' })
  refused(t, tool({ task: 'forbidden' }), /^tool 'demo': 'task' must be 'optional', 'required' or true, got "forbidden"$/)
  refused(t, tool({ task: false }), /^tool 'demo': 'task' must be 'optional', 'required' or true, got boolean$/)
  refused(t, tool({ task: { ttl: 1 } }), /'task' must be 'optional', 'required' or true, got object$/)
})

t.test('title and description', async (t) => {
  const compiled = compileTool(tool({ title: 'Demo tool', description: 'Does a demo' }))
  t.equal(compiled.wire.modern.title, 'Demo tool')
  t.equal(compiled.wire.modern.description, 'Does a demo')
  t.equal(compiled.wire.legacy.title, 'Demo tool')
  const bare = compileTool(tool())
  t.notOk('title' in bare.wire.modern, 'absent when not given')
  t.notOk('description' in bare.wire.modern)
  refused(t, tool({ title: 3 }), /^tool 'demo': 'title' must be a string, got number$/)
  refused(t, tool({ description: ['x'] }), /^tool 'demo': 'description' must be a string, got an array$/)
})

t.test('icons', async (t) => {
  const icons = [{ src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' }, { src: 'data:image/svg+xml;base64,PHN2Zz4=' }]
  const compiled = compileTool(tool({ icons }))
  t.same(compiled.wire.modern.icons, icons)
  icons[0].src = 'https://evil.example/'
  t.equal((compiled.wire.modern.icons as any)[0].src, 'https://example.com/i.png', 'a copy: later changes to the array do not reach the wire')

  const cases: Array<[unknown, RegExp]> = [
    ['https://example.com/i.png', /it is not an array/],
    [['https://example.com/i.png'], /icons\[0\] is not an object/],
    [[{ mimeType: 'image/png' }], /icons\[0\]\.src must be a non-empty string/],
    [[{ src: '' }], /icons\[0\]\.src must be a non-empty string/],
    [[{ src: 'a' }, { src: 'b', mimeType: 5 }], /icons\[1\]\.mimeType must be a string/],
    [[{ src: 'a', sizes: '48x48' }], /icons\[0\]\.sizes must be an array of strings/],
    [[{ src: 'a', sizes: [48] }], /icons\[0\]\.sizes must be an array of strings/],
    [[{ src: 'a', theme: 'blue' }], /icons\[0\]\.theme must be 'light' or 'dark'/]
  ]
  for (const [value, message] of cases) {
    refused(t, tool({ icons: value }), new RegExp(`^tool 'demo': 'icons' must be an array of \\{ src, mimeType\\?, sizes\\?, theme\\? \\}: ${message.source}`))
  }
})

t.test('annotations', async (t) => {
  t.test('Sake names become the spec hints on the wire', async (t) => {
    const compiled = compileTool(tool({ annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, title: 'Demo' } }))
    t.same(compiled.wire.modern.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, title: 'Demo' })
    t.same(compiled.wire.legacy.annotations, compiled.wire.modern.annotations)
  })

  t.test('only what was given, and undefined hints are left out', async (t) => {
    const compiled = compileTool(tool({ annotations: { readOnly: true, destructive: undefined } }))
    t.same(compiled.wire.modern.annotations, { readOnlyHint: true })
    t.notOk('annotations' in compileTool(tool()).wire.modern)
  })

  t.test('unknown annotations are refused, including the spec names and Object.prototype keys', async (t) => {
    for (const key of ['readonly', 'readOnlyHint', 'toString', 'constructor', 'hasOwnProperty']) {
      refused(t, tool({ annotations: { [key]: true } }), new RegExp(`^tool 'demo': unknown annotation '${key}'; known annotations are title, readOnly, destructive, idempotent, openWorld$`))
    }
  })

  t.test('hints must be booleans and title a string', async (t) => {
    refused(t, tool({ annotations: { readOnly: 'yes' } }), /'annotations\.readOnly' must be a boolean, got string$/)
    refused(t, tool({ annotations: { destructive: 0 } }), /'annotations\.destructive' must be a boolean, got number$/)
    refused(t, tool({ annotations: { openWorld: null } }), /'annotations\.openWorld' must be a boolean, got null$/)
    refused(t, tool({ annotations: { title: false } }), /'annotations\.title' must be a string, got boolean$/)
  })

  t.test('annotations must be an object', async (t) => {
    refused(t, tool({ annotations: ['readOnly'] }), /^tool 'demo': 'annotations' must be an object such as \{ readOnly: true \}, got an array$/)
    refused(t, tool({ annotations: 'readOnly' }), /got string$/)
  })
})

t.test('meta becomes _meta', async (t) => {
  const meta = { 'example.com/owner': 'team-a', nested: { a: 1 } }
  const compiled = compileTool(tool({ meta }))
  t.same(compiled.wire.modern._meta, meta)
  t.notOk('meta' in compiled.wire.modern, 'never sent under its option name')
  meta.nested.a = 2
  t.same((compiled.wire.modern._meta as any).nested, { a: 1 }, 'copied at registration')
  refused(t, tool({ meta: 'x' }), /^tool 'demo': 'meta' must be an object \(sent as the tool's _meta\), got string$/)
  refused(t, tool({ meta: [] }), /'meta' must be an object .*got an array$/)
  refused(t, tool({ meta: null }), /'meta' must be an object .*got null$/)
})

t.test('meta that JSON cannot carry is refused with the reason', async (t) => {
  const meta: Record<string, unknown> = {}
  meta.self = meta
  refused(t, tool({ meta }), /^tool 'demo': 'meta' cannot be sent as JSON: .*circular/i)
})

t.test('ttl', async (t) => {
  t.equal(compileTool(tool({ ttl: 0 })).ttl, 0)
  t.equal(compileTool(tool({ ttl: 60_000 })).ttl, 60_000)
  t.equal(compileTool(tool()).ttl, undefined)
  t.notOk('ttl' in compileTool(tool({ ttl: 5 })).wire.modern, 'ttl shapes list pages, it is not a Tool field')
  refused(t, tool({ ttl: -1 }), /^tool 'demo': 'ttl' must be a non-negative integer \(milliseconds\), got -1$/)
  refused(t, tool({ ttl: 1.5 }), /got 1\.5$/)
  refused(t, tool({ ttl: Number.NaN }), /got NaN$/)
  refused(t, tool({ ttl: '10' }), /got "10" \(string\)$/)
})

t.test('args and input together are refused', async (t) => {
  refused(t, tool({ args: { a: Type.String() }, input: Type.Object({}) }), /^tool 'demo': give either 'args' \(a map of argument names to schemas\) or 'input' \(one whole schema\), not both$/)
})

t.test('input must be an object schema', async (t) => {
  refused(t, tool({ input: 'object' }), /^tool 'demo': 'input' must be a TypeBox schema \(@sinclair\/typebox or typebox\), or a Standard Schema that exports JSON Schema \(Zod 4, ArkType, Valibot through toStandardJsonSchema\), or a plain JSON Schema object; got string$/)
  refused(t, tool({ input: [] }), /got an array$/)
  refused(t, tool({ input: null }), /got null$/)
  refused(t, tool({ input: Type.String() }), /^tool 'demo': 'input' must be an object schema \(type: "object"\), got type "string"$/)
  refused(t, tool({ input: { properties: {} } }), /got type "unspecified"$/)
  refused(t, tool({ input: Type.Array(Type.String()) }), /got type "array"$/)
})

t.test('args must be a map of schemas', async (t) => {
  refused(t, tool({ args: Type.Object({ a: Type.String() }) }), /^tool 'demo': 'args' must be a map of argument names to schemas, e.g. \{ a: Type.Number\(\) \} or \{ a: z.number\(\) \}; use 'input' for a whole schema$/)
  refused(t, tool({ args: 'a' }), /'args' must be a map/)
  refused(t, tool({ args: { a: { type: 'string' } } }), /^tool 'demo': argument 'a' must be a TypeBox schema \(@sinclair\/typebox or typebox\), or a Standard Schema .*, got a plain object \(a plain JSON Schema goes whole, as 'input'\)$/)
  refused(t, tool({ args: { a: null } }), /argument 'a' must be a TypeBox schema .*got null$/)
  refused(t, tool({ args: { a: 'string' } }), /argument 'a' must be a TypeBox schema .*got string$/)
})

t.test('a schema ajv cannot compile is refused with ajv\'s reason', async (t) => {
  refused(t, tool({ args: { code: Type.String({ pattern: '(' }) } }), /^tool 'demo': its input schema does not compile: .*regular expression/i)
  refused(t, tool({ output: { code: Type.String({ pattern: '[' }) } }), /^tool 'demo': its output schema does not compile: .*regular expression/i)
  refused(t, tool({ input: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } } }), /its input schema does not compile: can't resolve reference #\/\$defs\/missing/)
})

t.test('an unknown format is refused instead of validating nothing', async (t) => {
  refused(t, tool({ args: { when: Type.String({ format: 'datetime' }) } }), /^tool 'demo': its input schema does not compile: unknown format "datetime" in schema at path/)
})

t.test('the compiled tool', async (t) => {
  const compiled = compileTool(tool({ args: { a: Type.Number() } }))
  t.ok(Object.isFrozen(compiled), 'frozen')
  t.ok(Object.isFrozen(compiled.wire.modern), 'the wire objects are frozen')
  t.ok(Object.isFrozen(compiled.wire.modern.inputSchema), 'all the way down')
  t.ok(Object.isFrozen(compiled.headers))
  t.same(Object.keys(compiled.wire.modern), ['name', 'inputSchema'], 'only what the definition gave, in the spec\'s order')
  t.same(compiled.headers, [])
  t.equal(compiled.validateOutput, undefined)
  t.equal(compiled.objectOutput, true, 'no output: nothing keeps it from legacy clients')
})

t.test('the whole wire object, in order', async (t) => {
  const compiled = compileTool(tool({
    title: 'T',
    description: 'D',
    icons: [{ src: 'https://example.com/i.png' }],
    args: { a: Type.String() },
    output: { b: Type.String() },
    annotations: { readOnly: true },
    meta: { k: 'v' }
  }))
  t.same(Object.keys(compiled.wire.modern), ['name', 'title', 'description', 'icons', 'inputSchema', 'outputSchema', 'annotations', '_meta'])
  t.same(JSON.parse(JSON.stringify(compiled.wire.modern)), {
    name: 'demo',
    title: 'T',
    description: 'D',
    icons: [{ src: 'https://example.com/i.png' }],
    inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] },
    annotations: { readOnlyHint: true },
    _meta: { k: 'v' }
  })
})

function escape (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

t.test('stream is a boolean', async (t) => {
  t.equal(compileTool(tool({ stream: true })).stream, true)
  t.equal(compileTool(tool({})).stream, false, 'off by default')
  refused(t, tool({ stream: 'yes' }), /^tool 'demo': 'stream' must be a boolean, got string/)
})

t.test('args: a map of TypeBox properties as inputSchema (was define/tool-args)', async (t) => {
  function inputOf (args: Record<string, unknown>): Record<string, unknown> {
    return compileTool({ name: 'demo', args: args as any, execute }).wire.modern.inputSchema as Record<string, unknown>
  }

  function propertyOf (schema: unknown): unknown {
    return JSON.parse(JSON.stringify((inputOf({ x: schema }).properties as Record<string, unknown>).x))
  }

  t.test('each argument type as JSON Schema', async (t) => {
    t.same(propertyOf(Type.String()), { type: 'string' })
    t.same(propertyOf(Type.Integer()), { type: 'integer' })
    t.same(propertyOf(Type.Number()), { type: 'number' })
    t.same(propertyOf(Type.Boolean()), { type: 'boolean' })
    t.same(propertyOf(Type.Any()), {}, 'any: no type constraint')
    t.same(propertyOf(Type.Unknown()), {})
    t.same(propertyOf(Type.Array(Type.String())), { type: 'array', items: { type: 'string' } })
    t.same(propertyOf(StringEnum(['open', 'closed'])), { type: 'string', enum: ['open', 'closed'] })
    t.same(propertyOf(Type.Object({ city: Type.String(), zip: Type.Optional(Type.String()) })), {
      type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } }, required: ['city']
    }, 'a nested object: entries shaped like top-level args')
  })

  t.test('the options of an argument reach the schema', async (t) => {
    t.same(propertyOf(Type.String({ description: 'Search text', minLength: 2, maxLength: 10, pattern: '^[a-z]+$', default: 'abc' })),
      { type: 'string', description: 'Search text', minLength: 2, maxLength: 10, pattern: '^[a-z]+$', default: 'abc' })
    t.same(propertyOf(Type.Integer({ minimum: 0, maximum: 10 })), { type: 'integer', minimum: 0, maximum: 10 })
    t.same(propertyOf(Type.String({ format: 'date-time' })), { type: 'string', format: 'date-time' })
    t.same(propertyOf(StringEnum(['a', 'b'], { description: 'pick one', default: 'a' })), { description: 'pick one', default: 'a', type: 'string', enum: ['a', 'b'] })
  })

  t.test('the root: an object, closed, with required from non-optional args', async (t) => {
    const schema = inputOf({ a: Type.Number(), b: Type.Optional(Type.Number()) })
    t.same(schema, { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a'], additionalProperties: false })
    t.same(inputOf({}), { type: 'object', properties: {}, additionalProperties: false }, 'no args: the empty closed object the spec recommends')
    t.same(compileTool({ name: 'none', execute }).wire.modern.inputSchema, { type: 'object', properties: {}, additionalProperties: false }, 'args left out')
  })

  t.test('argument names reach the schema exactly as declared', async (t) => {
    const schema = inputOf({ resourceUri: Type.String(), snake_case: Type.String(), 'dotted.name': Type.String() })
    t.same(Object.keys(schema.properties as object), ['resourceUri', 'snake_case', 'dotted.name'])
  })

  t.test('validation follows the declared rules', async (t) => {
    const { validate } = compileTool({
      name: 'demo',
      args: {
        text: Type.String({ minLength: 2, maxLength: 5, pattern: '^[a-z]+$' }),
        count: Type.Integer({ minimum: 1, maximum: 3 }),
        ratio: Type.Optional(Type.Number()),
        flag: Type.Optional(Type.Boolean()),
        anything: Type.Optional(Type.Any()),
        tags: Type.Optional(Type.Array(Type.String())),
        status: Type.Optional(StringEnum(['open', 'closed'])),
        when: Type.Optional(Type.String({ format: 'date-time' })),
        address: Type.Optional(Type.Object({ city: Type.String() }))
      },
      execute
    })
    const ok = { text: 'abc', count: 2 }
    t.ok(validate({ ...ok }), 'the minimum valid call')
    t.ok(validate({ ...ok, ratio: 0.5, flag: true, anything: [1, 'x'], tags: ['a'], status: 'open', when: '2026-07-28T10:00:00Z', address: { city: 'Paris' } }), 'every argument')
    const bad: Array<[string, Record<string, unknown>]> = [
      ['too short', { ...ok, text: 'a' }],
      ['too long', { ...ok, text: 'abcdef' }],
      ['pattern', { ...ok, text: 'ABC' }],
      ['below minimum', { ...ok, count: 0 }],
      ['above maximum', { ...ok, count: 4 }],
      ['not an integer', { ...ok, count: 1.5 }],
      ['number as string', { ...ok, ratio: '0.5' }],
      ['boolean as string', { ...ok, flag: 'true' }],
      ['array item type', { ...ok, tags: [1] }],
      ['enum', { ...ok, status: 'pending' }],
      ['format', { ...ok, when: 'yesterday' }],
      ['nested required', { ...ok, address: {} }],
      ['missing required', { text: 'abc' }],
      ['unknown argument', { ...ok, txet: 'abc' }]
    ]
    for (const [what, args] of bad) t.notOk(validate(args), what)
  })

  t.test('nested objects stay open unless they say otherwise; the root is closed', async (t) => {
    const { validate } = compileTool({
      name: 'demo',
      args: {
        open: Type.Optional(Type.Object({ a: Type.String() })),
        closed: Type.Optional(Type.Object({ a: Type.String() }, { additionalProperties: false }))
      },
      execute
    })
    t.ok(validate({ open: { a: 'x', extra: 1 } }))
    t.notOk(validate({ closed: { a: 'x', extra: 1 } }))
    t.notOk(validate({ extra: 1 }))
  })

  t.test('defaults are filled in before execute runs', async (t) => {
    const { validate } = compileTool({
      name: 'demo',
      args: { n: Type.Optional(Type.Integer({ default: 100 })), mode: Type.Optional(StringEnum(['fast', 'slow'], { default: 'fast' })) },
      execute
    })
    const args: Record<string, unknown> = {}
    t.ok(validate(args))
    t.same(args, { n: 100, mode: 'fast' }, 'the validator fills the defaults in')
    const given: Record<string, unknown> = { n: 3 }
    validate(given)
    t.same(given, { n: 3, mode: 'fast' }, 'a given value is kept')
  })

  t.test('execute receives the defaults over the wire', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    let received: unknown
    app.registerTool({
      name: 'reindex',
      args: { n: Type.Optional(Type.Integer({ default: 100 })), label: Type.String() },
      execute: (args) => {
        received = args
        return `Indexed ${String(args.n)} issues`
      }
    })
    for (const era of ['modern', 'legacy'] as const) {
      const client = createClient({ app, era })
      t.same((await client.callTool('reindex', { label: 'x' })).content, [{ type: 'text', text: 'Indexed 100 issues' }], era)
      t.same(received, { label: 'x', n: 100 })
      received = undefined
      await client.close()
    }
  })
})

t.test('input: a whole schema, taken as written (was define/tool-input)', async (t) => {
  function compiled (input: unknown, name = 'demo'): ReturnType<typeof compileTool> {
    return compileTool({ name, input, execute } as ToolDefinition)
  }

  t.test('a whole TypeBox schema', async (t) => {
    const input = Type.Object({ a: Type.String(), b: Type.Optional(Type.Integer()) })
    const tool = compiled(input)
    t.same(tool.wire.modern.inputSchema, { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a'] })
    t.same(Object.getOwnPropertySymbols(tool.wire.modern.inputSchema), [], 'TypeBox\'s symbol keys are not on the wire')
    t.ok(tool.validate({ a: 'x', extra: true }), 'open unless the schema closes it: the schema is taken as written')
    t.notOk(tool.validate({ b: 1 }))
  })

  t.test('a plain JSON Schema object', async (t) => {
    const input = { type: 'object', properties: { q: { type: 'string', minLength: 1 } }, required: ['q'], additionalProperties: false }
    const tool = compiled(input)
    t.same(tool.wire.modern.inputSchema, input)
    t.not(tool.wire.modern.inputSchema, input, 'a copy, not the caller\'s object')
    t.ok(tool.validate({ q: 'x' }))
    t.notOk(tool.validate({ q: '' }))
  })

  t.test('input that JSON cannot carry is refused with the reason', async (t) => {
    const input: Record<string, unknown> = { type: 'object', properties: {} }
    ;(input.properties as Record<string, unknown>).self = input
    t.throws(() => compiled(input), { code: 'SAKE_ERR_INVALID_TOOL', message: /^tool 'demo': 'input' cannot be sent as JSON: .*circular/i })
  })
})

t.test('output: a property map or a whole schema as outputSchema (was define/tool-output)', async (t) => {
  function compiled (output: unknown): ReturnType<typeof compileTool> {
    return compileTool({ name: 'demo', output, execute } as ToolDefinition)
  }

  t.test('a property map becomes an object outputSchema', async (t) => {
    const tool = compiled({ sum: Type.Number(), note: Type.Optional(Type.String()) })
    const schema = { type: 'object', properties: { sum: { type: 'number' }, note: { type: 'string' } }, required: ['sum'] }
    t.same(tool.wire.modern.outputSchema, schema)
    t.same(tool.wire.legacy.outputSchema, schema, 'legacy clients get it too')
    t.equal(tool.objectOutput, true)
    t.ok(tool.validateOutput!({ sum: 3 }))
    t.notOk(tool.validateOutput!({ sum: '3' }))
    t.notOk(tool.validateOutput!({}))
  })

  t.test('a whole object schema', async (t) => {
    const tool = compiled(Type.Object({ items: Type.Array(Type.String()) }, { additionalProperties: false }))
    t.same(tool.wire.modern.outputSchema, { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } }, required: ['items'], additionalProperties: false })
    t.equal(tool.objectOutput, true)
    t.notOk(tool.validateOutput!({ items: [], extra: 1 }))
  })

  t.test('a non-object root: modern clients get it, legacy ones do not', async (t) => {
    const tool = compiled(Type.Array(Type.Number()))
    t.same(tool.wire.modern.outputSchema, { type: 'array', items: { type: 'number' } })
    t.notOk('outputSchema' in tool.wire.legacy, 'a 2025 outputSchema must have an object root: no schema rather than a wrong one')
    t.equal(tool.objectOutput, false)
    t.ok(tool.validateOutput!([1, 2]))
    t.notOk(tool.validateOutput!([1, 'x']))
    t.equal(tool.wire.legacy.inputSchema, tool.wire.modern.inputSchema, 'the rest is shared')
  })

  t.test('a plain JSON Schema goes through Type.Unsafe', async (t) => {
    const tool = compiled(Type.Unsafe({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }))
    t.same(tool.wire.modern.outputSchema, { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] })
    t.notOk(tool.validateOutput!({ ok: 'yes' }))
  })

  t.test('mistakes', async (t) => {
    t.throws(() => compiled({ type: 'object', properties: { ok: { type: 'boolean' } } }), {
      code: 'SAKE_ERR_INVALID_TOOL',
      message: "tool 'demo': 'output' is a plain JSON Schema; wrap it as Type.Unsafe(schema), or give a map of property names to schemas"
    })
    t.throws(() => compiled({ $schema: 'http://json-schema.org/draft-07/schema#', properties: {} }), { message: /'output' is a plain JSON Schema/ })
    t.throws(() => compiled('number'), { message: /^tool 'demo': 'output' must be a map of property names to schemas, or one whole schema \(a TypeBox schema .*\); got string$/ })
    t.throws(() => compiled([Type.Number()]), { message: /got an array$/ })
    t.throws(() => compiled({ sum: 'number' }), { message: /^tool 'demo': output property 'sum' must be a TypeBox schema \(@sinclair\/typebox or typebox\), or a Standard Schema .*, got string$/ })
    t.throws(() => compiled({ sum: { type: 'number' } }), { message: /output property 'sum' must be a TypeBox schema .*, got a plain object \(a plain JSON Schema goes as Type.Unsafe\(schema\)\)$/ })
  })
})

t.test('config: your settings, kept on the compiled tool and never sent', async (t) => {
  t.throws(() => compileTool({ name: 'c', execute: () => 1, config: 'x' as never }), { message: "tool 'c': 'config' must be an object (your settings, read by hooks on request.mcp.config), got string" })
  const tool = compileTool({ name: 'c', execute: () => 1, config: { cost: 3 } })
  t.same(tool.config, { cost: 3 })
  t.notOk('config' in tool.wire.modern)
})

t.test('schemas of every library: TypeBox 0.34 and 1.x, Zod 4, Valibot, ArkType (issue 41)', async (t) => {
  const kinds = {
    'typebox 0.34': { a: Type.Number(), b: Type.Optional(Type.String()) },
    'typebox 1.x': { a: Type1.Number(), b: Type1.Optional(Type1.String()) },
    zod: { a: z.number(), b: z.string().optional() },
    valibot: { a: toStandardJsonSchema(v.number()), b: toStandardJsonSchema(v.optional(v.string())) },
    arktype: { a: type('number'), b: type('string | undefined') }
  }

  t.test('per argument: listed as a closed object with the right types; a bad argument never reaches execute', async (t) => {
    for (const [name, args] of Object.entries(kinds)) {
      const tool = compileTool({ name: 'demo', args, execute } as ToolDefinition)
      const schema = tool.wire.modern.inputSchema as Record<string, any>
      t.same(schema.properties.a.type, 'number', `${name}: a`)
      // ArkType exports `string | undefined` as anyOf [string, {}]: its own choice, listed as it is
      if (name === 'arktype') t.same(schema.properties.b, { anyOf: [{ type: 'string' }, {}] }, name)
      else t.same(schema.properties.b.type, 'string', `${name}: b`)
      t.same(schema.required, ['a'], `${name}: b may be left out`)
      t.equal(schema.additionalProperties, false, name)
      t.notOk('$schema' in schema.properties.a, `${name}: no $schema under a property`)
      t.same(tool.arguments, ['a', 'b'])
      t.notOk(tool.validate({ a: 1, c: 2 }) && tool.standard === undefined, `${name}: an unknown argument refused by ajv`)
    }
  })

  t.test('calls over both eras: checked by each library; its transform is what execute receives', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    const received: unknown[] = []
    for (const [name, args] of Object.entries(kinds)) {
      app.registerTool({ name: name.replace(/[ .]/g, '_'), args, execute: (input) => { received.push(input); return 'ok' } } as ToolDefinition as never)
    }
    app.registerTool({
      name: 'zod_rules',
      args: { word: z.string().refine((s) => s.length > 2, 'at least three letters'), n: z.string().transform((s) => s.length), d: z.number().default(7) },
      execute: ({ word, n, d }) => ({ word, n, d })
    })
    app.registerTool({ name: 'zod_whole', input: z.object({ n: z.string().transform(Number) }), execute: ({ n }) => ({ doubled: n * 2 }) })
    for (const era of ['modern', 'legacy'] as const) {
      const client = createClient({ app, era })
      for (const name of Object.keys(kinds)) {
        const tool = name.replace(/[ .]/g, '_')
        received.length = 0
        t.same((await client.callTool(tool, { a: 1, b: 'x' })).content, [{ type: 'text', text: 'ok' }], `${era} ${name}`)
        t.same(received, [{ a: 1, b: 'x' }])
        received.length = 0
        const bad = await client.callTool(tool, { a: 'x' })
        t.equal(bad.isError, true, `${era} ${name}: a bad argument is a tool error`)
        t.match((bad.content as Array<{ text: string }>)[0]!.text, new RegExp(`^Invalid arguments for tool '${tool}': .*argument 'a'`))
        const unknown = await client.callTool(tool, { a: 1, c: 1 })
        t.match((unknown.content as Array<{ text: string }>)[0]!.text, /unknown argument 'c'/, `${era} ${name}: unknown arguments refused`)
        t.same(received, [], 'execute never ran')
      }
      t.same((await client.callTool('zod_rules', { word: 'abc', n: 'four' })).structuredContent, { word: 'abc', n: 4, d: 7 }, `${era}: transform and default applied`)
      const refined = await client.callTool('zod_rules', { word: 'ab', n: 'x' })
      t.equal((refined.content as Array<{ text: string }>)[0]!.text, "Invalid arguments for tool 'zod_rules': argument 'word': at least three letters", `${era}: a refine that fails refuses the call`)
      t.same((await client.callTool('zod_whole', { n: '21' })).structuredContent, { doubled: 42 }, `${era}: a whole Zod input, transformed`)
      t.match((await client.callTool('zod_whole', { n: 3 })).content, [{ text: /^Invalid arguments for tool 'zod_whole': argument 'n': / }])
      await client.close()
    }
  })

  t.test('whole input and output of each kind: listed, and a result that does not match is an error, not data', async (t) => {
    const wholes = {
      'typebox 1.x': { input: Type1.Object({ a: Type1.Number() }), output: Type1.Object({ sum: Type1.Number() }) },
      zod: { input: z.object({ a: z.number() }), output: z.object({ sum: z.number() }) },
      valibot: { input: toStandardJsonSchema(v.object({ a: v.number() })), output: toStandardJsonSchema(v.object({ sum: v.number() })) },
      arktype: { input: type({ a: 'number' }), output: type({ sum: 'number' }) }
    }
    const app = await build()
    t.teardown(() => app.close())
    for (const [name, { input, output }] of Object.entries(wholes)) {
      const tool = name.replace(/[ .]/g, '_')
      app.registerTool({ name: tool, input, output, execute: ({ a }: { a: number }) => a === 13 ? { sum: 'thirteen' } : { sum: a + 1 } } as ToolDefinition as never)
      app.registerTool({ name: `${tool}_map`, args: { a: input }, output: { sum: (output as any) }, execute: () => ({ sum: { sum: 1 } }) } as ToolDefinition as never)
    }
    await app.ready()
    for (const [name] of Object.entries(wholes)) {
      const tool = name.replace(/[ .]/g, '_')
      const listed = app.mcp.tools.get(tool) as Record<string, any>
      t.same(listed.inputSchema.properties, { a: { type: 'number' } }, `${name}: input listed`)
      t.same(listed.outputSchema.properties, { sum: { type: 'number' } }, `${name}: output listed`)
      t.same((app.mcp.tools.get(`${tool}_map`) as Record<string, any>).outputSchema.properties.sum.properties, { sum: { type: 'number' } }, `${name}: output by property`)
    }
    for (const era of ['modern', 'legacy'] as const) {
      const client = createClient({ app, era })
      for (const name of Object.keys(wholes)) {
        const tool = name.replace(/[ .]/g, '_')
        t.same((await client.callTool(tool, { a: 1 })).structuredContent, { sum: 2 }, `${era} ${name}`)
        const wrong = await client.callTool(tool, { a: 13 })
        t.equal(wrong.isError, true, `${era} ${name}: a result that does not match its schema is an error`)
        t.match(wrong.content, [{ text: new RegExp(`Tool '${tool}' failed`) }])
        t.notOk('structuredContent' in wrong, 'never data')
        t.same((await client.callTool(`${tool}_map`, { a: { a: 1 } })).structuredContent, { sum: { sum: 1 } }, `${era} ${name}: by property`)
      }
      await client.close()
    }
  })

  t.test('an output a library checks asynchronously, or whose check throws', async (t) => {
    const app = await build()
    t.teardown(() => app.close())
    app.registerTool({ name: 'slow', args: { ok: z.boolean() }, output: z.object({ ok: z.boolean() }).refine(async (o) => o.ok, 'not ok'), execute: ({ ok }) => ({ ok }) })
    app.registerTool({ name: 'throws', output: { n: z.number().refine(() => { throw new Error('library bug') }) }, execute: () => ({ n: 1 }) })
    app.registerTool({ name: 'throws_in', args: { n: z.number().refine(() => { throw new Error('library bug') }) }, execute: () => 'never' })
    app.registerTool({ name: 'error_result', output: { n: z.number() }, execute: () => toolError('refused') })
    // a library whose validate throws at once (a bug of its own), and an output map ajv refuses first
    const sync = { '~standard': { version: 1, vendor: 'x', validate: () => { throw new Error('sync bug') }, jsonSchema: { input: () => ({ type: 'number' }), output: () => ({ type: 'number' }) } } }
    app.registerTool({ name: 'throws_now', output: { n: sync }, execute: () => ({ n: 1 }) } as ToolDefinition as never)
    app.registerTool({ name: 'mixed_out', args: { ok: Type.Optional(Type.Boolean()) }, output: { n: z.number(), label: Type.String() }, execute: ({ ok }: { ok?: boolean }) => ok === true ? { n: 1, label: 'x' } : { n: 1, label: 3 } } as never)
    app.registerTool({ name: 'with_app', output: z.object({ n: z.number() }), ui: { uri: 'ui://with-app/view.html', html: '<!doctype html><html><body>n</body></html>' }, execute: () => ({ n: 1 }) })
    const client = createClient({ app, era: 'modern' })
    t.teardown(() => client.close())
    t.same((await client.callTool('slow', { ok: true })).structuredContent, { ok: true })
    t.equal((await client.callTool('slow', { ok: false })).isError, true)
    t.match((await client.callTool('throws', {})).content, [{ text: /Tool 'throws' failed/ }])
    t.match((await client.callTool('throws_in', { n: 1 })).content, [{ text: /Tool 'throws_in' failed/ }])
    t.same((await client.callTool('error_result', {})).content, [{ type: 'text', text: 'refused' }], 'a tool error is not checked against the output schema')
    t.match((await client.callTool('throws_now', {})).content, [{ text: /Tool 'throws_now' failed/ }], 'a library that throws at once')
    t.match((await client.callTool('mixed_out', {})).content, [{ text: /Tool 'mixed_out' failed/ }], "ajv's part of a mixed output refuses before the library is asked")
    t.same((await client.callTool('mixed_out', { ok: true })).structuredContent, { n: 1, label: 'x' })
    t.notOk((await client.callTool('with_app', {})).isError, 'a tool with an app and a library-checked output')
  })

  t.test('what cannot be served is refused at registration, naming the tool and the argument', async (t) => {
    refused(t, tool({ args: { a: v.number() } }), /^tool 'demo': argument 'a' is a Standard Schema \(valibot\) that does not export JSON Schema.*toStandardJsonSchema/)
    const zod3 = { '~standard': { version: 1, vendor: 'zod', validate: () => ({ value: 1 }) } }
    refused(t, tool({ args: { a: zod3 } }), /^tool 'demo': argument 'a' is a Standard Schema \(zod\) .*Zod 4/)
    refused(t, tool({ input: zod3 }), /^tool 'demo': 'input' is a Standard Schema \(zod\)/)
    refused(t, tool({ output: zod3 }), /^tool 'demo': 'output' is a Standard Schema \(zod\)/)
    refused(t, tool({ output: { n: zod3 } }), /^tool 'demo': output property 'n' is a Standard Schema \(zod\)/)
    refused(t, tool({ args: { a: { type: 'string' } } }), /^tool 'demo': argument 'a' must be a TypeBox schema .*, got a plain object \(a plain JSON Schema goes whole, as 'input'\)/)
    refused(t, tool({ output: { n: { type: 'string' } } }), /^tool 'demo': output property 'n' must be a TypeBox schema .*Type\.Unsafe/)
    refused(t, tool({ args: { a: 'string' } }), /argument 'a' must be a TypeBox schema .*got string/)
    refused(t, tool({ args: z.object({ a: z.string() }) }), /'args' must be a map of argument names to schemas.*use 'input' for a whole schema/)
    refused(t, tool({ input: z.string() }), /'input' must be an object schema \(type: "object"\), got type "string"/)
    refused(t, tool({ input: 'x' }), /'input' must be a TypeBox schema .* or a plain JSON Schema object; got string/)
    refused(t, tool({ output: z.object({ when: z.date() }) }), /'output' cannot be exported as JSON Schema \(its output\): Date cannot be represented/)
    refused(t, tool({ args: { when: z.date() } }), /argument 'when' cannot be exported as JSON Schema \(its input\)/)
    refused(t, tool({ output: 3 }), /'output' must be a map of property names to schemas, or one whole schema/)
  })

  t.test('a recursive Zod argument keeps its references, rebased under its property', async (t) => {
    interface Node { name: string, children: Node[] }
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }))
    const tool = compileTool({ name: 'tree', args: { 'root/x': node }, execute } as ToolDefinition)
    const text = JSON.stringify(tool.wire.modern.inputSchema)
    t.notOk(/"\$ref":"#(\/\$defs|")/.test(text), `no reference left at the root: ${text}`)
    t.ok(text.includes('#/properties/root~1x'), 'rebased under its property, the name escaped')
    t.ok(compileTool({ name: 'tree2', input: z.object({ root: node }), execute } as ToolDefinition).validate({ root: { name: 'a', children: [] } }), 'a whole recursive input compiles as exported')
  })

  t.test('Mcp-Param headers from a Zod argument\'s meta', async (t) => {
    const tool = compileTool({ name: 'h', args: { region: z.string().meta({ 'x-mcp-header': 'Region' }) }, execute } as ToolDefinition)
    t.same(tool.headers.map((header) => header.name), ['Region'])
  })
})
