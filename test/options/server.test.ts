// Plugin options through app.register: every mistake fails registration with
// SAKE_ERR_INVALID_OPTION and a message naming the option, what it accepts and what arrived; every
// default shows in behaviour.
// The bus and events options are checked at registration like every other option.
import t from 'tap'
import Fastify from 'fastify'
import sake, { SakeOptionError, Type, defineTool } from '../../lib/index.js'
import { readFileSync } from 'node:fs'
import { resolveOptions, SERVER } from '../../lib/options/server.js'
import { documented } from '../../lib/option-spec.js'
import { build, refusesRegister } from '../helpers/app.js'
import { initializeRequest, modernRequest, openSession, rpc } from '../helpers/requests.js'

const base = { name: 'test-server', version: '1.0.0' }

t.test('errors are SakeOptionError', async (t) => {
  const app = Fastify({ logger: false })
  const err = await app.register(sake, {} as any).then(() => undefined, (e: unknown) => e)
  t.type(err, SakeOptionError)
  t.type(err, Error)
})

t.test('options must be an object', async (t) => {
  for (const [value, shown] of [['my-app', '"my-app" \\(string\\)'], [42, '42 \\(number\\)'], [[], '\\[\\] \\(array\\)']] as const) {
    await refusesRegister(t, value, new RegExp(`^fastify-sake: the options must be an object with at least name and version, such as \\{ name: 'my-app', version: '1.0.0' \\}, got ${shown}$`))
  }
})

t.test('name and version are required non-empty strings', async (t) => {
  await refusesRegister(t, {}, "fastify-sake: option 'name' must be a non-empty string, got nothing", 'no options at all')
  await refusesRegister(t, { name: 'a' }, "fastify-sake: option 'version' must be a non-empty string, got nothing")
  await refusesRegister(t, { ...base, name: '' }, "fastify-sake: option 'name' must be a non-empty string, got \"\" (string)")
  await refusesRegister(t, { ...base, version: 1 }, "fastify-sake: option 'version' must be a non-empty string, got 1 (number)")
  await refusesRegister(t, { ...base, name: null }, "fastify-sake: option 'name' must be a non-empty string, got null (null)")
})

t.test('the optional strings', async (t) => {
  for (const key of ['title', 'description', 'websiteUrl', 'instructions']) {
    await refusesRegister(t, { ...base, [key]: '' }, `fastify-sake: option '${key}' must be a non-empty string, got "" (string)`)
    await refusesRegister(t, { ...base, [key]: ['x'] }, `fastify-sake: option '${key}' must be a non-empty string, got ["x"] (array)`)
  }
})

t.test('unknown options are refused, with the likely one', async (t) => {
  await refusesRegister(t, { ...base, tll: 1000 }, /^fastify-sake: unknown option 'tll' \(did you mean 'ttl'\?\); known options are name, version, title, description, websiteUrl, icons, instructions, path, ttl, pageSize, bodyLimit, maxBatchItems, keepAlive, closeTimeout, sessions, bus, events, tasks, streams, questions, redis, requestState, inputTimeout, tools, resources, prompts, skills, allowedHosts, allowedOrigins, auth, scopes, routeOptions, openapi, tracing, prefix, logLevel, logSerializers$/)
  await refusesRegister(t, { ...base, pagesize: 10 }, /unknown option 'pagesize' \(did you mean 'pageSize'\?\)/, 'case differences')
  await refusesRegister(t, { ...base, titel: 'x' }, /unknown option 'titel' \(did you mean 'title'\?\)/, 'a transposition')
  await refusesRegister(t, { ...base, intructons: 'x' }, /unknown option 'intructons' \(did you mean 'instructions'\?\)/, 'longer names allow two edits')
  await refusesRegister(t, { ...base, authz: true }, /^fastify-sake: unknown option 'authz' \(did you mean 'auth'\?\)/)
  await refusesRegister(t, { ...base, oauth2: true }, /^fastify-sake: unknown option 'oauth2'; known options are/, 'nothing close: no guess')
})

t.test('path', async (t) => {
  await refusesRegister(t, { ...base, path: 'mcp' }, "fastify-sake: option 'path' must be a URL path starting with '/', such as '/mcp', got \"mcp\" (string)")
  await refusesRegister(t, { ...base, path: '' }, /option 'path' must be a URL path starting with '\/'.*got "" \(string\)$/)
  await refusesRegister(t, { ...base, path: 42 }, /option 'path' .*got 42 \(number\)$/)
  await refusesRegister(t, { ...base, path: null }, /option 'path' .*got null \(null\)$/, 'null is not "use the default"')
})

