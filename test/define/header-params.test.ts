// x-mcp-header (SEP-2243; DIGEST §4.4): `header: 'X'` sugar, raw `x-mcp-header`, and every rule a
// client would otherwise enforce by dropping the tool, refused at registration instead.
import t, { type Test } from 'tap'
import { Type } from '@sinclair/typebox'
import { extractHeaders } from '../../lib/define/header-params.js'
import { compileTool } from '../../lib/define/tool.js'
import type { ToolDefinition } from '../../lib/define/tool-definition.js'

const execute = (): string => 'ok'

function withArgs (args: Record<string, unknown>): ReturnType<typeof compileTool> {
  return compileTool({ name: 'demo', args, execute } as ToolDefinition)
}

function withInput (input: Record<string, unknown>): ReturnType<typeof compileTool> {
  return compileTool({ name: 'demo', input, execute } as ToolDefinition)
}

function object (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', properties, ...extra }
}

function refused (t: Test, fn: () => unknown, message: RegExp, what?: string): void {
  t.throws(fn, { code: 'SAKE_ERR_INVALID_HEADER', name: 'SakeHeaderDefinitionError', message }, what ?? String(message))
}

t.test('header sugar on an argument becomes x-mcp-header', async (t) => {
  const tool = withArgs({ a: Type.Number(), precision: Type.Optional(Type.Integer({ header: 'Precision', minimum: 0, maximum: 10 })) })
  const precision = (tool.wire.modern.inputSchema as any).properties.precision
  t.same(precision, { type: 'integer', minimum: 0, maximum: 10, 'x-mcp-header': 'Precision' })
  t.notOk('header' in precision, 'the sugar is not on the wire')
  t.same(tool.headers, [{ name: 'Precision', header: 'mcp-param-precision', display: 'Mcp-Param-Precision', path: ['precision'], type: 'integer' }])
  t.ok(tool.validate({ a: 1, precision: 2 }), 'the annotation changes nothing in validation')
})

t.test('string, integer and boolean arguments may be mirrored', async (t) => {
  const tool = withArgs({
    region: Type.String({ header: 'Region' }),
    count: Type.Integer({ header: 'Count' }),
    dryRun: Type.Boolean({ header: 'Dry-Run' })
  })
  t.same(tool.headers.map((h) => [h.name, h.header, h.type]), [
    ['Region', 'mcp-param-region', 'string'],
    ['Count', 'mcp-param-count', 'integer'],
    ['Dry-Run', 'mcp-param-dry-run', 'boolean']
  ])
})

t.test('raw x-mcp-header in input is accepted as is', async (t) => {
  const input = object({ region: { type: 'string', 'x-mcp-header': 'Region' } }, { required: ['region'] })
  const tool = withInput(input)
  t.same(tool.wire.modern.inputSchema, input)
  t.same(tool.headers, [{ name: 'Region', header: 'mcp-param-region', display: 'Mcp-Param-Region', path: ['region'], type: 'string' }])
})

t.test('a nullable primitive is accepted: a null value simply sends no header', async (t) => {
  const tool = withInput(object({ region: { type: ['string', 'null'], 'x-mcp-header': 'Region' }, n: { type: ['null', 'integer'], header: 'N' } }))
  t.same(tool.headers.map((h) => h.type), ['string', 'integer'])
})

t.test('a nested object property is accepted, and its path recorded', async (t) => {
  const tool = withArgs({ filter: Type.Object({ place: Type.Object({ region: Type.String({ header: 'Region' }) }) }) })
  t.same(tool.headers, [{ name: 'Region', header: 'mcp-param-region', display: 'Mcp-Param-Region', path: ['filter', 'place', 'region'], type: 'string' }])
  t.equal((tool.wire.modern.inputSchema as any).properties.filter.properties.place.properties.region['x-mcp-header'], 'Region')
})

