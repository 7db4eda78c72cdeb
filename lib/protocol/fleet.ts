/**
 * What the survivors of a fleet do for an instance that died (issue 29). Every `interval`, each
 * instance asks the liveness store for the instances that stopped beating; the one that gets a dead
 * instance (the store hands each to one asker) ends what it owned, once, with a clear outcome:
 *
 * - a task becomes `failed` with a -32603 error saying its instance stopped; its waiters (a
 *   `tasks/result`, a listen, the next `tasks/get`) see it as they see any change;
 * - a 2025-11-25 call's resumable stream gets the call's -32603 response as its last event: a client
 *   that resumes it through another instance (GET with `Last-Event-ID`) reads it and the stream ends.
 *
 * A task that ended meanwhile stays as it ended (the lifecycle's compare-and-set refuses to move a
 * terminal task), so nothing is ended twice.
 */
import { INTERNAL_ERROR, errorBody } from '../spec/jsonrpc.js'
import type { Logger } from '../spec/types.js'
import type { EventStore } from '../state/event-store.js'
import type { Liveness, Owned } from '../state/liveness.js'
import { ProtocolError } from '../errors.js'
import type { Tasks } from './tasks/lifecycle.js'

export const STOPPED = 'the instance running the call stopped'

export class Fleet {
  private timer: NodeJS.Timeout | undefined
  private sweeping: Promise<void> | undefined

  constructor (
    private readonly liveness: Liveness,
    private readonly tasks: Tasks,
    private readonly events: EventStore,
    private readonly log: Logger
  ) {}

  /** Takes over dead instances every `interval` ms, from now until `stop`. */
  start (interval: number): void {
    this.timer = setInterval(() => { this.sweeping ??= this.sweep().finally(() => { this.sweeping = undefined }) }, interval)
    this.timer.unref()
  }

  /** Takes over the instances that stopped beating, and ends what they owned; failures are logged. */
  async sweep (): Promise<void> {
    let taken
    try {
      taken = await this.liveness.takeOver()
    } catch (err) {
      this.log.warn({ err }, 'fastify-sake: the liveness store failed while looking for dead instances; trying again at the next heartbeat')
      return
    }
    for (const { instance, owned } of taken) {
      if (owned.length > 0) this.log.warn({ instance, owned: owned.length }, `fastify-sake: instance ${instance} stopped; ending what it was running`)
      let ended = true
      for (const item of owned) ended = await this.end(instance, item) && ended
      // a store that failed leaves the rest to the next survivor that asks, after the dead interval
      if (ended) await this.done(instance)
    }
  }

  /** Ends one thing a dead instance owned, then forgets it (so that a survivor taking over again skips it); false when a store failed. */
  private async end (instance: string, owned: Owned): Promise<boolean> {
    try {
      if (owned.kind === 'task') {
        await this.tasks.orphaned(owned.taskId, STOPPED)
      } else {
        const error = new ProtocolError(INTERNAL_ERROR, `Internal error: ${STOPPED}`, 500)
        await this.events.append(owned.streamId, JSON.stringify(errorBody(owned.requestId, error)))
      }
      await this.liveness.release(owned, instance)
      return true
    } catch (err) {
      this.log.error({ err, owned }, 'fastify-sake: a store failed while ending the work of a dead instance; another survivor tries again')
      return false
    }
  }

  private async done (instance: string): Promise<void> {
    try {
      await this.liveness.takenOver(instance)
    } catch (err) {
      this.log.warn({ err, instance }, 'fastify-sake: the liveness store failed while forgetting a dead instance taken over (harmless: what it owned was ended)')
    }
  }

  async stop (): Promise<void> {
    clearInterval(this.timer)
    await this.sweeping
  }
}