t.test('ttl', async (t) => {
  await refusesRegister(t, { ...base, ttl: -1 }, "fastify-sake: option 'ttl' must be an integer >= 0 (milliseconds), got -1 (number)")
  await refusesRegister(t, { ...base, ttl: 1.5 }, /option 'ttl' must be an integer >= 0 \(milliseconds\), got 1\.5 \(number\)$/)
  await refusesRegister(t, { ...base, ttl: '300000' }, /option 'ttl' .*got "300000" \(string\)$/)
  await refusesRegister(t, { ...base, ttl: Number.NaN }, /option 'ttl' .*got NaN \(number\)$/)
  await refusesRegister(t, { ...base, ttl: 10n }, /option 'ttl' .*got bigint$/, 'what JSON cannot show')
})

t.test('pageSize and bodyLimit', async (t) => {
  await refusesRegister(t, { ...base, pageSize: 0 }, "fastify-sake: option 'pageSize' must be an integer >= 1 (tools per page), got 0 (number)")
  await refusesRegister(t, { ...base, bodyLimit: 0 }, "fastify-sake: option 'bodyLimit' must be an integer >= 1 (bytes), got 0 (number)")
  await refusesRegister(t, { ...base, bodyLimit: '1mb' }, /option 'bodyLimit' .*got "1mb" \(string\)$/)
})

t.test('sessions', async (t) => {
  await refusesRegister(t, { ...base, sessions: 'memory' }, "fastify-sake: option 'sessions' must be an object { store?, idleTimeout?, maxSessions?, maxPerCaller?, maxSize? }, got \"memory\" (string)")
  await refusesRegister(t, { ...base, sessions: [] }, /option 'sessions' must be an object .*got \[\] \(array\)$/)
  await refusesRegister(t, { ...base, sessions: null }, /option 'sessions' must be an object .*got null \(null\)$/)
  await refusesRegister(t, { ...base, sessions: { maxSession: 5 } }, /^fastify-sake: unknown option 'sessions\.maxSession' \(did you mean 'sessions\.maxSessions'\?\); known options are sessions\.store, sessions\.idleTimeout, sessions\.maxSessions, sessions\.maxPerCaller, sessions\.maxSize$/)
  await refusesRegister(t, { ...base, sessions: { idleTimeout: 0 } }, "fastify-sake: option 'sessions.idleTimeout' must be an integer >= 1 (milliseconds), got 0 (number)")
  await refusesRegister(t, { ...base, sessions: { maxSessions: 2.5 } }, "fastify-sake: option 'sessions.maxSessions' must be an integer >= 1 (sessions), got 2.5 (number)")
  await refusesRegister(t, { ...base, sessions: { maxPerCaller: 0 } }, "fastify-sake: option 'sessions.maxPerCaller' must be an integer >= 1 (sessions), got 0 (number)")
  await refusesRegister(t, { ...base, sessions: { maxSize: 100 } }, "fastify-sake: option 'sessions.maxSize' must be an integer >= 1024 (bytes), got 100 (number)")
  await refusesRegister(t, { ...base, sessions: { maxSessions: 10, maxPerCaller: 11 } }, "fastify-sake: option 'sessions.maxPerCaller' must be at most sessions.maxSessions (10): one caller cannot hold more than the server holds in all, got 11 (number)")
  t.same(resolveOptions({ ...base, sessions: { maxSessions: 10 } }).sessions.maxPerCaller, 10, 'by default the smaller of 100 and the total')
  t.same(resolveOptions({ ...base, sessions: { maxSessions: 10, maxPerCaller: 10 } }).sessions.maxPerCaller, 10, 'at the total: accepted')
})

