// The baselines: plain Fastify 5 POST routes, with Fastify's own JSON parser, that check the
// JSON-RPC method and answer with the same bytes fastify-sake answers (checked by the runner
// before every load). They validate nothing else: they are the ceiling.
import { PATH, SERVER_INFO, MODERN } from './workloads.mjs'

const JSON_TYPE = 'application/json; charset=utf-8'
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO }

function rpcError (reply, id, message) {
  return reply.code(400).type(JSON_TYPE).send(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code: -32600, message } }))
}

function isModern (params) {
  return params?._meta?.['io.modelcontextprotocol/protocolVersion'] === MODERN
}

/** `add`, computed per request and serialised per request, as a plain route would. */
function callRoute (request, reply) {
  const { method, params, id } = request.body
  if (method !== 'tools/call' || params?.name !== 'add') return rpcError(reply, id, 'unexpected method')
  const { a, b, precision } = params.arguments
  const sum = a + b
  const value = { sum: precision === undefined ? sum : Number(sum.toFixed(precision)) }
  const content = [{ type: 'text', text: JSON.stringify(value) }]
  const result = isModern(params)
    ? { resultType: 'complete', content, structuredContent: value, _meta: SERVER_META }
    : { content, structuredContent: value }
  return reply.type(JSON_TYPE).send(JSON.stringify({ jsonrpc: '2.0', id, result }))
}

/**
 * `tools/list`: the list held as objects and serialised on every request (what a plain route does),
 * or, for the hand-made reference, serialised once with only the id spliced in per request.
 */
function listRoute (fixture, preserialized) {
  const modern = fixture.listResult.modern
  const legacy = fixture.listResult.legacy
  const modernText = JSON.stringify(modern)
  const legacyText = JSON.stringify(legacy)
  return (request, reply) => {
    const { method, params, id } = request.body
    if (method !== 'tools/list') return rpcError(reply, id, 'unexpected method')
    const era = isModern(params)
    if (preserialized) {
      return reply.type(JSON_TYPE).send('{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + (era ? modernText : legacyText) + '}')
    }
    return reply.type(JSON_TYPE).send(JSON.stringify({ jsonrpc: '2.0', id, result: era ? modern : legacy }))
  }
}

/**
 * The SSE bytes of a call that reports its progress steps and then answers, one write per event,
 * framed as fastify-sake frames its events (the runner reads that from fastify-sake's answer).
 */
const streamRoute = (framing) => function streamRoute (request, reply) {
  const { method, params, id } = request.body
  if (method !== 'tools/call' || params?.name !== 'steps') return rpcError(reply, id, 'unexpected method')
  const steps = params.arguments.steps
  const token = params._meta?.progressToken
  const raw = reply.raw
  reply.hijack()
  raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' })
  for (let i = 1; i <= steps; i++) {
    raw.write(framing + JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } }) + '\n\n')
  }
  const content = [{ type: 'text', text: `done: ${steps} steps` }]
  const result = isModern(params) ? { resultType: 'complete', content, _meta: SERVER_META } : { content }
  raw.end(framing + JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n\n')
}

export function baselineRoutes (app, scenario, fixture, { preserialized }) {
  switch (scenario) {
    case 'call':
    case 'call100':
    case 'fleet':
      app.post(PATH, callRoute)
      break
    case 'list100':
      app.post(PATH, listRoute(fixture, preserialized))
      break
    case 'stream':
      // without fastify-sake's framing (a build without streaming), the SDK's
      app.post(PATH, streamRoute(fixture?.sseFraming ?? 'event: message\ndata: '))
      break
    default:
      throw new Error(`no baseline for ${scenario}`)
  }
}
