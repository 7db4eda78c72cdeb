// How tangled the request path is, as numbers a refactor can quote before and after:
// `node bench/walk.mjs [--root DIR] [--json] [--timeout SECONDS]`.
//
// 1. The walk of two requests through lib/ files: (a) a 2026-07-28 `tools/call` of a synchronous
//    tool answered as JSON, (b) a 2025-11-25 session's `tools/call` of a tool that reports progress,
//    with a progressToken, answered as an event stream. DIR's lib/**/*.ts is compiled with the
//    TypeScript compiler API (DIR's tsconfig.build.json, so the module layout is dist/'s) into a
//    temporary directory, with a transformer that makes the first statement of every function body
//    `globalThis.__sakeWalk?.('lib/<path>.ts')`. The app is built from that copy and listens on
//    127.0.0.1 (real sockets: the Host/Origin guard runs as for real clients); one warm-up request
//    of each kind goes first, then exactly one of each is recorded, from the moment it is sent to
//    the moment its response has been read whole. A **visit** is an entry into a function of file
//    F whose caller frame is not in F (another lib file, a package, node itself, the tool defined
//    here, or no caller: the event loop or a promise continuation); calls within a file are not
//    visits, nor is an async function resuming after `await` (no function is entered).
//    returns = visits - distinct files: the re-entries into a file already visited.
// 2. The shape of lib/http: its .ts files and its floors, the longest chain of imports (type-only
//    included, as the layering check counts them) that stays within lib/http.
// 3. The five longest functions of lib/ (lib/client aside), first to last line of the AST node.
//
// Markdown on stdout (--json: one JSON object). Exit code 0 when everything was measured, 1 on a
// failure or the timeout, 2 when DIR's lib/ does not compile (sections 2 and 3 are still printed).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const USAGE = 'usage: node bench/walk.mjs [--root DIR] [--json] [--timeout SECONDS]'
const MODERN = '2026-07-28'
const LEGACY = '2025-11-25'
const MARK = '__sakeWalk'
const SELF = fileURLToPath(import.meta.url)

let options
try {
  options = parseArgs({
    options: {
      root: { type: 'string' },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '180' },
      help: { type: 'boolean', short: 'h', default: false }
    }
  }).values
} catch (err) {
  fail(`${err.message}\n${USAGE}`)
}
if (options.help) {
  process.stdout.write(USAGE + '\n')
  process.exit(0)
}
const timeoutSeconds = Number(options.timeout)
if (!(timeoutSeconds > 0)) fail(`--timeout must be a positive number of seconds\n${USAGE}`)

const root = resolve(options.root ?? join(dirname(SELF), '..'))
if (!existsSync(join(root, 'lib')) || !existsSync(join(root, 'tsconfig.build.json'))) fail(`${root} has no lib/ or tsconfig.build.json`)
if (!existsSync(join(root, 'node_modules'))) fail(`${root} has no node_modules (install, or symlink it)`)

// DIR's own packages: its typescript compiles its lib/, its fastify serves it
const rootRequire = createRequire(join(root, 'package.json'))
const ts = (await import(pathToFileURL(rootRequire.resolve('typescript')).href)).default

let stage = 'starting'
let tmp
let app
const agents = []

// A run that hangs (a request never answered, a stream never ended) ends here, with what it was doing.
const timer = setTimeout(() => {
  cleanup()
  fail(`timed out after ${timeoutSeconds} s while ${stage}`)
}, timeoutSeconds * 1000)
timer.unref()
process.once('SIGINT', () => {
  cleanup()
  fail('interrupted')
})

try {
  const report = { root, ...revision(), node: process.version, typescript: ts.version }
  stage = 'reading lib/http and lib/'
  report.http = httpShape()
  report.longest = longestFunctions(5)
  stage = 'compiling lib/ (type check and instrumented emit)'
  tmp = mkdtempSync(join(tmpdir(), 'sake-walk-'))
  const build = compile(tmp)
  report.compile = { ok: build.ok, errors: build.errors, functions: build.functions, files: build.files }
  if (build.ok) report.walks = await walk(tmp, build.sources)
  clearTimeout(timer)
  await close()
  cleanup()
  const out = options.json ? JSON.stringify(report, null, 2) + '\n' : markdown(report)
  process.stdout.write(out, () => process.exit(build.ok ? 0 : 2))
} catch (err) {
  await close().catch(() => {})
  cleanup()
  fail(`failed while ${stage}: ${err.stack ?? err}`)
}