t.test('streams, questions and maxBatchItems', async (t) => {
  await refusesRegister(t, { ...base, streams: 5 } as any, "fastify-sake: option 'streams' must be an object { maxStreams?, maxPerCaller?, maxBuffered? }, got 5 (number)")
  await refusesRegister(t, { ...base, streams: { maxStream: 5 } } as any, /^fastify-sake: unknown option 'streams\.maxStream' \(did you mean 'streams\.maxStreams'\?\)/)
  await refusesRegister(t, { ...base, streams: { maxBuffered: 100 } }, "fastify-sake: option 'streams.maxBuffered' must be an integer >= 1024 (bytes), got 100 (number)")
  await refusesRegister(t, { ...base, streams: { maxStreams: 5, maxPerCaller: 6 } }, /^fastify-sake: option 'streams\.maxPerCaller' must be at most streams\.maxStreams \(5\)/)
  await refusesRegister(t, { ...base, questions: [] } as any, "fastify-sake: option 'questions' must be an object { maxQuestions?, maxPerCaller? }, got [] (array)")
  await refusesRegister(t, { ...base, questions: { maxQuestion: 1 } } as any, /did you mean 'questions\.maxQuestions'/)
  await refusesRegister(t, { ...base, questions: { maxQuestions: 3, maxPerCaller: 4 } }, /^fastify-sake: option 'questions\.maxPerCaller' must be at most questions\.maxQuestions \(3\)/)
  await refusesRegister(t, { ...base, maxBatchItems: 0 }, "fastify-sake: option 'maxBatchItems' must be an integer >= 1 (messages per batch), got 0 (number)")
  const resolved = resolveOptions({ ...base, streams: { maxStreams: 50, maxBuffered: 4096 }, questions: { maxPerCaller: 2 }, maxBatchItems: 5 })
  t.same(resolved.streams, { maxStreams: 50, maxPerCaller: 50, maxBuffered: 4096 })
  t.same(resolved.questions, { maxQuestions: 1000, maxPerCaller: 2 })
  t.equal(resolved.maxBatchItems, 5)
  t.ok(Object.isFrozen(resolved.streams) && Object.isFrozen(resolved.questions))
})

t.test('sessions.store', async (t) => {
  const fn = async (): Promise<undefined> => undefined
  await refusesRegister(t, { ...base, sessions: { store: 'redis' } }, "fastify-sake: option 'sessions.store' must be a SessionStore object with get, set and delete methods, got \"redis\" (string)")
  await refusesRegister(t, { ...base, sessions: { store: class Store {} } }, "fastify-sake: option 'sessions.store' must be a SessionStore instance (new MyStore()), not a class or a function, got a function")
  await refusesRegister(t, { ...base, sessions: { store: { get: fn, set: fn } } }, "fastify-sake: option 'sessions.store' must implement SessionStore (get, set, delete and optionally close): its 'delete' method is missing")
  await refusesRegister(t, { ...base, sessions: { store: { set: fn, delete: fn } } }, /its 'get' method is missing$/)
  await refusesRegister(t, { ...base, sessions: { store: { get: fn, set: 'x', delete: fn } } }, /its 'set' method is not a function \(got "x" \(string\)\)$/)
  await refusesRegister(t, { ...base, sessions: { store: { get: fn, set: fn, delete: fn, close: true } } }, /its 'close' method is not a function \(got true \(boolean\)\)$/)
})

t.test('icons', async (t) => {
  await refusesRegister(t, { ...base, icons: 'https://example.com/i.png' }, /^fastify-sake: option 'icons' must be an array of \{ src, mimeType\?, sizes\?, theme\? \} \(it is not an array\), got "https:\/\/example.com\/i.png" \(string\)$/)
  await refusesRegister(t, { ...base, icons: [{ href: 'x' }] }, /option 'icons' .*\(icons\[0\]\.src must be a non-empty string \(an https: or data: URI\)\), got \[\{"href":"x"\}\] \(array\)$/)
  await refusesRegister(t, { ...base, icons: [{ src: 'x', theme: 'sepia' }] }, /\(icons\[0\]\.theme must be 'light' or 'dark'\)/)
})

t.test('tools must be an array', async (t) => {
  await refusesRegister(t, { ...base, tools: { name: 'a' } }, "fastify-sake: option 'tools' must be an array of tool definitions, got {\"name\":\"a\"} (object)")
  await refusesRegister(t, { ...base, tools: null }, /option 'tools' .*got null \(null\)$/)
})

