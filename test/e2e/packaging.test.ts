// The package as its users install it: `fastify` is theirs (a peer dependency, never bundled, so
// the type augmentation lands on their copy); CommonJS projects `require()` it; and the lowest
// Fastify the peer range claims (5.0.0, installed as the fastify-lowest alias) runs it. The types
// are checked against that Fastify too (types/lowest/tsconfig.json, in npm test). The tarball
// carries the documentation: every document the README and docs/ link (issue 31), but the
// contributors' pages, which stay in the repository (issue 41). mime-db waits for the first skill,
// negotiator for the first Accept other than MCP clients' (issue 41, item 7).
import t from 'tap'
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { join, relative } from 'node:path'
import sake, { Type } from '../../lib/index.js'
import { markdownLinks } from '../helpers/markdown.js'

const root = new URL('../../', import.meta.url)
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))

t.test('fastify is a peer dependency, not a dependency', async (t) => {
  t.notOk('fastify' in pkg.dependencies, 'not in dependencies: a host on another Fastify 5 would get a second copy')
  t.equal(pkg.peerDependencies.fastify, '^5.0.0')
  t.equal(pkg.devDependencies['fastify-lowest'], `npm:fastify@${pkg.peerDependencies.fastify.slice(1)}`, 'the lowest version claimed is the one tested')
})

t.test('require() from a CommonJS file gives the plugin, which serves a call', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(new URL('test/fixtures/require.cjs', root))], { cwd: fileURLToPath(root) })
  t.same(JSON.parse(stdout.trim().split('\n').pop()!), { named: 'function', same: true, status: 200, result: { sum: 3 } })
})

t.test('mime-db (200 KB of JSON) is loaded by the first skill, and negotiator by the first unusual Accept, not by importing the plugin', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', [
    "import { createRequire } from 'node:module'",
    "const { default: Fastify } = await import('fastify')",
    "const { default: sake } = await import('fastify-sake')",
    "const loaded = (name) => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/' + name + '/'))",
    'const app = Fastify()',
    "await app.register(sake, { name: 'lazy', version: '1.0.0' })",
    "app.registerTool({ name: 't', execute: () => 'ok' })",
    'await app.ready()',
    "const post = (accept) => app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept }, payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } })",
    "await post('application/json, text/event-stream')",
    "const common = loaded('negotiator')",
    "await post('application/json')",
    "const other = loaded('negotiator')",
    "const before = loaded('mime-db')",
    'const withSkill = Fastify()',
    "await withSkill.register(sake, { name: 'skills', version: '1.0.0' })",
    "withSkill.registerSkill({ path: 'demo', files: { 'SKILL.md': '---\\nname: demo\\ndescription: A demo\\n---\\n', 'a.py': 'print(1)' } })",
    'await withSkill.ready()',
    "console.log(JSON.stringify({ common, other, before, after: loaded('mime-db') }))",
    'await app.close(); await withSkill.close()'
  ].join('\n')], { cwd: fileURLToPath(root) })
  t.same(JSON.parse(stdout), { common: false, other: true, before: false, after: true })
})

t.test('the lowest Fastify claimed runs the plugin in both eras', async (t) => {
  t.equal(createRequire(import.meta.url)('fastify-lowest/package.json').version, '5.0.0')
  // the two Fastify copies' types differ (5.0.0 lacks later members): this file checks the run, types/lowest the types
  const { default: Fastify } = await import('fastify-lowest') as unknown as { default: () => import('fastify').FastifyInstance }
  const app = Fastify()
  await app.register(sake, { name: 'lowest', version: '1.0.0' })
  app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => ({ sum: a + b }) })
  t.teardown(() => app.close())
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
  const modern = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 }, _meta: meta } }
  })
  t.same(JSON.parse(modern.body).result.structuredContent, { sum: 3 })
  const init = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }
  })
  const session = init.headers['mcp-session-id'] as string
  t.type(session, 'string')
  const legacy = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 2 } } }
  })
  t.same(JSON.parse(legacy.body).result.structuredContent, { sum: 4 })
})

