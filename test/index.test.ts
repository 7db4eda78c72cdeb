// app.registerTool (one definition or an array), the `tools` option and defineTool; what happens
// after ready and on a duplicate name; the listed result is sorted and serialised at ready.
// The plugin function itself: several MCP servers in one app, one per encapsulated context, and the
// mistake of registering a second one where a first already is; and one tool answering in both eras
// through the plugin (the smoke test).
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import Fastify from 'fastify'
import sake, {
  Type, defineTool, definePrompt, SakeRegisterAfterReadyError, SakeDuplicateToolError, SakeToolDefinitionError
} from '../lib/index.js'
import { ListPages } from '../lib/protocol/lists.js'
import { build } from './helpers/app.js'
import { sessionPost, modernRequest, openSession, rpc } from './helpers/requests.js'
import { captureLog } from './helpers/logs.js'
import { SCOPES, bearer, startIssuer } from './helpers/tokens.js'

async function names (app: Awaited<ReturnType<typeof build>>): Promise<string[]> {
  const res = await app.inject(modernRequest('tools/list'))
  return rpc(res).result.tools.map((tool: { name: string }) => tool.name)
}

t.test('one definition', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const result = app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => a + b })
  t.equal(result, undefined, 'returns nothing: registration is a side effect')
  t.ok(app.mcp.tools.has('add'))
  t.same(await names(app), ['add'])
  const call = await app.inject(modernRequest('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))
  t.equal(rpc(call).result.structuredContent, 5, 'the registered execute runs')
})

t.test('every option of a definition reaches tools/list, in both eras', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerTool({
    name: 'search_issues',
    title: 'Search issues',
    description: 'Search the tracker',
    icons: [{ src: 'https://example.com/search.png', sizes: ['48x48'] }],
    annotations: { readOnly: true, openWorld: false, title: 'Issue search' },
    meta: { 'example.com/team': 'issues' },
    ttl: 60_000,
    args: { query: Type.String({ description: 'Text to find', minLength: 1 }), region: Type.Optional(Type.String({ header: 'Region' })) },
    output: { count: Type.Integer() },
    execute: () => ({ count: 0 })
  })
  app.registerTool({ name: 'listing', output: Type.Array(Type.String()), execute: () => [] })
  const expected = {
    name: 'search_issues',
    title: 'Search issues',
    description: 'Search the tracker',
    icons: [{ src: 'https://example.com/search.png', sizes: ['48x48'] }],
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Text to find', minLength: 1 }, region: { type: 'string', 'x-mcp-header': 'Region' } },
      required: ['query'],
      additionalProperties: false
    },
    outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    annotations: { readOnlyHint: true, openWorldHint: false, title: 'Issue search' },
    _meta: { 'example.com/team': 'issues' }
  }
  const modern = rpc(await app.inject(modernRequest('tools/list'))).result
  t.same(modern.tools[1], expected)
  t.equal(modern.ttlMs, 60_000, 'the tool\'s ttl shortens its page')
  t.same(modern.tools[0].outputSchema, { type: 'array', items: { type: 'string' } })
  const session = await openSession(app)
  const legacy = rpc(await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/list' }))).result
  t.same(legacy.tools[1], expected, 'the same Tool object for a 2025 client')
  t.notOk('outputSchema' in legacy.tools[0], 'except an outputSchema without an object root')
  t.notOk('ttlMs' in legacy, 'and no caching fields')
})

t.test('an array of definitions', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const tools = [
    defineTool({ name: 'one', execute: () => 1 }),
    defineTool({ name: 'two', execute: () => 2 })
  ]
  app.registerTool(tools)
  t.same([...app.mcp.tools.keys()], ['one', 'two'])
  t.same(await names(app), ['one', 'two'])
})

t.test('the tools option', async (t) => {
  const app = await build({ tools: [defineTool({ name: 'from-option', execute: () => 'x' })] })
  t.teardown(() => app.close())
  app.registerTool({ name: 'later', execute: () => 'y' })
  t.same(await names(app), ['from-option', 'later'])
})

