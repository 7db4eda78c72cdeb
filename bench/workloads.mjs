// What every contender serves and what the load generator sends: the tools (as fastify-sake
// definitions, as SDK zod definitions, and as plain schemas for Fastify routes), and the exact
// requests of each scenario in each era, shaped as the real clients send them
// (@modelcontextprotocol/client 2.4.0 in 2026-07-28 mode, and 2025-11-25 sessions).
import { Type } from '@sinclair/typebox'

export const SERVER_INFO = Object.freeze({ name: 'bench', version: '1.0.0' })
export const MODERN = '2026-07-28'
export const LEGACY = '2025-11-25'
export const PATH = '/mcp'

/** The arguments of every `add` call: 1.5 + 2.25 rounded to 2 places. */
export const ADD_ARGS = Object.freeze({ a: 1.5, b: 2.25, precision: 2 })
/** Progress notifications the `stream` call sends before its result. */
export const STREAM_STEPS = 10
export const PROGRESS_TOKEN = 'bench-progress'

// ------------------------------------------------------------------ tools

/** `add` exactly as README.md and example-server/app.js define it. */
export function addDefinition () {
  return {
    name: 'add',
    title: 'Add two numbers',
    description: 'Adds two numbers, optionally rounding the sum to a number of decimal places',
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    args: {
      a: Type.Number({ description: 'The first addend' }),
      b: Type.Number({ description: 'The second addend' }),
      // mirrored into the Mcp-Param-Precision header, so a gateway can route on it
      precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, header: 'Precision', description: 'Decimal places to round to' }))
    },
    output: { sum: Type.Number() },
    execute ({ a, b, precision }) {
      const sum = a + b
      return { sum: precision === undefined ? sum : Number(sum.toFixed(precision)) }
    }
  }
}

export function fillerName (i) {
  return `tool_${String(i).padStart(4, '0')}`
}

/**
 * The other tools of `call100`, `list100` and `startup`: smaller twins of `add` (about 400 bytes
 * listed, so that 100 tools list as about 41 KB), each with its number in its descriptions, so
 * that no two tools share a schema and nothing is compiled once for all.
 */
export function fillerDefinition (i) {
  return {
    name: fillerName(i),
    description: `Tool ${i}: adds two numbers`,
    annotations: { readOnly: true },
    args: {
      a: Type.Number({ description: `First addend (tool ${i})` }),
      b: Type.Number({ description: `Second addend (tool ${i})` })
    },
    output: { sum: Type.Number() },
    execute: ({ a, b }) => ({ sum: a + b })
  }
}

/** `count` tools: `add` and count - 1 fillers. */
export function sakeTools (count) {
  const tools = [addDefinition()]
  for (let i = 1; i < count; i++) tools.push(fillerDefinition(i))
  return tools
}

/** The step tool of the `stream` scenario: a progress notification per step, then its result. */
export const STREAM_TOOL = 'steps'

export function stepsDefinition () {
  return {
    name: STREAM_TOOL,
    description: 'Reports progress for each step, then returns',
    stream: true,
    args: { steps: Type.Integer({ minimum: 1, maximum: 100 }) },
    async execute ({ steps }, ctx) {
      for (let i = 1; i <= steps; i++) ctx.progress(i, steps)
      return `done: ${steps} steps`
    }
  }
}

// ------------------------------------------------------------------ requests

const JSON_HEADERS = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream'
})

function modernMeta (extra = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'bench-client', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra
  }
}

/**
 * One request of a scenario: `{ method, headers, body }`, body as the exact string sent. Legacy
 * requests need the session headers added (`withSession`). Key order follows the v2 client's.
 */
export function request (scenario, era) {
  const modern = era === 'modern'
  let method, params, extraHeaders
  switch (scenario) {
    case 'call':
    case 'call100':
    case 'fleet':
      method = 'tools/call'
      params = { name: 'add', arguments: { ...ADD_ARGS } }
      extraHeaders = { 'mcp-name': 'add', 'mcp-param-precision': String(ADD_ARGS.precision) }
      break
    case 'list100':
      method = 'tools/list'
      params = {}
      extraHeaders = {}
      break
    case 'stream':
      method = 'tools/call'
      params = { name: STREAM_TOOL, arguments: { steps: STREAM_STEPS } }
      extraHeaders = { 'mcp-name': STREAM_TOOL }
      break
    default:
      throw new Error(`no request for scenario ${scenario}`)
  }
  const meta = scenario === 'stream' ? { progressToken: PROGRESS_TOKEN } : {}
  if (modern) {
    params = { ...params, _meta: modernMeta(meta) }
  } else if (Object.keys(meta).length > 0) {
    params = { ...params, _meta: meta }
  }
  // tools/list without a cursor: the v2 client puts params after id, the v1 client omits empty params
  const message = method === 'tools/list'
    ? (modern ? { method, jsonrpc: '2.0', id: 1, params } : { method, jsonrpc: '2.0', id: 1 })
    : { method, params, jsonrpc: '2.0', id: 1 }
  const headers = { ...JSON_HEADERS }
  if (modern) Object.assign(headers, { 'mcp-protocol-version': MODERN, 'mcp-method': method }, extraHeaders)
  return { method: 'POST', headers, body: JSON.stringify(message) }
}

/** The `initialize` a 2025-11-25 client sends first. */
export function initializeRequest (id = 0) {
  return {
    method: 'POST',
    headers: { ...JSON_HEADERS },
    body: JSON.stringify({
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench-client', version: '1.0.0' } },
      jsonrpc: '2.0',
      id
    })
  }
}

export function sessionHeaders (sessionId) {
  return { ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY }
}

export function initializedNotification () {
  return JSON.stringify({ method: 'notifications/initialized', jsonrpc: '2.0' })
}

export function withSession (req, sessionId) {
  return { ...req, headers: { ...req.headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY } }
}

/** Tools registered on the server of each scenario. */
export function toolCount (scenario) {
  return scenario === 'call100' || scenario === 'list100' ? 100 : 1
}
