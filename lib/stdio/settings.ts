/** What one stdio connection serves, and where it writes (`transport.ts` fills in the streams' part). */
import type { AuthInfo, Logger } from '../spec/types.js'
import type { Bus } from '../state/bus.js'
import type { Quota } from '../state/quota.js'
import type { ServerContext } from '../protocol/server.js'
import type { Sessions } from '../protocol/session/sessions.js'

export interface StdioSettings {
  readonly server: ServerContext
  /** The 2025 session protocol (the handshake, the session in its store, questions to the client). */
  readonly sessions: Sessions
  readonly bus: Bus
  /** Writes one line (a message and its `\n`) to the client; false once it cannot. */
  readonly write: (line: string) => boolean
  /** What the output holds unsent (its `writableLength`): the client reads slower than we write. */
  readonly buffered: () => number
  /**
   * Above that many bytes unsent, notifications are dropped until the output drains
   * (`streams.maxBuffered`).
   */
  readonly maxBuffered: number
  /** The server's logger (stderr: `stdout.ts`); each call logs through a child naming its method. */
  readonly log: Logger
  /** The caller every message is checked against; undefined: no checks (the process owner calls). */
  readonly auth: AuthInfo | undefined
  /** Whether each request's completion is logged (Fastify's `disableRequestLogging` turns it off). */
  readonly logRequests: boolean
  /** The longest line, in bytes (the plugin's `bodyLimit`). */
  readonly lineLimit: number
  /** How long calls in flight may take to answer when the connection closes, in ms. */
  readonly closeTimeout: number
  /**
   * The open streams each caller holds (a 2026-07-28 listen is one), shared with the server's HTTP
   * streams.
   */
  readonly streams: Quota
  /** Most messages in one batch (`maxBatchItems`). */
  readonly maxBatchItems: number
}
