/**
 * The notification bus: how "the tools list changed" or "this resource was updated" reaches every
 * open stream, whichever request (or instance) caused it. The default lives in memory; a networked
 * bus (Redis pub/sub) fits the same contract so that several instances share notifications.
 */
import type { ClientAnswer } from '../spec/types.js'

/** Which list changed. */
export type ListName = 'tools' | 'resources' | 'prompts'

/** What travels on the bus: plain JSON, so a networked bus can carry it as it is. */
export type BusEvent =
  | { readonly type: 'listChanged', readonly list: ListName }
  | { readonly type: 'resourceUpdated', readonly uri: string }
  /**
   * A 2025 client's response to a question this server asked (`elicitation/create` and the like),
   * POSTed to an instance that is not the one waiting for it: whichever instance holds the
   * question takes it.
   */
  | { readonly type: 'clientResponse', readonly sessionId: string, readonly id: string | number, readonly answer: ClientAnswer }
  /** A task changed (`protocol/tasks/lifecycle.ts`): whoever waits on it reads the store again. */
  | { readonly type: 'taskStatus', readonly taskId: string }
  /**
   * One JSON-RPC notification (its text) for a 2025 session's standalone GET stream, on whichever
   * instance holds it: a task's status change or its progress, when no `tasks/result` stream
   * waits on the task here.
   */
  | { readonly type: 'sessionNotification', readonly sessionId: string, readonly message: string }
  /** A 2025 session was deleted (DELETE on any instance): every instance ends its GET stream and its questions. */
  | { readonly type: 'sessionEnded', readonly sessionId: string }
  /** A 2025 session was changed (its log level, subscriptions, handshake): every other instance drops its copy (`session-cache.ts`). */
  | { readonly type: 'sessionChanged', readonly sessionId: string }
  /** `notifications/cancelled` for a 2025 request this instance is not running: whichever instance runs it stops it. */
  | { readonly type: 'cancelled', readonly sessionId: string, readonly requestId: string | number, readonly reason?: string | undefined }

export type BusListener = (event: BusEvent) => void

/**
 * - `publish` hands an event to every subscriber, on this instance and (for a networked bus) on
 *   the others, each subscriber getting one publisher's events in the order published; it may
 *   return a promise that settles once the event is sent (the memory bus: once a fan-out too large
 *   for one slice of the event loop reached every listener);
 * - `subscribe` registers a listener and returns the function that removes it; every open stream
 *   subscribes while it is open and unsubscribes when it closes, so a listener must never throw
 *   into the bus and the bus must not hold listeners beyond that call;
 * - `close` (optional) releases connections when the server closes.
 */
export interface Bus {
  publish (event: BusEvent): void | Promise<void>
  subscribe (listener: BusListener): () => void
  close? (): void | Promise<void>
}

export const BUS_METHODS = ['publish', 'subscribe'] as const
export const LIST_NAMES: readonly ListName[] = Object.freeze(['tools', 'resources', 'prompts'])