t.test('defineTool returns its argument, typed for a module to export', async (t) => {
  const definition = { name: 'echo', args: { s: Type.String() }, execute: ({ s }: { s: string }) => s }
  const defined = defineTool(definition)
  t.equal(defined, definition, 'the same object')
  t.same(Object.keys(defined), ['name', 'args', 'execute'], 'nothing added')
  const app = await build({ tools: [defined] })
  t.teardown(() => app.close())
  const call = await app.inject(modernRequest('tools/call', { name: 'echo', arguments: { s: 'hi' } }))
  t.same(rpc(call).result.content, [{ type: 'text', text: 'hi' }])
})

t.test('the same definition on two servers in one process', async (t) => {
  // the compiled form is per server, and nothing is cached by name across servers
  const shared = defineTool({ name: 'shared', input: { $id: 'https://example.com/shared', type: 'object', properties: {} }, execute: () => 'ok' })
  const a = await build({ tools: [shared] })
  const b = await build({ tools: [shared] })
  t.teardown(() => Promise.all([a.close(), b.close()]))
  t.same(await names(a), ['shared'])
  t.same(await names(b), ['shared'])
})

t.test('a mistake is thrown from registerTool itself', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  t.throws(() => app.registerTool({ name: 'bad name', execute: () => 1 }), SakeToolDefinitionError)
  t.throws(() => app.registerTool(undefined as any), { code: 'SAKE_ERR_INVALID_TOOL', message: 'a tool definition must be an object, got undefined' })
  t.throws(() => app.registerTool([{ name: 'ok', execute: () => 1 }, null as any]), { message: 'a tool definition must be an object, got null' })
  t.same([...app.mcp.tools.keys()], [], 'an array with a bad definition registers none of them')
})

t.test('a duplicate name', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerTool({ name: 'add', execute: () => 1 })
  const first = app.mcp.tools.get('add')
  t.throws(() => app.registerTool({ name: 'add', description: 'again', execute: () => 2 }), {
    code: 'SAKE_ERR_DUPLICATE_TOOL',
    name: 'SakeDuplicateToolError',
    message: "a tool named 'add' is already registered on this MCP server; tool names must be unique"
  })
  t.throws(() => app.registerTool([defineTool({ name: 'x', execute: () => 1 }), defineTool({ name: 'x', execute: () => 1 })]), SakeDuplicateToolError, 'within one array too')
  t.equal(app.mcp.tools.get('add'), first, 'the first registration stays')
  t.notOk(app.mcp.tools.has('x'), 'a failed array registers none of its tools')
})

t.test('an array registers all or none, for tools, resources and prompts alike', async (t) => {
  const app = await build({
    scopes: { 'a:read': 'Read a' },
    auth: { resource: 'http://localhost/mcp', authorizationServers: ['https://as.example.com'], verify: async (token) => ({ subject: token }) }
  })
  t.teardown(() => app.close())
  app.registerTool(defineTool({ name: 'kept', execute: () => 1 }))
  t.throws(() => app.registerTool([
    defineTool({ name: 'fine', scope: 'a:read', execute: () => 1 }),
    defineTool({ name: 'bad name', execute: () => 1 })
  ]), SakeToolDefinitionError)
  t.same([...app.mcp.tools.keys()], ['kept'], 'the tool before the bad one was taken back')
  t.same(app.mcp.scopes().map((s) => s.tools), [[]], 'and its scope requirement with it')
  t.throws(() => app.registerResource([
    { uri: 'app://one', name: 'one', read: () => 'one' },
    { uriTemplate: 'app://t/{id}', name: 't', read: () => 't' },
    { uri: 'no-scheme', name: 'bad', read: () => 'x' }
  ]), { code: 'SAKE_ERR_INVALID_RESOURCE' })
  t.equal(app.mcp.resources.size + app.mcp.templates.size, 0)
  t.throws(() => app.registerPrompt([
    definePrompt({ name: 'p', get: () => 'p' }),
    definePrompt({ name: 'p', get: () => 'again' })
  ]), { code: 'SAKE_ERR_DUPLICATE_PROMPT' })
  t.equal(app.mcp.prompts.size, 0)
  // and what was taken back can be registered again
  app.registerTool(defineTool({ name: 'fine', scope: 'a:read', execute: () => 1 }))
  t.same([...app.mcp.tools.keys()], ['kept', 'fine'])
})

