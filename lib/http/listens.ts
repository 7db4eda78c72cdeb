/**
 * 2026-07-28 `subscriptions/listen`: acknowledged at once, then open until either side closes it,
 * carrying the notifications its filter opted into, each tagged with the subscription id; a final
 * response ends it when the server closes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RequestId } from '../spec/jsonrpc.js'
import { notificationText } from '../spec/jsonrpc.js'
import { META_SUBSCRIPTION_ID } from '../spec/meta-keys.js'
import type { Bus } from '../state/bus.js'
import type { Call } from '../protocol/call.js'
import { readFilter } from '../protocol/methods/subscriptions.js'
import { SseConnection, acceptsEventStream, streamNotAcceptable, type SseOptions } from './sse.js'

export class Listens {
  /** Open `subscriptions/listen` streams. */
  private readonly open = new Set<{ end (): void }>()

  constructor (private readonly bus: Bus, private readonly sse: SseOptions) {}

  listen (request: FastifyRequest, reply: FastifyReply, call: Call): FastifyReply {
    const filter = readFilter(call.params)
    if (!acceptsEventStream(request.headers.accept)) throw streamNotAcceptable
    const conn = new SseConnection(reply, this.sse)
    const id: RequestId = call.id
    const meta = { [META_SUBSCRIPTION_ID]: id }
    conn.send(notificationText('notifications/subscriptions/acknowledged', { _meta: meta, notifications: filter }))
    const uris = new Set(filter.resourceSubscriptions)
    const unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'listChanged') {
        if (filter[`${event.list}ListChanged`] === true) conn.send(notificationText(`notifications/${event.list}/list_changed`, { _meta: meta }))
      } else if (event.type === 'resourceUpdated' && uris.has(event.uri)) {
        conn.send(notificationText('notifications/resources/updated', { _meta: meta, uri: event.uri }))
      }
    })
    const entry = {
      end: () => {
        // a graceful end: the response to the listen request, then close
        conn.send(JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: meta } }))
        conn.end()
      }
    }
    this.open.add(entry)
    conn.onClose(() => {
      unsubscribe()
      this.open.delete(entry)
    })
    return reply
  }

  /** Ends every listen with its final response (the server is closing). */
  close (): void {
    for (const entry of [...this.open]) entry.end()
  }
}