// ------------------------------------------------------------------ life

function fail (message) {
  process.stderr.write(`walk: ${message}\n`)
  process.exit(1)
}

async function close () {
  for (const agent of agents) agent.destroy()
  const closing = app
  app = undefined
  if (closing !== undefined) await closing.close()
}

function cleanup () {
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true })
  tmp = undefined
}

/** The commit DIR is at, and how many files of its lib/ differ from it (read-only git calls). */
function revision () {
  try {
    const git = (...args) => execFileSync('git', ['--no-optional-locks', '-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    const commit = git('rev-parse', '--short', 'HEAD')
    const changed = git('status', '--porcelain', '--', 'lib').split('\n').filter(Boolean).length
    return { commit, libChanges: changed }
  } catch {
    return { commit: undefined, libChanges: undefined }
  }
}

// ------------------------------------------------------------------ source

/** Every .ts file under `dir`, recursively, as absolute paths in a stable order. */
function tsFiles (dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...tsFiles(path))
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

/** `lib/http/post.ts` for an absolute path under DIR (forward slashes on every OS). */
function rel (path) {
  return relative(root, path).split(sep).join('/')
}

/** `http/post`: a lib file as the tables print it. */
function short (file) {
  return file.replace(/^lib\//, '').replace(/\.ts$/, '')
}

function parse (path) {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
}

/** The function-like nodes the walk instruments and section 3 measures: those with a body. */
function isFunction (node) {
  return (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)) && node.body !== undefined
}

// ------------------------------------------------------------------ 2. the shape of lib/http

/** The lib files a file imports by a relative specifier (`./x.js` is `./x.ts`), type-only imports included. */
function importsOf (path) {
  const specifiers = []
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])) {
      specifiers.push(node.arguments[0].text)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(parse(path))
  const out = new Set()
  for (const specifier of specifiers) {
    if (!specifier.startsWith('.')) continue
    const base = resolve(dirname(path), specifier)
    const candidates = [base.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts'), base + '.ts', join(base, 'index.ts')]
    const found = candidates.find((candidate) => candidate.endsWith('ts') && existsSync(candidate))
    if (found !== undefined) out.add(found)
  }
  return [...out].sort()
}

function httpShape () {
  const dir = join(root, 'lib', 'http')
  const files = tsFiles(dir)
  const inside = new Set(files)
  const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => inside.has(target))]))
  const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0)
  // the layering check forbids cycles; one found mid-refactor is reported, and the chain then
  // takes the longest path that never enters a file twice
  const cycles = cyclesOf(graph)
  const chain = cycles.length === 0 ? longestPathAcyclic(graph) : longestSimplePath(graph)
  return { files: files.length, imports: edges, floors: chain.length, chain: chain.map(rel), cycles: cycles.map((cycle) => cycle.map(rel)) }
}

/** The longest chain of a DAG, in files; ties go to the first in path order. */
function longestPathAcyclic (graph) {
  const memo = new Map()
  const from = (node) => {
    if (memo.has(node)) return memo.get(node)
    let best = []
    for (const next of graph.get(node)) {
      const path = from(next)
      if (path.length > best.length) best = path
    }
    const result = [node, ...best]
    memo.set(node, result)
    return result
  }
  let best = []
  for (const node of graph.keys()) {
    const path = from(node)
    if (path.length > best.length) best = path
  }
  return best
}

/** Exhaustive search of simple paths (lib/http is a few dozen files), used only when there is a cycle. */
function longestSimplePath (graph) {
  let best = []
  const path = []
  const on = new Set()
  const go = (node) => {
    path.push(node)
    on.add(node)
    if (path.length > best.length) best = [...path]
    for (const next of graph.get(node)) if (!on.has(next)) go(next)
    path.pop()
    on.delete(node)
  }
  for (const node of graph.keys()) go(node)
  return best
}

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cyclesOf (graph) {
  let index = 0
  const indices = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const out = []
  const connect = (node) => {
    indices.set(node, index)
    low.set(node, index++)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node)) {
      if (!indices.has(next)) {
        connect(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), indices.get(next)))
      }
    }
    if (low.get(node) !== indices.get(node)) return
    const component = []
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || graph.get(node).includes(node)) out.push(component.sort())
  }
  for (const node of graph.keys()) if (!indices.has(node)) connect(node)
  return out
}

