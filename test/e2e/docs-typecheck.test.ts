// Every TypeScript block of the README and docs/ compiles as a reader's project would compile it
// (issue 41): each ```ts block is written, as it stands, into a module of one fresh project that
// installs this package's tarball (npm pack, once), and the whole project is compiled by one tsc
// run with the options `tsc --init` writes (strict, exactOptionalPropertyTypes,
// noUncheckedIndexedAccess, verbatimModuleSyntax...). An error is reported at its line in the
// markdown file.
//
// A block is a part of the reader's program, not all of it: what the pages take as given is
// declared once, in PRELUDE below (a global declaration file), and nowhere else. That is the app
// (`app`, a Fastify instance the plugin is registered on, or is about to be), the package's names
// the pages use without importing them (`sake`, `Type`, `toolError`...), and the reader's own
// things a block calls (`users`, `buildReport`, `db`...). A block's own imports and declarations
// shadow the prelude's. A third-party plugin is imported by the block itself, as a reader must.
//
// A block marked `<!-- registers -->` is also run: its compiled JavaScript, on a real Fastify app
// with the prelude's values (RUNTIME below; the plugin registered first unless the block registers
// it), then `app.ready()`, which is where registration fails; what it registered is checked.
// The README's runnable Quick starts are run by test/e2e/readme.test.ts. KEEP_DOCS_PROJECT=1 keeps
// the project (its path is printed) to compile or run by hand.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { promisify } from 'node:util'
import { codeBlocks } from '../helpers/markdown.js'
import { installPacked, root, TSC_INIT_OPTIONS, tsc } from '../helpers/packed.js'

const run = promisify(execFile)

const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)]
const blocks = pages.flatMap((page) => codeBlocks(readFileSync(join(root, page), 'utf8'))
  .filter((block) => block.info === 'ts')
  .map((block) => ({ ...block, page, file: `blocks/${basename(page, '.md')}-${block.line}.ts` })))
const registering = blocks.filter((block) => block.marker === 'registers')

/** What the pages take as given, declared for the compiler (the file is a global script: no import, no export). */
const PRELUDE = `
// the app: a Fastify instance, with the plugin's decorators (registerTool, app.mcp...) typed
declare const app: import('fastify').FastifyInstance
// the package's names the pages use without importing them
declare const sake: typeof import('fastify-sake').default
declare const Type: typeof import('fastify-sake').Type
declare const StringEnum: typeof import('fastify-sake').StringEnum
declare const toolError: typeof import('fastify-sake').toolError
declare const withText: typeof import('fastify-sake').withText
// the reader's own things
declare function buildReport (): Promise<string>
declare const config: Record<string, unknown>
declare const counterHtml: string
declare const definition: import('fastify-sake').DefinedTool
declare const issues: { of (subject: string): Promise<Array<{ id: number, title: string }>>, delete (id: number): Promise<void> }
declare const users: {
  find (id: string): Promise<{ profile: string } | undefined>
  idsStartingWith (partial: string): string[]
  get (id: number): { id: number, name: string, email?: string } | undefined
  create (body: { name: string }): { id: number, name: string }
}
declare const services: { startingWith (partial: string): string[] }
declare function deploy (service: string, env: 'staging' | 'production'): Promise<string>
declare const payments: { charge (amount: number): Promise<void> }
declare const db: { query (sql: string, options: { signal: AbortSignal }): Promise<unknown[]> }
declare const sql: string
declare const manifest: string
declare const guide: string
declare const body: string
declare function today (): unknown
`

/** `./app.js` of docs/client.md: the reader's module that builds the app. */
const APP_MODULE = 'export declare function build (): Promise<import(\'fastify\').FastifyInstance>\n'

/**
 * The prelude's values, for the blocks that run: the package's names, and stand-ins for the
 * reader's own things. Given `app` and whether the block registers the plugin itself.
 */
