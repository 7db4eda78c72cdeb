/**
 * The open 2026-07-28 `subscriptions/listen`s: each is acknowledged, then open until the client
 * cancels it or the server closes, its notifications (tagged with its id) going out on the output.
 * Each one counts as an open stream of its caller (`streams.maxPerCaller`).
 */
import type { Call } from '../protocol/call.js'
import { listenFilter } from '../protocol/methods/subscriptions.js'
import { subscribe, type Subscription } from '../protocol/subscription.js'
import type { StdioOutput } from './output.js'
import type { StdioSettings } from './settings.js'

export class Listens {
  /** By request id (JSON). */
  private readonly open = new Map<string, Subscription>()
  /** Set once the connection began to end: no listen opens any more. */
  private ended = false

  constructor (private readonly settings: StdioSettings, private readonly caller: string,
    private readonly output: StdioOutput) {}

  /** Whether a listen with this request id (JSON) is open. */
  has (key: string): boolean {
    return this.open.has(key)
  }

  /**
   * Opens a listen, unless its request was cancelled meanwhile. Refused when the caller holds as
   * many open streams as `streams.maxPerCaller` allows. The filter is checked before anything is
   * acknowledged (a bad one is the request's error); until the listen is open the request is
   * running, so its id stays taken.
   */
  async listen (call: Call, cancelled: () => boolean): Promise<undefined> {
    const { streams, server, bus } = this.settings
    const refusal = streams.take(this.caller)
    if (refusal !== undefined) throw streams.refused(refusal, this.caller, call.transport.log)
    let filter
    try {
      filter = await listenFilter(server, call)
    } catch (err) {
      streams.give(this.caller)
      throw err
    }
    if (cancelled() || this.ended) {
      streams.give(this.caller)
      return undefined
    }
    const notify = (text: string): void => { this.output.notify(text) }
    const listen = subscribe(bus, call.id, filter, server.tasks.store, notify, call.transport.log)
    this.open.set(JSON.stringify(call.id), listen)
    return undefined
  }

  /** Ends one open listen: no more notifications, and its stream no longer counted. */
  end (key: string): void {
    const listen = this.open.get(key)
    if (listen === undefined) return
    listen.stop()
    this.open.delete(key)
    this.settings.streams.give(this.caller)
  }

  /** Writes each open listen's final response (the server closes). */
  respond (): void {
    for (const subscription of this.open.values()) this.output.send(subscription.finalResponse())
  }

  /** The connection ends: every listen ends, and none opens any more. */
  endAll (): void {
    this.ended = true
    for (const key of [...this.open.keys()]) this.end(key)
  }
}
