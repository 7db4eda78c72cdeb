/**
 * 2026-07-28 `subscriptions/listen`: acknowledged at once, then open until either side closes it,
 * carrying the notifications its filter opted into (list changes, resource updates, and with the
 * tasks extension `notifications/tasks` for the caller's tasks), each tagged with the subscription
 * id; a final response ends it when the server closes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RequestId } from '../../spec/jsonrpc.js'
import type { Logger } from '../../spec/types.js'
import { notificationText } from '../../spec/jsonrpc.js'
import { META_SUBSCRIPTION_ID } from '../../spec/meta-keys.js'
import type { Bus } from '../../state/bus.js'
import type { Call } from '../../protocol/call.js'
import type { SubscriptionFilter } from '../../protocol/methods/subscriptions.js'
import type { TaskStore } from '../../state/task-store.js'
import { detailedTask } from '../../protocol/tasks/wire.js'
import { SseConnection, acceptsEventStream, streamNotAcceptable, type SseOptions } from './sse.js'

export class Listens {
  /** Open `subscriptions/listen` streams. */
  private readonly open = new Set<{ end (): void }>()

  constructor (private readonly bus: Bus, private readonly sse: SseOptions) {}

  /** `filter`: what the request asked and may have (`listenFilter`). `tasks`: where its tasks are read. */
  listen (request: FastifyRequest, reply: FastifyReply, call: Call, filter: SubscriptionFilter, tasks: TaskStore): FastifyReply {
    if (!acceptsEventStream(request.headers.accept)) throw streamNotAcceptable
    const conn = new SseConnection(reply, this.sse)
    const id: RequestId = call.id
    const meta = { [META_SUBSCRIPTION_ID]: id }
    conn.send(notificationText('notifications/subscriptions/acknowledged', { _meta: meta, notifications: filter }))
    const uris = new Set(filter.resourceSubscriptions)
    const taskUpdates = filter.taskIds === undefined ? undefined : new TaskUpdates(tasks, new Set(filter.taskIds), meta, (text) => conn.send(text), request.log)
    const unsubscribe = this.bus.subscribe((event) => {
      if (event.type === 'listChanged') {
        if (filter[`${event.list}ListChanged`] === true) conn.send(notificationText(`notifications/${event.list}/list_changed`, { _meta: meta }))
      } else if (event.type === 'resourceUpdated' && uris.has(event.uri)) {
        conn.send(notificationText('notifications/resources/updated', { _meta: meta, uri: event.uri }))
      } else if (event.type === 'taskStatus') {
        taskUpdates?.changed(event.taskId)
      }
    })
    // each task's state as it is now, so that a change just before the listen is not missed
    for (const taskId of filter.taskIds ?? []) taskUpdates!.changed(taskId)
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

/**
 * `notifications/tasks` of one listen: the state of each task it follows when it opens, then each
 * change of one, read from the store and sent as the task's `DetailedTask`, one read at a time so
 * that they go out in order, and never an older version after a newer one (two changes in a row
 * may be read as one: the newest).
 */
class TaskUpdates {
  private tail: Promise<void> = Promise.resolve()
  private readonly sent = new Map<string, number>()

  constructor (
    private readonly store: TaskStore,
    private readonly taskIds: ReadonlySet<string>,
    private readonly meta: Record<string, unknown>,
    private readonly send: (text: string) => void,
    private readonly log: Logger
  ) {}

  changed (taskId: string): void {
    if (!this.taskIds.has(taskId)) return
    this.tail = this.tail.then(async () => {
      const record = await this.store.get(taskId)
      if (record === undefined || record.version <= (this.sent.get(taskId) ?? -1)) return
      this.sent.set(taskId, record.version)
      this.send(notificationText('notifications/tasks', { ...detailedTask(record), _meta: this.meta }))
    }).catch((err: unknown) => this.log.error({ err }, 'fastify-sake: the task store failed while sending notifications/tasks'))
  }
}
