// The README's Quick start as a new user meets it (issue 31): every code block marked
// `<!-- runnable: esm | cjs | ts -->` is written, as it stands, into a fresh project that has this
// package's tarball (npm pack) installed beside fastify, and run there:
// - esm: `index.js` of a project with "type": "module";
// - cjs: `index.js` of a default `npm init -y` project (no "type": CommonJS), so require() and no
//   top-level await;
// - ts: `index.ts`, compiled with the repository's TypeScript as a CommonJS project would
//   ("module": "commonjs" with esModuleInterop, and "nodenext" without "type"), and as an ESM one
//   with the checks `tsc --init` turns on (exactOptionalPropertyTypes, verbatimModuleSyntax, ...),
//   then the output run with node.
// Each must listen on the PORT it is given and serve the Quick start's `add` to both real clients
// (a 2026-07-28 call that mirrors Mcp-Param-Precision, and a 2025 session). And the harness catches
// what the issue saw: a top-level await is TS1309 in a CommonJS TypeScript project and a crash in a
// CommonJS one.
import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { codeBlocks } from '../helpers/markdown.js'
import { installPacked, root, TSC_INIT_OPTIONS, tsc } from '../helpers/packed.js'
import { legacyClient, modernClient } from '../helpers/clients.js'
import { freePort } from '../helpers/app.js'

const KINDS = ['esm', 'cjs', 'ts'] as const
type Kind = typeof KINDS[number]

const runnable = codeBlocks(readFileSync(join(root, 'README.md'), 'utf8'))
  .filter((block) => block.marker?.startsWith('runnable') === true)
  .map((block) => ({ ...block, kind: /^runnable:\s*(\S+)$/.exec(block.marker!)?.[1] as Kind }))

/** The TypeScript projects a user may have: what tsconfig.json and package.json say. */
const TS_PROJECTS = [
  { name: 'CommonJS, "module": "commonjs"', type: undefined, compilerOptions: { module: 'commonjs', target: 'es2022', strict: true, esModuleInterop: true, skipLibCheck: false } },
  { name: 'CommonJS, "module": "nodenext"', type: undefined, compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: false } },
  { name: "ESM, tsc --init's options", type: 'module', compilerOptions: TSC_INIT_OPTIONS }
] as const

// one directory for every project: its node_modules holds the packed package and, linked from the
// repository's, what an install would put beside it (its dependencies, fastify, @types/node)
const base = mkdtempSync(join(tmpdir(), 'sake-readme-'))
t.teardown(() => rmSync(base, { recursive: true, force: true }))

t.before(async () => await installPacked(base))

let projects = 0
/** A fresh project below `base`: package.json (with "type" when given) and the files. */
function project (type: string | undefined, files: Record<string, string>): string {
  const dir = join(base, `project-${++projects}`)
  mkdirSync(dir)
  // what `npm init -y` writes, "type" aside
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `quick-start-${projects}`, version: '1.0.0', main: 'index.js', ...(type === undefined ? {} : { type }), scripts: { test: 'echo "Error: no test specified" && exit 1' }, license: 'ISC' }, null, 2))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

/**
 * Runs `node index.js` in `dir` with PORT set, and resolves once it logs that it listens (with the
 * URL it logged), or rejects with its output when it exits first or says nothing for a minute.
 */
async function start (t: Test, dir: string, port: number): Promise<URL> {
  const child = spawn(process.execPath, ['index.js'], { cwd: dir, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  })
  return await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "Server listening" within a minute:\n${output}`)), 60_000)
    child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`exited (${code ?? signal}) before listening:\n${output}`)) })
    const read = (chunk: Buffer): void => {
      output += chunk.toString()
      const match = /Server listening at (http:\/\/[^"\s]+)/.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve(new URL('/mcp', match[1]))
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
  })
}

/** Starts the project on a free port and checks it serves `add` to the 2026-07-28 client and to a 2025 session. */
async function serves (t: Test, dir: string): Promise<void> {
  const port = await freePort()
  const url = await start(t, dir, port)
  t.equal(url.port, String(port), 'listens on the PORT it was given')
  await t.test('both real clients call add', async (t) => {
    const { client: modern } = await modernClient(t, url, { name: 'readme-modern', version: '1.0.0' })
    const tools = await modern.listTools()
    t.same(tools.tools.map((tool) => tool.name), ['add'])
    // the client mirrors precision into Mcp-Param-Precision; the server checks it against the body
    t.same((await modern.callTool({ name: 'add', arguments: { a: 1.5, b: 2.25, precision: 1 } })).structuredContent, { sum: 3.8 })
    const { client: legacy } = await legacyClient(t, url, { name: 'readme-legacy', version: '1.0.0' })
    t.equal(legacy.getServerVersion()?.name, 'my-service')
    t.same((await legacy.callTool({ name: 'add', arguments: { a: 1.5, b: 2.25 } })).structuredContent, { sum: 3.75 })
  })
}

t.test('the README marks an ESM, a CommonJS and a TypeScript Quick start runnable, and nothing it cannot run', async (t) => {
  t.same([...new Set(runnable.map((block) => block.kind))].sort(), [...KINDS].sort())
  for (const block of runnable) {
    t.ok(KINDS.includes(block.kind), `README.md:${block.line}: a kind this test runs (${block.marker})`)
    t.equal(block.info, block.kind === 'ts' ? 'ts' : 'js', `README.md:${block.line}: fenced as ${block.kind === 'ts' ? 'ts' : 'js'}`)
  }
})

for (const block of runnable.filter((block) => block.kind === 'esm')) {
  t.test(`README.md:${block.line} (esm) runs in a "type": "module" project`, async (t) => {
    await serves(t, project('module', { 'index.js': block.code }))
  })
}

for (const block of runnable.filter((block) => block.kind === 'cjs')) {
  t.test(`README.md:${block.line} (cjs) runs in a default npm init -y project`, async (t) => {
    await serves(t, project(undefined, { 'index.js': block.code }))
  })
}

for (const block of runnable.filter((block) => block.kind === 'ts')) {
  for (const ts of TS_PROJECTS) {
    t.test(`README.md:${block.line} (ts) compiles and runs: ${ts.name}`, async (t) => {
      const dir = project(ts.type, { 'index.ts': block.code, 'tsconfig.json': JSON.stringify({ compilerOptions: ts.compilerOptions, files: ['index.ts'] }) })
      const compiled = await tsc(dir)
      t.equal(compiled.output, '', 'tsc reports no error')
      await serves(t, dir)
    })
  }
}

t.test('a block that breaks fails here: a top-level await in a CommonJS project, compiled or run', async (t) => {
  const [ts] = runnable.filter((block) => block.kind === 'ts')
  const [cjs] = runnable.filter((block) => block.kind === 'cjs')
  const awaited = 'await Promise.resolve()\n'
  const nodenext = TS_PROJECTS[1]
  const compiled = await tsc(project(nodenext.type, { 'index.ts': ts!.code + awaited, 'tsconfig.json': JSON.stringify({ compilerOptions: nodenext.compilerOptions, files: ['index.ts'] }) }))
  t.notOk(compiled.ok)
  t.match(compiled.output, /error TS1309: The current file is a CommonJS module and cannot use 'await' at the top level/)
  await t.rejects(start(t, project(undefined, { 'index.js': cjs!.code + awaited }), await freePort()), /exited \(1\) before listening/)
})
