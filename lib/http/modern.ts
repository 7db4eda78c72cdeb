/**
 * A 2026-07-28 POST: its checks in the order the spec fixes (`_meta` fields, `MCP-Protocol-Version`,
 * the version served, `Mcp-Method`/`Mcp-Name`, `Mcp-Param-*`; authorization runs next, in the
 * route's `preHandler`), then the answer. Stateless: nothing here outlives the request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { modernCall, type Call, type CallOutcome } from '../protocol/call.js'
import type { InboundRequest, ModernMeta } from '../protocol/inbound.js'
import { listenFilter } from '../protocol/methods/subscriptions.js'
import { answerCall } from './answer.js'
import type { Endpoint } from './endpoint.js'
import { checkModernHeaders, type Carried } from './headers.js'
import { HttpTransport } from './transport.js'

/** A 2026-07-28 request that passed its checks: what `answerModern` answers. */
export interface ModernChecked {
  readonly kind: 'modern'
  readonly inbound: InboundRequest
  readonly meta: ModernMeta
  readonly carried: Carried
}

/**
 * The checks of a 2026-07-28 request, in the spec's order, before the handler (the POST route's
 * `preValidation`): its `_meta` (read when it was classified), then its headers; the method's own
 * -32601 and the params' -32602 come from dispatch, after them.
 */
export function checkModern (request: FastifyRequest, carried: Carried, inbound: InboundRequest): ModernChecked {
  if (inbound.metaRefusal !== undefined) throw inbound.metaRefusal
  const meta = inbound.meta!
  checkModernHeaders(request.headers, carried, inbound, meta.protocolVersion)
  return { kind: 'modern', inbound, meta, carried }
}

/** Answers a checked 2026-07-28 request: JSON, an event stream, or a listen. Sync when the method is (a list, a sync tool). */
export function answerModern (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, checked: ModernChecked, outcome: CallOutcome | undefined): FastifyReply | Promise<FastifyReply> {
  const { inbound } = checked
  const call = modernCall(inbound, checked.meta, new HttpTransport(request, reply, endpoint.shutdown), request.mcpAuth ?? undefined, outcome)
  // subscriptions/listen: a stream of its own, never a call's answer
  if (inbound.facts?.listens === true) return listen(endpoint, request, reply, call)
  return answerCall(endpoint, request, reply, call, checked.carried, inbound.facts)
}

async function listen (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  return endpoint.streams.listens.listen(request, reply, call, await listenFilter(endpoint.server, call), endpoint.server.tasks.store)
}