t.test('names differing only in case are two tools', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerTool([defineTool({ name: 'add', execute: () => 1 }), defineTool({ name: 'Add', execute: () => 2 })])
  t.equal(app.mcp.tools.size, 2)
})

t.test('registering after ready', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerTool({ name: 'early', execute: () => 1 })
  await app.ready()
  t.throws(() => app.registerTool({ name: 'late', execute: () => 1 }), {
    code: 'SAKE_ERR_REGISTER_AFTER_READY',
    name: 'SakeRegisterAfterReadyError',
    message: "cannot register tool 'late' after the server is ready; register every tool, resource and prompt before app.ready() or app.listen()"
  })
  t.throws(() => app.registerTool([defineTool({ name: 'late2', execute: () => 1 })]), SakeRegisterAfterReadyError, 'an array too')
  t.throws(() => app.registerTool(undefined as any), { code: 'SAKE_ERR_REGISTER_AFTER_READY', message: /cannot register tool 'undefined'/ }, 'even a broken one: the late call is the mistake to fix')
  t.same(await names(app), ['early'], 'the list is unchanged')
})

t.test('registering from a later plugin, before ready, is fine', async (t) => {
  const app = Fastify({ logger: false })
  await app.register(sake, { name: 'test-server', version: '1.0.0' })
  await app.register(async (child) => {
    child.registerTool({ name: 'from-plugin', execute: () => 1 })
  })
  t.teardown(() => app.close())
  t.same(await names(app), ['from-plugin'])
})

t.test('tools/list is sorted by name, whatever the registration order', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerTool(['delta', 'Bravo', 'alpha', 'charlie', 'a.b', 'a_b', 'a-b', '10', '9'].map((name) => defineTool({ name, execute: () => name })))
  t.same(await names(app), ['10', '9', 'Bravo', 'a-b', 'a.b', 'a_b', 'alpha', 'charlie', 'delta'], 'code-unit order: stable whatever the locale')
  t.same([...app.mcp.tools.keys()].slice(0, 2), ['delta', 'Bravo'], 'app.mcp.tools keeps registration order')
})

t.test('the list is serialised once, at ready', async (t) => {
  const paginate = t.capture(ListPages.prototype as any, 'paginate', (ListPages.prototype as any).paginate)
  const app = await build()
  t.teardown(() => app.close())
  app.registerTool([defineTool({ name: 'b', execute: () => 1 }), defineTool({ name: 'a', execute: () => 1 })])
  t.equal(paginate().length, 0, 'nothing serialised while registering')
  await app.ready()
  t.equal(paginate().length, 1, 'once at ready')
  const first = await app.inject(modernRequest('tools/list'))
  const second = await app.inject(modernRequest('tools/list'))
  t.equal(paginate().length, 0, 'never again per request')
  t.same(rpc(first).result.tools.map((tool: { name: string }) => tool.name), ['a', 'b'])
  t.equal(JSON.stringify(rpc(first).result), JSON.stringify(rpc(second).result))
})