// ------------------------------------------------------------------ 3. the longest functions

function longestFunctions (count) {
  const all = []
  for (const path of tsFiles(join(root, 'lib')).filter((path) => !rel(path).startsWith('lib/client/'))) {
    const source = parse(path)
    const visit = (node) => {
      if (isFunction(node)) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1
        all.push({ file: rel(path), line: first, name: functionName(node, source), lines: last - first + 1 })
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  // longest first; ties in file and line order, so that the list is the same on every run
  return all.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line).slice(0, count)
}

/** A readable name: `Class.method`, a variable's or property's name, or what an anonymous function is passed to. */
function functionName (node, source) {
  const kind = ts.isArrowFunction(node) ? 'arrow' : 'function'
  const nameOf = (name) => name === undefined ? undefined : ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : name.getText(source)
  const owner = (container) => {
    if (ts.isClassLike(container)) return container.name?.text ?? '(class)'
    if (ts.isObjectLiteralExpression(container) && ts.isVariableDeclaration(container.parent)) return nameOf(container.parent.name)
    return undefined
  }
  const qualified = (container, name) => {
    const of = owner(container)
    return of === undefined ? name : `${of}.${name}`
  }
  if (ts.isFunctionDeclaration(node)) return node.name?.text ?? 'default function'
  if (ts.isConstructorDeclaration(node)) return qualified(node.parent, 'constructor')
  if (ts.isGetAccessorDeclaration(node)) return 'get ' + qualified(node.parent, nameOf(node.name))
  if (ts.isSetAccessorDeclaration(node)) return 'set ' + qualified(node.parent, nameOf(node.name))
  if (ts.isMethodDeclaration(node)) return qualified(node.parent, nameOf(node.name))
  if (ts.isFunctionExpression(node) && node.name !== undefined) return node.name.text
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent)) return ts.isPropertyDeclaration(parent) ? qualified(parent.parent, nameOf(parent.name)) : nameOf(parent.name)
  if (ts.isPropertyAssignment(parent)) return qualified(parent.parent, nameOf(parent.name))
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const callee = parent.expression.getText(source).replace(/\s+/g, ' ')
    const literal = parent.arguments?.find((arg) => ts.isStringLiteral(arg))
    return `${kind} passed to ${callee}(${literal === undefined ? '' : `'${literal.text}', `}…)`
  }
  return `anonymous ${kind}`
}

// ------------------------------------------------------------------ 1. compile, instrumented

/**
 * Compiles DIR's lib/ as `npm run build` does (its tsconfig.build.json; declarations are checked
 * but not written), with `transform` in front, into `out`. Returns the emitted .js file of each
 * lib file, for the recorder to tell which lib file a stack frame is in.
 */
function compile (out) {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')) }
  })
  const compilerOptions = { ...parsed.options, outDir: out, sourceMap: false, declarationMap: false, inlineSourceMap: false, incremental: false, composite: false, noEmit: false }
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: compilerOptions })
  const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' }
  const diagnostics = [...parsed.errors, ...ts.getPreEmitDiagnostics(program)].filter((d) => d.category === ts.DiagnosticCategory.Error)
  if (diagnostics.length > 0) {
    return { ok: false, errors: diagnostics.map((d) => ts.formatDiagnostic(d, host).trim()), functions: 0, files: 0 }
  }
  // the emitted files must load as ES modules and find DIR's packages from the temporary directory
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module', private: true }) + '\n')
  symlinkSync(realpathSync(join(root, 'node_modules')), join(out, 'node_modules'), 'dir')
  const sources = new Map()
  const counted = { functions: 0 }
  const emitted = program.emit(undefined, (name, text, _bom, _onError, files) => {
    if (!name.endsWith('.js')) return
    mkdirSync(dirname(name), { recursive: true })
    writeFileSync(name, text)
    if (files?.length === 1) sources.set(resolve(name), rel(files[0].fileName))
  }, undefined, false, { before: [instrument(counted)] })
  const errors = emitted.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error)
  if (errors.length > 0) return { ok: false, errors: errors.map((d) => ts.formatDiagnostic(d, host).trim()), functions: 0, files: 0 }
  return { ok: true, errors: [], functions: counted.functions, files: sources.size, sources }
}