t.test('a long value is cut short in the message', async (t) => {
  await refusesRegister(t, { ...base, path: { a: 'x'.repeat(200) } }, /got \{"a":"x{51}\.\.\. \(object\)$/)
})

t.test('a bad tool in the tools option fails registration with its own error', async (t) => {
  const app = Fastify({ logger: false })
  await t.rejects(async () => { await app.register(sake, { ...base, tools: [{ name: 'bad name', execute: () => 'x' }] as never }) }, { code: 'SAKE_ERR_INVALID_TOOL', message: /^tool 'bad name'/ })
})

t.test('defaults', async (t) => {
  const resolved = resolveOptions(base)
  t.same(resolved, {
    info: { name: 'test-server', version: '1.0.0' },
    instructions: undefined,
    path: '/mcp',
    ttl: 300_000,
    pageSize: 100,
    bodyLimit: 1024 * 1024,
    maxBatchItems: 32,
    keepAlive: 15_000,
    closeTimeout: 10_000,
    sessions: { store: undefined, idleTimeout: 30 * 60_000, maxSessions: 10_000, maxPerCaller: 100, maxSize: 16_384 },
    bus: undefined,
    events: { store: undefined, maxPerStream: 1000, maxEvents: 100_000, idleTimeout: 300_000 },
    tasks: { store: undefined, maxTasks: 10_000, maxPerCaller: 100, ttl: 600_000, maxTtl: 3_600_000, pollInterval: 1000, closeTimeout: 5000 },
    streams: { maxStreams: 10_000, maxPerCaller: 100, maxBuffered: 262_144 },
    questions: { maxQuestions: 1000, maxPerCaller: 20 },
    requestState: { keys: undefined, ttl: 600_000 },
    inputTimeout: 600_000,
    tools: [],
    resources: [],
    prompts: [],
    skills: { definitions: [], maxFileSize: 1024 * 1024, directoryRead: true },
    openapi: false,
    prefix: '',
    auth: undefined,
    scopes: new Map(),
    routeOptions: { config: {}, plain: {}, hooks: {} },
    tracing: true
  })
  t.ok(Object.isFrozen(resolved) && Object.isFrozen(resolved.info) && Object.isFrozen(resolved.sessions) && Object.isFrozen(resolved.tools), 'frozen')
  const icons = [{ src: 'https://example.com/i.png' }]
  const withIcons = resolveOptions({ ...base, icons })
  icons[0].src = 'changed'
  t.same(withIcons.info.icons, [{ src: 'https://example.com/i.png' }], 'icons copied')
})

t.test('tasks: an object of known keys, a TaskStore, integers', async (t) => {
  await refusesRegister(t, { ...base, tasks: 5 } as any, /^fastify-sake: option 'tasks' must be an object \{ store\?, maxTasks\?, maxPerCaller\?, ttl\?, maxTtl\?, pollInterval\?, closeTimeout\? \}/)
  await refusesRegister(t, { ...base, tasks: { maxTask: 5 } } as any, /unknown option 'tasks.maxTask' \(did you mean 'tasks.maxTasks'\?\)/)
  await refusesRegister(t, { ...base, tasks: { store: { get () {} } } } as any, /option 'tasks.store' must implement TaskStore/)
  await refusesRegister(t, { ...base, tasks: { maxTtl: 0 } } as any, /option 'tasks.maxTtl' must be/)
  const store = { create: () => true, get: () => undefined, transition: () => false, list: () => ({ tasks: [] }), delete: () => {} }
  const resolved = resolveOptions({ ...base, tasks: { store, maxTasks: 5, ttl: 10, maxTtl: 20, pollInterval: 0, closeTimeout: 0 } } as any)
  t.same(resolved.tasks, { store, maxTasks: 5, maxPerCaller: 5, ttl: 10, maxTtl: 20, pollInterval: 0, closeTimeout: 0 })
  await refusesRegister(t, { ...base, tasks: { maxTasks: 5, maxPerCaller: 6 } }, /^fastify-sake: option 'tasks\.maxPerCaller' must be at most tasks\.maxTasks \(5\)/)
  const app = await build({ tasks: { store } as any })
  await app.close()
  t.pass('a user store is not closed by us (it has no close)')
})

t.test('defaults, as a client sees them', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerTool({ name: 'echo', args: { s: Type.String() }, execute: ({ s }) => s })
  t.equal(app.mcp.path, '/mcp')
  const list = await app.inject(modernRequest('tools/list'))
  t.equal(list.statusCode, 200, 'served at /mcp')
  t.equal(rpc(list).result.ttlMs, 300_000, 'ttl: five minutes')
  const big = await app.inject({ ...modernRequest('tools/call', { name: 'echo', arguments: { s: 'x'.repeat(1024 * 1024) } }) })
  t.equal(big.statusCode, 413, 'bodyLimit: 1 MiB')
  const fits = await app.inject(modernRequest('tools/call', { name: 'echo', arguments: { s: 'x'.repeat(1000 * 1000) } }))
  t.equal(fits.statusCode, 200, 'just under 1 MiB is fine')
})

t.test('the default page size is 100', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (let i = 0; i < 101; i++) app.registerTool({ name: `t${String(i).padStart(3, '0')}`, execute: () => 'x' })
  const first = rpc(await app.inject(modernRequest('tools/list'))).result
  t.equal(first.tools.length, 100)
  t.type(first.nextCursor, 'string')
  const second = rpc(await app.inject(modernRequest('tools/list', { cursor: first.nextCursor }))).result
  t.same(second.tools.map((tool: { name: string }) => tool.name), ['t100'])
})

