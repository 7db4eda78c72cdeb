/**
 * Where the events of resumable SSE streams (2025-11-25 sessions) are kept, so that a client whose
 * connection dropped can send GET with `Last-Event-ID` and receive, on that same stream, what it
 * missed. The default lives in memory and is bounded; a networked store fits the same contract.
 */

export interface StoredEvent {
  /** The SSE event id. */
  readonly id: string
  /** The JSON-RPC message, as JSON text; an empty string is a priming event (an id, no data). */
  readonly message: string
}

export interface Replay {
  /** The stream the event id belongs to. */
  readonly streamId: string
  /** The events stored after that id, oldest first. */
  readonly events: readonly StoredEvent[]
}

/**
 * - `append` stores one message at the end of a stream and returns its event id. The id must be
 *   unique across every stream of the server and must let `replay` find the stream again (the
 *   default is `<streamId>:<n>`). Stream ids are made by the server: `<sessionId>/<prefix><n>` for a
 *   POST response, `<sessionId>/get` for a session's GET stream. Appends to one stream arrive in
 *   order and one at a time.
 * - `replay` returns the stream an event id belongs to and the events after it, or undefined when
 *   the id is unknown or its stream expired.
 * - `delete` (optional) is called once the client has read a stream whole (its answer included):
 *   no `Last-Event-ID` will ask for it again, so its events may go at once instead of at the
 *   store's bounds. A store without it keeps them until they expire.
 * - `close` (optional) releases timers and connections when the server closes.
 *
 * Every method may return a value or a promise of one.
 */
export interface EventStore {
  append (streamId: string, message: string): string | Promise<string>
  replay (eventId: string): Replay | undefined | Promise<Replay | undefined>
  delete? (streamId: string): void | Promise<void>
  close? (): void | Promise<void>
}

export const EVENT_STORE_METHODS = ['append', 'replay'] as const
