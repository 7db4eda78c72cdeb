/**
 * The stdio transport (issue 32): one client on a pair of byte streams, the process's stdin and
 * stdout (or a socket's two ends), newline-delimited JSON-RPC in both directions. Written against
 * the protocol core's transport seam (docs/architecture.md, "Transports"), with no Fastify: each
 * line is classified (`classify`), made a call from plain values (`modernCall`, `sessionCall`) and
 * dispatched, so the same tools, resources, prompts, skills and tasks answer with the same
 * validation and errors as over HTTP. What stays here is what stdio makes different:
 *
 * - both eras on one pair of streams: a message with the 2026-07-28 `_meta` is served statelessly,
 *   and `initialize` opens the process's one 2025 session, which every later 2025 message belongs
 *   to (there is no session id on the wire);
 * - one channel for everything: a call's progress and log messages, a 2025 call's questions to the
 *   client, the session's list changes and resource updates, and each 2026-07-28
 *   `subscriptions/listen`'s notifications (tagged with its id) all go out on it, as lines;
 * - cancellation is `notifications/cancelled` in both eras (no stream to close): the call's
 *   `ctx.signal` aborts, and nothing more is sent for it, its response included;
 * - one pair of streams carries every request, so a request id names one request until it is
 *   answered: a request that reuses the id of one still in flight (a listen still open, a
 *   cancelled call whose handler still runs) is refused, and does not run;
 * - authorization: none unless the host names the caller (`caller`); then every call is checked as
 *   over HTTP, and a refusal is the JSON-RPC error alone (there is no challenge to send);
 * - the end: the input ending (the client's way to shut a server down) aborts the calls in flight,
 *   writes what they still answer, and ends the session.
 */
import { ProtocolError, RefusedBodyError } from '../errors.js'
import { LEGACY_VERSIONS, SUPPORTED_VERSIONS, isModernVersion } from '../spec/eras.js'
import { INTERNAL_ERROR, INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION, errorBody, notificationText, resultText } from '../spec/jsonrpc.js'
import { CLIENT_NOTIFICATIONS } from '../spec/methods.js'
import type { AuthInfo, ClientAnswer, Logger } from '../spec/types.js'
import type { Bus } from '../state/bus.js'
import type { Session } from '../state/session-store.js'
import { refusalOf } from '../protocol/access-check.js'
import { modernCall, sessionCall, type Call, type Channel, type ClientRequestOptions, type Transport } from '../protocol/call.js'
import { dispatch } from '../protocol/dispatch.js'
import { classify, logNames, type Inbound, type InboundRequest } from '../protocol/inbound.js'
import { listenFilter } from '../protocol/methods/subscriptions.js'
import { parseMessage } from '../protocol/parse.js'
import type { ServerContext } from '../protocol/server.js'
import { answerOf } from '../protocol/session/client-requests.js'
import { toSession } from '../protocol/session/session-notifications.js'
import type { Sessions } from '../protocol/session/sessions.js'
import { subscribe, type Subscription } from '../protocol/subscription.js'
import { LineSplitter } from '../spec/lines.js'
import type { Quota } from '../state/quota.js'

/** What one stdio connection serves, and where it writes. */
export interface StdioSettings {
  readonly server: ServerContext
  /** The 2025 session protocol (the handshake, the session in its store, questions to the client). */
  readonly sessions: Sessions
  readonly bus: Bus
  /** Writes one line (a message and its `\n`) to the client; false once it cannot. */
  readonly write: (line: string) => boolean
  /** What the output holds unsent (its `writableLength`): the client reads slower than we write. */
  readonly buffered: () => number
  /** Above that many bytes unsent, notifications are dropped until the output drains (`streams.maxBuffered`). */
  readonly maxBuffered: number
  /** The server's logger (stderr: `stdout.ts`); each call logs through a child naming its method. */
  readonly log: Logger
  /** The caller every message is checked against; undefined: no checks (the process owner calls). */
  readonly auth: AuthInfo | undefined
  /** Whether each request's completion is logged (Fastify's `disableRequestLogging` turns it off). */
  readonly logRequests: boolean
  /** The longest line, in bytes (the plugin's `bodyLimit`). */
  readonly lineLimit: number
  /** How long calls in flight may take to answer when the connection closes, in ms. */
  readonly closeTimeout: number
  /** The open streams each caller holds (a 2026-07-28 listen is one), shared with the server's HTTP streams. */
  readonly streams: Quota
  /** Most messages in one batch (`maxBatchItems`). */
  readonly maxBatchItems: number
}

