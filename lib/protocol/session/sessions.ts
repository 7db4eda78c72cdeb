/**
 * The 2025 session protocol, whatever carries it: the handshake that opens a session
 * (`initialize`), finding the session a message names and checking that the message fits it,
 * the client's notifications (a cancel, the end of the handshake) and its answers to our
 * questions, and the end of a session. One per server; the HTTP edge uses it, and so can any other
 * transport (docs/architecture.md, "Transports"). The session itself lives in the store, so that
 * any instance of a fleet can serve it.
 */
import { randomUUID } from 'node:crypto'
import { ProtocolError } from '../../errors.js'
import { LEGACY_VERSIONS, isLegacyVersion, rulesOf } from '../../spec/eras.js'
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, SESSION_NOT_FOUND } from '../../spec/jsonrpc.js'
import { CLIENT_NOTIFICATIONS } from '../../spec/methods.js'
import type { ClientAnswer, Logger } from '../../spec/types.js'
import type { Bus } from '../../state/bus.js'
import type { Inbox } from '../../state/inbox.js'
import type { Liveness } from '../../state/liveness.js'
import type { Session, SessionStore } from '../../state/session-store.js'
import { Quota, quotaRefusal, type QuotaBounds } from '../../state/quota.js'
import { isThenable } from '../../values.js'
import { initialize } from '../methods/handshake.js'
import type { ServerContext } from '../server.js'
import { Cancellations } from './cancellations.js'
import { ClientRequests } from './client-requests.js'

/** A session id that names no live session; the client must send initialize again (HTTP 404, whatever the method). */
export const sessionNotFound = new ProtocolError(SESSION_NOT_FOUND, 'Session not found: it ended or expired; send initialize to start a new session', 404)

/** A session `initialize` opened, not yet saved, and the result that answers the handshake. */
export interface Opened {
  readonly session: Session
  readonly result: string
}

/** What bounds a server's 2025 sessions and its questions to their clients (issue 40). */
export interface SessionLimits {
  /**
   * This instance is the only one (no `redis`, no bus of the host's own): an answer to a question
   * it does not hold answers nothing anywhere, and is refused.
   */
  readonly alone?: boolean
  /** The session store's bounds (`sessions.maxPerCaller`, `sessions.maxSessions`), which a refusal names. */
  readonly sessions?: QuotaBounds
  /** Bytes a session may take as stored (`sessions.maxSize`). */
  readonly maxSize?: number
  /** The questions each caller has waiting on this instance (`questions.maxPerCaller`, `questions.maxQuestions`). */
  readonly questions?: Quota
}

export class Sessions {
  /** 2025 calls that `notifications/cancelled` can stop (per process: see `cancellations.ts`). */
  readonly cancellations: Cancellations
  /** Questions asked of 2025 clients, waiting for their answers. */
  readonly questions: ClientRequests
  private readonly unsubscribe: () => void
  private collector: NodeJS.Timeout | undefined
  private readonly bounds: QuotaBounds
  private readonly alone: boolean
  private readonly maxSize: number
  private collecting: Promise<void> | undefined

  /**
   * `liveness`: which instances of the fleet are alive, for an answer to a question another one
   * asked; `inbox` (a shared store's): where such an answer is also left, for an asker whose bus
   * connection blinked (`collect`).
   */
  constructor (
    readonly store: SessionStore,
    private readonly bus: Bus,
    private readonly liveness: Liveness,
    private readonly inbox?: Inbox,
    limits: SessionLimits = {}
  ) {
    this.bounds = limits.sessions ?? { perCaller: Infinity, total: Infinity }
    this.alone = limits.alone === true
    this.maxSize = limits.maxSize ?? Infinity
    this.questions = new ClientRequests(liveness.instance, limits.questions ?? new Quota('questions', { perCaller: Infinity, total: Infinity }), inbox)
    this.cancellations = new Cancellations(bus)
    // answers POSTed to another instance of the fleet reach the one holding the question here; a
    // session deleted there ends the waits of its questions here (their answers cannot come)
    this.unsubscribe = bus.subscribe((event) => {
      if (event.type === 'clientResponse') this.questions.answer(event.sessionId, event.id, event.answer)
      else if (event.type === 'sessionEnded') this.questions.cancelSession(event.sessionId, 'the session ended')
    })
  }