const RUNTIME = `
import Fastify from 'fastify'
import * as pkg from 'fastify-sake'
import { pathToFileURL } from 'node:url'

const SKILL = (name) => \`---\\nname: \${name}\\ndescription: The \${name} skill\\n---\\nHow to \${name}.\\n\`
const readers = {
  sake: pkg.default, Type: pkg.Type, StringEnum: pkg.StringEnum, toolError: pkg.toolError, withText: pkg.withText,
  buildReport: async () => 'a report',
  config: { debug: false },
  counterHtml: '<!doctype html><html><body>counter</body></html>',
  issues: { of: async () => [], delete: async () => {} },
  users: {
    find: async (id) => ({ profile: \`profile of \${id}\` }),
    idsStartingWith: (partial) => ['1', '2'].filter((id) => id.startsWith(partial)),
    get: (id) => ({ id, name: 'Ada' }),
    create: (body) => ({ id: 1, ...body })
  },
  services: { startingWith: (partial) => ['api', 'web'].filter((name) => name.startsWith(partial)) },
  deploy: async (service, env) => \`\${service} on \${env}\`,
  payments: { charge: async () => {} },
  db: { query: async () => [] },
  sql: 'select 1',
  manifest: SKILL('git-workflow'),
  guide: '# Guide',
  body: 'Assemble the report.',
  today: () => ({ sales: 3 })
}
const seen = {}
for (const [file, registersItself] of JSON.parse(process.argv[2])) {
  const app = Fastify()
  Object.assign(globalThis, readers, { app })
  try {
    if (!registersItself) await app.register(pkg.default, { name: 'docs', version: '1.0.0' })
    await import(pathToFileURL(file).href)
    await app.ready()
    seen[file] = {
      tools: [...app.mcp.tools.keys()],
      resources: [...app.mcp.resources.keys(), ...app.mcp.templates.keys()],
      prompts: [...app.mcp.prompts.keys()],
      skills: [...app.mcp.skills.keys()]
    }
  } catch (err) {
    seen[file] = { error: err.message }
  }
  await app.close()
}
console.log(JSON.stringify(seen))
`

/** The packages the blocks import (by name, scope included), but this one and Node's. */
const imported = [...new Set(blocks.flatMap((block) => [...block.code.matchAll(/^\s*import\s[^'"]*?from\s+'([^'.][^']*)'/gm)].map(([, specifier]) => specifier!.split('/').slice(0, specifier!.startsWith('@') ? 2 : 1).join('/'))))]
  .filter((name) => name !== 'fastify-sake' && !name.startsWith('node:'))

const base = mkdtempSync(join(tmpdir(), 'sake-docs-'))
t.teardown(() => { if (process.env.KEEP_DOCS_PROJECT === undefined) rmSync(base, { recursive: true, force: true }); else console.error('kept', base) })
const project = join(base, 'project')

/** A block the check must refuse, compiled in the same run: the fleet page's environment, as it was. */
const BROKEN = {
  file: 'blocks/broken-fixture.ts',
  code: "await app.register(sake, { name: 'api', version: '1.0.0', requestState: { keys: [process.env.MCP_STATE_KEY] } })\n"
}

/** The one tsc run, which also emits what the registering blocks run. */
let compiled: { output: string, ms: number }

t.before(async () => {
  await installPacked(base, imported)
  mkdirSync(join(project, 'blocks'), { recursive: true })
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'docs-blocks', version: '1.0.0', type: 'module', private: true }))
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { ...TSC_INIT_OPTIONS, outDir: 'out', rootDir: '.' },
    include: ['prelude.d.ts', 'blocks/**/*.ts']
  }, null, 2))
  writeFileSync(join(project, 'prelude.d.ts'), PRELUDE)
  writeFileSync(join(project, 'blocks', 'app.d.ts'), APP_MODULE)
  writeFileSync(join(project, 'run-blocks.mjs'), RUNTIME)
  for (const block of blocks) writeFileSync(join(project, block.file), block.code)
  writeFileSync(join(project, BROKEN.file), BROKEN.code)
  const started = Date.now()
  compiled = { ...await tsc(project), ms: Date.now() - started }
})

