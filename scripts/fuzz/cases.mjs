// What the fuzz harness sends: a fast-check arbitrary of case *specs* (plain data: the era, the
// session, the JSON-RPC message, its mutations, the HTTP framing), and `build`, which turns a spec
// into bytes for one server (its port and live sessions). Case N of seed S is always the same spec:
// `specOf(S, N)` samples the arbitrary with a seed derived from both, so one case reruns alone.
import fc from 'fast-check'
import { encodeHeaderValue } from '../../dist/spec/headers.js'

export const MODERN = '2026-07-28'
export const LEGACY = ['2025-03-26', '2025-06-18', '2025-11-25']
const VERSIONS = [MODERN, ...LEGACY]
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']
const NAME_SOURCE = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri', 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' }
export const METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list',
  'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel',
  'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'tasks/update', 'subscriptions/listen', 'server/discover']
const NOTIFICATIONS = ['notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed', 'notifications/message']
// tools that sleep for as long as their arguments say: bounded here, so a case never waits on them
const BOUNDS = { slow_compute: { seconds: 0.05 }, count: { to: 3, delayMs: 10 } }

/** A small JSON value, any shape: what a field of the wrong type gets. */
const json = fc.jsonValue({ maxDepth: 2 })
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom('', ' ', 'a b', 'ü', '\u0000', 'x'.repeat(300), '=?base64?aGk=?=', '../../etc/passwd'))
const cursor = fc.option(fc.oneof(text, json, fc.constant('eyJ0IjoidG9vbHMiLCJvIjoxMDAwfQ')), { nil: undefined })

/** Values that fit a JSON Schema, roughly (and, a third of the time, any JSON value instead). */
function fits (schema, bound, depth = 0) {
  if (schema === undefined || typeof schema !== 'object' || depth > 3) return json
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'string': return schema.format === 'email' ? fc.emailAddress() : text
    case 'integer': return fc.integer({ min: schema.minimum ?? -1e6, max: Math.min(schema.maximum ?? 1e6, bound ?? Infinity) })
    case 'number': return bound === undefined ? fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }) : fc.double({ noNaN: true, min: 0, max: bound })
    case 'boolean': return fc.boolean()
    case 'array': return fc.array(fits(schema.items, undefined, depth + 1), { maxLength: 3 })
    case 'object': {
      const entries = Object.entries(schema.properties ?? {})
      const record = Object.fromEntries(entries.map(([key, value]) => [key, fits(value, BOUNDS[schema.title]?.[key], depth + 1)]))
      return fc.record(record, { requiredKeys: schema.required ?? [] })
    }
  }
  return json
}