/** The transformer: `globalThis.__sakeWalk?.('lib/x.ts')` first in every function body. */
function instrument (counted) {
  return (context) => (source) => {
    const f = context.factory
    const file = rel(source.fileName)
    const mark = () => f.createExpressionStatement(f.createCallChain(
      f.createPropertyAccessExpression(f.createIdentifier('globalThis'), MARK),
      f.createToken(ts.SyntaxKind.QuestionDotToken), undefined, [f.createStringLiteral(file)]))
    // bodies to instrument, keyed by the original Block: the visitor meets the Block after its function
    const bodies = new Map()
    const visit = (node) => {
      if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) {
        // an expression body becomes `{ mark; return expression }`
        counted.functions++
        const done = ts.visitEachChild(node, visit, context)
        return f.updateArrowFunction(done, done.modifiers, done.typeParameters, done.parameters, done.type,
          done.equalsGreaterThanToken, f.createBlock([mark(), f.createReturnStatement(done.body)], false))
      }
      if (isFunction(node)) {
        counted.functions++
        bodies.set(node.body, ts.isConstructorDeclaration(node) && derived(node.parent))
      }
      if (ts.isBlock(node) && bodies.has(node)) {
        const done = ts.visitEachChild(node, visit, context)
        const statements = [...done.statements]
        let at = 0
        // after 'use strict' and the like, and in a derived class's constructor after super(...)
        while (at < statements.length && ts.isExpressionStatement(statements[at]) && ts.isStringLiteral(statements[at].expression)) at++
        if (bodies.get(node)) {
          const superAt = statements.findIndex((s) => ts.isExpressionStatement(s) && ts.isCallExpression(s.expression) && s.expression.expression.kind === ts.SyntaxKind.SuperKeyword)
          if (superAt >= 0) at = superAt + 1
        }
        statements.splice(at, 0, mark())
        return f.updateBlock(done, statements)
      }
      return ts.visitEachChild(node, visit, context)
    }
    return ts.visitNode(source, visit)
  }
}

