/** A JSON-RPC batch (an array body): only a 2025-03-26 session may send one; each item answers on its own. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { rulesOf } from '../spec/eras.js'
import { INVALID_REQUEST, errorBody } from '../spec/jsonrpc.js'
import type { Session } from '../state/session-store.js'
import { classify, type Inbound, type InboundRequest } from '../protocol/inbound.js'
import { answerOf } from '../protocol/session/client-requests.js'
import { authorize } from './access.js'
import type { Endpoint } from './endpoint.js'
import type { Carried } from './headers.js'
import { legacyAnswer, legacyCall } from './answer.js'
import { sendAccepted, sendJson } from './respond.js'
import { traceOf, type McpRequestTrace } from './tracing.js'

/** A batch that passed its checks: its session, and its items, each classified once. */
export interface BatchChecked {
  readonly kind: 'batch'
  readonly session: Session
  readonly items: readonly Inbound[]
}

/** The checks of a batch (the POST route's `preValidation`): a 2025-03-26 session, and not empty. */
export async function checkBatch (endpoint: Endpoint, request: FastifyRequest, carried: Carried, batch: Inbound): Promise<BatchChecked> {
  const { sessions } = endpoint
  const session = batch.sessionId === undefined
    ? undefined
    : sessions.fit(await sessions.find(batch.sessionId, request.mcpAuth?.subject, request.log), carried.version)
  if (session === undefined || !rulesOf(session.protocolVersion).batches) {
    throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: JSON-RPC batches (array bodies) are only allowed in 2025-03-26 sessions; send one message per POST', 400)
  }
  const items = batch.items!
  if (items.length === 0) throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: the batch is empty', 400)
  const { registry } = endpoint.server
  return { kind: 'batch', session, items: items.map((item) => classify(registry, item, session.id, undefined)) }
}

/** Answers a checked batch, item by item. */
export async function answerBatch (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, checked: BatchChecked): Promise<FastifyReply> {
  endpoint.streams.calls.received(request)
  const { session, items } = checked
  const answers = await Promise.all(items.map(async (item): Promise<string | undefined> => {
    if (item.kind === 'invalid') return JSON.stringify(errorBody(item.id ?? null, item.refusal!))
    if (item.kind === 'response') {
      await endpoint.sessions.answered(session.id, item.responseId, answerOf(item.result, item.error), request.log)
      return undefined
    }
    if (!endpoint.tracing.on()) return answerItem(endpoint, request, reply, session, item, undefined)
    const trace = traceOf(request, item, 'legacy', session.protocolVersion, session.id)
    return endpoint.tracing.run(trace, item, async () => answerItem(endpoint, request, reply, session, item, trace))
  }))
  const responses = answers.filter((a): a is string => a !== undefined)
  if (responses.length === 0) return sendAccepted(reply)
  return sendJson(reply, 200, '[' + responses.join(',') + ']')
}

/** One request or notification of a batch: its JSON-RPC response, or undefined for a notification. */
async function answerItem (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, session: Session, item: Inbound, trace: McpRequestTrace | undefined): Promise<string | undefined> {
  if (item.kind === 'notification') {
    await endpoint.sessions.notified(session, item.method!, item.params)
    return undefined
  }
  // the batch's headers cannot mirror each item's body, so Mcp-* headers are not checked here
  return legacyAnswer(endpoint, legacyCall(endpoint, request, reply, session, item as InboundRequest, trace))
}

/**
 * Authorization of a batch (the POST route's `preHandler`, with auth on): a batch answers 200 item
 * by item, which cannot carry a challenge, so one forbidden item refuses the whole batch.
 */
export function authorizeBatch (endpoint: Endpoint, request: FastifyRequest, items: readonly Inbound[]): void {
  // an item that is not a message gets its own error in the batch's answer; what it names is still checked
  for (const item of items) authorize(endpoint, request, item.target)
}
