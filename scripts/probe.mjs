#!/usr/bin/env node
// A behaviour probe for refactors: builds a few Fastify apps with the fastify-sake build in the
// directory given as argument, drives a fixed battery of requests at them with `app.inject` (no
// port), and prints one normalized line (or a small block, for event streams) per request. Run it
// against the build before a change and the build after, and diff the two transcripts:
//
//   npm run -s probe -- .old/prev-dist > .old/probe-before.txt
//   npm run build && npm run -s probe -- dist > .old/probe-after.txt && diff .old/probe-before.txt .old/probe-after.txt
//
// `npm test` holds the transcript of the current build as a snapshot (test/e2e/probe.test.ts).
//
// What is random by design is normalized: session ids, requestState tokens, event ids,
// elicitationId, the random prefix of `sake-…` request ids, UUIDs and dates. Everything else (status,
// headers, bodies with sorted keys) is printed as it is, so any difference is a change of behaviour.
import { resolve, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Fastify from 'fastify'

// a hang this probe did not bound itself (an app.ready that never resolves, say) still ends the run
setTimeout(() => {
  process.stdout.write('PROBE WATCHDOG: the probe did not finish within 120 s\n')
  process.exit(1)
}, 120_000).unref()

const distArg = process.argv[2]
if (distArg === undefined) {
  console.error('usage: node scripts/probe.mjs <dist directory>')
  process.exit(2)
}
const mod = await import(pathToFileURL(join(resolve(distArg), 'index.js')).href)
const sake = mod.default
const { Type, StringEnum, defineTool, definePrompt, text, image, resourceLink, toolError, ToolError, withMeta, userMessage, assistantMessage, InsufficientScopeError, MissingCapabilityError } = mod

const MODERN = '2026-07-28'
const STATE_KEY = Buffer.alloc(32, 7).toString('base64')
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------- output and normalization

let lines = 0
function print (text) {
  process.stdout.write(text + '\n')
  lines++
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi
// a question id: `sake-<instance>-<n>`, the instance id random per process (12 base64url characters)
const SAKE_ID = /sake-[A-Za-z0-9_-]{12}-(\d+)/g
const ISO_DATE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g
const REQUEST_STATE = /\bv1\.[A-Za-z0-9_-]{20,}/g

/** Replaces what is random by design in a piece of text. */
function scrub (value) {
  return value
    .replace(UUID, '<UUID>')
    .replace(SAKE_ID, 'sake-<P>-$1')
    .replace(ISO_DATE, '<DATE>')
    .replace(REQUEST_STATE, '<REQUEST_STATE>')
}

/** A JSON value with random fields replaced and object keys sorted. */
function normalize (value, key) {
  if (typeof value === 'string') {
    if (key === 'requestState') return `<REQUEST_STATE ${value.split('.')[0]}>`
    if (key === 'elicitationId') return '<ELICITATION_ID>'
    return scrub(value)
  }
  if (Array.isArray(value)) return value.map((item) => normalize(item))
  if (typeof value === 'object' && value !== null) {
    const out = {}
    for (const k of Object.keys(value).sort()) out[k] = normalize(value[k], k)
    return out
  }
  return value
}

function json (value) {
  return JSON.stringify(normalize(value))
}

/** A body as one string: JSON re-serialized with sorted keys, anything else as it is. */
function bodyText (body) {
  if (body === '') return '<empty>'
  try {
    return json(JSON.parse(body))
  } catch {
    return 'RAW ' + JSON.stringify(scrub(body))
  }
}

// per-connection or per-response noise, never behaviour
const SKIPPED_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'])

function headerText (headers) {
  const parts = []
  for (const name of Object.keys(headers).sort()) {
    if (SKIPPED_HEADERS.has(name)) continue
    const value = headers[name]
    if (name === 'mcp-session-id') parts.push('mcp-session-id=<present>')
    else parts.push(`${name}=${scrub(Array.isArray(value) ? value.join(', ') : String(value))}`)
  }
  return parts.join('; ')
}

/** The lines of an event stream: `data:` as normalized JSON, `id:` without its random part. */
function sseLines (body) {
  const out = []
  for (const line of body.split('\n')) {
    if (line === '') continue
    if (line.startsWith('data:')) {
      const data = line.slice(5).trimStart()
      out.push(data === '' ? 'data:' : `data: ${bodyText(data)}`)
    } else if (line.startsWith('id:')) {
      // 2025-11-25 event ids are `<session>/<random>:<n>`: the counter is behaviour, the rest is not
      const id = line.slice(3).trim()
      const counter = /:(\d+)$/.exec(id)
      out.push(`id: <ID>${counter === null ? '' : ':' + counter[1]}`)
    } else {
      out.push(scrub(line))
    }
  }
  return out
}

/**
 * Awaits one inject and prints it: label | status | headers | body (an event stream as a small
 * block). A request that never ends prints a HANG line instead, so one hang does not stop the probe.
 */
async function show (label, pending, ms = 3000) {
  const res = await within(label, pending, ms)
  if (res === undefined) return { statusCode: 0, headers: {}, body: '' }
  const head = `${label} | ${res.statusCode} | ${headerText(res.headers)}`
  const type = String(res.headers['content-type'] ?? '')
  if (type.startsWith('text/event-stream')) {
    print(`${head} | SSE`)
    for (const line of sseLines(res.body)) print(`    ${line}`)
  } else {
    print(`${head} | ${bodyText(res.body)}`)
  }
  return res
}

/** The parsed JSON body of a response, or {} (no response, or not JSON). */
function bodyOf (res) {
  try {
    return JSON.parse(res?.body) ?? {}
  } catch {
    return {}
  }
}

function note (label, value) {
  print(`${label} = ${JSON.stringify(normalize(value))}`)
}

/** Runs `fn`, printing a thrown error instead of stopping the probe. */
async function guarded (label, fn) {
  try {
    return await fn()
  } catch (err) {
    print(`${label} | THREW ${err?.name}: ${scrub(String(err?.message))}`)
    return undefined
  }
}

/** Resolves with the inject response, or reports a hang (inject never ending) after `ms`. */
async function within (label, promise, ms = 3000) {
  let timer
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), ms) })
  const result = await Promise.race([promise, timeout])
  clearTimeout(timer)
  if (result === 'timeout') {
    print(`${label} | HANG (no response within ${ms} ms)`)
    return undefined
  }
  return result
}

// ---------------------------------------------------------------- requests

let nextId = 1
const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const NAME_FIELD = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' }

function merge (...sets) {
  const out = {}
  for (const set of sets) for (const [k, v] of Object.entries(set)) out[k.toLowerCase()] = v
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out
}

function modernMeta (extra = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1.0.0' },
    ...extra
  }
}

/** A raw POST to `url` with JSON headers; a string payload goes as it is. */
function post (payload, headers = {}, url = '/mcp') {
  return { method: 'POST', url, headers: merge(BASE, headers), payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }
}

/**
 * A 2026-07-28 request: `_meta` in the body (with `meta` merged over, undefined deletes), and the
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name headers derived from it (`headers` merged over).
 */
function modern (method, params = {}, { headers = {}, meta = {}, id = nextId++, notification = false } = {}) {
  const fullMeta = { ...modernMeta(), ...meta }
  for (const k of Object.keys(fullMeta)) if (fullMeta[k] === undefined) delete fullMeta[k]
  const body = { jsonrpc: '2.0', ...(notification ? {} : { id }), method, params: { ...params, _meta: fullMeta } }
  const version = fullMeta['io.modelcontextprotocol/protocolVersion']
  const derived = { 'mcp-protocol-version': version === undefined ? MODERN : String(version), 'mcp-method': method }
  const field = NAME_FIELD[method]
  if (field !== undefined && typeof params[field] === 'string') derived['mcp-name'] = params[field]
  return post(body, merge(derived, headers))
}

/** A request on a 2025 session, with its MCP-Protocol-Version header (override with `headers`). */
function legacy (sessionId, version, body, headers = {}) {
  return post(body, merge({ 'mcp-session-id': sessionId, 'mcp-protocol-version': version }, headers))
}

