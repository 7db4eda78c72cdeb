/**
 * The requests running here, from a line to its answer: the call each makes in its era, the
 * caller's check, and how it stops. One pair of streams carries every request, so a request id
 * names one request until it is answered: a request that reuses the id of one still in flight (a
 * listen still open, a cancelled call whose handler still runs) is refused, and does not run.
 * Cancellation is `notifications/cancelled` in both eras (no stream to close): the call's
 * `ctx.signal` aborts, and nothing more is sent for it, its response included.
 */
import { ProtocolError } from '../errors.js'
import { SUPPORTED_VERSIONS, isModernVersion } from '../spec/eras.js'
import { INTERNAL_ERROR, UNSUPPORTED_PROTOCOL_VERSION, notificationText, resultText } from '../spec/jsonrpc.js'
import type { Logger } from '../spec/types.js'
import type { Session } from '../state/session-store.js'
import { refusalOf } from '../protocol/access-check.js'
import { modernCall, sessionCall, type Call, type Channel, type Transport } from '../protocol/call.js'
import { dispatch } from '../protocol/dispatch.js'
import { logNames, type Inbound, type InboundRequest } from '../protocol/inbound.js'
import type { Listens } from './listens.js'
import { errorText, invalidRequest, type StdioOutput } from './output.js'
import type { StdioSession } from './session.js'
import type { StdioSettings } from './settings.js'

/** A request running here, until its answer is written. */
interface Running {
  /** Made when the handler first reads `ctx.signal`. */
  controller: AbortController | undefined
  /** The client cancelled it: nothing more goes out for it. */
  cancelled: boolean
  /** Why, for a signal first read after the cancel. */
  reason: string | undefined
}

const noSession = invalidRequest('no session. A 2025 client sends initialize first (over stdio the process holds one ' +
  'session); a 2026-07-28 client sends params._meta with "io.modelcontextprotocol/protocolVersion"')

export class Requests {
  /** By request id (JSON). */
  private readonly running = new Map<string, Running>()
  /** Why the calls in flight were told to stop, once they were: a call that reads its signal later finds it aborted. */
  private stopped: string | undefined

  constructor (private readonly settings: StdioSettings, private readonly caller: string,
    private readonly output: StdioOutput, private readonly session: StdioSession, private readonly listens: Listens) {}

  /**
   * A request's answer (a JSON-RPC response's text), or undefined when none is due (a listen, a
   * cancelled call); logged once answered, as Fastify logs an HTTP request's completion.
   */
  async request (inbound: InboundRequest): Promise<string | undefined> {
    const started = performance.now()
    const answer = await this.answer(inbound)
    if (this.settings.logRequests) {
      // a listen answers only at its end: what is done now is its opening
      const what = answer === undefined && inbound.facts?.listens === true ? 'listen opened' : 'request completed'
      const facts = { mcp: logNames(inbound), mcpRequestId: inbound.id, answered: answer !== undefined }
      this.settings.log.info({ ...facts, responseTime: performance.now() - started }, `fastify-sake: stdio ${what}`)
    }
    return answer
  }

  /** Stops a request the client no longer wants: its signal aborts, and nothing more is sent for it; a listen ends. */
  cancel (requestId: unknown, reason: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    const key = JSON.stringify(requestId)
    this.listens.end(key)
    const entry = this.running.get(key)
    if (entry === undefined) return
    entry.cancelled = true
    entry.reason = typeof reason === 'string' ? `cancelled by the client: ${reason}` : 'cancelled by the client'
    entry.controller?.abort(new Error(entry.reason))
  }

  /**
   * The connection ends: every call still running is told to stop, and one that reads its signal
   * later finds it aborted.
   */
  stop (why: string): void {
    this.stopped = why
    for (const entry of this.running.values()) entry.controller?.abort(new Error(why))
  }

  private async answer (inbound: InboundRequest): Promise<string | undefined> {
    const key = JSON.stringify(inbound.id)
    // the id names the request a cancel stops and the response answers: a second one would run
    // twice what the client sent once (a retry), or take over the first one's cancel
    if (this.running.has(key) || this.listens.has(key)) {
      return errorText(inbound.id, invalidRequest(`request id ${key} is still in flight (an earlier request ` +
        'with this id has not finished); give each request an id of its own'))
    }
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
          call.transport.log.info({ subject: caller.subject, reason: refusal.reason, scopes: refusal.scopes },
            `fastify-sake: refused: ${refusal.message}`)
          throw refusal
        }
      }
      if (inbound.facts?.listens === true) return await this.listens.listen(call, () => entry.cancelled)
      const answer = resultText(call.id, await dispatch(this.settings.server, call))
      return entry.cancelled ? undefined : answer
    } catch (err) {
      return entry.cancelled ? undefined : errorText(inbound.id, this.protocolError(err))
    }
  }

  /** The call a request makes in its era, or the whole answer of one that needs no call (the handshake, a ping). */
  private async callOf (inbound: InboundRequest, entry: Running): Promise<Call | string> {
    if (inbound.era === 'modern') {
      if (inbound.metaRefusal !== undefined) throw inbound.metaRefusal
      const meta = inbound.meta!
      if (!isModernVersion(meta.protocolVersion)) {
        throw new ProtocolError(UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${meta.protocolVersion}`,
          400, { supported: SUPPORTED_VERSIONS, requested: meta.protocolVersion })
      }
      const call = modernCall(inbound, meta, this.transport(inbound, entry), this.settings.auth, undefined)
      return { ...call, channel: this.channel(entry, undefined) }
    }
    if (inbound.facts?.handshake === true) return await this.session.initialize(inbound)
    const known = this.session.known
    if (known === undefined) {
      // the one request a 2025 client may send before the handshake
      if (inbound.method === 'ping') return resultText(inbound.id, '{}')
      throw noSession
    }
    const session = await this.session.current(known)
    const call = sessionCall(session, inbound, this.transport(inbound, entry), this.settings.auth, undefined)
    // the channel is always open: a tasks/result relays its task's questions on it (`openStream`)
    const channel = this.channel(entry, session)
    return { ...call, channel, openStream: () => channel }
  }

  /**
   * The protocol core's view of stdio, for one call: no request object, a logger naming the method,
   * a signal the cancel aborts.
   */
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
        // a signal first read after the cancel or the stop is born aborted (aborting again does
        // nothing: the first reason stands)
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
    const notify = (method: string, params: Record<string, unknown>): boolean =>
      !entry.cancelled && this.output.notify(notificationText(method, params))
    if (session === undefined) return { notify }
    const { sessions, log } = this.settings
    const send = (message: string): boolean => !entry.cancelled && this.output.send(message)
    return {
      notify,
      request: async (method, params, options) =>
        await sessions.questions.send(session.id, send, method, params, options, { caller: this.caller, log })
    }
  }

  /** A failure as the JSON-RPC error that answers it; anything but a ProtocolError is our bug (logged, -32603). */
  private protocolError (err: unknown): ProtocolError {
    if (err instanceof ProtocolError) return err
    /* c8 ignore next 3 -- dispatch makes every failure a ProtocolError or an isError result; else it is our bug */
    this.settings.log.error({ err }, 'fastify-sake: unexpected error while answering a stdio request')
    return new ProtocolError(INTERNAL_ERROR, 'Internal error')
  }
}
