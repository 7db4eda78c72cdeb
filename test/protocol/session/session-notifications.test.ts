// What a 2025 session hears outside its calls: list changes, its own notifications, updates of
// what it subscribed to (read from the store), nothing else.
import t from 'tap'
import { MemorySessionStore } from '../../../lib/state/memory-session-store.js'
import type { SessionStore } from '../../../lib/state/session-store.js'
import { toSession } from '../../../lib/protocol/session/session-notifications.js'
import type { Logger } from '../../../lib/spec/types.js'
import { quiet } from '../../helpers/logs.js'

const flush = async (): Promise<void> => await new Promise((resolve) => setImmediate(resolve))

t.test('list changes, its own notifications, subscribed updates; others\' and unsubscribed ones not', async (t) => {
  const store = new MemorySessionStore({ idleTimeout: 60_000, maxSessions: 10 })
  await store.create({ id: 's', protocolVersion: '2025-11-25', client: { info: undefined, capabilities: {} }, initialized: true, createdAt: 0, subscriptions: ['a://x'] })
  const pushed: string[] = []
  const push = (message: string): void => { pushed.push(message) }
  toSession('s', { type: 'listChanged', list: 'prompts' }, store, push, quiet)
  toSession('s', { type: 'sessionNotification', sessionId: 's', message: 'mine' }, store, push, quiet)
  toSession('s', { type: 'sessionNotification', sessionId: 'other', message: 'theirs' }, store, push, quiet)
  toSession('s', { type: 'resourceUpdated', uri: 'a://x' }, store, push, quiet)
  toSession('s', { type: 'resourceUpdated', uri: 'a://y' }, store, push, quiet)
  toSession('s', { type: 'taskStatus', taskId: 't' }, store, push, quiet)
  await flush()
  t.same(pushed, ['{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}', 'mine', '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a://x"}}'])
})

t.test('a store that fails while reading the subscriptions is logged', async (t) => {
  const errors: unknown[] = []
  const log: Logger = { child: () => log, error: (obj) => { errors.push(obj) }, warn: () => {}, info: () => {}, debug: () => {} }
  const failing = { get: async () => { throw new Error('down') } } as unknown as SessionStore
  toSession('s', { type: 'resourceUpdated', uri: 'a://x' }, failing, () => {}, log)
  await flush()
  t.match(errors, [{ err: { message: 'down' } }])
})
