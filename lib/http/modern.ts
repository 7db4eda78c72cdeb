/**
 * A 2026-07-28 POST: its checks in the order the spec fixes (`_meta` fields, `MCP-Protocol-Version`,
 * the version served, `Mcp-Method`/`Mcp-Name`, `Mcp-Param-*`; authorization runs next, in the
 * route's `preHandler`), then the answer. Stateless: nothing here outlives the request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { SUPPORTED_VERSIONS, isModernVersion } from '../spec/eras.js'
import { UNSUPPORTED_PROTOCOL_VERSION, resultText, type Message } from '../spec/jsonrpc.js'
import type { Call } from '../protocol/call.js'
import { listenFilter } from '../protocol/methods/subscriptions.js'
import { dispatch } from '../protocol/dispatch.js'
import { readModernMeta, type ModernMeta } from '../protocol/meta.js'
import { targetOf, type Target } from '../protocol/target.js'
import { answerStreaming, answersAsStream } from './answer.js'
import type { Endpoint } from './endpoint.js'
import { checkStandardHeaders, checkToolHeaders, checkVersionHeader } from './headers.js'
import { sendJson } from './respond.js'
import { outcomeOf } from './tracing.js'
import { HttpTransport } from './transport.js'
import { isThenable } from '../values.js'

/** A 2026-07-28 request that passed its checks: what `answerModern` answers. */
export interface ModernChecked {
  readonly kind: 'modern'
  readonly message: Message & { kind: 'request' }
  readonly meta: ModernMeta
  readonly target: Target | undefined
}

/**
 * The checks of a 2026-07-28 request, in the spec's order, before the handler (the POST route's
 * `preValidation`); the method's own -32601 and the params' -32602 come from dispatch, after them.
 */
export function checkModern (endpoint: Endpoint, request: FastifyRequest, message: Message & { kind: 'request' }): ModernChecked {
  const { headers } = request
  const meta = readModernMeta(message.params)
  checkVersionHeader(headers, meta.protocolVersion)
  if (!isModernVersion(meta.protocolVersion)) {
    throw new ProtocolError(UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${meta.protocolVersion}`, 400, {
      supported: SUPPORTED_VERSIONS,
      requested: meta.protocolVersion
    })
  }
  const params = message.params!
  checkStandardHeaders(headers, message.method, params, true)
  // looked up once: the header checks, authorization, the streaming decision and the method share it
  const target = targetOf(endpoint.server.registry, message.method, params)
  // an unknown method falls through to dispatch, which answers 404 + -32601 after these checks
  if (message.method === 'tools/call') checkToolHeaders(headers, target, params, true)
  return { kind: 'modern', message, meta, target }
}

/** Answers a checked 2026-07-28 request: JSON, an event stream, or a listen. Sync when the method is (a list, a sync tool). */
export function answerModern (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, checked: ModernChecked): FastifyReply | Promise<FastifyReply> {
  const { message, meta, target } = checked
  // the fields in Call's order, as legacyCall has them: both eras' calls share one shape
  const call: Call = {
    era: 'modern',
    protocolVersion: meta.protocolVersion,
    id: message.id,
    method: message.method,
    params: message.params!,
    client: meta.client,
    sessionId: undefined,
    session: undefined,
    transport: new HttpTransport(request, reply),
    channel: undefined,
    logLevel: meta.logLevel,
    openStream: undefined,
    auth: request.mcpAuth ?? undefined,
    target,
    outcome: outcomeOf(request)
  }
  if (answersAsStream(request, call)) return answerStreaming(endpoint, request, reply, call)
  if (call.method === 'subscriptions/listen') return listen(endpoint, request, reply, call)
  const result = dispatch(endpoint.server, call)
  if (isThenable(result)) return Promise.resolve(result).then((json) => sendJson(reply, 200, resultText(call.id, json)))
  return sendJson(reply, 200, resultText(call.id, result))
}

async function listen (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  return endpoint.streams.listens.listen(request, reply, call, await listenFilter(endpoint.server, call), endpoint.server.tasks.store)
}
