/**
 * 2026-07-28 `subscriptions/listen` over HTTP: the listen itself (`protocol/subscription.ts`) on an
 * SSE stream, open until either side closes it; a final response ends it when the server closes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Bus } from '../../state/bus.js'
import type { Call } from '../../protocol/call.js'
import type { SubscriptionFilter } from '../../protocol/methods/subscriptions.js'
import { subscribe } from '../../protocol/subscription.js'
import type { TaskStore } from '../../state/task-store.js'
import type { Quota } from '../../state/quota.js'
import { acceptable } from '../accept.js'
import { callerOf } from '../caller.js'
import { headerValue } from '../headers.js'
import { SseConnection, streamNotAcceptable, type SseOptions } from './sse.js'

export class Listens {
  /** Open `subscriptions/listen` streams. */
  private readonly open = new Set<{ end (): void }>()

  /** `quota`: the open streams each caller holds on this instance, a listen among them. */
  constructor (private readonly bus: Bus, private readonly sse: SseOptions, private readonly quota: Quota) {}

  /**
   * `filter`: what the request asked and may have (`listenFilter`). `tasks`: where its tasks are
   * read. Refused (429/503) when the caller, or this instance, holds as many streams as it may.
   */
  listen (request: FastifyRequest, reply: FastifyReply, call: Call, filter: SubscriptionFilter, tasks: TaskStore): FastifyReply {
    if (!acceptable(headerValue(request.headers, 'accept')).eventStream) throw streamNotAcceptable
    const caller = callerOf(request)
    const refusal = this.quota.take(caller)
    if (refusal !== undefined) throw this.quota.refused(refusal, caller, request.log)
    let conn: SseConnection
    try {
      conn = new SseConnection(reply, this.sse, { stream: 'listen' })
    } catch (err) {
      this.quota.give(caller)
      throw err
    }
    const subscription = subscribe(this.bus, call.id, filter, tasks, (text) => conn.send(text), request.log)
    const entry = {
      end: () => {
        // a graceful end: the response to the listen request, then close
        conn.send(subscription.finalResponse())
        conn.end()
      }
    }
    this.open.add(entry)
    conn.onClose(() => {
      subscription.stop()
      this.open.delete(entry)
      this.quota.give(caller)
    })
    return reply
  }

  /** Ends every listen with its final response (the server is closing). */
  close (): void {
    for (const entry of [...this.open]) entry.end()
  }
}
