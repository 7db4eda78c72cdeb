/**
 * One 2026-07-28 `subscriptions/listen`, whatever carries it (an SSE stream over HTTP, stdout over
 * stdio): the acknowledgement, then the notifications its filter opted into (list changes,
 * resource updates, and with the tasks extension `notifications/tasks` for the caller's tasks),
 * each tagged with the subscription id; and the final response that ends it gracefully when the
 * server closes. The transport says where each message goes (`send`) and when the client is gone
 * (`stop`).
 */
import type { RequestId } from '../spec/jsonrpc.js'
import { notificationText } from '../spec/jsonrpc.js'
import { META_SUBSCRIPTION_ID } from '../spec/meta-keys.js'
import type { Logger } from '../spec/types.js'
import type { Bus } from '../state/bus.js'
import type { TaskStore } from '../state/task-store.js'
import type { SubscriptionFilter } from './methods/subscriptions.js'
import { detailedTask } from './tasks/wire.js'

export interface Subscription {
  /** The client is gone (its stream closed, or it cancelled the listen): nothing more is sent. */
  stop (): void
  /** The final response to the listen request, the server's graceful end; the transport then closes what carried it. */
  finalResponse (): string
}

/**
 * Opens a listen: sends its acknowledgement at once, then what `bus` brings that `filter` asks for.
 * `tasks`: where the tasks it follows are read.
 */
export function subscribe (bus: Bus, id: RequestId, filter: SubscriptionFilter, tasks: TaskStore, send: (text: string) => void, log: Logger): Subscription {
  const meta = { [META_SUBSCRIPTION_ID]: id }
  send(notificationText('notifications/subscriptions/acknowledged', { _meta: meta, notifications: filter }))
  const uris = new Set(filter.resourceSubscriptions)
  const taskUpdates = filter.taskIds === undefined ? undefined : new TaskUpdates(tasks, new Set(filter.taskIds), meta, send, log)
  const unsubscribe = bus.subscribe((event) => {
    if (event.type === 'listChanged') {
      if (filter[`${event.list}ListChanged`] === true) send(notificationText(`notifications/${event.list}/list_changed`, { _meta: meta }))
    } else if (event.type === 'resourceUpdated' && uris.has(event.uri)) {
      send(notificationText('notifications/resources/updated', { _meta: meta, uri: event.uri }))
    } else if (event.type === 'taskStatus') {
      taskUpdates?.changed(event.taskId)
    }
  })
  // each task's state as it is now, so that a change just before the listen is not missed
  for (const taskId of filter.taskIds ?? []) taskUpdates!.changed(taskId)
  return {
    stop: () => {
      unsubscribe()
      taskUpdates?.stop()
    },
    finalResponse: () => JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: meta } })
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
  private stopped = false

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
      // a read that finishes after the listen ended sends nothing
      if (this.stopped || record === undefined || record.version <= (this.sent.get(taskId) ?? -1)) return
      this.sent.set(taskId, record.version)
      this.send(notificationText('notifications/tasks', { ...detailedTask(record), _meta: this.meta }))
    }).catch((err: unknown) => this.log.error({ err }, 'fastify-sake: the task store failed while sending notifications/tasks'))
  }

  stop (): void {
    this.stopped = true
  }
}
