// Error codes are API. Like Fastify core's test/internals/errors.test.js: every code is exported,
// belongs to exactly one exported SakeError class, and is documented in docs/errors.md, with no
// stale row left there; the JSON-RPC codes the server sends are documented too.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import * as api from '../lib/index.js'
import * as errors from '../lib/errors.js'
import * as jsonrpc from '../lib/spec/jsonrpc.js'

const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8')

type ErrorClass = new (...args: any[]) => api.SakeError

/** Every exported subclass of SakeError, by export name. */
function sakeErrorClasses (module: Record<string, unknown>): Map<string, ErrorClass> {
  const found = new Map<string, ErrorClass>()
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === 'function' && value.prototype instanceof api.SakeError) found.set(name, value as ErrorClass)
  }
  return found
}

/** The rows of the table under `heading` whose first cell matches `key`: first cell → other cells. */
function tableRows (markdown: string, heading: string, key: RegExp): Map<string, string[]> {
  const start = markdown.indexOf(`\n## ${heading}`)
  if (start === -1) return new Map()
  const end = markdown.indexOf('\n## ', start + 1)
  const section = markdown.slice(start, end === -1 ? undefined : end)
  const rows = new Map<string, string[]>()
  for (const line of section.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim().replace(/^`|`$/g, ''))
    if (cells.length > 0 && key.test(cells[0])) rows.set(cells[0], cells.slice(1))
  }
  return rows
}

/** What is wrong between the doc and the codes: missing rows, stale rows, wrong classes, empty cells. */
function docProblems (markdown: string, codes: readonly string[], classOf: (code: string) => string | undefined): string[] {
  const rows = tableRows(markdown, 'Registration and configuration errors', /^SAKE_ERR_/)
  const problems: string[] = []
  for (const code of codes) {
    const row = rows.get(code)
    if (row === undefined) {
      problems.push(`${code} is not in docs/errors.md`)
      continue
    }
    if (row[0] !== classOf(code)) problems.push(`${code}: the doc names class ${row[0]}, the code belongs to ${String(classOf(code))}`)
    if (row.length !== 3 || row.some((cell) => cell.length === 0)) problems.push(`${code}: the row needs Class, When and How to fix`)
  }
  for (const code of rows.keys()) {
    if (!codes.includes(code)) problems.push(`${code} is in docs/errors.md but is no longer a code`)
  }
  return problems
}

const classes = sakeErrorClasses(api as Record<string, unknown>)

/** The code an instance of the class carries (constructors take one message-ish argument). */
function codeOf (Class: ErrorClass): string {
  return new Class('x').code
}

function classOf (code: string): string | undefined {
  return [...classes].find(([, Class]) => codeOf(Class) === code)?.[0]
}

const codes = Object.keys(api.errorCodes) as Array<keyof typeof api.errorCodes>

t.test('errorCodes: exported, frozen, keyed by code (as fastify.errorCodes), each its class', async (t) => {
  t.equal(api.errorCodes, errors.errorCodes)
  t.ok(Object.isFrozen(api.errorCodes))
  for (const code of codes) {
    t.match(code, /^SAKE_ERR_[A-Z_]+$/)
    t.equal(codeOf(api.errorCodes[code] as never), code, `${code} is the code of ${api.errorCodes[code].name}`)
  }
  t.ok(codes.length >= 5)
  const err = new api.SakeDuplicateToolError('add')
  t.ok(err instanceof api.errorCodes.SAKE_ERR_DUPLICATE_TOOL, 'instanceof, as with fastify.errorCodes')
  t.ok(err.code in api.errorCodes)
})

/** The classes of lib/errors.ts that never reach users: refusals the edge turns into answers, a verifier's outcomes, a task's unasked or unanswered question. */
const INTERNAL = new Set(['AccessRefusal', 'TokenRefused', 'VerifierUnavailable', 'BadCaller', 'RefusedBodyError', 'TaskEnded', 'TooManyQuestions'])

t.test('every error class in lib/errors.ts is exported by the package, but the internal ones', async (t) => {
  for (const [name, value] of Object.entries(errors)) {
    if (typeof value !== 'function') continue
    if (INTERNAL.has(name)) t.notOk(name in api, `${name} is internal`)
    else t.equal((api as Record<string, unknown>)[name], value, name)
  }
  for (const name of INTERNAL) t.type((errors as Record<string, unknown>)[name], 'function', `${name} is in lib/errors.ts`)
})