t.test('header names must be HTTP tokens', async (t) => {
  const cases: Array<[unknown, string]> = [
    ['Has Space', '"Has Space"'],
    ['', '""'],
    ['Region:EU', '"Region:EU"'],
    ['Tab\tName', '"Tab\\\\tName"'],
    ['Ünïcode', '"Ünïcode"'],
    ['Slash/Name', '"Slash/Name"'],
    [42, '42'],
    [true, 'true'],
    [null, 'null'],
    [['Region'], '\\["Region"\\]']
  ]
  for (const [name, shown] of cases) {
    refused(t, () => withInput(object({ region: { type: 'string', 'x-mcp-header': name } })),
      new RegExp(`^tool 'demo': argument 'region' has header name ${shown}; a header name must be a non-empty HTTP token`), String(shown))
  }
  refused(t, () => withArgs({ region: Type.String({ header: 'Bad Name' }) }), /argument 'region' has header name "Bad Name"/, 'through the sugar too')
  t.ok(withArgs({ a: Type.String({ header: "!#$%&'*+-.^_`|~09azAZ" }) }), 'every tchar is allowed')
})

t.test('header names must be unique in a tool, case-insensitively', async (t) => {
  refused(t, () => withArgs({ a: Type.String({ header: 'Region' }), b: Type.String({ header: 'region' }) }),
    /^tool 'demo': argument 'b' has header 'region', which clashes with 'Region' \(header names must be unique in a tool, compared case-insensitively\)$/)
  refused(t, () => withArgs({ a: Type.String({ header: 'X' }), nested: Type.Object({ b: Type.Boolean({ header: 'X' }) }) }), /argument 'nested.b' has header 'X', which clashes with 'X'/)
  const one = withArgs({ a: Type.String({ header: 'Region' }) })
  const two = withArgs({ a: Type.String({ header: 'Region' }) })
  t.equal(two.headers[0].name, one.headers[0].name, 'unique per tool, not per process')
})

t.test('only string, integer and boolean arguments', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ type: 'number' }, '"number"'],
    [{ type: 'object', properties: {} }, '"object"'],
    [{ type: 'array', items: { type: 'string' } }, '"array"'],
    [{ type: 'null' }, '"null"'],
    [{}, '"unspecified"'],
    [{ enum: ['a', 'b'] }, '"unspecified"'],
    [{ type: ['string', 'integer'] }, '\\["string","integer"\\]'],
    [{ type: ['number', 'null'] }, '\\["number","null"\\]']
  ]
  for (const [schema, shown] of cases) {
    refused(t, () => withInput(object({ v: { ...schema, 'x-mcp-header': 'V' } })),
      new RegExp(`^tool 'demo': argument 'v' has header 'V' but its type is ${shown}; only string, integer and boolean arguments can be mirrored into headers \\(not number, object or array\\)$`), shown)
  }
  refused(t, () => withArgs({ v: Type.Number({ header: 'V' }) }), /its type is "number"/, 'a TypeBox Number')
  refused(t, () => withArgs({ v: Type.Union([Type.String(), Type.Integer()], { header: 'V' }) }), /its type is "unspecified"/, 'a TypeBox Union')
})

t.test('reachable from the root through properties alone', async (t) => {
  const str = { type: 'string', 'x-mcp-header': 'X' }
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['the root', object({}, { 'x-mcp-header': 'X' }), 'the root of the input schema'],
    ['items', object({ list: { type: 'array', items: str } }), "'list.items'"],
    ['prefixItems', object({ list: { type: 'array', prefixItems: [str] } }), "'list.prefixItems.0'"],
    ['anyOf', object({ v: { anyOf: [str, { type: 'integer' }] } }), "'v.anyOf.0'"],
    ['oneOf', object({ v: { oneOf: [str] } }), "'v.oneOf.0'"],
    ['allOf', object({ v: { allOf: [str] } }), "'v.allOf.0'"],
    ['not', object({ v: { not: str } }), "'v.not'"],
    ['if', object({ v: { if: str } }), "'v.if'"],
    ['then', object({ v: { if: { type: 'string' }, then: str } }), "'v.then'"],
    ['else', object({ v: { if: { type: 'string' }, else: str } }), "'v.else'"],
    ['$defs behind $ref', object({ v: { $ref: '#/$defs/region' } }, { $defs: { region: str } }), "'\\$defs.region'"],
    ['definitions', object({}, { definitions: { region: str } }), "'definitions.region'"],
    ['additionalProperties', object({}, { additionalProperties: str }), "'additionalProperties'"],
    ['patternProperties', object({}, { patternProperties: { '^x': str } }), "'patternProperties.\\^x'"],
    ['properties of a branch', object({ v: { anyOf: [object({ deep: str })] } }), "'v.anyOf.0.deep'"]
  ]
  for (const [what, input, where] of cases) {
    refused(t, () => withInput(input),
      new RegExp(`^tool 'demo': argument ${where} has header 'X' but is not reachable from the root through 'properties' alone \\(no items, anyOf/oneOf/allOf, not, if/then/else, \\$defs or \\$ref on the way\\)$`), what)
  }
})