function derived (classNode) {
  return classNode.heritageClauses?.some((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword) === true
}

// ------------------------------------------------------------------ 1. the walk

/**
 * Builds the app from the instrumented copy, listens, warms both requests up, then records one of
 * each. A visit is `{ file, from }`: `from` says who called (a lib file, a package, node, the tool
 * defined in this script, or nobody).
 */
async function walk (out, sources) {
  stage = 'loading the instrumented lib/'
  let recording = null
  const labels = new Map()
  const frameLabel = (name) => {
    let label = labels.get(name)
    if (label === undefined) {
      const path = name.startsWith('file:') ? fileURLToPath(name) : name
      const lib = sources.get(path)
      const pkg = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path)
      if (lib !== undefined) label = lib
      else if (path === SELF) label = '(the tool, in walk.mjs)'
      else if (pkg !== null) label = pkg[1].replace('\\', '/')
      else if (name.startsWith('node:')) label = '(node)'
      else label = path
      labels.set(name, label)
    }
    return label
  }
  globalThis[MARK] = function sakeWalk (file) {
    if (recording === null) return
    // the structured stack, just for this capture: frame 0 is the instrumented function
    const prepare = Error.prepareStackTrace
    const limit = Error.stackTraceLimit
    Error.prepareStackTrace = (_error, frames) => frames
    Error.stackTraceLimit = 30
    const holder = {}
    Error.captureStackTrace(holder, sakeWalk)
    const frames = holder.stack
    Error.prepareStackTrace = prepare
    Error.stackTraceLimit = limit
    let from = '(event loop or promise)'
    for (const frame of frames.slice(1)) {
      // async frames are the awaiting chain, not a caller: what runs now came off the queue
      if (frame.isAsync?.() || frame.isPromiseAll?.()) break
      const name = frame.getFileName()
      if (name) {
        from = frameLabel(name)
        break
      }
      // code made by eval/new Function (ajv's validators, fast-json-stringify's serialisers) is a package's
      if (frame.isEval()) {
        from = '(generated code)'
        break
      }
      // a builtin (Array.prototype.map, new Promise, Function.prototype.call) is not a caller: look below it
    }
    if (from !== file) recording.push({ file, from })
  }

  const sake = await import(pathToFileURL(join(out, 'index.js')).href)
  const Fastify = (await import(pathToFileURL(rootRequire.resolve('fastify')).href)).default
  const Type = sake.Type ?? (await import(pathToFileURL(rootRequire.resolve('@sinclair/typebox')).href)).Type

  stage = 'starting the app'
  app = Fastify({ logger: false })
  await app.register(sake.default, { name: 'walk', version: '1.0.0' })
  // the two tools: the synchronous one answers as JSON, the other reports progress on its stream
  app.registerTool({
    name: 'add',
    args: { a: Type.Number(), b: Type.Number() },
    output: { sum: Type.Number() },
    execute: ({ a, b }) => ({ sum: a + b })
  })
  app.registerTool({
    name: 'halfway',
    execute: (_args, ctx) => {
      ctx.progress(1, 2)
      return 'done'
    }
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address()

  // one keep-alive connection per kind, as one client each: a request of one kind never lands on
  // the other's connection (a 2025-11-25 stream's events are dropped when its connection's next request comes)
  const modernAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const sessionAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  agents.push(modernAgent, sessionAgent)

  /** One POST /mcp; `record` brackets it, from before it is sent to the end of its response. */
  const send = (agent, headers, body, record) => new Promise((resolve, reject) => {
    const text = JSON.stringify(body)
    const visits = []
    if (record) recording = visits
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(text) } }, (res) => {
      const chunks = []
      res.on('data', (chunk) => chunks.push(chunk))
      res.on('end', () => {
        if (record) recording = null
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), visits })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(text)
  })

  let nextId = 1
  const modernCall = (record) => send(modernAgent, {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': 'add'
  }, {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: {
      name: 'add',
      arguments: { a: 1.5, b: 2.25 },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'walk', version: '1.0.0' }
      }
    }
  }, record)

  stage = 'opening the 2025-11-25 session'
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const init = await send(sessionAgent, base, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'walk', version: '1.0.0' } } }, false)
  const sessionId = init.headers['mcp-session-id']
  if (init.status !== 200 || typeof sessionId !== 'string') throw new Error(`initialize was answered ${init.status} without a session: ${init.body}`)
  const session = { ...base, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY }
  const initialized = await send(sessionAgent, session, { jsonrpc: '2.0', method: 'notifications/initialized' }, false)
  if (initialized.status !== 202) throw new Error(`notifications/initialized was answered ${initialized.status}: ${initialized.body}`)
  const sessionCall = (record) => send(sessionAgent, session, {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: { name: 'halfway', arguments: {}, _meta: { progressToken: 'walk' } }
  }, record)

  stage = 'warming up'
  checkJson(await modernCall(false))
  checkStream(await sessionCall(false))
  stage = 'recording the 2026-07-28 call'
  const modern = checkJson(await modernCall(true))
  stage = 'recording the 2025-11-25 call'
  const stream = checkStream(await sessionCall(true))
  stage = 'closing the app'
  return {
    modern: { request: `${MODERN} tools/call of a synchronous tool, answered as JSON`, ...summary(modern.visits) },
    session: { request: `${LEGACY} session tools/call with a progressToken, answered as an event stream`, ...summary(stream.visits) }
  }
}

/** The answer is what the walk means to measure (a refactor that broke it must not pass for a short walk). */
function checkJson (res) {
  const body = res.status === 200 && /^application\/json/.test(res.headers['content-type'] ?? '') ? JSON.parse(res.body) : undefined
  if (body?.result?.structuredContent?.sum !== 3.75) throw new Error(`the 2026-07-28 call was answered ${res.status} ${res.headers['content-type']}: ${res.body}`)
  return res
}

function checkStream (res) {
  const ok = res.status === 200 && /^text\/event-stream/.test(res.headers['content-type'] ?? '') &&
    res.body.includes('"notifications/progress"') && res.body.includes('"result"')
  if (!ok) throw new Error(`the 2025-11-25 call was answered ${res.status} ${res.headers['content-type']}: ${res.body}`)
  return res
}

