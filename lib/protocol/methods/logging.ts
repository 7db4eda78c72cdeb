/** `logging/setLevel` (2025 sessions): the least severe level the session wants log messages at. */
import { INVALID_PARAMS } from '../jsonrpc.js'
import { ProtocolError } from '../../errors.js'
import { LOG_LEVELS } from '../eras.js'
import type { Call } from '../context.js'
import type { SessionStore } from '../../state/session-store.js'

/** Sets `session.logLevel` and saves the session; answers exactly `{}`. */
export async function setLevel (sessions: SessionStore, call: Call): Promise<string> {
  const level = call.params.level
  if (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: "level" must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(level) ?? 'nothing'}`)
  }
  const session = call.session!
  session.logLevel = level
  await sessions.set(session)
  return '{}'
}
