/**
 * Who an HTTP request's caller is, as quotas count it (issue 40): the verified token's subject when
 * authorization is on, else the client's address (`request.ip`, which honours Fastify's
 * `trustProxy`: behind a proxy without it, every client is the proxy). Computed where a quota is
 * checked (an `initialize`, a stream, a task, a question), never on a plain call's path.
 */
import type { FastifyRequest } from 'fastify'

export function callerOf (request: FastifyRequest): string {
  const auth = request.mcpAuth
  return auth === null || auth === undefined ? `ip:${request.ip}` : `sub:${auth.subject}`
}
