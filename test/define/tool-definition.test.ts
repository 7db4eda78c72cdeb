// Tool definitions through compileTool: every option of a plain tool, what reaches the wire, and
// every mistake refused at registration with SAKE_ERR_INVALID_TOOL and a message naming it.
import t, { type Test } from 'tap'
import { Type } from '@sinclair/typebox'
import { compileTool, type ToolDefinition } from '../../lib/define/tool.js'

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
  refused(t, { name: 'demo', exec: execute }, /^tool 'demo': unknown option 'exec'; known options are name, title, description, icons, annotations, meta, ttl, stream, args, input, output, prepare, execute, scope, authentication$/)
  t.equal(compileTool(tool()).definition.execute, execute, 'the definition is kept for calls')
  refused(t, tool({ prepare: { args: 1 } }), /^tool 'demo': 'prepare' must be a function \(args, ctx\) => arguments for execute, got object$/)
})

t.test('unknown definition keys are refused, not ignored', async (t) => {
  refused(t, tool({ descripton: 'typo' }), /^tool 'demo': unknown option 'descripton'/)
  // options Sake has that this version does not implement yet must not silently do nothing
  for (const key of ['task', 'ui', 'visibility']) refused(t, tool({ [key]: true }), new RegExp(`unknown option '${key}'`))
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
  refused(t, tool({ args: { a: Type.String() }, input: Type.Object({}) }), /^tool 'demo': give either 'args' \(a map of TypeBox properties\) or 'input' \(a whole JSON Schema\), not both$/)
})

t.test('input must be an object schema', async (t) => {
  refused(t, tool({ input: 'object' }), /^tool 'demo': 'input' must be a JSON Schema object \(TypeBox or plain\), got string$/)
  refused(t, tool({ input: [] }), /got an array$/)
  refused(t, tool({ input: null }), /got null$/)
  refused(t, tool({ input: Type.String() }), /^tool 'demo': 'input' must be an object schema \(type: "object"\), got type "string"$/)
  refused(t, tool({ input: { properties: {} } }), /got type "unspecified"$/)
  refused(t, tool({ input: Type.Array(Type.String()) }), /got type "array"$/)
})

t.test('args must be a map of TypeBox schemas', async (t) => {
  refused(t, tool({ args: Type.Object({ a: Type.String() }) }), /^tool 'demo': 'args' must be a map of argument names to TypeBox schemas, e.g. \{ a: Type.Number\(\) \}; use 'input' for a whole schema$/)
  refused(t, tool({ args: 'a' }), /'args' must be a map/)
  refused(t, tool({ args: { a: { type: 'string' } } }), /^tool 'demo': argument 'a' must be a TypeBox schema \(e.g. Type.String\(\)\), got object$/)
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