function summary (visits) {
  const perFile = new Map()
  for (const { file, from } of visits) {
    const entry = perFile.get(file) ?? { file, visits: 0, from: {} }
    entry.visits++
    entry.from[from] = (entry.from[from] ?? 0) + 1
    perFile.set(file, entry)
  }
  // most visits first; ties in the order of first visit (Map order)
  const files = [...perFile.values()].sort((a, b) => b.visits - a.visits)
  const callers = {}
  for (const { from } of visits) {
    const kind = from.startsWith('lib/') ? 'another lib file' : from
    callers[kind] = (callers[kind] ?? 0) + 1
  }
  return {
    files: perFile.size,
    visits: visits.length,
    returns: visits.length - perFile.size,
    callers,
    perFile: files,
    sequence: visits.map((visit) => visit.file)
  }
}

// ------------------------------------------------------------------ report

function markdown (report) {
  const lines = []
  const state = report.commit === undefined ? '' : ` (${report.commit}${report.libChanges ? `, ${report.libChanges} uncommitted changes in lib/` : ', lib/ clean'})`
  lines.push('# Request walk', '')
  lines.push(`${report.root}${state} · node ${report.node} · typescript ${report.typescript}`, '')
  lines.push('## 1. Walk of two requests through lib/', '')
  if (!report.compile.ok) {
    const n = report.compile.errors.length
    lines.push(`**lib/ does not compile** (${n} error${n === 1 ? '' : 's'}): not measured. First errors:`, '', '```')
    lines.push(...report.compile.errors.slice(0, 10))
    lines.push('```', '')
  } else {
    const { modern, session } = report.walks
    lines.push(`Instrumented: ${report.compile.functions} functions in ${report.compile.files} files. A visit is an entry into a file's function from outside that file; returns = visits − files.`, '')
    lines.push('| request | files | visits | returns |', '|---|--:|--:|--:|')
    lines.push(`| (a) ${modern.request} | ${modern.files} | ${modern.visits} | ${modern.returns} |`)
    lines.push(`| (b) ${session.request} | ${session.files} | ${session.visits} | ${session.returns} |`, '')
    for (const [tag, walk] of [['(a)', modern], ['(b)', session]]) {
      lines.push(`### ${tag} ${walk.request}`, '')
      lines.push(`Callers: ${counts(walk.callers)}.`, '')
      lines.push('| file | visits | entered from |', '|---|--:|---|')
      for (const entry of walk.perFile) lines.push(`| ${short(entry.file)} | ${entry.visits} | ${counts(entry.from, short)} |`)
      lines.push('', 'Sequence (`×n`: n visits in a row):', '', '```', ...wrap(runs(walk.sequence.map(short)), 100), '```', '')
    }
  }
  const h = report.http
  lines.push('## 2. Shape of lib/http', '')
  lines.push(`- .ts files: ${h.files} (${h.imports} imports between them)`)
  lines.push(`- floors: **${h.floors}**: ${h.chain.map(short).join(' → ')}`)
  if (h.cycles.length > 0) lines.push(`- import cycles: ${h.cycles.map((cycle) => cycle.map(short).join(', ')).join('; ')}`)
  lines.push('', '## 3. Longest functions in lib/ (lib/client aside)', '')
  lines.push('| lines | function | where |', '|--:|---|---|')
  for (const fn of report.longest) lines.push(`| ${fn.lines} | \`${fn.name}\` | ${fn.file}:${fn.line} |`)
  return lines.join('\n') + '\n'
}

/** `a ×3, b ×1`, largest first. */
function counts (record, name = (key) => key) {
  return Object.entries(record).sort((a, b) => b[1] - a[1]).map(([key, n]) => `${name(key)} ×${n}`).join(', ')
}

/** Consecutive repeats folded: `http/post ×2`. */
function runs (names) {
  const out = []
  for (const name of names) {
    const last = out.at(-1)
    if (last?.name === name) last.n++
    else out.push({ name, n: 1 })
  }
  return out.map(({ name, n }) => n === 1 ? name : `${name} ×${n}`)
}

function wrap (items, width) {
  const lines = []
  let line = ''
  for (const item of items) {
    const next = line === '' ? item : `${line} → ${item}`
    if (next.length > width && line !== '') {
      lines.push(line + ' →')
      line = item
    } else {
      line = next
    }
  }
  if (line !== '') lines.push(line)
  return lines
}
