// Checking each contender's answer once, before it is loaded: fastify-sake and the baselines must
// answer byte for byte the same; the SDK, whose serialiser orders keys its own way and whose JSON
// Schemas come from zod, must answer an equivalent result (same values, same tools).
import { isDeepStrictEqual } from 'node:util'
import { ADD_ARGS, STREAM_STEPS, PROGRESS_TOKEN, initializeRequest, initializedNotification, sessionHeaders } from './workloads.mjs'

export class CheckError extends Error {}

function fail (who, message) {
  throw new CheckError(`${who}: ${message}`)
}

/** One request; the whole answer as text. */
export async function send (url, req) {
  const res = await fetch(url, { method: req.method, headers: req.headers, body: req.body })
  return { status: res.status, type: res.headers.get('content-type') ?? '', sessionId: res.headers.get('mcp-session-id') ?? undefined, body: await res.text() }
}

/** Opens a 2025 session (initialize, then notifications/initialized) and returns its id. */
export async function openSession (url, who) {
  const init = await send(url, initializeRequest())
  if (init.status !== 200 || init.sessionId === undefined) fail(who, `initialize answered ${init.status} ${init.body.slice(0, 200)}`)
  const done = await send(url, { method: 'POST', headers: sessionHeaders(init.sessionId), body: initializedNotification() })
  if (done.status !== 202) fail(who, `notifications/initialized answered ${done.status}`)
  return init.sessionId
}

/**
 * An SSE body without what differs between two answers by design: `id:` lines (resumable
 * streams number their events with a random stream id) and the events they leave with no data
 * (the priming event a resumable stream starts with). Everything else is compared byte for byte.
 */
export function normalizeSse (text) {
  return text.split('\n\n')
    .map((event) => event.split('\n').filter((line) => !line.startsWith('id:')).join('\n'))
    .filter((event) => event !== '' && event !== 'data:' && event !== 'data: ')
    .map((event) => event + '\n\n')
    .join('')
}

/** The JSON-RPC messages of an SSE body (`data:` lines of `message` events). */
export function sseMessages (text) {
  const messages = []
  for (const event of text.split('\n\n')) {
    if (event.trim() === '') continue
    let name = 'message'
    const data = []
    for (const line of event.split('\n')) {
      if (line.startsWith('event:')) name = line.slice(6).trim()
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
    }
    const json = data.join('\n')
    if (name === 'message' && json !== '') messages.push(JSON.parse(json))
  }
  return messages
}

function parse (who, answer, stream = false) {
  if (answer.status !== 200) fail(who, `HTTP ${answer.status}: ${answer.body.slice(0, 300)}`)
  if (stream) {
    if (!answer.type.startsWith('text/event-stream')) fail(who, `expected an SSE answer, got ${answer.type}`)
    return sseMessages(answer.body)
  }
  if (!answer.type.startsWith('application/json')) fail(who, `expected a JSON answer, got ${answer.type}`)
  try {
    return JSON.parse(answer.body)
  } catch {
    return fail(who, `not JSON: ${answer.body.slice(0, 200)}`)
  }
}

function checkEnvelope (who, message, era) {
  if (message.jsonrpc !== '2.0' || message.id !== 1) fail(who, `not the response to id 1: ${JSON.stringify(message).slice(0, 200)}`)
  if (message.error !== undefined) fail(who, `JSON-RPC error ${JSON.stringify(message.error)}`)
  const result = message.result
  if (era === 'modern' && result.resultType !== 'complete') fail(who, 'a 2026-07-28 result needs resultType "complete"')
  if (era === 'modern' && result._meta?.['io.modelcontextprotocol/serverInfo']?.name !== 'bench') fail(who, 'a 2026-07-28 result names its server in _meta')
  return result
}

