/** `logging/setLevel` (2025 sessions): the least severe level the session wants log messages at. */
import { ProtocolError } from '../../errors.js'
import { INVALID_PARAMS } from '../../spec/jsonrpc.js'
import { LOG_LEVELS } from '../../spec/log-levels.js'
import type { Call } from '../call.js'
import type { ServerContext } from '../server.js'

/** Sets `session.logLevel` and saves the session; answers exactly `{}`. */
export async function setLevel (server: ServerContext, call: Call): Promise<string> {
  const level = call.params.level
  if (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: "level" must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(level) ?? 'nothing'}`)
  }
  const session = call.session!
  session.logLevel = level
  await server.sessions.set(session)
  return '{}'
}