t.test('several servers in one app, one per context (was plugin/encapsulation)', async (t) => {
  const at = (url: string, req: ReturnType<typeof modernRequest>): ReturnType<typeof modernRequest> => ({ ...req, url })

  t.test('two servers in sibling contexts, each with its own tools', async (t) => {
    const app = Fastify({ logger: false })
    t.teardown(() => app.close())
    const views: Record<string, typeof app.mcp> = {}
    await app.register(async (child) => {
      await child.register(sake, { name: 'server-a', version: '1.0.0', path: '/a' })
      child.registerTool({ name: 'only-a', execute: () => 'a' })
      views.a = child.mcp
    })
    await app.register(async (child) => {
      await child.register(sake, { name: 'server-b', version: '2.0.0', path: '/b', tools: [defineTool({ name: 'only-b', execute: () => 'b' })] })
      views.b = child.mcp
    })
    t.notOk(app.hasDecorator('mcp'), 'the parent has no server of its own')

    const listA = rpc(await app.inject(at('/a', modernRequest('tools/list')))).result
    const listB = rpc(await app.inject(at('/b', modernRequest('tools/list')))).result
    t.same(listA.tools.map((tool: { name: string }) => tool.name), ['only-a'])
    t.same(listB.tools.map((tool: { name: string }) => tool.name), ['only-b'])
    t.equal(listA._meta['io.modelcontextprotocol/serverInfo'].name, 'server-a')
    t.equal(listB._meta['io.modelcontextprotocol/serverInfo'].name, 'server-b')

    const callB = await app.inject(at('/b', modernRequest('tools/call', { name: 'only-a', arguments: {} })))
    t.equal(rpc(callB).error?.code, -32602, 'server b does not know server a\'s tool')
    t.equal(views.a.path, '/a')
    t.equal(views.b.info.version, '2.0.0')
    t.equal((await app.inject(modernRequest('tools/list'))).statusCode, 404, 'nothing at the default path')
  })

  t.test('a second server in the same context is refused', async (t) => {
    const app = Fastify({ logger: false })
    t.teardown(() => app.close())
    await app.register(sake, { name: 'one', version: '1.0.0' })
    await t.rejects(async () => { await app.register(sake, { name: 'two', version: '1.0.0', path: '/two' }) }, {
      code: 'SAKE_ERR_INVALID_OPTION',
      name: 'SakeOptionError',
      message: /^fastify-sake: an MCP server is already registered in this context or a parent of it; register each server in its own sibling context: app\.register\(async \(child\) => \{ await child\.register\(sake, \{\.\.\.\}\) \}\)$/
    })
  })

  t.test('a server in a child of a context that has one is refused', async (t) => {
    const app = Fastify({ logger: false })
    t.teardown(() => app.close())
    await app.register(sake, { name: 'outer', version: '1.0.0' })
    await t.rejects(async () => {
      await app.register(async (child) => {
        await child.register(sake, { name: 'inner', version: '1.0.0', path: '/inner' })
      })
    }, { code: 'SAKE_ERR_INVALID_OPTION', message: /already registered in this context or a parent of it/ })
  })

  t.test('the MCP routes do not change the host\'s routes', async (t) => {
    const app = Fastify({ logger: false })
    t.teardown(() => app.close())
    await app.register(sake, { name: 'host', version: '1.0.0' })
    app.post('/echo', async (request) => request.body)
    const res = await app.inject({ method: 'POST', url: '/echo', payload: { a: 1 } })
    t.equal(res.statusCode, 200)
    t.same(res.json(), { a: 1 }, 'the host keeps Fastify\'s own JSON parser')
    const bad = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{' })
    t.equal(bad.statusCode, 400)
    t.notOk('jsonrpc' in bad.json(), 'and its own error format')
  })
})

t.test('under a Fastify prefix the endpoint is below it; path \'/\' puts it at the prefix itself', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  const views: Record<string, typeof app.mcp> = {}
  await app.register(async (child) => {
    await child.register(sake, { name: 'nested', version: '1.0.0' })
    views.nested = child.mcp
  }, { prefix: '/a' })
  await app.register(async (child) => {
    await child.register(sake, { name: 'root-of-prefix', version: '1.0.0', path: '/' })
    views.atPrefix = child.mcp
  }, { prefix: '/b' })
  await app.ready()
  t.equal(views.nested.path, '/a/mcp')
  t.equal(views.atPrefix.path, '/b')
  const list = await app.inject({ ...modernRequest('tools/list'), url: '/b' })
  t.equal(list.statusCode, 200)
  t.equal(rpc(list).result._meta['io.modelcontextprotocol/serverInfo'].name, 'root-of-prefix')
})

