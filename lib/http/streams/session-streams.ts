/**
 * A 2025 session's GET: its standalone stream (one per session), which carries list changes and
 * updates of the resources the session subscribed to; or, with `Last-Event-ID` (2025-11-25), the
 * resumption of a POST stream whose connection dropped.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProtocolError } from '../../errors.js'
import { rulesOf } from '../../spec/eras.js'
import { INVALID_REQUEST } from '../../spec/jsonrpc.js'
import type { Bus } from '../../state/bus.js'
import type { EventStore, Replay } from '../../state/event-store.js'
import type { Session, SessionStore } from '../../state/session-store.js'
import { toSession } from '../../protocol/session/session-notifications.js'
import { acceptable } from '../accept.js'
import { headerValue } from '../headers.js'
import { Outbox, type ResponseStream } from './outbox.js'
import { sendError } from '../respond.js'
import { callerOf } from '../caller.js'
import type { Quota } from '../../state/quota.js'
import { SseConnection, streamNotAcceptable, type SseOptions, type StreamName } from './sse.js'
import { LAST_EVENT_ID } from '../../spec/headers.js'

/** How often a stream running on another instance is read again from the event store, in ms. */
const FOLLOW_INTERVAL = 100

/** Whether an SSE message is a JSON-RPC response (the call's answer), not a request or a notification. */
function isResponse (message: string): boolean {
  const parsed = JSON.parse(message) as Record<string, unknown>
  return 'id' in parsed && !('method' in parsed)
}

const conflict = new ProtocolError(INVALID_REQUEST, 'Conflict: this session already has an open GET stream; close it before opening another', 409)

export class SessionStreams {
  /** Open GET streams, by session id. */
  private readonly standalone = new Map<string, { end (retryMs?: number): void }>()

  constructor (
    private readonly bus: Bus,
    private readonly events: EventStore,
    private readonly sessions: SessionStore,
    /** The resumable POST streams whose call runs here, by stream id (`CallStreams.live`). */
    private readonly live: ReadonlyMap<string, ResponseStream>,
    private readonly sse: SseOptions,
    /** The open streams each caller holds on this instance: a GET stream, or a resumption, is one. */
    private readonly quota: Quota
  ) {}

  /** A new connection, held against the caller's stream quota until it closes; throws the quota's error (429/503). */
  private connect (request: FastifyRequest, reply: FastifyReply, label: StreamName): SseConnection {
    const caller = callerOf(request)
    const refusal = this.quota.take(caller)
    if (refusal !== undefined) throw this.quota.refused(refusal, caller, request.log)
    let conn: SseConnection
    try {
      conn = new SseConnection(reply, this.sse, label)
    } catch (err) {
      this.quota.give(caller)
      throw err
    }
    conn.onClose(() => { this.quota.give(caller) })
    return conn
  }

  /** Resumes the stream `Last-Event-ID` names (2025-11-25), or opens the session's standalone stream (a second is 409). */
  async get (request: FastifyRequest, reply: FastifyReply, session: Session): Promise<FastifyReply> {
    // the spec's GET sends `Accept: text/event-stream`: here an absent header is no answer to it
    const accept = headerValue(request.headers, 'accept')
    if (accept === undefined || !acceptable(accept).eventStream) return sendError(reply, null, streamNotAcceptable)
    const canResume = rulesOf(session.protocolVersion).resumable
    const ownStream = `${session.id}/get`
    let missed: Replay | undefined
    const lastEventId = headerValue(request.headers, LAST_EVENT_ID)
    if (canResume && lastEventId !== undefined) {
      const replay = await this.events.replay(lastEventId)
      // an id of another session's stream is treated as unknown: never replay someone else's events
      if (replay !== undefined && replay.streamId.startsWith(`${session.id}/`)) {
        if (replay.streamId !== ownStream) return this.resume(this.connect(request, reply, { stream: 'get', streamId: replay.streamId }), reply, replay, lastEventId)
        missed = replay
      }
    }
    if (this.standalone.has(session.id)) return sendError(reply, null, conflict)
    const conn = this.connect(request, reply, { stream: 'get', streamId: canResume ? ownStream : undefined })
    const log = request.log
    const outbox = new Outbox(ownStream, canResume ? this.events : undefined, conn, log, this.sse.maxBuffered)
    for (const event of missed?.events ?? []) if (event.message !== '') conn.replay(event.message, event.id)
    if (canResume) outbox.push('')
    const unsubscribe = this.bus.subscribe((event) => { toSession(session.id, event, this.sessions, (message) => outbox.push(message, true), log) })
    this.standalone.set(session.id, {
      end: (retryMs) => {
        if (retryMs !== undefined) conn.retry(retryMs)
        conn.end()
      }
    })
    conn.onClose(() => {
      unsubscribe()
      this.standalone.delete(session.id)
    })
    return reply
  }

  /**
   * Replays a POST stream after `lastEventId` on this GET, then carries the rest of it: from the
   * call itself when it runs here, else by following the event store until the call's answer is in
   * it (the call runs on another instance of the fleet). Ending the stream before the answer would
   * not do: a client that resumes again may lose its place (the v1 SDK reconnects without
   * `Last-Event-ID` after a resumed stream that brought nothing).
   */
  private async resume (conn: SseConnection, reply: FastifyReply, replay: Replay, lastEventId: string): Promise<FastifyReply> {
    const sent = new Set<string>()
    let last = lastEventId
    let events = replay.events
    for (;;) {
      let answered = false
      for (const event of events) {
        if (event.message !== '') {
          conn.replay(event.message, event.id)
          answered ||= isResponse(event.message)
        }
        sent.add(event.id)
        last = event.id
      }
      if (answered || !conn.open) {
        conn.end() // the call's answer was in the replay
        return reply
      }
      const live = this.live.get(replay.streamId)
      if (live !== undefined) {
        // caught up (or the store has nothing newer): from here on, events come live
        if (events.length === 0 || live.lastId === last) {
          live.attach(conn, sent)
          return reply
        }
      } else {
        await sleep(FOLLOW_INTERVAL)
      }
      const next = await this.events.replay(last)
      if (next === undefined && live === undefined) {
        conn.end() // the stream expired, and its call does not run here: the client starts again
        return reply
      }
      // a store that forgot the stream of a call running here: what it still sends comes live
      events = next?.events ?? []
    }
  }

  /** Ends a session's GET stream (the session was deleted). */
  end (sessionId: string): void {
    this.standalone.get(sessionId)?.end()
  }

  /** Ends every GET stream, telling its client to reconnect after `retryMs` (the server is closing). */
  close (retryMs: number): void {
    for (const entry of [...this.standalone.values()]) entry.end(retryMs)
  }
}