/** The params of each method: mostly well-formed, with a wrong field now and then. */
function paramsOf (method, lists) {
  const toolNames = lists.tools.map((tool) => tool.name)
  const uri = fc.oneof(fc.constantFrom(...lists.resources), text.map((id) => `test://template/${id}/data`), text, json)
  const taskId = fc.oneof(fc.uuid(), text, json)
  switch (method) {
    case 'initialize': return fc.record({
      protocolVersion: fc.oneof(fc.constantFrom(...VERSIONS), text, json),
      capabilities: fc.oneof(fc.constantFrom({}, { elicitation: {} }, { sampling: {} }, { roots: {} }, { tasks: {} }), json),
      clientInfo: fc.oneof(fc.record({ name: text, version: text }), json)
    }, { requiredKeys: [] })
    case 'tools/call': {
      const byName = fc.constantFrom(...lists.tools).chain((tool) => fc.record({
        name: fc.constant(tool.name),
        arguments: fc.oneof({ weight: 4, arbitrary: fits({ ...tool.inputSchema, title: tool.name }, undefined) }, fc.dictionary(text, json, { maxKeys: 3 }), json),
        task: fc.option(fc.oneof(fc.record({ ttl: fc.integer({ min: 0, max: 60_000 }) }), json), { nil: undefined })
      }, { requiredKeys: ['name'] }))
      return fc.oneof({ weight: 6, arbitrary: byName }, fc.record({ name: fc.oneof(fc.constantFrom(...toolNames), text, json), arguments: json }, { requiredKeys: [] }))
    }
    case 'resources/read': case 'resources/subscribe': case 'resources/unsubscribe':
      return fc.record({ uri }, { requiredKeys: [] })
    case 'prompts/get': return fc.record({
      name: fc.oneof(fc.constantFrom(...lists.prompts), text, json),
      arguments: fc.oneof(fc.dictionary(fc.constantFrom('arg1', 'arg2', 'resourceUri', 'x'), text, { maxKeys: 3 }), fc.dictionary(text, json, { maxKeys: 2 }), json)
    }, { requiredKeys: [] })
    case 'completion/complete': return fc.record({
      ref: fc.oneof(fc.record({ type: fc.constant('ref/prompt'), name: fc.oneof(fc.constantFrom(...lists.prompts), text) }),
        fc.record({ type: fc.constant('ref/resource'), uri: fc.oneof(fc.constantFrom(...lists.templates), text) }), json),
      argument: fc.oneof(fc.record({ name: fc.oneof(fc.constantFrom('arg1', 'arg2', 'id'), text), value: text }), json),
      context: fc.option(fc.oneof(fc.record({ arguments: fc.dictionary(text, text, { maxKeys: 2 }) }), json), { nil: undefined })
    }, { requiredKeys: [] })
    case 'logging/setLevel': return fc.record({ level: fc.oneof(fc.constantFrom(...LEVELS), text, json) }, { requiredKeys: [] })
    case 'tasks/get': case 'tasks/result': case 'tasks/cancel': return fc.record({ taskId }, { requiredKeys: [] })
    case 'tasks/update': return fc.record({ taskId, inputResponses: fc.oneof(fc.dictionary(text, json, { maxKeys: 2 }), json), requestState: fc.option(text, { nil: undefined }) }, { requiredKeys: [] })
    case 'subscriptions/listen': return fc.record({
      notifications: fc.oneof(fc.record({ toolsListChanged: fc.oneof(fc.boolean(), json), resourcesListChanged: fc.boolean(), resourceSubscriptions: fc.oneof(fc.array(uri, { maxLength: 2 }), json), taskIds: fc.oneof(fc.array(taskId, { maxLength: 2 }), json) }, { requiredKeys: [] }), json)
    }, { requiredKeys: [] })
    case 'tools/list': case 'resources/list': case 'resources/templates/list': case 'prompts/list': case 'tasks/list':
      return fc.record({ cursor }, { requiredKeys: [] })
    case 'notifications/cancelled': return fc.record({ requestId: fc.oneof(fc.integer(), text, json), reason: text }, { requiredKeys: [] })
    case 'notifications/progress': return fc.record({ progressToken: fc.oneof(fc.integer(), text), progress: fc.double() }, { requiredKeys: [] })
  }
  return fc.constant({})
}

/** A 2026-07-28 request's `_meta`: the required fields (now and then missing or wrong), the optional ones. */
const modernMeta = fc.record({
  'io.modelcontextprotocol/protocolVersion': fc.oneof({ weight: 12, arbitrary: fc.constant(MODERN) }, fc.constantFrom(...LEGACY, '2099-01-01'), text, json),
  'io.modelcontextprotocol/clientCapabilities': fc.oneof({ weight: 8, arbitrary: fc.constantFrom({}, { elicitation: {} }, { sampling: {} }, { roots: {} }, { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }) }, json),
  'io.modelcontextprotocol/clientInfo': fc.oneof(fc.record({ name: text, version: text }), json),
  'io.modelcontextprotocol/logLevel': fc.oneof(fc.constantFrom(...LEVELS), text),
  progressToken: fc.oneof(fc.integer(), text, json)
}, { requiredKeys: ['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities'] })

const id = fc.oneof({ weight: 10, arbitrary: fc.integer({ min: 0, max: 1e6 }) }, { weight: 4, arbitrary: fc.string({ maxLength: 10 }) },
  fc.constantFrom(null, 1.5, -1, 2 ** 53, true, 0), json)