t.test('given options reach the client', async (t) => {
  const app = await build({
    path: '/tools',
    ttl: 1000,
    pageSize: 1,
    bodyLimit: 300,
    title: 'Test Server',
    description: 'For tests',
    websiteUrl: 'https://example.com',
    icons: [{ src: 'https://example.com/i.png' }],
    instructions: 'Call echo.',
    sessions: { maxSessions: 1 },
    tools: [defineTool({ name: 'a', execute: () => 'a' }), defineTool({ name: 'b', execute: () => 'b' })]
  })
  t.teardown(() => app.close())
  const at = (req: ReturnType<typeof modernRequest>): ReturnType<typeof modernRequest> => ({ ...req, url: '/tools' })
  t.equal((await app.inject(modernRequest('tools/list'))).statusCode, 404, 'not at /mcp')
  const list = rpc(await app.inject(at(modernRequest('tools/list')))).result
  t.equal(list.ttlMs, 1000)
  t.equal(list.tools.length, 1, 'pageSize')
  const discover = rpc(await app.inject(at(modernRequest('server/discover')))).result
  t.equal(discover.instructions, 'Call echo.')
  t.same(discover._meta['io.modelcontextprotocol/serverInfo'], {
    name: 'test-server', version: '1.0.0', title: 'Test Server', description: 'For tests', websiteUrl: 'https://example.com', icons: [{ src: 'https://example.com/i.png' }]
  })
  const tooBig = await app.inject(at(modernRequest('tools/call', { name: 'a', arguments: { pad: 'x'.repeat(300) } })))
  t.equal(tooBig.statusCode, 413, 'bodyLimit')
})

t.test('sessions.maxSessions and maxPerCaller reach the default store: refused, never evicted', async (t) => {
  const app = await build({ sessions: { maxSessions: 2, maxPerCaller: 1 } })
  t.teardown(() => app.close())
  const first = await openSession(app)
  const again = await app.inject(initializeRequest())
  t.equal(again.statusCode, 429, 'the caller holds its one session')
  await openSession(app, undefined, { remoteAddress: '10.0.0.2' })
  const third = await app.inject({ ...initializeRequest(), remoteAddress: '10.0.0.3' })
  t.equal(third.statusCode, 503, 'the store holds its two sessions')
  const res = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': first } })
  t.equal(res.statusCode, 204, 'the first session is still there')
})

t.test('requestState and inputTimeout', async (t) => {
  await refusesRegister(t, { ...base, requestState: 'key' }, /^fastify-sake: option 'requestState' must be an object \{ keys\?, ttl\? \}/)
  await refusesRegister(t, { ...base, requestState: { key: ['x'] } }, /unknown option 'requestState\.key' \(did you mean 'requestState\.keys'\?\)/)
  await refusesRegister(t, { ...base, requestState: { ttl: 0 } }, /option 'requestState\.ttl' must be an integer >= 1 \(milliseconds\), got 0/)
  await refusesRegister(t, { ...base, requestState: { keys: [] } }, /^fastify-sake: option requestState keys is empty/)
  await refusesRegister(t, { ...base, requestState: { keys: ['c2hvcnQ='] } }, /^fastify-sake: option requestState keys\[0\] decodes to 5 bytes/)
  await refusesRegister(t, { ...base, inputTimeout: -1 }, /option 'inputTimeout' must be an integer from 1 to 2147483647 \(milliseconds; a Node timer goes no further\), got -1/)
  await refusesRegister(t, { ...base, inputTimeout: 30 * 24 * 3600_000 }, /option 'inputTimeout' must be an integer from 1 to 2147483647/)
  await refusesRegister(t, { ...base, keepAlive: 2 ** 31 }, /option 'keepAlive' must be an integer from 0 to 2147483647/)
  await refusesRegister(t, { ...base, closeTimeout: -5 }, /option 'closeTimeout' must be an integer from 0 to 2147483647 \(milliseconds; a Node timer goes no further\), got -5/)
  const key = Buffer.alloc(32, 7)
  const resolved = resolveOptions({ ...base, requestState: { keys: [key, Buffer.alloc(32, 8).toString('base64')], ttl: 1000 }, inputTimeout: 5 })
  t.same(resolved.requestState, { keys: [key, Buffer.alloc(32, 8)], ttl: 1000 }, 'the keys decoded')
  t.not(resolved.requestState.keys![0], key, 'a copy of the bytes given')
  t.ok(Object.isFrozen(resolved.requestState) && Object.isFrozen(resolved.requestState.keys))
  t.equal(resolved.inputTimeout, 5)
  t.equal(resolveOptions(base).requestState.keys, undefined, 'no keys: the plugin makes a random one per process')
})