t.test('the header sugar out of reach is refused too, never silently dropped', async (t) => {
  refused(t, () => withArgs({ list: Type.Array(Type.String({ header: 'Item' })) }), /argument 'list.items' has header 'Item' but is not reachable/)
  refused(t, () => withInput(object({}, { header: 'Root' })), /argument the root of the input schema has header 'Root' but is not reachable/)
})

t.test('header and x-mcp-header on one argument', async (t) => {
  const same = withInput(object({ r: { type: 'string', header: 'Region', 'x-mcp-header': 'Region' } }))
  t.same((same.wire.modern.inputSchema as any).properties.r, { type: 'string', 'x-mcp-header': 'Region' }, 'the same name twice is one header')
  refused(t, () => withInput(object({ r: { type: 'string', header: 'Region', 'x-mcp-header': 'Zone' } })),
    /^tool 'demo': argument 'r' has both header "Region" and x-mcp-header "Zone"; give the header name once, as 'header' or as 'x-mcp-header'$/)
  refused(t, () => withInput(object({ r: { type: 'string', 'x-mcp-header': 'Zone', header: 'Region' } })),
    /has both header "Region" and x-mcp-header "Zone"/, 'whatever the key order')
})

t.test('names that are not keywords are left alone', async (t) => {
  const input = object({
    header: { type: 'string' }, // an argument called "header"
    'x-mcp-header': { type: 'string' }, // or "x-mcp-header"
    mode: { type: 'string', enum: ['a'], default: 'a', examples: [{ header: 'not a schema' }], const: 'a' }
  }, {
    $defs: { header: { type: 'string' }, 'x-mcp-header': { type: 'integer' } },
    'x-vendor': { header: 'Vendor data', nested: { 'x-mcp-header': 'anything' } }
  })
  const tool = withInput(input)
  t.same(tool.wire.modern.inputSchema, input, 'copied unchanged')
  t.same(tool.headers, [])
  const mirrored = withInput({ ...input, properties: { ...input.properties as object, region: { type: 'string', header: 'Region' } } })
  t.same(mirrored.headers.map((h) => h.name), ['Region'], 'beside a header that is one')
  t.same((mirrored.wire.modern.inputSchema as any).$defs, input.$defs, 'they are copied unchanged then too')
  t.same((mirrored.wire.modern.inputSchema as any)['x-vendor'], input['x-vendor'])
})

t.test('a schema with no header is the wire schema as it is, not copied again', async (t) => {
  const schema = object({ a: { type: 'string' }, list: { type: 'array', items: { type: 'object', properties: { b: { type: 'string' } } } } })
  const { schema: wire, headers } = extractHeaders('demo', schema)
  t.equal(wire, schema)
  t.same(headers, [])
  t.throws(() => extractHeaders('demo', object({ list: { type: 'array', items: [{ type: 'string', header: 'X' }] } })), /not reachable/, 'one deep in a list of subschemas is found (and refused there)')
})

t.test('extractHeaders copies and never changes its input', async (t) => {
  const schema = object({ a: { type: 'string', header: 'A' }, list: { type: 'array', items: [{ type: 'string' }] } })
  const before = JSON.stringify(schema)
  const { schema: wire, headers } = extractHeaders('demo', schema)
  t.equal(JSON.stringify(schema), before)
  t.not(wire, schema)
  t.same((wire as any).properties.a, { type: 'string', 'x-mcp-header': 'A' })
  t.same((wire as any).properties.list.items, [{ type: 'string' }], 'array-form items survive the walk')
  t.equal(headers.length, 1)
})

t.test('a boolean schema in a schema position is kept', async (t) => {
  const input = object({ anything: true, nothing: false }, { additionalProperties: false })
  t.same(withInput(input).wire.modern.inputSchema, input)
})
