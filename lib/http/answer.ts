/**
 * How a call's answer goes out once its era's checks passed: as one JSON body (the fast path), or
 * as JSON that turns into an event stream at the first thing the call sends (a tool that streams,
 * a call that asked for progress or log messages, or, in a 2025 session, a handler's first question
 * to the client); and a 2025 request's answer as the JSON-RPC response it is.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AccessRefusal, ProtocolError, QuotaExceededError } from '../errors.js'
import { INTERNAL_ERROR, errorBody, resultText } from '../spec/jsonrpc.js'
import type { MethodFacts } from '../spec/methods.js'
import type { Call } from '../protocol/call.js'
import { dispatch } from '../protocol/dispatch.js'
import type { Endpoint } from './endpoint.js'
import type { Carried } from './headers.js'
import { sendJson } from './respond.js'
import { answeredWithError } from './request-trace.js'
import { isThenable } from '../values.js'

/**
 * Answers a call that passed its era's checks, in either era: as an event stream when its method
 * may stream and the call asked for it (`answersAsStream`), as JSON that may turn into one when a
 * 2025 call may ask its client something (`mayAsk`), else as one JSON body. Sync when the method
 * is (a list, a sync tool): the answer goes out in the same turn, no promise on the hot path.
 */
export function answerCall (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, call: Call, carried: Carried, facts: MethodFacts | undefined): FastifyReply | Promise<FastifyReply> {
  if (facts?.streams === true && answersAsStream(carried, call)) return answerDeferred(endpoint, request, reply, call, true)
  if (call.era === 'modern') {
    // a 2026-07-28 failure is thrown: the route's error handler answers it with its HTTP status
    const result = dispatch(endpoint.server, call)
    if (result instanceof Promise) return result.then((json) => sendJson(reply, 200, resultText(call.id, json)))
    return sendJson(reply, 200, resultText(call.id, result))
  }
  if (facts?.asks === true && mayAsk(carried, call)) return answerDeferred(endpoint, request, reply, call, false)
  const answer = legacyAnswer(endpoint, call)
  if (isThenable(answer)) return Promise.resolve(answer).then((json) => sendJson(reply, 200, json))
  return sendJson(reply, 200, answer)
}

/**
 * Whether a call of a method that may stream (its row's `streams`) answers as Server-Sent Events:
 * a tool declared `stream: true`, or a call that asked for progress (a progressToken) or log
 * messages (a log level), from a client that accepts an event stream (`carried`: its `Accept`).
 * Anything else is one JSON answer, the fast path.
 */
export function answersAsStream (carried: Carried, call: Call): boolean {
  const tool = call.target
  if (tool?.kind !== 'tool') return false // an unknown tool is a plain -32602
  const meta = call.params._meta as Record<string, unknown> | undefined
  return (tool.stream || call.logLevel !== undefined || meta?.progressToken !== undefined) && carried.acceptable.eventStream
}

/**
 * Whether a 2025 call of a method that may ask (its row's `asks`) could need an event stream to
 * ask its client something: a client that declared something to ask about and accepts a stream.
 */
export function mayAsk (carried: Carried, call: Call): boolean {
  // here an absent Accept is no answer to the question: the client never said it reads a stream
  if (carried.accept === undefined || !carried.acceptable.eventStream) return false
  const caps = call.client.capabilities
  return caps.elicitation !== undefined || caps.sampling !== undefined || caps.roots !== undefined
}

/**
 * Answers a call whose answer may become an event stream (`CallStreams.deferred`): `streaming`, a
 * call that may send progress or log messages (`answersAsStream`); otherwise a 2025 call that may
 * ask its client something (`mayAsk`). What is decided before the stream opens is answered as if the
 * call did not stream: a refusal by scope, step-up or a quota as its plain 401/403/429/503, any other
 * error as its era's plain answer (2026-07-28: the route's error handler, with its status; 2025: a
 * JSON-RPC error), a result as JSON.
 */
async function answerDeferred (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, call: Call, streaming: boolean): Promise<FastifyReply> {
  const deferred = endpoint.streams.calls.deferred(request, reply, call, streaming)
  let answer: string
  try {
    answer = resultText(call.id, await dispatch(endpoint.server, deferred.call))
  } catch (err) {
    if (!deferred.opened()) {
      deferred.end(undefined)
      if (err instanceof AccessRefusal || err instanceof QuotaExceededError || call.era === 'modern') throw err
    }
    // anything else is our bug: an opened stream still ends with an answer
    const error = err instanceof ProtocolError ? err : internalError(request, err)
    answeredWithError(deferred.call, error)
    answer = JSON.stringify(errorBody(call.id, error))
  }
  if (deferred.end(answer)) return reply
  return sendJson(reply, 200, answer)
}

function internalError (request: FastifyRequest, err: unknown): ProtocolError {
  request.log.error({ err }, 'fastify-sake: unexpected error while streaming a response')
  return new ProtocolError(INTERNAL_ERROR, 'Internal error', 500)
}

/**
 * Runs one legacy request and returns its whole JSON-RPC response, result or error; a refusal by
 * authorization is thrown, to keep its HTTP status and challenge.
 */
function legacyAnswer (endpoint: Endpoint, call: Call): string | Promise<string> {
  let answer: string | Promise<string>
  try {
    answer = dispatch(endpoint.server, call)
  } catch (err) {
    return refused(call, err)
  }
  // sync when the method is (a sync tool): the answer in the same turn
  if (answer instanceof Promise) return answer.then((result) => resultText(call.id, result), (err: unknown) => refused(call, err))
  return resultText(call.id, answer)
}

/**
 * A request's failure as its JSON-RPC error. A refusal by authorization or by a quota is thrown, to
 * keep its HTTP status and headers (a challenge; `Retry-After`): it is about the request, not its method.
 */
function refused (call: Call, err: unknown): string {
  /* c8 ignore next -- dispatch turns every failure into a ProtocolError or an isError result; anything else is our bug, for the route's error handler (500) */
  if (!(err instanceof ProtocolError)) throw err
  if (err instanceof AccessRefusal || err instanceof QuotaExceededError) throw err
  answeredWithError(call, err)
  return JSON.stringify(errorBody(call.id, err))
}
