/**
 * What a 2025 session hears of the server's events outside its calls, whatever carries it (its GET
 * stream over HTTP, stdout over stdio): list changes always, updates of the resources it
 * subscribed to, and the notifications addressed to it (its tasks' status).
 */
import { notificationText } from '../../spec/jsonrpc.js'
import type { Logger } from '../../spec/types.js'
import type { BusEvent } from '../../state/bus.js'
import type { SessionStore } from '../../state/session-store.js'

/** Sends `push` the notification `event` makes for session `sessionId`, if any. */
export function toSession (sessionId: string, event: BusEvent, sessions: SessionStore, push: (message: string) => void, log: Logger): void {
  if (event.type === 'listChanged') {
    push(notificationText(`notifications/${event.list}/list_changed`))
    return
  }
  if (event.type === 'sessionNotification') {
    if (event.sessionId === sessionId) push(event.message)
    return
  }
  if (event.type !== 'resourceUpdated') return
  // subscriptions live in the session, which another instance may have changed: read it again
  Promise.resolve(sessions.get(sessionId)).then((session) => {
    if (session?.subscriptions?.includes(event.uri) === true) push(notificationText('notifications/resources/updated', { uri: event.uri }))
  }, (err: unknown) => log.error({ err }, 'fastify-sake: the session store failed while delivering a resource update'))
}