t.test('tracing', async (t) => {
  await refusesRegister(t, { ...base, tracing: 'off' }, /^fastify-sake: option 'tracing' must be true or false \(false: no spans, no metrics, no diagnostics channel events\), got/)
  await refusesRegister(t, { ...base, tracing: null }, /option 'tracing' must be true or false/)
  t.equal(resolveOptions({ ...base, tracing: false }).tracing, false)
  t.equal(resolveOptions({ ...base, tracing: true }).tracing, true)
})

t.test('bus and events (was streams/options)', async (t) => {
  t.test('bus and events.store must implement their contracts', async (t) => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ bus: class {} }, /^fastify-sake: option 'bus' must be a Bus instance \(new MyStore\(\)\), not a class or a function/],
      [{ bus: 'redis' }, /^fastify-sake: option 'bus' must be a Bus object with publish and subscribe methods/],
      [{ bus: { publish () {} } }, /option 'bus' must implement Bus \(publish, subscribe and optionally close\): its 'subscribe' method is missing/],
      [{ bus: { publish () {}, subscribe () {}, close: 1 } }, /its 'close' method is not a function \(got 1 \(number\)\)/],
      [{ events: { store: { append () {} } } }, /option 'events.store' must implement EventStore \(append, replay and optionally delete, close\): its 'replay' method is missing/],
      [{ events: { store: { append () {}, replay () {}, delete: true } } }, /option 'events.store' must implement EventStore .*: its 'delete' method is not a function \(got true/],
      [{ events: [] }, /option 'events' must be an object \{ store\?, maxPerStream\?, maxEvents\?, idleTimeout\? \}/],
      [{ events: { maxPerstream: 3 } }, /unknown option 'events.maxPerstream' \(did you mean 'events.maxPerStream'\?\)/],
      [{ events: { maxEvents: 0 } }, /option 'events.maxEvents' must be an integer >= 1 \(events\), got 0/],
      [{ events: { idleTimeout: 1.5 } }, /option 'events.idleTimeout' must be an integer >= 1 \(milliseconds\)/]
    ]
    for (const [options, message] of cases) {
      await t.rejects(build(options as any), { code: 'SAKE_ERR_INVALID_OPTION', message }, JSON.stringify(Object.keys(options)))
    }
    const ok = await build({ events: { maxPerStream: 5, maxEvents: 50, idleTimeout: 1000 } })
    await ok.close()
  })
})

// the lists' entries are checked in test/http/origin.test.ts, with the checks themselves
t.test("allowedOrigins: a list, 'cors', a synchronous function, or false (issue 11, item 9)", async (t) => {
  t.test("'cors' and a function are kept as given", async (t) => {
    const check = (origin: string): boolean => origin === 'https://app.example.com'
    t.equal(resolveOptions({ ...base, allowedOrigins: 'cors' }).allowedOrigins, 'cors')
    t.equal(resolveOptions({ ...base, allowedOrigins: check }).allowedOrigins, check)
    t.equal(resolveOptions({ ...base, allowedOrigins: check }).allowedHosts, undefined, 'the Host default stays')
  })

  t.test('an async function is refused at registration, saying what to do instead', async (t) => {
    const message = "fastify-sake: option 'allowedOrigins' must be a synchronous function (origin, request) => boolean, got an async function: the check runs on every request and cannot wait for a promise; load what it needs before registering (a Set of origins it reads), or give a list of origins"
    await refusesRegister(t, { ...base, allowedOrigins: async (origin: string) => origin === 'https://app.example.com' }, message, 'async function')
    await refusesRegister(t, { ...base, allowedOrigins: async function * () { yield true } }, message, 'async generator')
  })

  t.test('any other string, or another type, names every accepted form', async (t) => {
    const accepts = "must be a non-empty array of origins \\('https://app\\.example\\.com'\\), 'cors' to accept what @fastify/cors allows, a function \\(origin, request\\) => boolean, or false to turn the check off"
    for (const [value, shown] of [['https://app.example.com', '"https://app.example.com" \\(string\\)'], ['CORS', '"CORS" \\(string\\)'], ['*', '"\\*" \\(string\\)'], [true, 'true \\(boolean\\)'], [{ origin: 'cors' }, '\\{"origin":"cors"\\} \\(object\\)']] as const) {
      await refusesRegister(t, { ...base, allowedOrigins: value }, new RegExp(`^fastify-sake: option 'allowedOrigins' ${accepts}, got ${shown}$`), JSON.stringify(value))
    }
  })
})

