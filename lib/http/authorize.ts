/**
 * Authorization at the edge: the verified caller against what the call targets, checked before any
 * stream opens (a forbidden call is a plain 401/403 the client can act on); and the protocol core's
 * refusals written as HTTP answers, with the challenge OAuth clients read.
 */
import type { FastifyRequest } from 'fastify'
import { AccessRefusal, type ProtocolError } from '../errors.js'
import { refusalOf } from '../protocol/access-check.js'
import type { Target } from '../protocol/target.js'
import { challengeFor } from '../auth/challenge.js'
import type { Endpoint } from './endpoint.js'

/** Throws the 401/403 (with its challenge) of a call the caller may not make; with auth on only (the POST route's preHandler). */
export function authorize (endpoint: Endpoint, request: FastifyRequest, target: Target | undefined): void {
  const refusal = refusalOf(target, request.mcpAuth!, endpoint.server.clockSkew)
  if (refusal === undefined) return
  // not our failure, and not the client's secret: who was refused what, at info
  request.log.info({ subject: request.mcpAuth!.subject, reason: refusal.reason, scopes: refusal.scopes }, `fastify-sake: refused: ${refusal.message}`)
  throw challengeFor(endpoint.auth!.metadataUrl, refusal)
}

/**
 * A protocol error as the HTTP answer carries it: a refusal by scope or step-up (a tool's own
 * `InsufficientScopeError`) gets its challenge; with auth off it names no metadata document.
 */
export function httpError (endpoint: Endpoint, err: ProtocolError): ProtocolError {
  return err instanceof AccessRefusal ? challengeFor(endpoint.auth?.metadataUrl, err) : err
}