function rpc (method, params) {
  return { jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) }
}

/** initialize (+ notifications/initialized); prints both answers; returns { sid, version } (version: the negotiated one). */
async function openSession (app, label, version, capabilities = {}, headers = {}) {
  const res = await show(`${label} initialize ${version}`, app.inject(post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities, clientInfo: { name: 'probe-legacy', version: '1' } } }, headers)))
  const sid = res.headers['mcp-session-id']
  if (typeof sid !== 'string') return undefined
  const negotiated = bodyOf(res).result?.protocolVersion ?? version
  await show(`${label} notifications/initialized`, app.inject(legacy(sid, negotiated, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)))
  return { sid, version: negotiated }
}

// ---------------------------------------------------------------- the main app (no auth)

/**
 * Probe-side hooks on an app (root `onRequest` hooks run before the plugin's route hooks):
 * - light-my-request's mock socket has no `localAddress`, so the DNS-rebinding defaults (which
 *   guard loopback connections only) would never apply: every injected request arrives on
 *   127.0.0.1 here, or on the address in `x-probe-local`;
 * - the raw writes of a request sent with `x-probe-tap` are kept, so a stream can be read mid-flight.
 */
const taps = new Map()
function tap (app) {
  app.addHook('onRequest', async (request, reply) => {
    const local = request.headers['x-probe-local']
    request.raw.socket.localAddress = typeof local === 'string' ? local : '127.0.0.1'
    const tag = request.headers['x-probe-tap']
    if (typeof tag !== 'string') return
    const chunks = []
    taps.set(tag, chunks)
    const write = reply.raw.write.bind(reply.raw)
    reply.raw.write = (chunk, ...rest) => {
      chunks.push(String(chunk))
      return write(chunk, ...rest)
    }
  })
}

/** Waits until the tapped stream `tag` wrote anything; whether it did. */
async function tappedAny (tag, ms = 2000) {
  for (let waited = 0; waited < ms; waited += 5) {
    if ((taps.get(tag) ?? []).length > 0) return true
    await sleep(5)
  }
  return false
}

/** Waits until the tapped stream `tag` wrote a message with `method`; that message. */
async function tapped (tag, method, ms = 2000) {
  for (let waited = 0; waited < ms; waited += 5) {
    const all = (taps.get(tag) ?? []).join('')
    for (const line of all.split('\n')) {
      if (!line.startsWith('data:') || line.length <= 5) continue
      let message
      try {
        message = JSON.parse(line.slice(5))
      } catch {
        continue
      }
      if (message?.method === method) return message
    }
    await sleep(5)
  }
  return undefined
}

const tools = [
  defineTool({
    name: 'add',
    description: 'Adds two numbers',
    annotations: { readOnly: true, idempotent: true },
    args: {
      a: Type.Number(),
      b: Type.Number(),
      precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, header: 'Precision' }))
    },
    output: { sum: Type.Number() },
    execute: ({ a, b, precision }) => ({ sum: precision === undefined ? a + b : Number((a + b).toFixed(precision)) })
  }),
  defineTool({
    name: 'echo',
    description: 'Echoes',
    args: { text: Type.String({ minLength: 1 }), region: Type.Optional(Type.String({ header: 'Region' })) },
    execute: ({ text }) => text
  }),
  defineTool({ name: 'boom', description: 'Throws an unexpected error', execute: () => { throw new Error('secret internal detail') } }),
  defineTool({ name: 'fails', description: 'Returns toolError', execute: () => toolError('It did not work.') }),
  defineTool({ name: 'fails_thrown', description: 'Throws ToolError', execute: () => { throw new ToolError('Thrown tool failure.') } }),
  defineTool({ name: 'bad_output', description: 'Output schema mismatch', output: { n: Type.Integer() }, execute: () => ({ n: 'not a number' }) }),
  defineTool({ name: 'structured', description: 'Returns a non-object JSON value', execute: () => [1, 2, 3] }),
  defineTool({ name: 'with_meta', description: 'withMeta', execute: () => withMeta({ ok: true }, { 'example.com/trace': 'fixed' }) }),
  defineTool({
    name: 'blocks',
    description: 'Content blocks',
    execute: () => [text('hello'), image(PNG, 'image/png'), resourceLink('test://static', 'static', { mimeType: 'text/plain' })]
  }),
  defineTool({
    name: 'streamer',
    description: 'stream: true with progress and log messages',
    stream: true,
    execute: (_args, ctx) => {
      ctx.progress(1, 2, 'half')
      ctx.notify('info', { step: 1 }, 'probe')
      ctx.notify('debug', 'below info')
      ctx.progress(2, 2)
      return 'streamed'
    }
  }),
  defineTool({
    name: 'progress',
    description: 'Reports progress when asked',
    args: { n: Type.Integer({ minimum: 1, maximum: 5 }) },
    execute: ({ n }, ctx) => {
      for (let i = 1; i <= n; i++) ctx.progress(i, n, `item ${i}`)
      return `did ${n}`
    }
  }),
  defineTool({
    name: 'greet',
    description: 'Asks who to greet',
    async execute (_args, ctx) {
      const who = await ctx.elicit.form('who', 'Who should be greeted?', Type.Object({ name: Type.String({ minLength: 1 }) }))
      switch (who.action) {
        case 'accept': return `Hello, ${who.content.name}!`
        case 'decline': return 'No greeting then.'
        case 'cancel': return toolError('Cancelled.')
        default: return toolError('This client does not support elicitation.')
      }
    }
  }),
  defineTool({
    name: 'link',
    description: 'Asks the person to open a URL',
    async execute (_args, ctx) {
      const answer = await ctx.elicit.url('open', 'Please sign in', 'https://example.com/sign-in')
      return `url: ${answer.action}`
    }
  }),
  defineTool({
    name: 'needs_sampling',
    description: 'Throws MissingCapabilityError',
    async execute (_args, ctx) {
      const answer = await ctx.sample('s', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 })
      if (answer.action === 'unsupported') throw new MissingCapabilityError({ sampling: {} })
      return 'sampled'
    }
  }),
  defineTool({
    name: 'wait_for_cancel',
    description: 'Runs until ctx.signal aborts',
    execute: (_args, ctx) => new Promise((resolve) => {
      const timer = setTimeout(() => resolve('not cancelled'), 1500)
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve('cancelled')
      }, { once: true })
    })
  }),
  defineTool({
    name: 'defaults',
    description: 'Arguments with defaults and an enum',
    args: { mode: Type.Optional(StringEnum(['fast', 'slow'], { default: 'fast' })), count: Type.Optional(Type.Integer({ default: 3 })) },
    execute: (args) => JSON.stringify(args)
  })
]

const resources = [
  { uri: 'test://static', name: 'static', title: 'Static text', mimeType: 'text/plain', annotations: { priority: 0.5, lastModified: '2020-01-01T00:00:00Z' }, read: () => 'static content' },
  { uri: 'test://binary', name: 'binary', mimeType: 'image/png', read: () => Buffer.from(PNG, 'base64') },
  { uri: 'test://missing', name: 'missing', description: 'read returns undefined', read: () => undefined },
  { uri: 'test://throws', name: 'throws', description: 'read throws', read: () => { throw new Error('resource internal detail') } },
  {
    uriTemplate: 'users://{id}/profile',
    name: 'profile',
    mimeType: 'application/json',
    ttl: 60_000,
    read: (_uri, { id }) => id === 'nobody' ? undefined : JSON.stringify({ id }),
    complete: (_variable, partial) => ['alice', 'bob', 'carol', 'albert'].filter((v) => v.startsWith(partial))
  }
]