/** A request running here, until its answer is written. */
interface Running {
  /** Made when the handler first reads `ctx.signal`. */
  controller: AbortController | undefined
  /** The client cancelled it: nothing more goes out for it. */
  cancelled: boolean
  /** Why, for a signal first read after the cancel. */
  reason: string | undefined
}

/** The input ended or closed before this call answered. */
const INPUT_ENDED = 'the client closed its input (stdin)'
/** `app.close()` came before this call answered, and closeTimeout passed. */
const CLOSED_UNDER_CALL = 'the server closed before the call finished'
/** After the calls still running were told to stop, how long they get to answer, in ms. */
const AFTER_ABORT = 1000

const noSession = new ProtocolError(INVALID_REQUEST,
  'Invalid Request: no session. A 2025 client sends initialize first (over stdio the process holds one session); a 2026-07-28 client sends params._meta with "io.modelcontextprotocol/protocolVersion"')
const initializedTwice = new ProtocolError(INVALID_REQUEST, 'Invalid Request: this process\'s session is already initialized; over stdio a process holds one session (start the server again for a new one)')

/** A request whose id (`key`, its JSON) is that of one still running here (a cancelled one, until its handler returns). */
function idInFlight (key: string): ProtocolError {
  return new ProtocolError(INVALID_REQUEST, `Invalid Request: request id ${key} is still in flight (an earlier request with this id has not finished); give each request an id of its own`)
}

export class StdioConnection {
  /** The process's 2025 session, once `initialize` opened it. */
  private session: Session | undefined
  private readonly running = new Map<string, Running>()
  /** The answers still to come, for the close to wait for. */
  private readonly answers = new Set<Promise<void>>()
  /** Open 2026-07-28 listens, by request id (JSON). */
  private readonly listens = new Map<string, Subscription>()
  private unsubscribe: (() => void) | undefined
  private readonly lines: LineSplitter
  /** `open` while messages are taken; `ending` once the input ended or the server began to close. */
  private state: 'open' | 'ending' | 'closed' = 'open'
  private ending: Promise<void> | undefined
  /** Why the calls in flight were told to stop, once they were: a call that reads its signal later finds it aborted. */
  private stopped: string | undefined
  /** Notifications dropped since the output went over `maxBuffered`; undefined while it is not. */
  private dropped: number | undefined
  private endedResolve!: () => void
  private closedResolve!: () => void
  /** Settles once the input ended and what it sent was answered: the client is done. */
  readonly ended: Promise<void>
  /** Settles once the connection closed, whichever end closed it. */
  readonly closed: Promise<void>

  /** Who calls, as quotas count it: the host's `caller` when it named one, else the process's owner. */
  private readonly caller: string

  constructor (private readonly settings: StdioSettings) {
    this.caller = settings.auth === undefined ? 'stdio' : `sub:${settings.auth.subject}`
    this.lines = new LineSplitter(settings.lineLimit, {
      line: (text) => { this.receive(text) },
      overlong: (bytes) => {
        this.send(JSON.stringify(errorBody(null, new ProtocolError(INVALID_REQUEST, `Invalid Request: a message of ${bytes} bytes is over this server's limit of ${settings.lineLimit} bytes (bodyLimit)`))))
      }
    })
    this.ended = new Promise((resolve) => { this.endedResolve = resolve })
    this.closed = new Promise((resolve) => { this.closedResolve = resolve })
  }

  /** Takes the bytes of the input stream; `end`: it ended (or failed: the client is gone either way). */
  data (chunk: Buffer): void {
    if (this.state === 'open') this.lines.push(chunk)
  }

  /** The input ended: its last line is still a message; then the calls in flight are stopped and answered. */
  inputEnded (): void {
    if (this.state !== 'open') return
    this.lines.end()
    this.settings.log.debug('fastify-sake: stdio input ended; stopping the calls in flight')
    void this.finish(INPUT_ENDED, 0).then(this.endedResolve)
  }