/** The reference answer itself must be right before anything is compared with it. */
export function checkReference (scenario, era, answer) {
  const who = `reference ${scenario} (${era})`
  if (scenario === 'stream') {
    const messages = parse(who, answer, true)
    if (messages.length !== STREAM_STEPS + 1) fail(who, `expected ${STREAM_STEPS} progress notifications and a result, got ${messages.length} messages`)
    messages.slice(0, STREAM_STEPS).forEach((m, i) => {
      if (m.method !== 'notifications/progress' || m.params.progressToken !== PROGRESS_TOKEN || m.params.progress !== i + 1 || m.params.total !== STREAM_STEPS) fail(who, `message ${i} is not progress ${i + 1}/${STREAM_STEPS}`)
    })
    const result = checkEnvelope(who, messages[STREAM_STEPS], era)
    if (result.content?.[0]?.text !== `done: ${STREAM_STEPS} steps`) fail(who, 'unexpected result')
    return
  }
  const result = checkEnvelope(who, parse(who, answer), era)
  if (scenario === 'list100') {
    if (result.tools?.length !== 100 || !result.tools.some((t) => t.name === 'add')) fail(who, 'expected 100 tools including add')
    if (era === 'modern' && (typeof result.ttlMs !== 'number' || typeof result.cacheScope !== 'string')) fail(who, 'a 2026-07-28 list carries ttlMs and cacheScope')
  } else {
    const sum = Number((ADD_ARGS.a + ADD_ARGS.b).toFixed(ADD_ARGS.precision))
    if (result.isError || !isDeepStrictEqual(result.structuredContent, { sum }) || result.content?.[0]?.text !== JSON.stringify({ sum })) {
      fail(who, `add did not answer ${sum}: ${answer.body.slice(0, 300)}`)
    }
  }
}

/** fastify-sake and the baselines: the very bytes (for SSE, once event ids are set aside). */
export function checkBytes (who, answer, expected, sse = false) {
  if (answer.status !== 200) fail(who, `HTTP ${answer.status}: ${answer.body.slice(0, 300)}`)
  const body = sse ? normalizeSse(answer.body) : answer.body
  if (sse) expected = normalizeSse(expected)
  if (body !== expected) {
    let at = 0
    while (at < expected.length && body[at] === expected[at]) at++
    fail(who, `answer differs from the reference at byte ${at}:\n  got      ${JSON.stringify(body.slice(Math.max(0, at - 40), at + 80))}\n  expected ${JSON.stringify(expected.slice(Math.max(0, at - 40), at + 80))}`)
  }
}

function toolSummary (tool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    input: Object.fromEntries(Object.entries(tool.inputSchema.properties).map(([k, v]) => [k, [v.type, v.description, v.minimum, v.maximum]])),
    required: [...(tool.inputSchema.required ?? [])].sort(),
    output: Object.fromEntries(Object.entries(tool.outputSchema?.properties ?? {}).map(([k, v]) => [k, [v.type, v.description]])),
    annotations: tool.annotations
  }
}

/** The SDK: the same result, compared as values (key order and JSON Schema spelling aside). */
export function checkEquivalent (scenario, era, who, answer, reference) {
  if (scenario === 'stream') {
    const got = parse(who, answer, true)
    const expected = sseMessages(reference)
    if (!isDeepStrictEqual(got, expected)) fail(who, `SSE messages differ from the reference:\n  got      ${JSON.stringify(got).slice(0, 400)}\n  expected ${JSON.stringify(expected).slice(0, 400)}`)
    return
  }
  const got = parse(who, answer)
  const expected = JSON.parse(reference)
  if (scenario === 'list100') {
    const result = checkEnvelope(who, got, era)
    const mine = new Map(result.tools.map((t) => [t.name, toolSummary(t)]))
    for (const tool of expected.result.tools) {
      const theirs = mine.get(tool.name)
      if (theirs === undefined) fail(who, `tool ${tool.name} is missing`)
      if (!isDeepStrictEqual(theirs, toolSummary(tool))) fail(who, `tool ${tool.name} differs: ${JSON.stringify(theirs)} vs ${JSON.stringify(toolSummary(tool))}`)
    }
    if (mine.size !== expected.result.tools.length) fail(who, `lists ${mine.size} tools, expected ${expected.result.tools.length}`)
    return
  }
  if (!isDeepStrictEqual(got, expected)) fail(who, `result differs from the reference:\n  got      ${JSON.stringify(got)}\n  expected ${JSON.stringify(expected)}`)
}