t.test('one tool answers in both eras (was smoke)', async (t) => {
  t.test('a tool answers in both eras', async (t) => {
    const app = await build()
    app.registerTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }) => a + b })
    await app.ready()
    t.teardown(() => app.close())
    const modern = await app.inject(modernRequest('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }))
    t.equal(modern.statusCode, 200)
    t.equal(rpc(modern).result.structuredContent, 3)
    const session = await openSession(app)
    const legacy = await app.inject(sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 2 } } }))
    t.same(rpc(legacy).result, { content: [{ type: 'text', text: '4' }] })
  })
})

t.test('registerSkill and the skills option: a folder on disk (its links warned about), a skill in code, all or none', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'sake-index-skills-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(join(root, 'skills/one'), { recursive: true })
  writeFileSync(join(root, 'skills/one/SKILL.md'), '---\nname: one\ndescription: One\n---\n')
  writeFileSync(join(root, 'secret.txt'), 'secret')
  symlinkSync(join(root, 'secret.txt'), join(root, 'skills/one/linked.txt'))
  linkSync(join(root, 'secret.txt'), join(root, 'skills/one/hard.txt'))
  const log = captureLog({ level: 'warn' })
  const app = await build({ skills: { directory: join(root, 'skills') } }, { logger: log.logger })
  t.teardown(() => app.close())
  t.same([...app.mcp.skills.keys()], ['skill://one/SKILL.md'])
  t.same(log.lines.filter((line) => line.file !== undefined).map((line) => [line.msg, line.file]), ['hard.txt', 'linked.txt'].map((file) => ['fastify-sake: a symbolic link, a hard link (a file with more than one name) or another special file in a skills folder is not read, and not served; copy the file into the skill instead (a copy, not a link)', join(root, 'skills/one', file)]))
  t.throws(() => app.registerSkill([
    { path: 'two', files: { 'SKILL.md': '---\nname: two\ndescription: Two\n---\n' } },
    { path: 'three', files: { 'SKILL.md': '# no frontmatter' } }
  ]), { code: 'SAKE_ERR_INVALID_SKILL', message: /^skill 'three': SKILL\.md: it must begin with YAML frontmatter/ })
  t.same([...app.mcp.skills.keys()], ['skill://one/SKILL.md'], 'the skill before the bad one was taken back')
  app.registerSkill({ path: 'two', files: { 'SKILL.md': '---\nname: two\ndescription: Two\n---\n' } })
  await app.ready()
  t.same([...app.mcp.skills.keys()], ['skill://one/SKILL.md', 'skill://two/SKILL.md'])
  t.throws(() => app.registerSkill({ path: 'four', files: {} }), { code: 'SAKE_ERR_REGISTER_AFTER_READY' })
  await t.rejects(build({ skills: { directory: join(root, 'nowhere') } }), { code: 'SAKE_ERR_INVALID_SKILL', message: /cannot be read/ }, 'a bad folder fails the registration of the plugin')
})