  /**
   * The server is closing (`app.close()`): no new messages are taken, every listen ends with its
   * final response, the calls in flight get `closeTimeout` ms to answer before their `ctx.signal`
   * aborts, and the session ends.
   */
  async close (): Promise<void> {
    for (const subscription of this.listens.values()) this.send(subscription.finalResponse())
    await this.finish(CLOSED_UNDER_CALL, this.settings.closeTimeout)
  }

  private async finish (why: string, wait: number): Promise<void> {
    this.ending ??= this.stop(why, wait)
    await this.ending
  }

  private async stop (why: string, wait: number): Promise<void> {
    this.state = 'ending'
    for (const key of [...this.listens.keys()]) this.endListen(key)
    if (this.answers.size > 0 && wait > 0) await settled(this.answers, wait)
    this.stopped = why
    for (const entry of this.running.values()) entry.controller?.abort(new Error(why))
    if (this.answers.size > 0) await settled(this.answers, AFTER_ABORT)
    this.unsubscribe?.()
    const session = this.session
    if (session !== undefined) {
      try {
        await this.settings.sessions.end(this.settings.server, session.id, this.settings.log)
      } catch (err) {
        this.settings.log.warn({ err }, 'fastify-sake: the session store failed to end the stdio session; it expires at its idleTimeout')
      }
    }
    this.state = 'closed'
    this.closedResolve()
  }

  /** One line: a message (or a 2025-03-26 batch), or the error that answers it. */
  private receive (line: string): void {
    let body: unknown
    try {
      body = parseMessage(line)
    } catch (err) {
      this.send(JSON.stringify(errorBody(err instanceof RefusedBodyError ? err.id : null, err as ProtocolError)))
      return
    }
    if (Array.isArray(body)) {
      this.pending(this.batch(body))
      return
    }
    const inbound = classify(this.settings.server.registry, body, this.session?.id, undefined)
    if (inbound.refusal !== undefined) {
      this.send(JSON.stringify(errorBody(inbound.id ?? null, inbound.refusal)))
      return
    }
    if (inbound.kind === 'response') this.pending(this.answered(inbound))
    else if (inbound.kind === 'notification') this.pending(this.notified(inbound))
    else this.pending(this.request(inbound as InboundRequest).then((answer) => { if (answer !== undefined) this.send(answer) }))
  }

  /** Keeps an answer still to come, for the close to wait for; a failure here is our bug, logged. */
  private pending (work: Promise<void>): void {
    /* c8 ignore next -- every step answers its own failures; one that throws anyway is our bug, logged rather than left unhandled */
    const tracked = work.catch((err: unknown) => this.settings.log.error({ err }, 'fastify-sake: unexpected error in the stdio transport'))
    this.answers.add(tracked)
    void tracked.finally(() => this.answers.delete(tracked))
  }

  /** Writes one message; nothing once the connection closed. */
  private send (text: string): boolean {
    if (this.state === 'closed') return false
    return this.settings.write(text + '\n')
  }

  /**
   * Writes a notification (progress, a log message, a list change, a listen's), unless the client
   * is not reading: while the output holds more than `maxBuffered` bytes unsent, notifications are
   * dropped, so a tool that keeps sending does not grow memory. Responses and questions are never
   * dropped (a request would wait for its answer forever). Logged when dropping starts, and once
   * the output drained whole (not each time a host that reads steadily brings it under the bound).
   */
  private notify (text: string): boolean {
    const { buffered, maxBuffered, log } = this.settings
    const unsent = buffered()
    if (unsent > maxBuffered) {
      if (this.dropped === undefined) {
        this.dropped = 0
        log.warn({ buffered: unsent, maxBuffered }, `fastify-sake: the stdio client reads too slowly: ${unsent} bytes unsent, over streams.maxBuffered (${maxBuffered}); notifications are dropped until it catches up (responses are not)`)
      }
      this.dropped++
      return false
    }
    if (this.dropped !== undefined && unsent === 0) {
      log.warn({ dropped: this.dropped }, `fastify-sake: the stdio client caught up; ${this.dropped} notifications were dropped`)
      this.dropped = undefined
    }
    return this.send(text)
  }

