/**
 * The default bus: a set of listeners in this process. Every open stream is a listener, and handing
 * one event to 10,000 streams in one go held the event loop for a quarter of a second and more (a
 * stream's write is a few µs in the listener, then 20 to 40 µs more when Node writes the chunk to
 * the socket, in `process.nextTick`, before the event loop turns). The events every stream writes
 * (a list changed, a resource updated) therefore go out in slices of at most `SLICE_LISTENERS`
 * listeners and `SLICE_MS`, with a turn of the event loop (`setImmediate`) between two: requests,
 * timers and other sockets go on meanwhile. They reach every listener in the order they were
 * published (one published while an earlier one is still being delivered waits for it), a
 * listener that unsubscribed meanwhile is not called, and one that subscribed after the publish
 * does not hear it. A fan-out that fits in one slice (the common case: a few listeners) is
 * delivered within `publish`, as before: no extra tick. An event meant for one session, call or
 * task (an answer, a cancel, a task's change) reaches every listener at once: all but its own
 * return without writing, and it must not wait behind a fan-out (issue 40's review: behind the
 * slices of 10,000 streams, such events went out a few a second on a loaded server).
 */
import type { Bus, BusEvent, BusListener } from './bus.js'

/**
 * The most listeners one slice calls. Counted, not timed: what a listener's write costs the turn
 * mostly comes after the listener returns (Node writes a response's chunk to its socket in
 * `process.nextTick`), where no clock in the slice sees it. 64 streams at 30 to 50 µs each in all
 * make a turn of 2 to 3 ms (docs/architecture.md, "Streams").
 */
export const SLICE_LISTENERS = 64
/** The longest a slice calls listeners, in ms, for listeners slower than that (a listener already called finishes first). */
export const SLICE_MS = 4

/**
 * The events every stream writes (a list changed, a resource updated): handed out in slices. Any
 * other is meant for one session, call or task, and reaches every listener at once (`deliverNow`).
 */
const BROADCAST: ReadonlySet<BusEvent['type']> = new Set(['listChanged', 'resourceUpdated'])

/** What is left of the slice under way. */
interface Slice {
  readonly deadline: number
  /** Listeners it may still call. */
  room: number
}

interface Entry {
  readonly listener: BusListener
  /** Its place in subscription order: an event reaches the entries subscribed when it was published. */
  readonly seq: number
}

interface Delivery {
  readonly event: BusEvent
  /** The newest subscription when the event was published. */
  readonly last: number
  /** Where the delivery stands among the listeners, once begun (a Set's iterator follows deletions). */
  at: Iterator<Entry> | undefined
  /** The listener the last slice took from `at` but had no room to call. */
  held: Entry | undefined
  done: boolean
  /** What the first listener to throw threw (the others are still called). */
  failure: { readonly error: unknown } | undefined
  /** Settles the promise `publish` returned, for a delivery that did not finish within it. */
  settle: ((failure: Delivery['failure']) => void) | undefined
}

export class MemoryBus implements Bus {
  private readonly listeners = new Set<Entry>()
  private subscribed = 0
  /** Deliveries not finished, in publish order; the first is under way. */
  private readonly queue: Delivery[] = []
  private next: NodeJS.Immediate | undefined

  /** Listeners now subscribed (open streams), for tests and metrics. */
  get size (): number {
    return this.listeners.size
  }

  /**
   * Hands `event` to every listener subscribed now. Returns once it has, when that fits in one
   * slice (throwing what a listener threw, after the others got the event); otherwise returns a
   * promise that settles once it has (rejected with what a listener threw).
   */
  publish (event: BusEvent): void | Promise<void> {
    // what is meant for one session, call or task: every listener but its own returns at once, so
    // all of them take little time, and waiting behind a fan-out would delay an answer or a cancel
    if (!BROADCAST.has(event.type)) {
      this.deliverNow(event)
      return
    }
    const delivery: Delivery = { event, last: this.subscribed, at: undefined, held: undefined, done: false, failure: undefined, settle: undefined }
    this.queue.push(delivery)
    // nothing waits before it: delivered now, as far as one slice goes
    if (this.queue.length === 1) this.drain()
    if (delivery.done) {
      if (delivery.failure !== undefined) throw delivery.failure.error
      return
    }
    return new Promise((resolve, reject) => {
      delivery.settle = (failure) => { if (failure === undefined) resolve(); else reject(failure.error) }
    })
  }

  subscribe (listener: BusListener): () => void {
    // an entry per call, so the same function subscribed twice is two subscriptions
    const entry: Entry = { listener, seq: ++this.subscribed }
    this.listeners.add(entry)
    return () => { this.listeners.delete(entry) }
  }

  /** An event for one session, call or task, to every listener now; what a listener threw is thrown after the others had it. */
  private deliverNow (event: BusEvent): void {
    let failure: { readonly error: unknown } | undefined
    for (const entry of [...this.listeners]) {
      // a listener a previous one removed (its stream closed) is not called
      if (!this.listeners.has(entry)) continue
      try {
        entry.listener(event)
      } catch (error) {
        failure ??= { error }
      }
    }
    if (failure !== undefined) throw failure.error
  }

  /** Drops every listener; deliveries under way end (their promises resolve). */
  close (): void {
    this.listeners.clear()
    clearImmediate(this.next)
    this.next = undefined
    for (const delivery of this.queue.splice(0)) delivery.settle?.(undefined)
  }

  /** Delivers what waits, for one slice; what is left goes on after a turn of the event loop. */
  private readonly drain = (): void => {
    this.next = undefined
    const slice: Slice = { deadline: performance.now() + SLICE_MS, room: SLICE_LISTENERS }
    while (this.queue.length > 0) {
      const delivery = this.queue[0]!
      if (!this.deliver(delivery, slice)) {
        this.next = setImmediate(this.drain)
        return
      }
      // (a listener that closed the bus emptied the queue under it)
      if (this.queue[0] === delivery) this.queue.shift()
      delivery.done = true
      delivery.settle?.(delivery.failure)
    }
  }

  /** Calls listeners with one event until they all had it (true) or the slice is over (false). */
  private deliver (delivery: Delivery, slice: Slice): boolean {
    const at = delivery.at ??= this.listeners.values()
    for (;;) {
      let entry = delivery.held
      if (entry === undefined) {
        const next = at.next()
        if (next.done === true) return true
        entry = next.value
      } else {
        delivery.held = undefined
        // it unsubscribed while it waited for the next slice
        if (!this.listeners.has(entry)) continue
      }
      // subscribed after the publish (entries iterate in subscription order): neither it nor any later one
      if (entry.seq > delivery.last) return true
      // the slice is over only when a listener is left for the next: all that fit in one go within publish
      if (slice.room === 0 || performance.now() >= slice.deadline) {
        delivery.held = entry
        return false
      }
      slice.room--
      try {
        entry.listener(delivery.event)
      } catch (error) {
        delivery.failure ??= { error }
      }
    }
  }
}