t.test('fastify-sake/client: the subpath export, built into dist, and it loads none of the server', async (t) => {
  t.same(pkg.exports['./client'], { types: './dist/client/index.d.ts', import: './dist/client/index.js', default: './dist/client/index.js' })
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', [
    "const client = await import('fastify-sake/client')",
    "console.log(JSON.stringify({ resolved: import.meta.resolve('fastify-sake/client'), createClient: typeof client.createClient, RpcError: typeof client.RpcError }))"
  ].join('\n')], { cwd: fileURLToPath(root) })
  const seen = JSON.parse(stdout)
  t.equal(seen.resolved, new URL('dist/client/index.js', root).href)
  t.same([seen.createClient, seen.RpcError], ['function', 'function'])
  const required = await promisify(execFile)(process.execPath, ['-e', "console.log(typeof require('fastify-sake/client').createClient)"], { cwd: fileURLToPath(root) })
  t.equal(required.stdout.trim(), 'function', 'require() works too')

  // every module the built client reaches, following its imports: the bottom layer and the
  // header rules, never the plugin, and no fastify (imported as a type only)
  const reached = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: URL): void => {
    if (reached.has(file.href)) return
    reached.add(file.href)
    const source = readFileSync(file, 'utf8')
    for (const [, specifier] of source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g)) {
      if (specifier.startsWith('.')) visit(new URL(specifier, file))
      else packages.add(specifier)
    }
  }
  visit(new URL('dist/client/index.js', root))
  const files = [...reached].map((href) => href.slice(new URL('dist/', root).href.length)).sort()
  t.ok(files.length > 5)
  t.same(files.filter((file) => !/^(client\/|spec\/|errors\.js$|errors\/|values\.js$|checks\.js$|option-spec\.js$|define\/header-params\.js$)/.test(file)), [], 'only the client, the bottom layer and the header rules')
  const named = [...packages].filter((name) => !name.startsWith('node:'))
  t.notOk(named.some((name) => name === 'fastify' || name.startsWith('fastify/')), 'not fastify: a { url } client runs without it')
  t.same(named.filter((name) => !(name in pkg.dependencies)), [], 'only the package\'s own dependencies (values.ts reads TypeBox\'s Kind)')
})

t.test('the tarball ships the docs but the contributors\' pages, the changelog and every document what it ships links', async (t) => {
  const cwd = fileURLToPath(root)
  // --ignore-scripts: `prepare` would rebuild dist/ under the feet of the tests running beside this one
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd })
  const [packed] = JSON.parse(stdout)
  const shipped = new Set<string>(packed.files.map((file: { path: string }) => file.path))
  t.comment(`${packed.entryCount} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked`)
  const contributors = ['docs/architecture.md', 'docs/conformance.md', 'docs/development.md']
  const pages = readdirSync(new URL('docs/', root)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`).filter((page) => !contributors.includes(page))
  t.ok(pages.length > 10)
  for (const path of ['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json', 'dist/index.js', 'dist/client/index.js', ...pages]) t.ok(shipped.has(path), `ships ${path}`)
  for (const path of contributors) t.notOk(shipped.has(path), `leaves ${path} in the repository`)
  let checked = 0
  for (const document of ['README.md', 'CHANGELOG.md', ...pages]) {
    for (const { target, line } of markdownLinks(readFileSync(new URL(document, root), 'utf8'))) {
      const location = target.split('#')[0]!
      // another site (the repository's own files that do not ship are linked on GitHub), or the page itself
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || location === '') continue
      const path = relative(cwd, join(cwd, document, '..', location))
      checked++
      t.ok(shipped.has(path), `${document}:${line} links ${path}, which the tarball ships`)
    }
  }
  t.ok(checked > 50, `${checked} relative links`)
})