/** One JSON-RPC message: a request (mostly), a notification, or a response to a question of ours. */
function message (lists, era) {
  const request = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...METHODS) }, text).chain((method) => fc.record({
    kind: fc.constant('request'),
    method: fc.constant(method),
    id,
    params: fc.oneof({ weight: 12, arbitrary: paramsOf(method, lists) }, fc.constant(undefined), json),
    meta: era === 'modern' ? fc.option(modernMeta, { freq: 12, nil: undefined }) : fc.option(fc.record({ progressToken: fc.oneof(fc.integer(), text) }), { freq: 2, nil: undefined })
  }))
  const notification = fc.constantFrom(...NOTIFICATIONS).chain((method) => fc.record({
    kind: fc.constant('notification'), method: fc.constant(method), params: paramsOf(method, lists), meta: era === 'modern' ? fc.option(modernMeta, { nil: undefined }) : fc.constant(undefined)
  }))
  const response = fc.record({
    kind: fc.constant('response'),
    id: fc.oneof(fc.string().map((s) => `sake-${s}-1`), id),
    result: fc.option(fc.oneof(fc.record({ action: fc.constantFrom('accept', 'decline', 'cancel'), content: fc.dictionary(text, json, { maxKeys: 2 }) }), json), { nil: undefined }),
    error: fc.option(fc.oneof(fc.record({ code: fc.integer(), message: text }), json), { nil: undefined })
  })
  return fc.oneof({ weight: 14, arbitrary: request }, { weight: 2, arbitrary: notification }, { weight: 1, arbitrary: response })
}

/** Changes to the JSON text of the body. */
const bodyMutation = fc.oneof(
  fc.record({ kind: fc.constant('protoKey'), at: fc.nat(), value: fc.constantFrom('{"polluted":"yes"}', '{"isAdmin":true}', 'null', '1') }),
  fc.record({ kind: fc.constant('ctorKey'), at: fc.nat() }),
  fc.record({
    kind: fc.constant('deep'),
    depth: fc.constantFrom(64, 500, 2_000, 10_000, 50_000, 200_000),
    open: fc.constantFrom('[', '{"a":'),
    // where the nested value goes: a field of params, of its arguments, of _meta, or the whole message's id / params
    path: fc.oneof(
      fc.constantFrom('arguments', 'x', 'uri', 'name', 'notifications', 'inputResponses', 'requestState', 'argument', 'ref', 'capabilities', 'clientInfo', 'protocolVersion', '_meta', 'cursor', 'level', 'context', 'task', 'taskId', 'requestId', 'reason', 'progressToken').map((key) => ['params', key]),
      fc.constantFrom('text', 'a', 'region', 'precision', 'seconds', 'to', 'x').map((key) => ['params', 'arguments', key]),
      fc.constantFrom('io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/logLevel', 'progressToken').map((key) => ['params', '_meta', key]),
      fc.constantFrom(['id'], ['params'], ['result'], ['error'], ['params', 'ref', 'name'], ['params', 'argument', 'value'], ['params', 'notifications', 'resourceSubscriptions'])
    )
  }),
  fc.record({ kind: fc.constant('truncate'), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('huge'), size: fc.constantFrom(100_000, 900_000, 1_100_000), many: fc.boolean() }),
  fc.record({ kind: fc.constant('bytes'), where: fc.constantFrom('bom', 'prefix', 'suffix', 'invalidUtf8', 'nul', 'utf16') }),
  fc.record({ kind: fc.constant('field'), field: fc.constantFrom('jsonrpc', 'method', 'params', 'id', 'extra'), value: json }),
  fc.record({ kind: fc.constant('dupKey'), value: json })
)

const HEADER_NAMES = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'mcp-method', 'mcp-name', 'host', 'last-event-id', 'mcp-param-region', 'mcp-param-precision', 'origin', 'authorization']
const interesting = fc.constantFrom('', ' ', 'application/json', 'text/event-stream', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '*/*', 'text/html', MODERN, '2025-03-26', '2025-11-25', '2099-01-01',
  'tools/call', 'initialize', '=?base64?!!!?=', '=?base64?aGk=?=', 'null', 'http://evil.example', 'Bearer x', 'localhost', '0', '-1', '00000000-0000-0000-0000-000000000000')

