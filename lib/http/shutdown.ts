/**
 * How one endpoint stops for a rolling deploy (issue 29, item 3). Before the close, `drain` turns
 * the readiness signal off (`app.mcp.draining`), so that a gateway's health check stops sending new
 * requests while the instance still serves the ones that come. At `app.close()`:
 *
 * - a new MCP request is refused with `ShuttingDownError` (503, `Retry-After`) before anything runs;
 * - calls in flight get `closeTimeout` ms to finish; then their `ctx.signal` aborts, so that each
 *   answers (an error saying the server closed) instead of holding the close;
 * - the open streams are handed over or ended (`streams/`), and tasks finish or fail (`Tasks.close`).
 *
 * The hot path pays one boolean check, and a call that never reads `ctx.signal` nothing more.
 */
import { ShuttingDownError } from '../errors.js'
import type { Logger } from '../spec/types.js'

/** Why a call still running at the end of `closeTimeout` was told to stop. */
export const CLOSED_UNDER_CALL = 'the server closed before the call finished'

export class Shutdown {
  /** Set by `drain` or the close: a readiness check should route no new traffic here. */
  draining = false
  /** Set when `app.close()` begins: new MCP requests are refused. */
  closing = false
  /** What refuses them; its `Retry-After` is the client's `retry:` after a handed-over stream, in seconds. */
  readonly refusal: ShuttingDownError
  /** The answers of calls in flight (async handlers only: a sync one is answered within its turn). */
  private readonly running = new Set<Promise<unknown>>()
  /** The signals of calls in flight that a handler read (`ctx.signal`): aborted at the bound. */
  private readonly signals = new Set<AbortController>()
  /** The bound once begun (`begin`). */
  private settling: Promise<void> | undefined

  constructor (readonly retryMs: number) {
    this.refusal = new ShuttingDownError(Math.ceil(retryMs / 1000))
  }

  /** Counts an async answer as in flight until it settles. */
  track<T> (answer: Promise<T>): Promise<T> {
    this.running.add(answer)
    const done = (): void => { this.running.delete(answer) }
    answer.then(done, done)
    return answer
  }

  /** Watches a call's signal, to abort it if the call outlives the bound; returns what stops watching. */
  watch (controller: AbortController): () => void {
    this.signals.add(controller)
    return () => { this.signals.delete(controller) }
  }

  /** How many calls are in flight. */
  get inFlight (): number {
    return this.running.size
  }

  /**
   * Starts the bound: once `timeout` ms have passed, the signals of the calls still running are
   * aborted (a handler that honours `ctx.signal` answers at once) and how many there were is
   * logged. Not awaited by the close's first steps (the host's own preClose hooks run meanwhile,
   * and Fastify's server.close() waits for the requests in flight); `settled` waits for it.
   */
  begin (timeout: number, log: Logger): void {
    this.settling ??= this.settle(timeout, log)
  }

  /** Settles once no call is in flight, or the bound has passed (at once when `begin` was not called). */
  get settled (): Promise<void> {
    return this.settling ?? Promise.resolve()
  }

  private async settle (timeout: number, log: Logger): Promise<void> {
    if (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined
      const bound = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeout) })
      await Promise.race([Promise.allSettled(this.running), bound])
      clearTimeout(timer)
    }
    if (this.running.size === 0) return
    log.warn({ calls: this.running.size }, `fastify-sake: ${this.running.size} call(s) still running after closeTimeout (${timeout} ms); their ctx.signal is aborted, and a handler that ignores it holds app.close()`)
    for (const controller of [...this.signals]) controller.abort(new Error(CLOSED_UNDER_CALL))
  }
}
