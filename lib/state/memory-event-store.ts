/**
 * The default event store: a Map of streams in least-recently-used order, each keeping its newest
 * `maxPerStream` events, the whole store at most `maxEvents` (the least recently written stream
 * loses its oldest events first), and a stream untouched for `idleTimeout` dropped.
 */
import type { EventStore, Replay, StoredEvent } from './event-store.js'

export interface MemoryEventStoreOptions {
  /** Most events kept per stream; older ones are dropped. */
  maxPerStream: number
  /** Most events kept in all; the least recently written stream gives up its oldest first. */
  maxEvents: number
  /** A stream not written or replayed for this many milliseconds is dropped. */
  idleTimeout: number
  /** Clock, for tests. */
  now?: () => number
}

interface Stream {
  next: number
  /** Sequence number of events[0]. */
  first: number
  events: StoredEvent[]
  lastSeen: number
}

export class MemoryEventStore implements EventStore {
  private readonly streams = new Map<string, Stream>()
  private readonly options: MemoryEventStoreOptions
  private readonly now: () => number
  private count = 0
  private timer: NodeJS.Timeout | undefined

  constructor (options: MemoryEventStoreOptions) {
    this.options = options
    this.now = options.now ?? Date.now
    this.timer = setInterval(() => this.sweep(), Math.max(1000, Math.min(options.idleTimeout / 2, 60_000)))
    this.timer.unref()
  }

  /** Events held in all. */
  get size (): number {
    return this.count
  }

  append (streamId: string, message: string): string {
    let stream = this.streams.get(streamId)
    if (stream === undefined) {
      stream = { next: 0, first: 0, events: [], lastSeen: 0 }
    } else {
      this.streams.delete(streamId) // re-inserted last: Map order is least recently used first
    }
    this.streams.set(streamId, stream)
    stream.lastSeen = this.now()
    const id = `${streamId}:${stream.next++}`
    stream.events.push({ id, message })
    this.count++
    if (stream.events.length > this.options.maxPerStream) this.drop(stream)
    while (this.count > this.options.maxEvents) {
      const [oldestId, oldest] = this.streams.entries().next().value as [string, Stream]
      this.drop(oldest)
      if (oldest.events.length === 0) this.streams.delete(oldestId)
    }
    return id
  }

  private drop (stream: Stream): void {
    stream.events.shift()
    stream.first++
    this.count--
  }

  replay (eventId: string): Replay | undefined {
    const colon = eventId.lastIndexOf(':')
    if (colon < 0) return undefined
    const streamId = eventId.slice(0, colon)
    const seq = Number(eventId.slice(colon + 1))
    const stream = this.streams.get(streamId)
    if (stream === undefined || !Number.isInteger(seq) || seq < 0 || seq >= stream.next) return undefined
    if (this.now() - stream.lastSeen > this.options.idleTimeout) {
      this.remove(streamId, stream)
      return undefined
    }
    stream.lastSeen = this.now()
    this.streams.delete(streamId)
    this.streams.set(streamId, stream)
    return { streamId, events: stream.events.slice(Math.max(0, seq + 1 - stream.first)) }
  }

  private remove (streamId: string, stream: Stream): void {
    this.streams.delete(streamId)
    this.count -= stream.events.length
  }

  /** Drops every stream idle for longer than the timeout. */
  sweep (): void {
    const limit = this.now() - this.options.idleTimeout
    for (const [id, stream] of this.streams) {
      if (stream.lastSeen >= limit) break
      this.remove(id, stream)
    }
  }

  close (): void {
    clearInterval(this.timer)
    this.timer = undefined
    this.streams.clear()
    this.count = 0
  }
}
