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
  readonly id: string
  next: number
  /** Sequence number of messages[0]. */
  first: number
  /**
   * The messages kept, oldest first; an event's id is its stream's and its number (`first` + its
   * place), made again on replay: an event costs the store no object and keeps no id string alive.
   */
  messages: string[]
  lastSeen: number
  /** Neighbours in least-recently-used order: `older` towards the oldest, `newer` towards the newest. */
  older: Stream | undefined
  newer: Stream | undefined
}

/**
 * Streams are found by id in a Map and kept in least-recently-used order in a linked list beside
 * it, so that the oldest is at hand: under load the store sits at `maxEvents` and evicts on every
 * append, and finding the oldest by iterating a Map that keeps losing its first entries gets
 * slower as the deleted entries pile up (bench/RESULTS.md).
 */
/** An event number as `append` writes it. */
const DECIMAL = /^(?:0|[1-9][0-9]*)$/

export class MemoryEventStore implements EventStore {
  private readonly streams = new Map<string, Stream>()
  private readonly options: MemoryEventStoreOptions
  private readonly now: () => number
  private count = 0
  /** The least and the most recently used stream. */
  private oldest: Stream | undefined
  private newest: Stream | undefined
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
      stream = { id: streamId, next: 0, first: 0, messages: [], lastSeen: 0, older: undefined, newer: undefined }
      this.streams.set(streamId, stream)
      this.link(stream)
    } else {
      this.touch(stream)
    }
    stream.lastSeen = this.now()
    const id = `${streamId}:${stream.next++}`
    stream.messages.push(message)
    this.count++
    if (stream.messages.length > this.options.maxPerStream) this.drop(stream)
    while (this.count > this.options.maxEvents) {
      const oldest = this.oldest!
      this.drop(oldest)
      if (oldest.messages.length === 0) this.remove(oldest)
    }
    return id
  }

  /** Puts a new stream last (the most recently used). */
  private link (stream: Stream): void {
    stream.older = this.newest
    stream.newer = undefined
    if (this.newest === undefined) this.oldest = stream
    else this.newest.newer = stream
    this.newest = stream
  }

  private unlink (stream: Stream): void {
    if (stream.older === undefined) this.oldest = stream.newer
    else stream.older.newer = stream.newer
    if (stream.newer === undefined) this.newest = stream.older
    else stream.newer.older = stream.older
  }

  /** Moves a stream last, unless it is already (a call appends to its own stream again and again). */
  private touch (stream: Stream): void {
    if (stream === this.newest) return
    this.unlink(stream)
    this.link(stream)
  }

  private drop (stream: Stream): void {
    stream.messages.shift()
    stream.first++
    this.count--
  }

  replay (eventId: string): Replay | undefined {
    const colon = eventId.lastIndexOf(':')
    if (colon < 0) return undefined
    const streamId = eventId.slice(0, colon)
    const digits = eventId.slice(colon + 1)
    // the number exactly as `append` wrote it (decimal, no sign, no padding): '', ' 0', '+0' or
    // '0x0' would all be 0 to Number(), aliases of an issued id
    const seq = DECIMAL.test(digits) ? Number(digits) : -1
    const stream = this.streams.get(streamId)
    if (stream === undefined || !Number.isInteger(seq) || seq < 0 || seq >= stream.next) return undefined
    if (this.now() - stream.lastSeen > this.options.idleTimeout) {
      this.remove(stream)
      return undefined
    }
    stream.lastSeen = this.now()
    this.touch(stream)
    const from = Math.max(0, seq + 1 - stream.first)
    const events: StoredEvent[] = []
    for (let i = from; i < stream.messages.length; i++) events.push({ id: `${streamId}:${stream.first + i}`, message: stream.messages[i]! })
    return { streamId, events }
  }

  private remove (stream: Stream): void {
    this.streams.delete(stream.id)
    this.unlink(stream)
    this.count -= stream.messages.length
  }

  /** Forgets a stream its client has read whole (see `EventStore.delete`). */
  delete (streamId: string): void {
    const stream = this.streams.get(streamId)
    if (stream !== undefined) this.remove(stream)
  }

  /** Drops every stream idle for longer than the timeout. */
  sweep (): void {
    const limit = this.now() - this.options.idleTimeout
    while (this.oldest !== undefined && this.oldest.lastSeen < limit) this.remove(this.oldest)
  }

  close (): void {
    clearInterval(this.timer)
    this.timer = undefined
    this.streams.clear()
    this.oldest = undefined
    this.newest = undefined
    this.count = 0
  }
}