  /**
   * A request's answer (a JSON-RPC response's text), or undefined when none is due (a listen, a
   * cancelled call); logged once answered, as Fastify logs an HTTP request's completion.
   */
  private async request (inbound: InboundRequest): Promise<string | undefined> {
    const started = performance.now()
    const answer = await this.answer(inbound)
    if (this.settings.logRequests) {
      // a listen answers only at its end: what is done now is its opening
      const what = answer === undefined && inbound.facts?.listens === true ? 'fastify-sake: stdio listen opened' : 'fastify-sake: stdio request completed'
      this.settings.log.info({ mcp: logNames(inbound), mcpRequestId: inbound.id, answered: answer !== undefined, responseTime: performance.now() - started }, what)
    }
    return answer
  }

  private async answer (inbound: InboundRequest): Promise<string | undefined> {
    const key = JSON.stringify(inbound.id)
    // the id names the request a cancel stops and the response answers: a second one would run
    // twice what the client sent once (a retry), or take over the first one's cancel
    if (this.running.has(key) || this.listens.has(key)) return JSON.stringify(errorBody(inbound.id, idInFlight(key)))
    const entry: Running = { controller: undefined, cancelled: false, reason: undefined }
    this.running.set(key, entry)
    try {
      return await this.settle(inbound, entry)
    } finally {
      this.running.delete(key)
    }
  }

  /** The request's answer in its era; a cancelled call's (its failure included) is nothing. */
  private async settle (inbound: InboundRequest, entry: Running): Promise<string | undefined> {
    try {
      const call = await this.callOf(inbound, entry)
      if (typeof call === 'string') return call
      const caller = this.settings.auth
      if (caller !== undefined) {
        const refusal = refusalOf(call.target, caller, this.settings.server.clockSkew)
        if (refusal !== undefined) {
          call.transport.log.info({ subject: caller.subject, reason: refusal.reason, scopes: refusal.scopes }, `fastify-sake: refused: ${refusal.message}`)
          throw refusal
        }
      }
      if (inbound.facts?.listens === true) return await this.listen(call, entry)
      const answer = resultText(call.id, await dispatch(this.settings.server, call))
      return entry.cancelled ? undefined : answer
    } catch (err) {
      return entry.cancelled ? undefined : JSON.stringify(errorBody(inbound.id, this.protocolError(err)))
    }
  }

