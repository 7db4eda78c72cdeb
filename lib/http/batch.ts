/** A JSON-RPC batch (an array body): only a 2025-03-26 session may send one; each item answers on its own. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { rulesOf } from '../spec/eras.js'
import { INVALID_REQUEST, errorBody, idOf, readMessage, type Message } from '../spec/jsonrpc.js'
import type { Logger } from '../spec/types.js'
import type { Session } from '../state/session-store.js'
import { targetOf } from '../protocol/target.js'
import { authorize } from './access.js'
import { answerOf } from './client-requests.js'
import type { Endpoint } from './endpoint.js'
import { headerValue } from './headers.js'
import { legacyAnswer, legacyCall, notify } from './legacy.js'
import { sendAccepted, sendJson } from './respond.js'
import { sessionOf } from './sessions.js'
import { traceOf, type McpRequestTrace } from './tracing.js'

/** A batch that passed its checks: its session, and the items. */
export interface BatchChecked {
  readonly kind: 'batch'
  readonly session: Session
  readonly batch: readonly unknown[]
}

/** The checks of a batch (the POST route's `preValidation`): a 2025-03-26 session, and not empty. */
export async function checkBatch (endpoint: Endpoint, request: FastifyRequest, batch: unknown[]): Promise<BatchChecked> {
  const sessionId = headerValue(request.headers, 'mcp-session-id')
  const session = sessionId === undefined ? undefined : await sessionOf(endpoint, request, sessionId)
  if (session === undefined || !rulesOf(session.protocolVersion).batches) {
    throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: JSON-RPC batches (array bodies) are only allowed in 2025-03-26 sessions; send one message per POST', 400)
  }
  if (batch.length === 0) throw new ProtocolError(INVALID_REQUEST, 'Invalid Request: the batch is empty', 400)
  return { kind: 'batch', session, batch }
}

/** Answers a checked batch, item by item. */
export async function answerBatch (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, checked: BatchChecked): Promise<FastifyReply> {
  const { session, batch } = checked
  const answers = await Promise.all(batch.map(async (item): Promise<string | undefined> => {
    let message: Message
    try {
      message = readMessage(item)
    } catch (err) {
      return JSON.stringify(errorBody(idOf(item), err as ProtocolError))
    }
    if (message.kind === 'response') {
      await endpoint.streams.calls.answered(session.id, message.id, answerOf(message.result, message.error), request.log as unknown as Logger)
      return undefined
    }
    if (!endpoint.tracing.on()) return answerItem(endpoint, request, reply, session, message, undefined)
    const id = message.kind === 'request' ? message.id : undefined
    const trace = traceOf(request, message.method, message.params, id, 'legacy', session.protocolVersion, session.id)
    return endpoint.tracing.run(trace, message.params, async () => answerItem(endpoint, request, reply, session, message, trace))
  }))
  const responses = answers.filter((a): a is string => a !== undefined)
  if (responses.length === 0) return sendAccepted(reply)
  return sendJson(reply, 200, '[' + responses.join(',') + ']')
}

/** One request or notification of a batch: its JSON-RPC response, or undefined for a notification. */
async function answerItem (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, session: Session, message: Exclude<Message, { kind: 'response' }>, trace: McpRequestTrace | undefined): Promise<string | undefined> {
  if (message.kind === 'notification') {
    await notify(endpoint, session, message.method, message.params)
    return undefined
  }
  // the batch's headers cannot mirror each item's body, so Mcp-* headers are not checked here
  const target = targetOf(endpoint.server.registry, message.method, message.params)
  return legacyAnswer(endpoint, legacyCall(endpoint, request, reply, session, message, target, trace))
}

/**
 * Authorization of a batch (the POST route's `preHandler`, with auth on): a batch answers 200 item
 * by item, which cannot carry a challenge, so one forbidden item refuses the whole batch.
 */
export function authorizeBatch (endpoint: Endpoint, request: FastifyRequest, batch: readonly unknown[]): void {
  for (const item of batch) {
    // an item that is not a message gets its own error in the batch's answer
    const { method, params } = (typeof item === 'object' && item !== null ? item : {}) as { method?: unknown, params?: unknown }
    if (typeof method === 'string' && typeof params === 'object' && params !== null) {
      authorize(endpoint, request, targetOf(endpoint.server.registry, method, params as Record<string, unknown>))
    }
  }
}