/** tsc's errors, each as `page:line:column: message` for a block's (continuation lines kept), or as printed for another file. */
function located (output: string): string[] {
  const errors: string[] = []
  for (const line of output.split('\n')) {
    const at = /^(blocks\/[^(]+)\((\d+),(\d+)\): (.*)$/.exec(line)
    const block = at === null ? undefined : blocks.find((block) => block.file === at[1])
    if (at !== null) errors.push(block === undefined ? line : `${block.page}:${block.line + Number(at[2])}:${at[3]}: ${at[4]}`)
    else if (line.trim() !== '' && errors.length > 0) errors[errors.length - 1] += `\n${line}`
    else if (line.trim() !== '') errors.push(line)
  }
  return errors
}

t.test('every TypeScript block of the README and docs/ compiles under strict, in one tsc run', async (t) => {
  t.ok(blocks.length >= 20, `${blocks.length} blocks in ${new Set(blocks.map((block) => block.page)).size} pages`)
  t.comment(`tsc took ${compiled.ms} ms`)
  const errors = located(compiled.output)
  t.same(errors.filter((error) => !error.startsWith(BROKEN.file)), [], 'no error in a block')
  // the check is live: the fixture's env value is string | undefined where a string is needed
  t.match(errors.filter((error) => error.startsWith(BROKEN.file)), [/^blocks\/broken-fixture\.ts\(1,\d+\): error TS2769: No overload matches this call\.\n[^]*Type 'string \| undefined' is not assignable to type 'string/])
})

t.test('a block marked <!-- registers --> runs: its app gets ready with what the block registered', async (t) => {
  const files = registering.map((block) => [join(project, 'out', block.file.replace(/\.ts$/, '.js')), /\.register\(sake\b/.test(block.code)] as const)
  // what the skills page's block reads from disk: a folder beside the module, and ./more-skills from the working directory
  for (const [dir, name] of [[join(project, 'out', 'blocks', 'skills'), 'refunds'], [join(project, 'more-skills'), 'style']] as const) {
    mkdirSync(join(dir, name), { recursive: true })
    writeFileSync(join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: The ${name} skill\n---\nHow to ${name}.\n`)
  }
  const { stdout } = await run(process.execPath, ['run-blocks.mjs', JSON.stringify(files)], { cwd: project })
  const seen = JSON.parse(stdout)
  const none = { tools: [], resources: [], prompts: [], skills: [] }
  // in the order of the pages, then of the blocks in a page (their lines move as the pages change)
  t.same(registering.map((block, i) => ({ page: block.page, ...seen[files[i]![0]] })), [
    { page: 'docs/apps.md', ...none, tools: ['counter', 'counter_increment'], resources: ['ui://example-server/counter'] },
    { page: 'docs/asking-the-client.md', ...none, tools: ['greet'] },
    { page: 'docs/asking-the-client.md', ...none, tools: ['restart'] },
    { page: 'docs/asking-the-client.md', ...none, tools: ['pay_wrong', 'pay'] },
    { page: 'docs/authorization.md', ...none, tools: ['list_issues', 'delete_issue'] },
    { page: 'docs/fastify.md', ...none, tools: ['report'] },
    { page: 'docs/resources-and-prompts.md', ...none, resources: ['config://app', 'users://{id}/profile'] },
    { page: 'docs/resources-and-prompts.md', ...none, prompts: ['code_review'] },
    { page: 'docs/resources-and-prompts.md', ...none, tools: ['deploy'] },
    {
      page: 'docs/skills.md',
      ...none,
      // the SKILL.md of every skill is a resource too
      resources: ['skill://refunds/SKILL.md', 'skill://acme/style/SKILL.md', 'skill://git-workflow/SKILL.md', 'skill://reports/daily/SKILL.md'],
      skills: ['skill://refunds/SKILL.md', 'skill://acme/style/SKILL.md', 'skill://git-workflow/SKILL.md', 'skill://reports/daily/SKILL.md']
    },
    { page: 'docs/tasks.md', ...none, tools: ['export_report'] }
  ])
})