t.test('lib/errors.ts re-exports every file of lib/errors/, so that the tests here see every class', async (t) => {
  const dir = new URL('../lib/errors/', import.meta.url)
  for (const file of readdirSync(dir)) {
    const module = await import(new URL(file.replace(/\.ts$/, '.js'), dir).href) as Record<string, unknown>
    for (const [name, value] of Object.entries(module)) t.equal((errors as Record<string, unknown>)[name], value, `${file}: ${name}`)
  }
})

t.test('each code is the code of exactly one exported SakeError class, and back', async (t) => {
  for (const code of codes) {
    const owners = [...classes].filter(([, Class]) => codeOf(Class) === code).map(([name]) => name)
    t.equal(owners.length, 1, `${code}: ${owners.join(', ') || 'no class'}`)
  }
  for (const [name, Class] of classes) {
    t.ok(codeOf(Class) in api.errorCodes, `${name}'s code is listed in errorCodes`)
  }
})

t.test('the classes behave as errors with a stable code', async (t) => {
  for (const [name, Class] of classes) {
    const err = new Class('something')
    t.type(err, Error)
    t.type(err, api.SakeError)
    t.equal(err.name, name, 'name is the class name, for logs')
    t.type(err.stack, 'string')
  }
  t.equal(new api.SakeOptionError('option x').message, 'option x')
  t.equal(new api.SakeDuplicateToolError('add').message, "a tool named 'add' is already registered on this MCP server; tool names must be unique")
  t.equal(new api.SakeRegisterAfterReadyError("tool 'x'").message, "cannot register tool 'x' after the server is ready; register every tool, resource and prompt before app.ready() or app.listen()")
})

t.test('docs/errors.md has one row per code, with its class, and no stale row', async (t) => {
  t.same(docProblems(doc, codes, classOf), [])
})

t.test('the parity check fails when it should', async (t) => {
  const [first, second] = codes
  const withoutFirst = doc.split('\n').filter((line) => !line.startsWith(`| \`${first}\``)).join('\n')
  t.same(docProblems(withoutFirst, codes, classOf), [`${first} is not in docs/errors.md`], 'a missing code')
  t.same(docProblems(doc, codes.filter((code) => code !== second), classOf), [`${second} is in docs/errors.md but is no longer a code`], 'a stale row')
  const wrongClass = doc.replace(`| \`${first}\` | \`${classOf(first)!}\``, `| \`${first}\` | \`SakeError\``)
  t.same(docProblems(wrongClass, codes, classOf), [`${first}: the doc names class SakeError, the code belongs to ${classOf(first)!}`], 'a wrong class')
  const emptyCell = doc.replace(new RegExp(`(\\| \`${first}\` \\| \`[A-Za-z]+\` \\| )[^|]+\\|`), '$1 |')
  t.same(docProblems(emptyCell, codes, classOf), [`${first}: the row needs Class, When and How to fix`], 'an empty cell')
  t.same(docProblems('# nothing', codes, classOf).length, codes.length, 'no table at all')
})

t.test('docs/errors.md documents every JSON-RPC code the server sends', async (t) => {
  const rows = tableRows(doc, 'Protocol errors', /^-32\d{3}$/)
  const constants = (Object.values(jsonrpc) as unknown[]).filter((value): value is number => typeof value === 'number')
  t.ok(constants.length >= 9, 'the codes are read from lib/spec/jsonrpc.ts')
  for (const code of [-32700, -32600, -32601, -32602, -32603, -32001, -32020, -32021, -32022]) {
    t.ok(constants.includes(code), `${code} is a constant of jsonrpc.ts`)
  }
  t.same([...rows.keys()].map(Number).sort(), [...constants].sort(), 'one row per code, none stale')
  for (const [code, cells] of rows) {
    t.equal(cells.length, 3, `${code}: Name, HTTP status, When`)
    t.ok(cells.every((cell) => cell.length > 0), `${code}: no empty cell`)
  }
})

t.test('docs/errors.md documents ToolError', async (t) => {
  t.match(doc, /\n## Tool errors \(`ToolError`\)\n/)
  t.match(doc, /isError: true/)
  t.notOk(api.ToolError.prototype instanceof api.SakeError, 'a ToolError is not a setup mistake and has no SAKE_ERR code')
  t.notOk(api.ProtocolError.prototype instanceof api.SakeError)
  const err = new api.ToolError('No such issue', { meta: { id: 1 } })
  t.same([err.name, err.message, err.meta], ['ToolError', 'No such issue', { id: 1 }])
  const protocol = new api.ProtocolError(-32602, 'Unknown tool: x')
  t.same([protocol.name, protocol.code, protocol.status, protocol.data], ['ProtocolError', -32602, 200, undefined], 'status 200 by default')
})
