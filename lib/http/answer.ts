/**
 * How a call's answer goes out once its era's checks passed: as one JSON body (the fast path), as
 * an event stream from the start (a tool that streams, or a call that asked for progress or log
 * messages), or, in a 2025 session, as JSON that turns into a stream at the handler's first
 * question to the client; and a 2025 request's answer as the JSON-RPC response it is, alone or as
 * an item of a batch.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AccessRefusal, ProtocolError } from '../errors.js'
import { INTERNAL_ERROR, errorBody, resultText } from '../spec/jsonrpc.js'
import type { Session } from '../state/session-store.js'
import { sessionCall, type Call, type CallOutcome } from '../protocol/call.js'
import { dispatch } from '../protocol/dispatch.js'
import type { InboundRequest } from '../protocol/inbound.js'
import type { Endpoint } from './endpoint.js'
import { sendJson } from './respond.js'
import { acceptsEventStream } from './streams/sse.js'
import { answeredWithError } from './tracing.js'
import { HttpTransport } from './transport.js'

/**
 * Whether a call of a method that may stream (its row's `streams`) answers as Server-Sent Events:
 * a tool declared `stream: true`, or a call that asked for progress (a progressToken) or log
 * messages (a log level), from a client that accepts an event stream (`accept`, its `Accept`).
 * Anything else is one JSON answer, the fast path.
 */
export function answersAsStream (accept: string | undefined, call: Call): boolean {
  const tool = call.target
  if (tool?.kind !== 'tool') return false // an unknown tool is a plain -32602
  const meta = call.params._meta as Record<string, unknown> | undefined
  return (tool.stream || call.logLevel !== undefined || meta?.progressToken !== undefined) && acceptsEventStream(accept)
}

/**
 * Whether a 2025 call of a method that may ask (its row's `asks`) could need an event stream to
 * ask its client something: a client that declared something to ask about and accepts a stream.
 */
export function mayAsk (accept: string | undefined, call: Call): boolean {
  if (accept === undefined || !acceptsEventStream(accept)) return false
  const caps = call.client.capabilities
  return caps.elicitation !== undefined || caps.sampling !== undefined || caps.roots !== undefined
}

/** Runs a call with its response open as an event stream: notifications first, then the answer. */
export async function answerStreaming (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  const open = endpoint.streams.calls.open(request, reply, call)
  open.finish(await runToText(endpoint, request, open.call))
  return reply
}

/** Answers a 2025 call as JSON, or as an event stream if its handler asked the client something. */
export async function answerDeferred (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  const deferred = endpoint.streams.calls.deferred(request, reply, call)
  let answer: string
  try {
    answer = resultText(call.id, await dispatch(endpoint.server, deferred.call))
  } catch (err) {
    // a refusal by authorization keeps its status and challenge while the answer is still plain JSON
    if (err instanceof AccessRefusal && !deferred.opened()) throw err
    /* c8 ignore next -- dispatch throws only ProtocolErrors (see legacyAnswer); the fallback keeps an opened stream answerable */
    const error = err instanceof ProtocolError ? err : internalError(request, err)
    answeredWithError(deferred.call, error)
    answer = JSON.stringify(errorBody(call.id, error))
  }
  if (deferred.end(answer)) return reply
  return sendJson(reply, 200, answer)
}

/** Runs a call and returns its whole response, result or error, as JSON text (for a stream). */
async function runToText (endpoint: Endpoint, request: FastifyRequest, call: Call): Promise<string> {
  try {
    return resultText(call.id, await dispatch(endpoint.server, call))
  } catch (err) {
    const error = err instanceof ProtocolError ? err : internalError(request, err)
    answeredWithError(call, error)
    return JSON.stringify(errorBody(call.id, error))
  }
}

function internalError (request: FastifyRequest, err: unknown): ProtocolError {
  request.log.error({ err }, 'fastify-sake: unexpected error while streaming a response')
  return new ProtocolError(INTERNAL_ERROR, 'Internal error', 500)
}

/** A request of a session as a call, on this request's connection, cancellable by `notifications/cancelled`. */
export function legacyCall (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, session: Session, inbound: InboundRequest, outcome: CallOutcome | undefined): Call {
  const transport = new HttpTransport(request, reply, { cancellations: endpoint.sessions.cancellations, sessionId: session.id, requestId: inbound.id })
  return sessionCall(session, inbound, transport, request.mcpAuth ?? undefined, outcome)
}

/**
 * Runs one legacy request and returns its whole JSON-RPC response, result or error (in a batch
 * each item has its own; none of them can set the HTTP status). `alone`: the only message of its
 * POST, whose refusal by authorization keeps its HTTP status and challenge.
 */
export function legacyAnswer (endpoint: Endpoint, call: Call, alone = false): string | Promise<string> {
  let answer: string | Promise<string>
  try {
    answer = dispatch(endpoint.server, call)
  } catch (err) {
    return refused(call, err, alone)
  }
  // sync when the method is (a sync tool): the answer in the same turn
  if (answer instanceof Promise) return answer.then((result) => resultText(call.id, result), (err: unknown) => refused(call, err, alone))
  return resultText(call.id, answer)
}

/** A request's failure as its JSON-RPC error; an authorization refusal of a message alone is thrown, to keep its status and challenge. */
function refused (call: Call, err: unknown, alone: boolean): string {
  /* c8 ignore next -- dispatch turns every failure into a ProtocolError or an isError result; anything else is our bug, for the route's error handler (500) */
  if (!(err instanceof ProtocolError)) throw err
  // a refusal by authorization needs its status and challenge, which a message alone can have
  if (alone && err instanceof AccessRefusal) throw err
  answeredWithError(call, err)
  return JSON.stringify(errorBody(call.id, err))
}
