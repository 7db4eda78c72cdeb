/**
 * The process's one 2025 session. There is no session id on the wire: `initialize` opens it, and
 * every later 2025 message belongs to it. Its notifications (list changes, resource updates) and
 * its questions' answers travel on the same pair of streams as everything else; it ends with the
 * connection.
 */
import type { Session } from '../state/session-store.js'
import type { Inbound, InboundRequest } from '../protocol/inbound.js'
import { answerOf } from '../protocol/session/client-requests.js'
import { toSession } from '../protocol/session/session-notifications.js'
import { resultText } from '../spec/jsonrpc.js'
import { invalidRequest, type StdioOutput } from './output.js'
import type { StdioSettings } from './settings.js'

const initializedTwice = invalidRequest('this process\'s session is already initialized; over stdio a process holds ' +
  'one session (start the server again for a new one)')

export class StdioSession {
  /** The session as last seen, once `initialize` opened it. */
  known: Session | undefined
  private unsubscribe: (() => void) | undefined

  constructor (private readonly settings: StdioSettings, private readonly caller: string,
    private readonly output: StdioOutput) {}

  /** `initialize`: the process's one 2025 session, whose notifications go out from now on. */
  async initialize (inbound: InboundRequest): Promise<string> {
    if (this.known !== undefined) throw initializedTwice
    const { sessions, server, bus, log } = this.settings
    const { session, result } = sessions.open(server, inbound.params, this.settings.auth?.subject, this.caller)
    // noted before the store settles: the client's next lines (notifications/initialized) belong to it
    this.known = session
    try {
      await sessions.create(session, log)
    } catch (err) {
      this.known = undefined
      throw err
    }
    const id = session.id
    const notify = (message: string): void => { this.output.notify(message) }
    this.unsubscribe = bus.subscribe((event) => {
      if (event.type !== 'sessionEnded') toSession(id, event, sessions.store, notify, log)
    })
    const { protocolVersion, client } = session
    log.info({ protocolVersion, client: client.info }, 'fastify-sake: stdio session initialized')
    return resultText(inbound.id, result)
  }

  /**
   * The session as the store has it now (a `logging/setLevel` or a subscription changed it); one the
   * store no longer has (it expired while the client was idle) is stored again: over stdio the
   * session lives as long as the process.
   */
  async current (known: Session): Promise<Session> {
    const { sessions, log } = this.settings
    // a store may answer at once (memory) or later (Redis): stdio is no hot path, so one await for both
    const session = await sessions.find(known.id, this.settings.auth?.subject, log)
    if (session !== undefined) {
      this.known = session
      return session
    }
    await sessions.create(known, log)
    return known
  }

  /** One of the session's notifications from the client (before `initialize`, nothing to do). */
  async notified (inbound: Inbound): Promise<void> {
    if (this.known === undefined) return
    await this.settings.sessions.notified(await this.current(this.known), inbound.method!, inbound.params)
  }

  /** The client's answer to one of our questions; an answer nobody asked for is logged and dropped. */
  async answered (inbound: Inbound): Promise<void> {
    const { sessions, log } = this.settings
    if (this.known === undefined) {
      log.warn({ id: inbound.responseId }, 'fastify-sake: a JSON-RPC response arrived on stdio, but no question was ' +
        'asked (2026-07-28 clients send none); dropped')
      return
    }
    try {
      await sessions.answered(this.known.id, inbound.responseId, answerOf(inbound.result, inbound.error), log)
    } catch (err) {
      // no question waits for it (400), or in a fleet its asker died (410) or the inbox failed (503):
      // over stdio there is no status to answer with
      log.warn({ err, id: inbound.responseId }, 'fastify-sake: a response to a question on stdio was refused; dropped')
    }
  }

  /** The connection ended: no more notifications, and the session ends in its store. */
  async end (): Promise<void> {
    this.unsubscribe?.()
    if (this.known === undefined) return
    const { sessions, server, log } = this.settings
    try {
      await sessions.end(server, this.known.id, log)
    } catch (err) {
      log.warn({ err }, 'fastify-sake: the session store failed to end the stdio session; ' +
        'it expires at its idleTimeout')
    }
  }
}