t.test('redis: a URL, an ioredis client, or { url | client, prefix, timeout, heartbeat, deadAfter, sessionCache }, checked at registration', async (t) => {
  const client = { call () {}, duplicate () {}, subscribe () {}, on () {}, quit () {}, disconnect () {} }
  t.same(resolveOptions({ ...base, redis: 'redis://127.0.0.1:6379' }).redis, { url: 'redis://127.0.0.1:6379', client: undefined, prefix: 'sake:', timeout: 2000, heartbeat: 2000, deadAfter: 8000, sessionCache: 1000 })
  t.equal(resolveOptions({ ...base, redis: client as any }).redis!.client, client, 'a client as it is')
  t.same(resolveOptions({ ...base, redis: { url: 'rediss://cache:6380/2', prefix: 'billing:', timeout: 500, heartbeat: 500 } }).redis, { url: 'rediss://cache:6380/2', client: undefined, prefix: 'billing:', timeout: 500, heartbeat: 500, deadAfter: 8000, sessionCache: 1000 })
  t.equal(resolveOptions({ ...base, redis: { url: 'redis://a', sessionCache: 0 } }).redis!.sessionCache, 0, '0: every request reads the store')
  t.equal(resolveOptions({ ...base, sessions: { idleTimeout: 300 }, redis: 'redis://a' }).redis!.sessionCache, 150, 'the default stays within half of a short sessions.idleTimeout')
  t.equal(resolveOptions({ ...base, redis: { url: 'redis://a', heartbeat: 5000 } }).redis!.deadAfter, 10_000, 'deadAfter follows a slow heartbeat: twice it at least')
  const refused: Array<[unknown, RegExp]> = [
    ['http://127.0.0.1:6379', /option 'redis.url' must be a redis:\/\/ or rediss:\/\/ URL, such as redis:\/\/127.0.0.1:6379/],
    ['redis://[bad', /option 'redis.url'/],
    [42, /option 'redis' must be a redis:\/\/ or rediss:\/\/ URL, an ioredis client/],
    [{}, /exactly one of url and client/],
    [{ url: 'redis://a', client }, /exactly one of url and client/],
    [{ client: { call () {} } }, /option 'redis.client' must be an ioredis client \(5 or later\); this one lacks duplicate, subscribe, on, quit, disconnect/],
    [{ client: 'x' }, /option 'redis.client' must be an ioredis client/],
    [{ url: 'redis://a', prefix: 1 }, /option 'redis.prefix'/],
    [{ url: 'redis://a', timeout: 0 }, /redis.timeout/],
    [{ url: 'redis://a', heartbeat: 50 }, /option 'redis.heartbeat' must be an integer from 100/],
    [{ url: 'redis://a', heartbeat: 1000, deadAfter: 1500 }, /option 'redis.deadAfter' must be at least twice redis.heartbeat \(2000 ms\), so that one late heartbeat does not make a live instance dead, got 1500/],
    [{ url: 'redis://a', sessionCache: -1 }, /option 'redis.sessionCache' must be an integer from 0 to \d+ \(milliseconds; 0 reads every time/],
    [{ url: 'redis://a', sessionCache: 900_001 }, /option 'redis.sessionCache' must be at most half of sessions.idleTimeout \(900000 ms\), so that a session in use never expires in Redis between two reads, got 900001/],
    [{ url: 'redis://a', prefx: 'x' }, /unknown option 'redis.prefx' \(did you mean 'redis.prefix'\?\)/]
  ]
  for (const [redis, message] of refused) t.throws(() => resolveOptions({ ...base, redis: redis as any }), message, JSON.stringify(redis))
})

t.test('skills: { directory?, definitions?, maxFileSize?, directoryRead? }, the definitions checked when registered', async (t) => {
  const one = { path: 'a', files: { 'SKILL.md': '---\nname: a\ndescription: A\n---\n' } }
  t.same(resolveOptions({ ...base, skills: { directory: './skills', definitions: [one], maxFileSize: 10, directoryRead: false } }).skills, { definitions: [{ directory: './skills' }, one], maxFileSize: 10, directoryRead: false }, 'the folder first, then the definitions')
  const url = new URL('file:///srv/skills')
  t.same(resolveOptions({ ...base, skills: { directory: url } }).skills.definitions, [{ directory: url }])
  const refused: Array<[unknown, RegExp]> = [
    ['./skills', /option 'skills' must be an object \{ directory\?, definitions\?, maxFileSize\?, directoryRead\? \}, such as \{ directory: '\.\/skills' \}/],
    [{ directory: 3 }, /option 'skills\.directory' must be a folder's path or file: URL/],
    [{ definitions: {} }, /option 'skills\.definitions' must be an array of skill definitions/],
    [{ directoryRead: 'yes' }, /option 'skills\.directoryRead' must be true or false/],
    [{ maxFileSize: 0 }, /option 'skills\.maxFileSize' must be an integer from 1 to 16777216 \(bytes\), got 0/],
    [{ directry: 'x' }, /unknown option 'skills\.directry' \(did you mean 'skills\.directory'\?\)/]
  ]
  for (const [skills, message] of refused) t.throws(() => resolveOptions({ ...base, skills: skills as any }), message, JSON.stringify(skills))
})

t.test("Fastify's register options: prefix normalised, logLevel and logSerializers under routeOptions (whose own win)", async (t) => {
  t.equal(resolveOptions({ ...base, prefix: '/ai/' } as any).prefix, '/ai')
  t.equal(resolveOptions({ ...base, prefix: '/' } as any).prefix, '')
  t.equal(resolveOptions({ ...base, prefix: '/ai' } as any).prefix, '/ai')
  t.same(resolveOptions({ ...base, logSerializers: { res: String } } as any).routeOptions.plain, { logSerializers: { res: String } })
  const serializers = { req: (value: unknown) => value }
  t.same(resolveOptions({ ...base, logLevel: 'warn', logSerializers: serializers } as any).routeOptions.plain, { logLevel: 'warn', logSerializers: serializers })
  t.same(resolveOptions({ ...base, logLevel: 'warn', routeOptions: { logLevel: 'error' } } as any).routeOptions.plain, { logLevel: 'error' }, "routeOptions' own wins")
  t.throws(() => resolveOptions({ ...base, logLevel: 'warn', routeOptions: 'x' } as any), /option 'routeOptions' must be an object of Fastify route options/, 'a bad routeOptions is refused as it is')
  for (const prefix of ['ai', '/a b', '/a?x', 3]) t.throws(() => resolveOptions({ ...base, prefix } as any), /option 'prefix' must be a URL path starting with '\/'/, String(prefix))
})

t.test('docs/options.md documents every option with its default, and nothing that is not one (issue 42)', async (t) => {
  const page = readFileSync(new URL('../../docs/options.md', import.meta.url), 'utf8')
  const table = page.slice(page.indexOf('## Options'), page.indexOf('## Decorators'))
  const rows = new Map<string, string>() // an option's name → its row's default cell
  for (const line of table.split('\n').filter((row) => row.startsWith('| `'))) {
    const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim()) // '\|' inside a cell is a pipe
    for (const name of cells[1]!.split(',')) rows.set(name.trim().replace(/`/g, ''), cells[3]!)
  }
  const declared = documented(SERVER)
  t.ok(declared.length > 60 && rows.size > 60, `${declared.length} options declared, ${rows.size} documented`)
  for (const option of declared) {
    // a group (sessions, tasks...) may have a row of its own; each of its options must
    if (option.group && !rows.has(option.name)) continue
    t.ok(rows.has(option.name), `${option.name} is documented`)
    if (option.shown !== undefined) t.ok(rows.get(option.name)?.includes(option.shown), `${option.name}: its default ${option.shown} is written in its row`)
  }
  for (const name of rows.keys()) t.ok(declared.some((option) => option.name === name), `the documented ${name} is an option`)
})