const prompts = [
  definePrompt({ name: 'simple', description: 'No arguments', get: () => 'A simple prompt.' }),
  definePrompt({
    name: 'review',
    description: 'Review code',
    args: { code: Type.String({ description: 'The code' }), language: Type.Optional(StringEnum(['python', 'ts'])) },
    get: ({ code, language }) => [userMessage(`Review this ${language ?? 'code'}:`), userMessage(text(code)), assistantMessage('Sure.')],
    complete: (_argument, partial) => ['python', 'ts', 'perl'].filter((l) => l.startsWith(partial))
  }),
  definePrompt({
    name: 'ask_context',
    description: 'Asks for context first',
    async get (_args, ctx) {
      const answer = await ctx.elicit.form('context', 'Which context?', Type.Object({ context: Type.String() }))
      return answer.action === 'accept' ? `Context: ${answer.content.context}` : `No context (${answer.action})`
    }
  }),
  definePrompt({ name: 'described', description: 'Returns { description, messages }', get: () => ({ description: 'dynamic', messages: [userMessage('x')] }) })
]

async function mainApp (options = {}) {
  const app = Fastify({ logger: false })
  tap(app)
  await app.register(sake, {
    name: 'probe-server',
    version: '1.2.3',
    title: 'Probe',
    instructions: 'Probe instructions.',
    pageSize: 4,
    keepAlive: 0,
    requestState: { keys: [STATE_KEY] },
    tools,
    resources,
    prompts,
    ...options
  })
  return app
}

// ---------------------------------------------------------------- 2026-07-28