  /** The call a request makes in its era, or the whole answer of one that needs no call (the handshake, a ping). */
  private async callOf (inbound: InboundRequest, entry: Running): Promise<Call | string> {
    if (inbound.era === 'modern') {
      if (inbound.metaRefusal !== undefined) throw inbound.metaRefusal
      const meta = inbound.meta!
      if (!isModernVersion(meta.protocolVersion)) {
        throw new ProtocolError(UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${meta.protocolVersion}`, 400, { supported: SUPPORTED_VERSIONS, requested: meta.protocolVersion })
      }
      const call = modernCall(inbound, meta, this.transport(inbound, entry), this.settings.auth, undefined)
      return { ...call, channel: this.channel(entry, undefined) }
    }
    if (inbound.facts?.handshake === true) return await this.initialize(inbound)
    if (this.session === undefined) {
      // the one request a 2025 client may send before the handshake
      if (inbound.method === 'ping') return resultText(inbound.id, '{}')
      throw noSession
    }
    const session = await this.current(this.session)
    const call = sessionCall(session, inbound, this.transport(inbound, entry), this.settings.auth, undefined)
    // the channel is always open: a tasks/result relays its task's questions on it (`openStream`)
    const channel = this.channel(entry, session)
    return { ...call, channel, openStream: () => channel }
  }

  /** `initialize`: the process's one 2025 session, whose notifications go out from now on. */
  private async initialize (inbound: InboundRequest): Promise<string> {
    if (this.session !== undefined) throw initializedTwice
    const { sessions, server, bus, log } = this.settings
    const { session, result } = sessions.open(server, inbound.params, this.settings.auth?.subject, this.caller)
    // noted before the store settles: the client's next lines (notifications/initialized) belong to it
    this.session = session
    try {
      await sessions.create(session, log)
    } catch (err) {
      this.session = undefined
      throw err
    }
    const id = session.id
    this.unsubscribe = bus.subscribe((event) => {
      if (event.type !== 'sessionEnded') toSession(id, event, sessions.store, (message) => { this.notify(message) }, log)
    })
    log.info({ protocolVersion: session.protocolVersion, client: session.client.info }, 'fastify-sake: stdio session initialized')
    return resultText(inbound.id, result)
  }

  /**
   * The session as the store has it now (a `logging/setLevel` or a subscription changed it); one the
   * store no longer has (it expired while the client was idle) is stored again: over stdio the
   * session lives as long as the process.
   */
  private async current (known: Session): Promise<Session> {
    const { sessions, log } = this.settings
    // a store may answer at once (memory) or later (Redis): stdio is no hot path, so one await for both
    const session = await sessions.find(known.id, this.settings.auth?.subject, log)
    if (session !== undefined) {
      this.session = session
      return session
    }
    await sessions.create(known, log)
    return known
  }

  /** The protocol core's view of stdio, for one call: no request object, a logger naming the method, a signal the cancel aborts. */
  private transport (inbound: Inbound, entry: Running): Transport {
    let log: Logger | undefined
    const base = this.settings.log
    return {
      request: undefined,
      caller: this.caller,
      get log () {
        log ??= base.child({ mcp: logNames(inbound) })
        return log
      },
      signal: () => {
        entry.controller ??= new AbortController()
        // a signal first read after the cancel or the stop is born aborted (aborting again does nothing: the first reason stands)
        const why = entry.reason ?? this.stopped
        if (why !== undefined) entry.controller.abort(new Error(why))
        return entry.controller.signal
      }
    }
  }

  /**
   * Where a call's notifications go: out as lines, until it is cancelled. A 2025 call may also ask
   * the client (the session protocol's questions, answered by a response line); a 2026-07-28 call
   * asks with round trips instead, so its channel has no `request`.
   */
  private channel (entry: Running, session: Session | undefined): Channel {
    const notify = (method: string, params: Record<string, unknown>): boolean => !entry.cancelled && this.notify(notificationText(method, params))
    if (session === undefined) return { notify }
    const questions = this.settings.sessions.questions
    return {
      notify,
      request: async (method: string, params: Record<string, unknown>, options: ClientRequestOptions): Promise<ClientAnswer> =>
        await questions.send(session.id, (message) => !entry.cancelled && this.send(message), method, params, options, { caller: this.caller, log: this.settings.log })
    }
  }

  /**
   * A 2026-07-28 `subscriptions/listen`: acknowledged, then open until the client cancels it or the
   * server closes. Refused when the caller holds as many open streams as `streams.maxPerCaller`
   * allows. The filter is checked before anything is acknowledged (a bad one is the request's
   * error); until the listen is open the request is running, so its id stays taken.
   */
  private async listen (call: Call, entry: Running): Promise<undefined> {
    const { streams } = this.settings
    const refusal = streams.take(this.caller)
    if (refusal !== undefined) throw streams.refused(refusal, this.caller, call.transport.log)
    let filter
    try {
      filter = await listenFilter(this.settings.server, call)
    } catch (err) {
      streams.give(this.caller)
      throw err
    }
    if (entry.cancelled || this.state !== 'open') {
      streams.give(this.caller)
      return undefined
    }
    this.listens.set(JSON.stringify(call.id), subscribe(this.settings.bus, call.id, filter, this.settings.server.tasks.store, (text) => { this.notify(text) }, call.transport.log))
    return undefined
  }

  /** Ends one open listen: no more notifications, and its stream no longer counted. */
  private endListen (key: string): void {
    const listen = this.listens.get(key)
    if (listen === undefined) return
    listen.stop()
    this.listens.delete(key)
    this.settings.streams.give(this.caller)
  }

  /** A client notification: a cancel (both eras, the only way to cancel over stdio), or one of the session's. */
  private async notified (inbound: Inbound): Promise<void> {
    if (inbound.method === CLIENT_NOTIFICATIONS.cancelled) {
      this.cancel(inbound.params?.requestId, inbound.params?.reason)
      return
    }
    if (inbound.era === 'legacy' && this.session !== undefined) await this.settings.sessions.notified(await this.current(this.session), inbound.method!, inbound.params)
  }

  /** Stops a request the client no longer wants: its signal aborts, and nothing more is sent for it; a listen ends. */
  private cancel (requestId: unknown, reason: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    const key = JSON.stringify(requestId)
    this.endListen(key)
    const entry = this.running.get(key)
    if (entry === undefined) return
    entry.cancelled = true
    entry.reason = typeof reason === 'string' ? `cancelled by the client: ${reason}` : 'cancelled by the client'
    entry.controller?.abort(new Error(entry.reason))
  }

  /** The client's answer to one of our questions (2025); an answer nobody asked for is logged and dropped. */
  private async answered (inbound: Inbound): Promise<void> {
    const { sessions, log } = this.settings
    if (this.session === undefined) {
      log.warn({ id: inbound.responseId }, 'fastify-sake: a JSON-RPC response arrived on stdio, but no question was asked (2026-07-28 clients send none); dropped')
      return
    }
    try {
      await sessions.answered(this.session.id, inbound.responseId, answerOf(inbound.result, inbound.error), log)
    } catch (err) {
      // no question waits for it (400), or in a fleet its asker died (410) or the inbox failed (503):
      // over stdio there is no status to answer with
      log.warn({ err, id: inbound.responseId }, 'fastify-sake: a response to a question on stdio was refused; dropped')
    }
  }

  /**
   * A JSON-RPC batch: only a 2025-03-26 session may send one. Each item is taken in order, and the
   * requests' answers go out together, as one array, once all are in.
   */
  private async batch (items: unknown[]): Promise<void> {
    const session = this.session
    if (session === undefined || session.protocolVersion !== LEGACY_VERSIONS[2]) {
      this.send(JSON.stringify(errorBody(null, new ProtocolError(INVALID_REQUEST, 'Invalid Request: JSON-RPC batches (arrays) are only allowed in 2025-03-26 sessions; send one message per line'))))
      return
    }
    if (items.length === 0) {
      this.send(JSON.stringify(errorBody(null, new ProtocolError(INVALID_REQUEST, 'Invalid Request: the batch is empty'))))
      return
    }
    const most = this.settings.maxBatchItems
    if (items.length > most) {
      this.send(JSON.stringify(errorBody(null, new ProtocolError(INVALID_REQUEST, `Invalid Request: the batch holds ${items.length} messages, more than maxBatchItems (${most}) allows; send fewer at a time`))))
      return
    }
    const answers: Array<Promise<string | undefined>> = []
    for (const item of items) {
      const inbound = classify(this.settings.server.registry, item, session.id, undefined)
      if (inbound.refusal !== undefined) answers.push(Promise.resolve(JSON.stringify(errorBody(inbound.id ?? null, inbound.refusal))))
      else if (inbound.kind === 'request') answers.push(this.request(inbound as InboundRequest))
      else if (inbound.kind === 'response') await this.answered(inbound)
      else await this.notified(inbound)
    }
    const texts = (await Promise.all(answers)).filter((text) => text !== undefined)
    if (texts.length > 0) this.send(`[${texts.join(',')}]`)
  }

  /** A failure as the JSON-RPC error that answers it; anything but a ProtocolError is our bug (logged, -32603). */
  private protocolError (err: unknown): ProtocolError {
    if (err instanceof ProtocolError) return err
    /* c8 ignore next 3 -- dispatch turns every failure into a ProtocolError or an isError result; anything else is our bug */
    this.settings.log.error({ err }, 'fastify-sake: unexpected error while answering a stdio request')
    return new ProtocolError(INTERNAL_ERROR, 'Internal error')
  }
}

/** Settles when every promise of `pending` has, or after `ms`. */
async function settled (pending: ReadonlySet<Promise<void>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([Promise.allSettled([...pending]), new Promise<void>((resolve) => { timer = setTimeout(resolve, ms) })])
  clearTimeout(timer)
}
