/**
 * The MCP endpoint's JSON body parser: JSON text to the value the POST route's checks read, or the
 * refusal that answers it (`protocol/parse.ts`, which stdio's lines share); an empty body is
 * refused here, where a body can be empty.
 */
import type { FastifyRequest } from 'fastify'
import type { ProtocolError } from '../errors.js'
import { parseMessage } from '../protocol/parse.js'
import { emptyBody } from './endpoint.js'

/** The routes' `application/json` content type parser (Fastify's callback form: no promise per request). */
export function jsonParser (_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void {
  let value: unknown
  try {
    value = parseBody(body as string)
  } catch (err) {
    done(err as ProtocolError, undefined)
    return
  }
  done(null, value)
}

/** Parses a POST body; throws the ProtocolError that answers a body that cannot be taken. */
export function parseBody (text: string): unknown {
  if (text === '') throw emptyBody
  return parseMessage(text)
}