  /**
   * The handshake: reads `initialize`, negotiates a version and makes the session, bound to
   * `subject` (the verified caller, when there is one: another subject's token then finds no
   * session) and counted for `caller` (quotas). Not stored yet (`create`): the caller notes the
   * session first.
   */
  open (server: ServerContext, params: Record<string, unknown> | undefined, subject: string | undefined, caller: string): Opened {
    const init = initialize(server, params)
    const session: Session = { id: randomUUID(), protocolVersion: init.version, client: init.client, initialized: false, createdAt: Date.now(), caller }
    if (subject !== undefined) session.subject = subject
    return { session, result: init.result }
  }

  /**
   * Stores a session `open` made, unless the store's bounds refuse it: then the handshake fails
   * with the quota's error (429 or 503, logged), and no session of anyone else is touched.
   */
  async create (session: Session, log: Logger): Promise<void> {
    // a session keeps what its client sent: a client that sends a megabyte would store one
    const size = Buffer.byteLength(JSON.stringify(session))
    if (size > this.maxSize) {
      throw new ProtocolError(INVALID_PARAMS, `Invalid params: initialize's capabilities and clientInfo make a session of ${size} bytes, more than sessions.maxSize (${this.maxSize}) allows`, 400)
    }
    const created = this.store.create === undefined ? (await this.store.set(session), true) : await this.store.create(session)
    if (created === true) return
    throw quotaRefusal('sessions', created, created === 'caller' ? this.bounds.perCaller : this.bounds.total, session.caller!, log)
  }

  /**
   * The live session `sessionId` names, if `subject` may use it: a session opened by another
   * subject answers as not found, as if sessions were keyed by subject and id (the spec's advice
   * against hijacking), so it neither exists for them nor ends for its owner. Sync when the store
   * answers synchronously (the in-memory one): no promise on a session's hot path.
   */
  find (sessionId: string, subject: string | undefined, log: Logger): Session | undefined | Promise<Session | undefined> {
    const found = this.store.get(sessionId)
    if (isThenable(found)) return Promise.resolve(found).then((session) => owned(session, sessionId, subject, log))
    return owned(found, sessionId, subject, log)
  }

  /**
   * A message's session (`find`), with the version the transport carried beside it checked: HTTP's
   * `MCP-Protocol-Version`, which the Streamable HTTP transport requires on every request of a
   * 2025-06-18 or later session (a transport that carries no version, such as stdio, does not call
   * this). Throws the 404 of a session that is not there, or the 400 of a version that does not fit.
   */
  findFitting (sessionId: string, subject: string | undefined, version: string | undefined, log: Logger): Session | Promise<Session> {
    // `find`'s steps, with one look at whether the store answered at once
    const found = this.store.get(sessionId)
    if (isThenable(found)) {
      return Promise.resolve(found).then((session) => fit(owned(session, sessionId, subject, log), version))
    }
    return fit(owned(found, sessionId, subject, log), version)
  }

  /** A client notification on a session: a cancel, or the end of the handshake; others are dropped. */
  async notified (session: Session, method: string, params: Record<string, unknown> | undefined): Promise<void> {
    if (method === CLIENT_NOTIFICATIONS.cancelled) {
      this.cancellations.cancel(session.id, params?.requestId, params?.reason)
      return
    }
    if (method === CLIENT_NOTIFICATIONS.initialized && !session.initialized) {
      session.initialized = true
      await this.store.set(session)
    }
  }

  /**
   * A client's response to one of our questions: to the question, when this process asked it;
   * otherwise left in the asker's inbox (when there is one) and onto the bus, for the instance
   * that did. A late answer to a question this instance asked is dropped (202). Refused (400) when
   * no question waits for it: an id that is not ours, or was never asked, or (through the inbox)
   * one the instance that asked no longer waits for; nothing is kept for it (issue 40). Refused (410) when the
   * instance that asked died: the answer has nobody to reach, and the call that asked ended with
   * an error; refused (503) when the inbox cannot keep it, so that the client knows it was not delivered.
   */
  async answered (sessionId: string, id: unknown, answer: ClientAnswer, log: Logger): Promise<void> {
    if (!ClientRequests.mayBeOurs(id)) throw unexpected(id)
    if (this.questions.answer(sessionId, id, answer)) return
    // a question this instance asked that no longer waits (answered, timed out, its call ended): a
    // late answer, as a client may send after a timeout, is taken and dropped, never kept
    if (this.questions.asked(id)) {
      log.debug({ id }, 'fastify-sake: a late answer to a question that no longer waits; dropped')
      return
    }
    const asker = ClientRequests.askedBy(id)
    // alone (no fleet, no bus of the host's own), no other instance can have asked it
    if (asker === this.liveness.instance || this.alone) throw unexpected(id)
    if (!await this.liveness.alive(asker)) {
      throw new ProtocolError(INVALID_REQUEST, `Gone: the server instance that asked ${JSON.stringify(id)} stopped, and the call that asked it ended with an error; call again`, 410)
    }
    // kept first: once it is in the inbox, a bus that drops it loses nothing
    const left = await this.inbox?.leave(asker, { sessionId, id, answer })
    if (left === 'unexpected') throw unexpected(id)
    if (left === 'full') throw new ProtocolError(INTERNAL_ERROR, 'Service Unavailable: the server instance that asked this question has too many answers waiting for it; send the answer again in a moment', 503)
    try {
      await this.bus.publish({ type: 'clientResponse', sessionId, id, answer })
    } catch (err) {
      if (this.inbox === undefined) log.error({ err }, 'fastify-sake: the bus failed to carry a client response to the instance that asked')
      else log.warn({ err }, 'fastify-sake: the bus failed to carry a client response; the instance that asked takes it from its inbox')
    }
  }

