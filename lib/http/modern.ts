/**
 * A 2026-07-28 POST: its checks in the order the spec fixes (`_meta` fields, `MCP-Protocol-Version`,
 * the version served, `Mcp-Method`/`Mcp-Name`, the method, `Mcp-Param-*`, authorization), then the
 * answer. Stateless: nothing here outlives the request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { SUPPORTED_VERSIONS, isModernVersion } from '../spec/eras.js'
import { UNSUPPORTED_PROTOCOL_VERSION, resultText, type Message } from '../spec/jsonrpc.js'
import type { Call } from '../protocol/call.js'
import { dispatch } from '../protocol/dispatch.js'
import { readModernMeta } from '../protocol/meta.js'
import { targetOf } from '../protocol/target.js'
import { authorize } from './access.js'
import { answerStreaming, answersAsStream } from './answer.js'
import type { Endpoint } from './endpoint.js'
import { checkStandardHeaders, checkToolHeaders, checkVersionHeader } from './headers.js'
import { sendAccepted, sendJson } from './respond.js'
import { HttpTransport } from './transport.js'

export async function handleModern (endpoint: Endpoint, request: FastifyRequest, reply: FastifyReply, message: Exclude<Message, { kind: 'response' }>): Promise<FastifyReply> {
  // the revision defines no client notifications over HTTP: accept and drop them
  if (message.kind === 'notification') return sendAccepted(reply)
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
  // before any stream opens: a forbidden call is a plain 401/403 the client can act on
  authorize(endpoint, request, target)
  const call: Call = {
    era: 'modern',
    protocolVersion: meta.protocolVersion,
    id: message.id,
    method: message.method,
    params,
    client: meta.client,
    sessionId: undefined,
    transport: new HttpTransport(request, reply),
    logLevel: meta.logLevel,
    auth: request.mcpAuth ?? undefined,
    target
  }
  if (answersAsStream(request, call)) return answerStreaming(endpoint, request, reply, call)
  if (call.method === 'subscriptions/listen') return endpoint.streams.listens.listen(request, reply, call)
  return sendJson(reply, 200, resultText(call.id, await dispatch(endpoint.server, call)))
}