/** Changes to the headers. */
const headerMutation = fc.oneof(
  fc.record({ kind: fc.constant('drop'), name: fc.constantFrom(...HEADER_NAMES) }),
  fc.record({ kind: fc.constant('dup'), name: fc.constantFrom(...HEADER_NAMES), value: fc.option(fc.oneof(interesting, text), { nil: undefined }) }),
  fc.record({ kind: fc.constant('case'), mask: fc.nat() }),
  fc.record({ kind: fc.constant('crlf'), name: fc.constantFrom(...HEADER_NAMES), control: fc.constantFrom('\r\n', '\n', '\r', '\u0000', '\r\nX-Injected: 1', '\u007f', '\t') }),
  fc.record({ kind: fc.constant('huge'), name: fc.constantFrom(...HEADER_NAMES, 'x-filler'), size: fc.constantFrom(4_000, 12_000, 17_000, 70_000) }),
  fc.record({ kind: fc.constant('set'), name: fc.constantFrom(...HEADER_NAMES), value: fc.oneof(interesting, text) }),
  fc.record({ kind: fc.constant('extra'), name: fc.oneof(fc.constantFrom('Mcp-Param-', 'Mcp-Param-Nope', 'MCP-PARAM-REGION', 'Mcp-', 'Expect', 'Transfer-Encoding', 'Content-Encoding', 'Connection'), text.map((s) => `X-${s.replace(/[^A-Za-z0-9-]/g, '')}`)), value: fc.oneof(interesting, text, fc.constantFrom('100-continue', 'gzip', 'chunked', 'keep-alive')) })
)

/** The whole case: one HTTP request to the MCP endpoint. */
export function caseArbitrary (lists) {
  return fc.constantFrom('modern', 'modern', 'modern', ...LEGACY, '2025-11-25').chain((era) => fc.record({
    era: fc.constant(era),
    httpMethod: fc.oneof({ weight: 40, arbitrary: fc.constant('POST') }, fc.constantFrom('GET', 'GET', 'DELETE', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'TRACE', 'PROPFIND', 'BREW')),
    path: fc.oneof({ weight: 30, arbitrary: fc.constant('/mcp') }, fc.constantFrom('/mcp/', '/mcp?x=1', '/MCP', '//mcp', '/mcp%00', '/mcp#x', '/mcp/../mcp')),
    // which Mcp-Session-Id it carries: the live session of its version (most), none, one deleted, another's, garbage
    session: era === 'modern'
      ? fc.oneof({ weight: 10, arbitrary: fc.constant('none') }, fc.constantFrom('live', 'garbage'))
      : fc.oneof({ weight: 14, arbitrary: fc.constant('live') }, fc.constantFrom('none', 'deleted', 'foreign', 'garbage', 'fresh')),
    messages: fc.oneof({ weight: 20, arbitrary: message(lists, era).map((one) => [one]) }, fc.array(message(lists, era), { maxLength: 4 }).map((batch) => ({ batch }))),
    body: fc.array(bodyMutation, { maxLength: 2 }).chain((mutations) => fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, fc.constant(mutations))),
    headers: fc.array(headerMutation, { maxLength: 3 }).chain((mutations) => fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, fc.constant(mutations))),
    framing: fc.oneof({ weight: 30, arbitrary: fc.constant('length') }, fc.constantFrom('chunked', 'chunked', 'short', 'none')),
    chunks: fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 4 })
  }))
}

/** Mixes the run's seed and a case index into the seed of that case alone. */
export function caseSeed (seed, index) {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) | 0
}

export function specOf (arbitrary, seed, index) {
  return fc.sample(arbitrary, { seed: caseSeed(seed, index), numRuns: 1 })[0]
}

/** The JSON value of one message of a spec. */
function messageValue (one, era, sessionVersion) {
  if (one.kind === 'response') {
    const value = { jsonrpc: '2.0', id: one.id }
    if (one.result !== undefined) value.result = one.result
    if (one.error !== undefined || one.result === undefined) value.error = one.error ?? { code: -1, message: 'no' }
    return value
  }
  const value = { jsonrpc: '2.0' }
  if (one.kind === 'request') value.id = one.id
  value.method = one.method
  let params = one.params
  if (one.meta !== undefined && (params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params)))) {
    params = { ...params, _meta: { ...one.meta } }
  }
  if (params !== undefined) value.params = params
  void era
  void sessionVersion
  return value
}

const DEEP = '\u0000deep\u0000'

/** Random but reproducible choices inside `build` (a case's spec says everything; this spreads it). */
function pick (list, n) { return list[n % list.length] }

