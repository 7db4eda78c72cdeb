/** The default bus: a set of listeners in this process. */
import type { Bus, BusEvent, BusListener } from './bus.js'

export class MemoryBus implements Bus {
  private readonly listeners = new Set<BusListener>()

  /** Listeners now subscribed (open streams), for tests and metrics. */
  get size (): number {
    return this.listeners.size
  }

  publish (event: BusEvent): void {
    // a copy: a listener may unsubscribe (its stream closed) while we iterate
    for (const listener of [...this.listeners]) listener(event)
  }

  subscribe (listener: BusListener): () => void {
    // a wrapper per call, so the same function subscribed twice is two subscriptions
    const entry: BusListener = (event) => listener(event)
    this.listeners.add(entry)
    return () => { this.listeners.delete(entry) }
  }

  close (): void {
    this.listeners.clear()
  }
}