t.test("Fastify's register options: prefix puts every route of the plugin below it (auth metadata too), logLevel applies to them", async (t) => {
  const issuer = await startIssuer(t)
  const lines: Array<Record<string, unknown>> = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  await app.register(sake, {
    prefix: '/ai/',
    logLevel: 'warn',
    name: 'prefixed',
    version: '1.0.0',
    scopes: SCOPES,
    auth: { resource: 'https://mcp.example.com/ai/mcp', authorizationServers: [issuer.issuer], jwks: issuer.jwks }
  })
  app.registerTool({ name: 'hello', execute: () => 'hi' })
  app.get('/other', async () => 'other')
  await app.ready()
  t.equal(app.mcp.path, '/ai/mcp', 'the decorators stay on the context the plugin was registered in')
  const anonymous = await app.inject({ ...modernRequest('tools/list'), url: '/ai/mcp' })
  t.equal(anonymous.statusCode, 401)
  t.match(anonymous.headers['www-authenticate'], 'resource_metadata="https://mcp.example.com/ai/.well-known/oauth-protected-resource/ai/mcp"')
  const metadata = await app.inject({ method: 'GET', url: '/ai/.well-known/oauth-protected-resource/ai/mcp' })
  t.equal(metadata.statusCode, 200, 'the metadata where the challenge points')
  t.equal(JSON.parse(metadata.body).resource, 'https://mcp.example.com/ai/mcp')
  t.equal((await app.inject({ ...modernRequest('tools/list'), url: '/mcp' })).statusCode, 404, 'nothing at the unprefixed path')
  const token = bearer(await issuer.sign({ aud: 'https://mcp.example.com/ai/mcp' }))
  const call = await app.inject({ ...modernRequest('tools/call', { name: 'hello', arguments: {} }, token), url: '/ai/mcp' })
  t.equal(rpc(call).result.content[0].text, 'hi')
  t.equal((await app.inject({ method: 'GET', url: '/other' })).body, 'other')
  const incoming = (url: string): boolean => lines.some((line) => line.msg === 'incoming request' && (line.req as { url?: string } | undefined)?.url === url)
  t.notOk(incoming('/ai/mcp'), 'logLevel warn: the MCP routes log no request lines')
  t.ok(incoming('/other'), "the host's routes log as ever")
  await t.rejects(async () => { await Fastify().register(sake, { name: 'x', version: '1', prefix: 'ai' }) }, { code: 'SAKE_ERR_INVALID_OPTION', message: /option 'prefix' must be a URL path starting with '\/'/ })
  await t.rejects(async () => { await Fastify().register(sake, { name: 'x', version: '1', logLevel: 3 as never }) }, { message: /option 'logLevel' must be a log level/ })
  await t.rejects(async () => { await Fastify().register(sake, { name: 'x', version: '1', logSerializers: 'x' as never }) }, { message: /option 'logSerializers' must be an object of serializers/ })
})

t.test('request.mcp is null on every other route of the app, in the plugin\'s context and outside it (a plugin registered in a child context)', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const seen: Record<string, unknown> = {}
  app.get('/root-before', async (request) => { seen.rootBefore = request.mcp; return 'x' })
  await app.register(async (sibling) => {
    sibling.get('/sibling', async (request) => { seen.sibling = request.mcp; return 'x' })
  })
  await app.register(async (child) => {
    await child.register(sake, { name: 'child', version: '1' })
    child.get('/child-route', async (request) => { seen.child = request.mcp; return 'x' })
  }, { prefix: '/c' })
  await app.register(async (other) => {
    await other.register(sake, { name: 'other', version: '1' })
  }, { prefix: '/o' })
  app.get('/root-after', async (request) => { seen.rootAfter = request.mcp; return 'x' })
  for (const url of ['/root-before', '/sibling', '/c/child-route', '/root-after']) t.equal((await app.inject(url)).statusCode, 200, url)
  t.same(seen, { rootBefore: null, sibling: null, child: null, rootAfter: null }, 'null everywhere, not undefined')
  const rootApp = Fastify()
  t.teardown(() => rootApp.close())
  await rootApp.register(sake, { name: 'root', version: '1' })
  rootApp.get('/plain', async (request) => ({ mcp: request.mcp }))
  t.same(JSON.parse((await rootApp.inject('/plain')).body), { mcp: null }, 'registered at the root: null too')
})