/**
 * The bytes of one case for a running server: `{ method, path, headers, body, bodyMode, chunks,
 * peek, value, text }` (`value`: the JSON value the body holds before text mutations, `text`: the
 * body text after them, when it is text).
 */
export function build (spec, server) {
  const { era } = spec
  const version = era === 'modern' ? MODERN : era
  const values = spec.messages.batch ?? spec.messages
  const value = spec.messages.batch === undefined ? messageValue(values[0], era, version) : values.map((one) => messageValue(one, era, version))
  let body = JSON.stringify(value)
  let bytes
  let deep = false
  for (const mutation of spec.body) {
    switch (mutation.kind) {
      case 'protoKey': case 'ctorKey': {
        const opens = [...body.matchAll(/\{/g)].map((match) => match.index)
        if (opens.length === 0) break
        const at = opens[mutation.at % opens.length] + 1
        const key = mutation.kind === 'protoKey' ? `"__proto__":${mutation.value}` : '"constructor":{"prototype":{"polluted":"yes"}}'
        const close = body[at] === '}' ? '' : ','
        body = body.slice(0, at) + key + close + body.slice(at)
        break
      }
      case 'deep': {
        // a placeholder at the path, replaced by the nested text: JSON.stringify could not write it
        // (nor parse and write it again: one deep value per case)
        if (deep) break
        deep = true
        let target
        try {
          target = JSON.parse(body)
        } catch {
          break
        }
        const top = Array.isArray(target) ? target[0] : target
        if (typeof top !== 'object' || top === null) break
        let at = top
        for (const key of mutation.path.slice(0, -1)) {
          if (typeof at[key] !== 'object' || at[key] === null || Array.isArray(at[key])) at[key] = {}
          at = at[key]
        }
        at[mutation.path.at(-1)] = DEEP
        const close = mutation.open === '[' ? ']' : '}'
        const nested = mutation.open.repeat(mutation.depth) + (mutation.open === '[' ? '' : '1') + close.repeat(mutation.depth)
        body = JSON.stringify(target).replace(JSON.stringify(DEEP), nested)
        break
      }
      case 'truncate': body = body.slice(0, Math.floor(body.length * mutation.fraction)); break
      case 'huge': {
        const filler = mutation.many
          ? '{' + Array.from({ length: Math.floor(mutation.size / 12) }, (_, i) => `"k${i}":${i}`).join(',') + '}'
          : JSON.stringify('x'.repeat(mutation.size))
        const at = body.indexOf('{') + 1
        if (at <= 0) break
        body = body.slice(0, at) + `"filler":${filler}` + (body[at] === '}' ? '' : ',') + body.slice(at)
        break
      }
      case 'bytes': {
        const utf8 = Buffer.from(body, 'utf8')
        if (mutation.where === 'bom') bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8])
        if (mutation.where === 'prefix') bytes = Buffer.concat([Buffer.from('\u0000garbage'), utf8])
        if (mutation.where === 'suffix') bytes = Buffer.concat([utf8, Buffer.from(' }{ ')])
        if (mutation.where === 'invalidUtf8') bytes = Buffer.from(body.replace(/"2\.0"/, '"2.\u00ff0"'), 'latin1')
        if (mutation.where === 'nul') bytes = Buffer.from(body.replace(/"method":"/, '"method":"\u0000'), 'utf8')
        if (mutation.where === 'utf16') bytes = Buffer.from(body, 'utf16le')
        if (bytes !== undefined) body = bytes.toString('utf8')
        break
      }
      case 'field': {
        if (deep) break
        try {
          const parsed = JSON.parse(body)
          if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
            parsed[mutation.field === 'extra' ? 'extra' : mutation.field] = mutation.value
            body = JSON.stringify(parsed)
          }
        } catch {}
        break
      }
      case 'dupKey': {
        if (body.startsWith('{"jsonrpc"')) body = `{"id":${JSON.stringify(mutation.value)},` + body.slice(1)
        break
      }
    }
    if (mutation.kind !== 'bytes') bytes = undefined
  }
  bytes ??= Buffer.from(body, 'utf8')

  // the headers a well-behaved client of this era sends
  const headers = [['Host', `127.0.0.1:${server.port}`], ['Content-Type', 'application/json'], ['Accept', 'application/json, text/event-stream']]
  const first = Array.isArray(value) ? value[0] : value
  if (era === 'modern') {
    headers.push(['MCP-Protocol-Version', MODERN])
    const method = first?.method
    if (typeof method === 'string' && /^[\x20-\x7e]*$/.test(method)) headers.push(['Mcp-Method', method])
    const field = NAME_SOURCE[method]
    const name = field === undefined ? undefined : first?.params?.[field]
    if (typeof name === 'string') headers.push(['Mcp-Name', encodeHeaderValue(name)])
    const tool = method === 'tools/call' ? server.lists.tools.find((one) => one.name === name) : undefined
    for (const [arg, schema] of Object.entries(tool?.inputSchema?.properties ?? {})) {
      const given = first?.params?.arguments?.[arg]
      if (schema['x-mcp-header'] !== undefined && given !== undefined && given !== null && typeof given !== 'object') headers.push([`Mcp-Param-${schema['x-mcp-header']}`, encodeHeaderValue(String(given))])
    }
  } else if (!(first?.method === 'initialize' && spec.session === 'live')) {
    if (era !== '2025-03-26') headers.push(['MCP-Protocol-Version', version])
  }
  const sessionId = sessionFor(spec, server)
  if (sessionId !== undefined) headers.push(['Mcp-Session-Id', sessionId])
  headers.push(['Connection', 'close'])

  for (const [i, mutation] of spec.headers.entries()) {
    const index = headers.findIndex(([name]) => name.toLowerCase() === mutation.name?.toLowerCase())
    switch (mutation.kind) {
      case 'drop': if (index >= 0) headers.splice(index, 1); break
      case 'dup': headers.splice(index >= 0 ? index + 1 : 1, 0, [index >= 0 ? headers[index][0] : mutation.name, mutation.value ?? (index >= 0 ? headers[index][1] : 'x')]); break
      case 'case': for (const header of headers) header[0] = [...header[0]].map((c, n) => ((mutation.mask >> (n % 30)) & 1) === 1 ? c.toUpperCase() : c.toLowerCase()).join(''); break
      case 'crlf': {
        const at = index >= 0 ? index : headers.length - 1
        headers[at] = [headers[at][0], headers[at][1] + mutation.control + 'x']
        break
      }
      case 'huge': {
        const filler = 'h'.repeat(mutation.size)
        if (index >= 0) headers[index] = [headers[index][0], filler]
        else headers.push([mutation.name, filler])
        break
      }
      case 'set': if (index >= 0) headers[index] = [headers[index][0], mutation.value]; else headers.push([mutation.name, mutation.value]); break
      case 'extra': headers.push([mutation.name === '' ? `X-Extra-${i}` : mutation.name, mutation.value]); break
    }
  }
  // a header value travels as latin1 bytes: characters beyond it are sent as their UTF-8 bytes
  for (const header of headers) header[1] = Buffer.from(String(header[1]), 'utf8').toString('latin1')

  const method = spec.httpMethod
  const sendsBody = method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' && method !== 'OPTIONS'
  const listen = first?.method === 'subscriptions/listen' || method === 'GET'
  return {
    method,
    path: spec.path,
    headers,
    body: sendsBody ? bytes : undefined,
    bodyMode: sendsBody ? spec.framing : 'none',
    chunks: spec.chunks,
    // a session's GET stream and a listen stay open by design: what they send first is enough
    peek: listen ? 150 : undefined,
    text: sendsBody ? bytes.toString('utf8') : undefined,
    sessionId
  }
}

function sessionFor (spec, server) {
  switch (spec.session) {
    case 'none': return undefined
    case 'live': return server.sessions[spec.era === 'modern' ? '2025-11-25' : spec.era]
    case 'deleted': return server.deleted[spec.era]
    case 'foreign': return '6f0d5b6e-6d5c-4a55-8c55-2f0c8c0e9a11'
    case 'garbage': return pick(['', ' ', 'x'.repeat(500), '../', '\u00ff', 'a,b'], spec.chunks.length)
    // a session opened for this case alone, so a DELETE never ends a session other cases use
    case 'fresh': return server.fresh?.[spec.era]
  }
}