  /**
   * Every `interval` ms while a question waits here, takes the answers left in this instance's
   * inbox: those the bus did not bring (its connection blinked) settle their questions; those it
   * did find their questions gone, and are dropped. Until `close`.
   */
  collect (interval: number, log: Logger): void {
    if (this.inbox === undefined) return
    const inbox = this.inbox
    this.collector = setInterval(() => {
      if (this.questions.waiting === 0 || this.collecting !== undefined) return
      this.collecting = this.take(inbox, log).finally(() => { this.collecting = undefined })
    }, interval)
    this.collector.unref()
  }

  private async take (inbox: Inbox, log: Logger): Promise<void> {
    try {
      for (const left of await inbox.take(this.liveness.instance)) this.questions.answer(left.sessionId, left.id, left.answer)
    } catch (err) {
      log.warn({ err }, 'fastify-sake: the inbox could not be read; trying again at the next heartbeat')
    }
  }

  /**
   * Ends a session: gone from the store (what ending promises), then its tasks, and the waits of
   * its questions here and, through the bus, on every other instance. A failure after the store's
   * delete is logged, not thrown: the session is gone, its tasks end at their ttl, and the other
   * instances' copies of it (`state/session-cache.ts`) within `redis.sessionCache` ms.
   */
  async end (server: ServerContext, sessionId: string, log: Logger): Promise<void> {
    await this.store.delete(sessionId)
    this.questions.cancelSession(sessionId, 'the session ended')
    // both, whatever the other does: the bus also drops the other instances' copies of the session
    const told = await Promise.allSettled([server.tasks.endSession(sessionId), (async () => { await this.bus.publish({ type: 'sessionEnded', sessionId }) })()])
    for (const outcome of told) {
      if (outcome.status === 'rejected') log.warn({ err: outcome.reason }, 'fastify-sake: a session ended, but its tasks or the other instances\' streams could not be told (the task store or the bus failed)')
    }
  }

  /** The server is closing: no more answers from the bus or the inbox, and questions still waiting end now. */
  close (): void {
    clearInterval(this.collector)
    this.unsubscribe()
    this.questions.cancelAll()
  }
}

/** A response no question waits for: nothing is kept for it. */
function unexpected (id: unknown): ProtocolError {
  return new ProtocolError(INVALID_REQUEST, `Bad Request: no question of this server waits for an answer with id ${JSON.stringify(id)} on this session (it was never asked, was answered already, or timed out)`, 400)
}

function owned (session: Session | undefined, sessionId: string, subject: string | undefined, log: Logger): Session | undefined {
  if (session === undefined || session.subject === subject) return session
  log.warn({ sessionId, subject }, 'fastify-sake: a 2025 session was used with the token of another subject than the one that opened it; answered as not found')
  return undefined
}

/** `findFitting`'s check of the version the transport carried. */
function fit (session: Session | undefined, version: string | undefined): Session {
  if (session === undefined) throw sessionNotFound
  if (version === undefined) {
    if (rulesOf(session.protocolVersion).versionHeader) {
      throw new ProtocolError(INVALID_REQUEST, `Bad Request: the MCP-Protocol-Version header is required on every request of a ${session.protocolVersion} session`, 400)
    }
  } else if (!isLegacyVersion(version)) {
    // the transport asks for 400 on an invalid or unsupported value only: a supported version other
    // than the negotiated one is served at the negotiated one (older clients and suites send 2025-03-26)
    throw new ProtocolError(INVALID_REQUEST, `Bad Request: MCP-Protocol-Version header '${version}' is not a version of this session's protocol era; this session negotiated '${session.protocolVersion}'`, 400, {
      supported: LEGACY_VERSIONS,
      requested: version
    })
  }
  return session
}