async function probeModern (app) {
  print('## 2026-07-28')
  await show('m server/discover', app.inject(modern('server/discover')))
  let cursor = bodyOf(await show('m tools/list', app.inject(modern('tools/list')))).result?.nextCursor
  for (let page = 2; typeof cursor === 'string' && page < 10; page++) {
    cursor = bodyOf(await show(`m tools/list cursor page ${page}`, app.inject(modern('tools/list', { cursor })))).result?.nextCursor
  }
  await show('m tools/list bad cursor', app.inject(modern('tools/list', { cursor: 'not-a-cursor' })))
  await show('m tools/list cursor not a string', app.inject(modern('tools/list', { cursor: 5 })))

  // tools/call
  await show('m tools/call add', app.inject(modern('tools/call', { name: 'add', arguments: { a: 1, b: 2 } })))
  await show('m tools/call add precision header', app.inject(modern('tools/call', { name: 'add', arguments: { a: 1.234, b: 2, precision: 1 } }, { headers: { 'mcp-param-precision': '1' } })))
  await show('m tools/call add precision header 1.0', app.inject(modern('tools/call', { name: 'add', arguments: { a: 1, b: 2, precision: 1 } }, { headers: { 'mcp-param-precision': '1.0' } })))
  await show('m tools/call add precision header mismatch', app.inject(modern('tools/call', { name: 'add', arguments: { a: 1, b: 2, precision: 1 } }, { headers: { 'mcp-param-precision': '2' } })))
  await show('m tools/call add precision header missing', app.inject(modern('tools/call', { name: 'add', arguments: { a: 1, b: 2, precision: 1 } })))
  await show('m tools/call add header without argument', app.inject(modern('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, { headers: { 'mcp-param-precision': '1' } })))
  await show('m tools/call echo region base64 header', app.inject(modern('tools/call', { name: 'echo', arguments: { text: 'hi', region: 'café' } }, { headers: { 'mcp-param-region': '=?base64?' + Buffer.from('café').toString('base64') + '?=' } })))
  await show('m tools/call echo region non-ascii header', app.inject(modern('tools/call', { name: 'echo', arguments: { text: 'hi', region: 'x' } }, { headers: { 'mcp-param-region': '=?base64?!!!?=' } })))
  await show('m tools/call unknown tool', app.inject(modern('tools/call', { name: 'nope', arguments: {} })))
  await show('m tools/call no name', app.inject(modern('tools/call', { arguments: {} })))
  await show('m tools/call bad arguments', app.inject(modern('tools/call', { name: 'add', arguments: { a: 'one', c: 3 } })))
  await show('m tools/call arguments not an object', app.inject(modern('tools/call', { name: 'add', arguments: 'x' })))
  await show('m tools/call missing arguments', app.inject(modern('tools/call', { name: 'echo' })))
  await show('m tools/call defaults', app.inject(modern('tools/call', { name: 'defaults', arguments: {} })))
  await show('m tools/call throws', app.inject(modern('tools/call', { name: 'boom', arguments: {} })))
  await show('m tools/call toolError', app.inject(modern('tools/call', { name: 'fails', arguments: {} })))
  await show('m tools/call ToolError thrown', app.inject(modern('tools/call', { name: 'fails_thrown', arguments: {} })))
  await show('m tools/call output mismatch', app.inject(modern('tools/call', { name: 'bad_output', arguments: {} })))
  await show('m tools/call structured non-object', app.inject(modern('tools/call', { name: 'structured', arguments: {} })))
  await show('m tools/call withMeta', app.inject(modern('tools/call', { name: 'with_meta', arguments: {} })))
  await show('m tools/call content blocks', app.inject(modern('tools/call', { name: 'blocks', arguments: {} })))

  // envelope and header checks
  await show('m missing Mcp-Name', app.inject(modern('tools/call', { name: 'echo', arguments: { text: 'a' } }, { headers: { 'mcp-name': undefined } })))
  await show('m Mcp-Name mismatch', app.inject(modern('tools/call', { name: 'echo', arguments: { text: 'a' } }, { headers: { 'mcp-name': 'add' } })))
  await show('m missing Mcp-Method', app.inject(modern('tools/list', {}, { headers: { 'mcp-method': undefined } })))
  await show('m Mcp-Method mismatch', app.inject(modern('tools/list', {}, { headers: { 'mcp-method': 'prompts/list' } })))
  await show('m missing MCP-Protocol-Version', app.inject(modern('tools/list', {}, { headers: { 'mcp-protocol-version': undefined } })))
  await show('m wrong MCP-Protocol-Version', app.inject(modern('tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } })))
  await show('m unsupported version', app.inject(modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } })))
  await show('m version not a string', app.inject(modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': 20260728 }, headers: { 'mcp-protocol-version': '20260728' } })))
  await show('m missing clientCapabilities', app.inject(modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/clientCapabilities': undefined } })))
  await show('m clientCapabilities not an object', app.inject(modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/clientCapabilities': 'all' } })))
  await show('m missing _meta (modern header)', app.inject(post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' })))
  await show('m missing params (modern header)', app.inject(post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list' }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' })))
  await show('m no _meta, no headers', app.inject(post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} })))
  await show('m unknown method', app.inject(modern('tools/destroy')))
  await show('m initialize with _meta', app.inject(modern('initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'x', version: '1' } })))
  await show('m ping', app.inject(modern('ping')))
  await show('m logging/setLevel', app.inject(modern('logging/setLevel', { level: 'info' })))
  await show('m notification', app.inject(modern('notifications/initialized', {}, { notification: true })))
  await show('m notification without _meta (modern header)', app.inject(post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, { 'mcp-protocol-version': MODERN })))
  await show('m response without session (modern header)', app.inject(post({ jsonrpc: '2.0', id: 5, result: {} }, { 'mcp-protocol-version': MODERN })))
  await show('m string id', app.inject(modern('ping', {}, { id: 'abc' })))

  // streams
  await show('m tools/call progressToken', app.inject(modern('tools/call', { name: 'progress', arguments: { n: 2 } }, { meta: { progressToken: 'p1' } })))
  await show('m tools/call progressToken json-only accept', app.inject(modern('tools/call', { name: 'progress', arguments: { n: 2 } }, { meta: { progressToken: 'p2' }, headers: { accept: 'application/json' } })))
  await show('m tools/call stream:true', app.inject(modern('tools/call', { name: 'streamer', arguments: {} })))
  await show('m tools/call logLevel debug', app.inject(modern('tools/call', { name: 'streamer', arguments: {} }, { meta: { 'io.modelcontextprotocol/logLevel': 'debug' } })))
  await show('m tools/call stream bad args', app.inject(modern('tools/call', { name: 'progress', arguments: { n: 99 } }, { meta: { progressToken: 7 } })))
  await show('m tools/call stream throws', app.inject(modern('tools/call', { name: 'boom', arguments: {} }, { meta: { progressToken: 8 } })))

  // resources
  await show('m resources/list', app.inject(modern('resources/list')))
  await show('m resources/templates/list', app.inject(modern('resources/templates/list')))
  await show('m resources/read fixed', app.inject(modern('resources/read', { uri: 'test://static' })))
  await show('m resources/read binary', app.inject(modern('resources/read', { uri: 'test://binary' })))
  await show('m resources/read template', app.inject(modern('resources/read', { uri: 'users://alice/profile' })))
  await show('m resources/read template percent', app.inject(modern('resources/read', { uri: 'users://a%20b/profile' })))
  await show('m resources/read template not found', app.inject(modern('resources/read', { uri: 'users://nobody/profile' })))
  await show('m resources/read unknown', app.inject(modern('resources/read', { uri: 'test://unknown' })))
  await show('m resources/read returns undefined', app.inject(modern('resources/read', { uri: 'test://missing' })))
  await show('m resources/read throws', app.inject(modern('resources/read', { uri: 'test://throws' })))
  await show('m resources/read no uri', app.inject(modern('resources/read', {})))
  await show('m resources/read Mcp-Name mismatch', app.inject(modern('resources/read', { uri: 'test://static' }, { headers: { 'mcp-name': 'test://binary' } })))

  // prompts
  await show('m prompts/list', app.inject(modern('prompts/list')))
  await show('m prompts/get simple', app.inject(modern('prompts/get', { name: 'simple' })))
  await show('m prompts/get review', app.inject(modern('prompts/get', { name: 'review', arguments: { code: 'x = 1', language: 'python' } })))
  await show('m prompts/get described', app.inject(modern('prompts/get', { name: 'described' })))
  await show('m prompts/get missing arg', app.inject(modern('prompts/get', { name: 'review', arguments: {} })))
  await show('m prompts/get bad enum arg', app.inject(modern('prompts/get', { name: 'review', arguments: { code: 'x', language: 'cobol' } })))
  await show('m prompts/get unknown', app.inject(modern('prompts/get', { name: 'nope' })))

  // completion
  await show('m completion prompt arg', app.inject(modern('completion/complete', { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'language', value: 'p' } })))
  await show('m completion prompt arg context', app.inject(modern('completion/complete', { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'language', value: '' }, context: { arguments: { code: 'x' } } })))
  await show('m completion prompt without callback', app.inject(modern('completion/complete', { ref: { type: 'ref/prompt', name: 'simple' }, argument: { name: 'x', value: '' } })))
  await show('m completion template var', app.inject(modern('completion/complete', { ref: { type: 'ref/resource', uri: 'users://{id}/profile' }, argument: { name: 'id', value: 'al' } })))
  await show('m completion template unknown var', app.inject(modern('completion/complete', { ref: { type: 'ref/resource', uri: 'users://{id}/profile' }, argument: { name: 'nope', value: '' } })))
  await show('m completion unknown prompt', app.inject(modern('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } })))
  await show('m completion unknown template', app.inject(modern('completion/complete', { ref: { type: 'ref/resource', uri: 'nope://{x}' }, argument: { name: 'x', value: '' } })))
  await show('m completion bad ref type', app.inject(modern('completion/complete', { ref: { type: 'ref/nope', name: 'add' }, argument: { name: 'x', value: '' } })))

  // asking the client (multi round-trip)
  const elicits = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } } }
  const first = await show('m greet round 1 (input_required)', app.inject(modern('tools/call', { name: 'greet', arguments: {} }, { meta: elicits })))
  const state = bodyOf(first).result?.requestState
  if (typeof state === 'string') {
    await show('m greet round 2 accept', app.inject(modern('tools/call', { name: 'greet', arguments: {}, requestState: state, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } }, { meta: elicits })))
    await show('m greet round 2 decline', app.inject(modern('tools/call', { name: 'greet', arguments: {}, requestState: state, inputResponses: { who: { action: 'decline' } } }, { meta: elicits })))
    await show('m greet round 2 invalid content', app.inject(modern('tools/call', { name: 'greet', arguments: {}, requestState: state, inputResponses: { who: { action: 'accept', content: { name: '' } } } }, { meta: elicits })))
    await show('m greet round 2 other key only', app.inject(modern('tools/call', { name: 'greet', arguments: {}, requestState: state, inputResponses: { other: { action: 'decline' } } }, { meta: elicits })))
    const i = Math.floor(state.length / 2)
    const tampered = state.slice(0, i) + (state[i] === 'A' ? 'B' : 'A') + state.slice(i + 1)
    await show('m greet tampered requestState', app.inject(modern('tools/call', { name: 'greet', arguments: {}, requestState: tampered, inputResponses: { who: { action: 'accept', content: { name: 'Eve' } } } }, { meta: elicits })))
    await show('m greet requestState for another tool', app.inject(modern('tools/call', { name: 'link', arguments: {}, requestState: state, inputResponses: { open: { action: 'accept' } } }, { meta: elicits })))
    await show('m greet requestState other arguments', app.inject(modern('tools/call', { name: 'greet', arguments: { extra: 1 }, requestState: state, inputResponses: { who: { action: 'decline' } } }, { meta: elicits })))
  }
  const p1 = await show('m prompts/get ask_context round 1', app.inject(modern('prompts/get', { name: 'ask_context' }, { meta: elicits })))
  const pState = bodyOf(p1).result?.requestState
  if (typeof pState === 'string') {
    await show('m prompts/get ask_context round 2', app.inject(modern('prompts/get', { name: 'ask_context', requestState: pState, inputResponses: { context: { action: 'accept', content: { context: 'probe' } } } }, { meta: elicits })))
    await show('m prompts/get ask_context state used on a tool', app.inject(modern('tools/call', { name: 'greet', arguments: {}, requestState: pState, inputResponses: { who: { action: 'decline' } } }, { meta: elicits })))
  }
  await show('m greet garbage requestState', app.inject(modern('tools/call', { name: 'greet', arguments: {}, requestState: 'v1.garbage', inputResponses: { who: { action: 'decline' } } }, { meta: elicits })))
  await show('m greet inputResponses without requestState', app.inject(modern('tools/call', { name: 'greet', arguments: {}, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } }, { meta: elicits })))
  await show('m greet without elicitation capability', app.inject(modern('tools/call', { name: 'greet', arguments: {} })))
  await show('m link url elicitation', app.inject(modern('tools/call', { name: 'link', arguments: {} }, { meta: elicits })))
  await show('m MissingCapabilityError', app.inject(modern('tools/call', { name: 'needs_sampling', arguments: {} })))
  await show('m MissingCapabilityError streamed', app.inject(modern('tools/call', { name: 'needs_sampling', arguments: {} }, { meta: { progressToken: 'mc' } })))
  await show('m sampling capability: input_required', app.inject(modern('tools/call', { name: 'needs_sampling', arguments: {} }, { meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } } })))
}

async function probeListen () {
  print('## 2026-07-28 subscriptions/listen')
  const app = await mainApp()
  await app.ready()
  await show('m listen bad filter', app.inject(modern('subscriptions/listen', { notifications: { toolsListChanged: 'yes' } })))
  await show('m listen no filter', app.inject(modern('subscriptions/listen', {})))
  await show('m listen json-only accept', app.inject(modern('subscriptions/listen', { notifications: {} }, { headers: { accept: 'application/json' } })))
  const pending = app.inject(modern('subscriptions/listen', { notifications: { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['test://static', 'test://static'] } }, { id: 'listen-1', headers: { 'x-probe-tap': 'listen' } }))
  await tapped('listen', 'notifications/subscriptions/acknowledged')
  await app.mcp.listChanged('prompts')
  await app.mcp.resourceUpdated('test://other')
  await app.mcp.resourceUpdated('test://static')
  await app.mcp.listChanged('tools')
  await sleep(20)
  const closing = app.close()
  const res = await within('m listen', pending)
  if (res !== undefined) await show('m listen (ended by app.close)', res)
  await within('m listen app.close', closing)
}

// ---------------------------------------------------------------- 2025 sessions

async function probeLegacy (app) {
  print('## 2025 sessions')
  const s11 = await openSession(app, 'l', '2025-11-25')
  const s06 = await openSession(app, 'l', '2025-06-18')
  const s03 = await openSession(app, 'l', '2025-03-26')
  await openSession(app, 'l', '2024-01-01')
  await show('l initialize without params', app.inject(post({ jsonrpc: '2.0', id: 0, method: 'initialize' })))
  await show('l initialize bad version type', app.inject(post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } } })))
  await show('l initialize as notification', app.inject(post({ jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })))
  if (s11 === undefined || s06 === undefined || s03 === undefined) return

  const { sid, version } = s11
  const on = (body, headers) => legacy(sid, version, body, headers)
  await show('l ping', app.inject(on(rpc('ping'))))
  await show('l tools/list', app.inject(on(rpc('tools/list'))))
  const cursor = bodyOf(await within('l tools/list (for its cursor)', app.inject(on(rpc('tools/list'))))).result?.nextCursor
  if (typeof cursor === 'string') await show('l tools/list cursor', app.inject(on(rpc('tools/list', { cursor }))))
  await show('l tools/list bad cursor', app.inject(on(rpc('tools/list', { cursor: 'nope' }))))
  await show('l tools/call ok', app.inject(on(rpc('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))))
  await show('l tools/call param header mismatch', app.inject(on(rpc('tools/call', { name: 'add', arguments: { a: 2, b: 3, precision: 1 } }), { 'mcp-param-precision': '3' })))
  await show('l tools/call param header absent ok', app.inject(on(rpc('tools/call', { name: 'add', arguments: { a: 2, b: 3, precision: 1 } }))))
  await show('l tools/call Mcp-Name mismatch', app.inject(on(rpc('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }), { 'mcp-name': 'echo' })))
  await show('l tools/call unknown', app.inject(on(rpc('tools/call', { name: 'nope', arguments: {} }))))
  await show('l tools/call bad args', app.inject(on(rpc('tools/call', { name: 'add', arguments: { a: 'x' } }))))
  await show('l tools/call throws', app.inject(on(rpc('tools/call', { name: 'boom', arguments: {} }))))
  await show('l tools/call toolError', app.inject(on(rpc('tools/call', { name: 'fails', arguments: {} }))))
  await show('l tools/call output mismatch', app.inject(on(rpc('tools/call', { name: 'bad_output', arguments: {} }))))
  await show('l tools/call structured non-object', app.inject(on(rpc('tools/call', { name: 'structured', arguments: {} }))))
  await show('l tools/call withMeta', app.inject(on(rpc('tools/call', { name: 'with_meta', arguments: {} }))))
  await show('l tools/call MissingCapabilityError', app.inject(on(rpc('tools/call', { name: 'needs_sampling', arguments: {} }))))
  await show('l tools/call greet no elicitation', app.inject(on(rpc('tools/call', { name: 'greet', arguments: {} }))))
  await show('l tools/call progressToken', app.inject(on(rpc('tools/call', { name: 'progress', arguments: { n: 2 }, _meta: { progressToken: 'lp' } }))))
  await show('l tools/call stream:true', app.inject(on(rpc('tools/call', { name: 'streamer', arguments: {} }))))
  await show('l resources/list', app.inject(on(rpc('resources/list'))))
  await show('l resources/templates/list', app.inject(on(rpc('resources/templates/list'))))
  await show('l resources/read fixed', app.inject(on(rpc('resources/read', { uri: 'test://static' }))))
  await show('l resources/read template', app.inject(on(rpc('resources/read', { uri: 'users://bob/profile' }))))
  await show('l resources/read unknown', app.inject(on(rpc('resources/read', { uri: 'test://unknown' }))))
  await show('l resources/subscribe', app.inject(on(rpc('resources/subscribe', { uri: 'test://static' }))))
  await show('l resources/subscribe no uri', app.inject(on(rpc('resources/subscribe', {}))))
  await show('l resources/unsubscribe', app.inject(on(rpc('resources/unsubscribe', { uri: 'test://static' }))))
  await show('l prompts/list', app.inject(on(rpc('prompts/list'))))
  await show('l prompts/get', app.inject(on(rpc('prompts/get', { name: 'review', arguments: { code: 'y' } }))))
  await show('l prompts/get missing arg', app.inject(on(rpc('prompts/get', { name: 'review', arguments: {} }))))
  await show('l prompts/get unknown', app.inject(on(rpc('prompts/get', { name: 'nope' }))))
  await show('l completion/complete', app.inject(on(rpc('completion/complete', { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'language', value: 't' } }))))
  await show('l server/discover', app.inject(on(rpc('server/discover'))))
  await show('l subscriptions/listen', app.inject(on(rpc('subscriptions/listen', { notifications: {} }))))
  await show('l unknown method', app.inject(on(rpc('tools/destroy'))))
  await show('l initialize on session', app.inject(on({ jsonrpc: '2.0', id: 99, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })))
  await show('l notifications/cancelled unknown id', app.inject(on({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12345, reason: 'probe' } })))
  await show('l notifications/unknown', app.inject(on({ jsonrpc: '2.0', method: 'notifications/whatever' })))
  await show('l response to unknown request', app.inject(on({ jsonrpc: '2.0', id: 'sake-AAAAAAAA-999', result: {} })))
  await show('l response foreign id', app.inject(on({ jsonrpc: '2.0', id: 77, result: {} })))

  // a running call cancelled by notifications/cancelled
  const cancelId = nextId++
  const running = app.inject(on({ jsonrpc: '2.0', id: cancelId, method: 'tools/call', params: { name: 'wait_for_cancel', arguments: {} } }))
  await sleep(30)
  await show('l notifications/cancelled running call', app.inject(on({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: cancelId, reason: 'probe' } })))
  await show('l cancelled call', running)

  // logging/setLevel, on its own session (later calls there stream their log messages)
  const logs = await openSession(app, 'l log', '2025-11-25')
  if (logs !== undefined) {
    await show('l logging/setLevel ok', app.inject(legacy(logs.sid, logs.version, rpc('logging/setLevel', { level: 'info' }))))
    await show('l logging/setLevel bad', app.inject(legacy(logs.sid, logs.version, rpc('logging/setLevel', { level: 'loud' }))))
    await show('l logging/setLevel missing', app.inject(legacy(logs.sid, logs.version, rpc('logging/setLevel'))))
    await show('l tools/call after setLevel', app.inject(legacy(logs.sid, logs.version, rpc('tools/call', { name: 'streamer', arguments: {} }))))
    await show('l tools/call after setLevel, plain tool', app.inject(legacy(logs.sid, logs.version, rpc('tools/call', { name: 'echo', arguments: { text: 'x' } }))))
  }

  // session and version headers
  await show('l missing session header', app.inject(post(rpc('tools/list'), { 'mcp-protocol-version': '2025-11-25' })))
  await show('l missing session header, no version', app.inject(post(rpc('tools/list'))))
  await show('l unknown session', app.inject(legacy('00000000-0000-4000-8000-000000000000', '2025-11-25', rpc('tools/list'))))
  await show('l missing MCP-Protocol-Version (2025-11-25)', app.inject(on(rpc('tools/list'), { 'mcp-protocol-version': undefined })))
  await show('l missing MCP-Protocol-Version (2025-06-18)', app.inject(legacy(s06.sid, s06.version, rpc('tools/list'), { 'mcp-protocol-version': undefined })))
  await show('l missing MCP-Protocol-Version (2025-03-26)', app.inject(legacy(s03.sid, s03.version, rpc('ping'), { 'mcp-protocol-version': undefined })))
  await show('l bad version header', app.inject(on(rpc('tools/list'), { 'mcp-protocol-version': '1999-01-01' })))
  await show('l modern version header on session', app.inject(on(rpc('tools/list'), { 'mcp-protocol-version': MODERN })))
  await show('l other 2025 version header', app.inject(on(rpc('ping'), { 'mcp-protocol-version': '2025-03-26' })))
  await show('l 2025-06-18 tools/call', app.inject(legacy(s06.sid, s06.version, rpc('tools/call', { name: 'echo', arguments: { text: 'six' } }))))
  await show('l 2025-06-18 tools/call stream', app.inject(legacy(s06.sid, s06.version, rpc('tools/call', { name: 'streamer', arguments: {} }))))

  // batches
  await show('l batch 2025-03-26', app.inject(legacy(s03.sid, s03.version, [rpc('ping'), rpc('tools/call', { name: 'echo', arguments: { text: 'b' } }), { jsonrpc: '2.0', method: 'notifications/initialized' }, { nope: true }, rpc('tools/call', { name: 'nope' })])))
  await show('l batch 2025-03-26 notifications only', app.inject(legacy(s03.sid, s03.version, [{ jsonrpc: '2.0', method: 'notifications/initialized' }])))
  await show('l batch 2025-03-26 empty', app.inject(legacy(s03.sid, s03.version, [])))
  await show('l batch 2025-03-26 with initialize', app.inject(legacy(s03.sid, s03.version, [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }])))
  await show('l batch 2025-11-25 refused', app.inject(on([rpc('ping'), rpc('ping')])))
  await show('l batch without session', app.inject(post([rpc('ping')])))

  // GET, DELETE, PUT
  await show('l GET without session', app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream' } }))
  await show('l GET unknown session', app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': 'nope' } }))
  await show('l GET session json accept', app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'application/json', 'mcp-session-id': sid, 'mcp-protocol-version': version } }))
  await show('l PUT', app.inject({ method: 'PUT', url: '/mcp', headers: BASE, payload: '{}' }))
  await show('l PATCH', app.inject({ method: 'PATCH', url: '/mcp', headers: BASE, payload: '{}' }))
  await show('l DELETE without session', app.inject({ method: 'DELETE', url: '/mcp' }))
  await show('l DELETE unknown session', app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': 'nope' } }))
  await show('l DELETE session', app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': s06.sid, 'mcp-protocol-version': s06.version } }))
  await show('l use deleted session', app.inject(legacy(s06.sid, s06.version, rpc('ping'))))
  await show('l DELETE deleted session', app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': s06.sid } }))
}

/** A 2025 client that declared elicitation: the question on the call's stream, answered by a POST. */
async function probeLegacyElicitation (app) {
  print('## 2025 elicitation')
  for (const version of ['2025-11-25', '2025-06-18']) {
    const session = await openSession(app, `le ${version}`, version, { elicitation: {} })
    if (session === undefined) continue
    const tag = `elicit-${version}`
    const call = app.inject(legacy(session.sid, session.version, rpc('tools/call', { name: 'greet', arguments: {} }), { 'x-probe-tap': tag }))
    const question = await tapped(tag, 'elicitation/create')
    if (question === undefined) {
      print(`le ${version} no elicitation/create seen`)
    } else {
      note(`le ${version} question`, question)
      await show(`le ${version} answer POST`, app.inject(legacy(session.sid, session.version, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } })))
      await show(`le ${version} answer again (already answered)`, app.inject(legacy(session.sid, session.version, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Bob' } } })))
    }
    const res = await within(`le ${version} tools/call greet`, call)
    if (res !== undefined) await show(`le ${version} tools/call greet`, res)

    // an answer with an error, and one that does not match the schema
    for (const [label, reply] of [['error answer', { error: { code: -1, message: 'User rejected' } }], ['invalid answer', { result: { action: 'accept', content: { name: 7 } } }], ['decline', { result: { action: 'decline' } }]]) {
      const t = `${tag}-${label}`
      const pending = app.inject(legacy(session.sid, session.version, rpc('tools/call', { name: 'greet', arguments: {} }), { 'x-probe-tap': t }))
      const q = await tapped(t, 'elicitation/create')
      if (q !== undefined) await show(`le ${version} ${label} POST`, app.inject(legacy(session.sid, session.version, { jsonrpc: '2.0', id: q.id, ...reply })))
      const done = await within(`le ${version} ${label}`, pending)
      if (done !== undefined) await show(`le ${version} ${label} tools/call greet`, done)
    }
  }
  // URL-mode elicitation (2025-11-25: an elicitationId) and sampling, answered the same way
  const both = await openSession(app, 'le url+sampling', '2025-11-25', { elicitation: { form: {}, url: {} }, sampling: {} })
  if (both !== undefined) {
    for (const [tool, method, reply] of [['link', 'elicitation/create', { action: 'accept' }], ['needs_sampling', 'sampling/createMessage', { role: 'assistant', model: 'probe-model', content: { type: 'text', text: 'hello' } }]]) {
      const tag = `le-${tool}`
      const pending = app.inject(legacy(both.sid, both.version, rpc('tools/call', { name: tool, arguments: {} }), { 'x-probe-tap': tag }))
      const q = await tapped(tag, method)
      if (q !== undefined) await show(`le ${tool} answer POST`, app.inject(legacy(both.sid, both.version, { jsonrpc: '2.0', id: q.id, result: reply })))
      const done = await within(`le ${tool}`, pending)
      if (done !== undefined) await show(`le ${tool} tools/call`, done)
    }
  }
  // 2025-03-26 has no elicitation: unsupported, no stream
  const old = await openSession(app, 'le 2025-03-26', '2025-03-26', { elicitation: {} })
  if (old !== undefined) await show('le 2025-03-26 tools/call greet', app.inject(legacy(old.sid, old.version, rpc('tools/call', { name: 'greet', arguments: {} }))))
  // a client with elicitation that accepts JSON only: no stream to ask on
  const jsonOnly = await openSession(app, 'le json-only', '2025-11-25', { elicitation: {} })
  if (jsonOnly !== undefined) {
    const res = await within('le json-only tools/call greet', app.inject(legacy(jsonOnly.sid, jsonOnly.version, rpc('tools/call', { name: 'greet', arguments: {} }), { accept: 'application/json' })))
    if (res !== undefined) await show('le json-only tools/call greet', res)
    await show('le plain tool with elicitation capability', app.inject(legacy(jsonOnly.sid, jsonOnly.version, rpc('tools/call', { name: 'echo', arguments: { text: 'e' } }))))
  }
}

/** A 2025-11-25 session's GET: the standalone stream, and a call stream resumed with Last-Event-ID. */
async function probeLegacyStreams () {
  print('## 2025 GET streams')
  const app = await mainApp()
  await app.ready()
  const s = await openSession(app, 'g', '2025-11-25')
  if (s === undefined) return
  const get = (headers = {}) => ({ method: 'GET', url: '/mcp', headers: merge({ accept: 'text/event-stream', 'mcp-session-id': s.sid, 'mcp-protocol-version': s.version }, headers) })

  await show('g tools/call progressToken', app.inject(legacy(s.sid, s.version, rpc('tools/call', { name: 'progress', arguments: { n: 3 }, _meta: { progressToken: 'g' } }), { 'x-probe-tap': 'g-call' })))
  const ids = [...(taps.get('g-call') ?? []).join('').matchAll(/^id: (.+)$/gm)].map((m) => m[1])
  note('g call stream event count', ids.length)
  if (ids.length > 2) {
    const resumed = await within('g GET Last-Event-ID (after the 2nd event)', app.inject(get({ 'last-event-id': ids[1] })))
    if (resumed !== undefined) await show('g GET Last-Event-ID (after the 2nd event)', resumed)
    const last = await within('g GET Last-Event-ID (the last event)', app.inject(get({ 'last-event-id': ids[ids.length - 1] })))
    if (last !== undefined) await show('g GET Last-Event-ID (the last event)', last)
  }
  await show('g resources/subscribe', app.inject(legacy(s.sid, s.version, rpc('resources/subscribe', { uri: 'test://static' }))))
  const standalone = app.inject(get({ 'x-probe-tap': 'g-get' }))
  await tappedAny('g-get')
  const second = await within('g second GET', app.inject(get()), 1000)
  if (second !== undefined) await show('g second GET (one at a time)', second)
  await app.mcp.listChanged('tools')
  await app.mcp.resourceUpdated('test://other')
  await app.mcp.resourceUpdated('test://static')
  await app.mcp.listChanged('prompts')
  await sleep(20)
  await show('g DELETE session', app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': s.sid } }))
  const ended = await within('g GET standalone (ended by DELETE)', standalone, 1000)
  if (ended !== undefined) await show('g GET standalone (ended by DELETE)', ended)

  // an unknown Last-Event-ID: nothing to replay, so it opens the session's standalone stream
  const u = await openSession(app, 'g unknown', '2025-11-25')
  if (u !== undefined) {
    const open = app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': u.sid, 'mcp-protocol-version': u.version, 'last-event-id': 'no-such-event', 'x-probe-tap': 'g-unknown' } })
    await tappedAny('g-unknown')
    await app.mcp.listChanged('resources')
    await sleep(20)
    await show('g unknown DELETE session', app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': u.sid } }))
    const res = await within('g GET Last-Event-ID unknown (ended by DELETE)', open, 1000)
    if (res !== undefined) await show('g GET Last-Event-ID unknown (ended by DELETE)', res)
  }
  // a 2025-06-18 session: no resumability, no priming event; ended by app.close
  const old = await openSession(app, 'g 06-18', '2025-06-18')
  const closing = old === undefined ? app.close() : undefined
  if (old !== undefined) {
    const open = app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': old.sid, 'mcp-protocol-version': old.version, 'x-probe-tap': 'g-old' } })
    await sleep(20)
    await app.mcp.listChanged('tools')
    await sleep(20)
    const close = app.close()
    const res = await within('g 06-18 GET (ended by app.close)', open)
    if (res !== undefined) await show('g 06-18 GET (ended by app.close)', res)
    await within('g app.close', close)
  }
  if (closing !== undefined) await within('g app.close', closing)
}

// ---------------------------------------------------------------- HTTP edges

async function probeHttp (app) {
  print('## HTTP edges')
  await show('h bad JSON', app.inject(post('{"jsonrpc": "2.0", "id": 1,')))
  await show('h empty body', app.inject(post('')))
  await show('h empty body without content-type', app.inject({ method: 'POST', url: '/mcp', headers: { accept: BASE.accept } }))
  await show('h __proto__ key', app.inject(post('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"x":1}}}')))
  await show('h constructor.prototype key', app.inject(post('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"constructor":{"prototype":{"x":1}}}}')))
  await show('h not JSON-RPC', app.inject(post({ hello: 'world' })))
  await show('h wrong jsonrpc version', app.inject(post({ jsonrpc: '1.0', id: 1, method: 'ping' })))
  await show('h JSON string body', app.inject(post('"ping"')))
  await show('h JSON null body', app.inject(post('null')))
  await show('h text/plain', app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'text/plain', accept: BASE.accept }, payload: '{}' }))
  await show('h application/json charset', app.inject(modern('server/discover', {}, { headers: { 'content-type': 'application/json; charset=utf-8' } })))
  await show('h Accept text/html', app.inject(modern('server/discover', {}, { headers: { accept: 'text/html' } })))
  await show('h Accept event-stream only', app.inject(modern('server/discover', {}, { headers: { accept: 'text/event-stream' } })))
  await show('h Accept */*', app.inject(modern('server/discover', {}, { headers: { accept: '*/*' } })))
  await show('h no Accept', app.inject(modern('server/discover', {}, { headers: { accept: undefined } })))
  await show('h Origin not allowed', app.inject(modern('server/discover', {}, { headers: { origin: 'http://evil.example' } })))
  await show('h Origin localhost allowed', app.inject(modern('server/discover', {}, { headers: { origin: 'http://localhost:5173' } })))
  await show('h Host not allowed', app.inject(modern('server/discover', {}, { headers: { host: 'evil.example' } })))
  await show('h Host 127.0.0.1 allowed', app.inject(modern('server/discover', {}, { headers: { host: '127.0.0.1:8080' } })))
  await show('h Host [::1] allowed', app.inject(modern('server/discover', {}, { headers: { host: '[::1]:3000' } })))
  await show('h Origin not allowed, legacy initialize', app.inject(post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, { origin: 'http://evil.example' })))
  await show('h Origin not allowed, GET', app.inject({ method: 'GET', url: '/mcp', headers: { origin: 'http://evil.example' } }))
  await show('h non-loopback connection: Origin refused (no allowedOrigins)', app.inject(modern('server/discover', {}, { headers: { origin: 'http://evil.example', host: 'evil.example', 'x-probe-local': '10.1.2.3' } })))
  await show('h IPv4-mapped loopback connection: Origin checked', app.inject(modern('server/discover', {}, { headers: { origin: 'http://evil.example', 'x-probe-local': '::ffff:127.0.0.1' } })))
  await show('h GET other route', app.inject({ method: 'GET', url: '/elsewhere' }))

  const small = await mainApp({ bodyLimit: 400 })
  await show('h body too large', small.inject(modern('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(500) } })))
  await show('h body under limit', small.inject(modern('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(20) } })))
  await within('h close small app', small.close())

  const lists = await mainApp({ allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] })
  await show('h allowedHosts: listed host', lists.inject(modern('server/discover', {}, { headers: { host: 'mcp.example.com' } })))
  await show('h allowedHosts: localhost refused', lists.inject(modern('server/discover', {}, { headers: { host: 'localhost' } })))
  await show('h allowedOrigins: listed', lists.inject(modern('server/discover', {}, { headers: { host: 'mcp.example.com', origin: 'https://app.example.com' } })))
  await show('h allowedOrigins: other', lists.inject(modern('server/discover', {}, { headers: { host: 'mcp.example.com', origin: 'http://localhost' } })))
  await within('h close lists app', lists.close())
}

// ---------------------------------------------------------------- auth

const CALLERS = {
  reader: { subject: 'alice', scopes: ['issues:read'] },
  writer: { subject: 'alice', scopes: ['issues:read', 'issues:write'], acr: 'pwd' },
  mfa: { subject: 'alice', scopes: ['issues:read', 'issues:write'], acr: 'mfa' },
  bob: { subject: 'bob', scopes: ['issues:read'] },
  nobody: { subject: 'carol', scopes: [] }
}

const authTools = [
  defineTool({ name: 'open', description: 'No scope', execute: (_args, ctx) => `hello ${ctx.auth?.subject}` }),
  defineTool({ name: 'list_issues', description: 'issues:read', scope: 'issues:read', execute: (_args, ctx) => `issues of ${ctx.auth?.subject} (${ctx.auth?.scopes.join(' ')})` }),
  defineTool({ name: 'create_issue', description: 'issues:write', scope: 'issues:write', args: { title: Type.String() }, execute: ({ title }) => `created ${title}` }),
  defineTool({ name: 'both', description: 'both scopes', scope: ['issues:read', 'issues:write'], execute: () => 'both' }),
  defineTool({ name: 'delete_issue', description: 'step-up', scope: 'issues:write', authentication: { acr: ['mfa'] }, execute: () => 'deleted' }),
  defineTool({
    name: 'escalate',
    description: 'throws InsufficientScopeError',
    scope: 'issues:read',
    args: { n: Type.Optional(Type.Integer()) },
    execute: (_args, ctx) => {
      ctx.progress(1, 2)
      throw new InsufficientScopeError('issues:write')
    }
  }),
  defineTool({ name: 'stream_write', description: 'stream: true, issues:write', scope: 'issues:write', stream: true, execute: () => 'streamed write' })
]

async function authApp (extra = {}) {
  const app = Fastify({ logger: false })
  tap(app)
  await app.register(sake, {
    name: 'probe-auth',
    version: '1.0.0',
    keepAlive: 0,
    requestState: { keys: [STATE_KEY] },
    scopes: { 'issues:read': 'Read issues', 'issues:write': 'Change issues' },
    auth: {
      resource: 'http://localhost/mcp',
      authorizationServers: ['http://localhost:9999'],
      verify: (token) => {
        const caller = CALLERS[token]
        if (caller === undefined) throw new Error(`unknown test token ${token}`)
        return caller
      },
      ...extra
    },
    tools: authTools,
    resources: [{ uri: 'test://secret', name: 'secret', scope: 'issues:read', read: () => 'secret' }],
    prompts: [definePrompt({ name: 'writer_prompt', scope: 'issues:write', get: () => 'write' })]
  })
  return app
}

const bearer = (token) => ({ authorization: `Bearer ${token}` })

async function probeAuth () {
  print('## auth')
  const app = await authApp()
  await app.ready()
  note('a app.mcp.scopes()', app.mcp.scopes())
  await show('a metadata document', app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' }))
  await show('a metadata document (root)', app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' }))
  await show('a no token', app.inject(modern('tools/list')))
  await show('a no token, Mcp-Name of scoped tool', app.inject(modern('tools/call', { name: 'create_issue', arguments: { title: 't' } })))
  await show('a no token, initialize', app.inject(post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })))
  await show('a bad token', app.inject(modern('tools/list', {}, { headers: bearer('forged') })))
  await show('a malformed Authorization', app.inject(modern('tools/list', {}, { headers: { authorization: 'Basic abc' } })))
  await show('a reader tools/list', app.inject(modern('tools/list', {}, { headers: bearer('reader') })))
  await show('a reader open', app.inject(modern('tools/call', { name: 'open', arguments: {} }, { headers: bearer('reader') })))
  await show('a reader list_issues', app.inject(modern('tools/call', { name: 'list_issues', arguments: {} }, { headers: bearer('reader') })))
  await show('a reader create_issue (403)', app.inject(modern('tools/call', { name: 'create_issue', arguments: { title: 't' } }, { headers: bearer('reader') })))
  await show('a nobody both (403, two scopes)', app.inject(modern('tools/call', { name: 'both', arguments: {} }, { headers: bearer('nobody') })))
  await show('a reader stream_write (403, no stream)', app.inject(modern('tools/call', { name: 'stream_write', arguments: {} }, { headers: bearer('reader') })))
  await show('a writer create_issue', app.inject(modern('tools/call', { name: 'create_issue', arguments: { title: 't' } }, { headers: bearer('writer') })))
  await show('a writer delete_issue (step-up 401)', app.inject(modern('tools/call', { name: 'delete_issue', arguments: {} }, { headers: bearer('writer') })))
  await show('a mfa delete_issue', app.inject(modern('tools/call', { name: 'delete_issue', arguments: {} }, { headers: bearer('mfa') })))
  await show('a reader escalate (tool InsufficientScopeError, JSON)', app.inject(modern('tools/call', { name: 'escalate', arguments: {} }, { headers: bearer('reader') })))
  await show('a reader escalate (streamed)', app.inject(modern('tools/call', { name: 'escalate', arguments: {} }, { headers: bearer('reader'), meta: { progressToken: 'esc' } })))
  await show('a reader resources/read secret', app.inject(modern('resources/read', { uri: 'test://secret' }, { headers: bearer('reader') })))
  await show('a nobody resources/read secret (403)', app.inject(modern('resources/read', { uri: 'test://secret' }, { headers: bearer('nobody') })))
  await show('a reader prompts/get writer_prompt (403)', app.inject(modern('prompts/get', { name: 'writer_prompt' }, { headers: bearer('reader') })))
  await show('a reader resources/list', app.inject(modern('resources/list', {}, { headers: bearer('reader') })))
  await show('a reader prompts/list', app.inject(modern('prompts/list', {}, { headers: bearer('reader') })))

  // 2025 sessions with auth
  const alice = await openSession(app, 'a alice', '2025-11-25', {}, bearer('reader'))
  if (alice !== undefined) {
    await show('a alice session list_issues', app.inject(legacy(alice.sid, alice.version, rpc('tools/call', { name: 'list_issues', arguments: {} }), bearer('reader'))))
    await show('a alice session create_issue (403)', app.inject(legacy(alice.sid, alice.version, rpc('tools/call', { name: 'create_issue', arguments: { title: 'x' } }), bearer('reader'))))
    await show('a alice session escalate', app.inject(legacy(alice.sid, alice.version, rpc('tools/call', { name: 'escalate', arguments: {} }), bearer('reader'))))
    await show('a alice session escalate streamed', app.inject(legacy(alice.sid, alice.version, rpc('tools/call', { name: 'escalate', arguments: {}, _meta: { progressToken: 1 } }), bearer('reader'))))
    await show('a alice session writer token (same subject)', app.inject(legacy(alice.sid, alice.version, rpc('ping'), bearer('writer'))))
    await show('a alice session with bob token (404)', app.inject(legacy(alice.sid, alice.version, rpc('ping'), bearer('bob'))))
    await show('a alice session DELETE with bob token (404)', app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': alice.sid, ...bearer('bob') } }))
    await show('a alice session without token (401)', app.inject(legacy(alice.sid, alice.version, rpc('ping'))))
    await show('a alice session still alive', app.inject(legacy(alice.sid, alice.version, rpc('ping'), bearer('reader'))))
  }
  const old = await openSession(app, 'a batch', '2025-03-26', {}, bearer('reader'))
  if (old !== undefined) {
    await show('a batch with forbidden item', app.inject(legacy(old.sid, old.version, [rpc('ping'), rpc('tools/call', { name: 'create_issue', arguments: { title: 'x' } })], bearer('reader'))))
    await show('a batch allowed', app.inject(legacy(old.sid, old.version, [rpc('tools/call', { name: 'list_issues', arguments: {} })], bearer('reader'))))
  }
  await show('a GET without session (auth)', app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', ...bearer('reader') } }))
  await within('a close auth app', app.close())

  const hidden = await authApp({ hideForbidden: true })
  await hidden.ready()
  await show('a hideForbidden reader tools/list', hidden.inject(modern('tools/list', {}, { headers: bearer('reader') })))
  await show('a hideForbidden nobody tools/list', hidden.inject(modern('tools/list', {}, { headers: bearer('nobody') })))
  await show('a hideForbidden mfa tools/list', hidden.inject(modern('tools/list', {}, { headers: bearer('mfa') })))
  await show('a hideForbidden reader resources/list', hidden.inject(modern('resources/list', {}, { headers: bearer('reader') })))
  await show('a hideForbidden reader prompts/list', hidden.inject(modern('prompts/list', {}, { headers: bearer('reader') })))
  await within('a close hideForbidden app', hidden.close())
}

// ---------------------------------------------------------------- run

print('# fastify-sake probe')
note('exports', Object.keys(mod))
const app = await mainApp()
await app.ready()
note('app.mcp.path', app.mcp.path)
note('app.mcp.tools keys', [...app.mcp.tools.keys()])
note('app.mcp.resources keys', [...app.mcp.resources.keys()])
note('app.mcp.templates keys', [...app.mcp.templates.keys()])
note('app.mcp.prompts keys', [...app.mcp.prompts.keys()])
note('app.mcp.info', app.mcp.info)
note('app.mcp.scopes() without auth', app.mcp.scopes())
await guarded('registerTool after ready', () => { app.registerTool({ name: 'late', execute: () => 'late' }); print('registerTool after ready | no error') })

await guarded('modern', () => probeModern(app))
await guarded('listen', () => probeListen())
await guarded('legacy', () => probeLegacy(app))
await guarded('legacy elicitation', () => probeLegacyElicitation(app))
await guarded('legacy streams', () => probeLegacyStreams())
await guarded('http', () => probeHttp(app))
await guarded('auth', () => probeAuth())
await within('close main app', app.close())
print(`# ${lines + 1} lines`)
