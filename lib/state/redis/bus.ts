/**
 * The bus over Redis pub/sub (`<prefix>bus`): an event reaches this instance's listeners through a
 * memory bus (at once, or in slices for a large fan-out), and every other instance through Redis; an instance ignores its own
 * messages when they come back. Pub/sub is at most once: an instance that is disconnected when an
 * event is published misses it (a stream then learns of a list change at its next request).
 */
import { randomUUID } from 'node:crypto'
import type { Logger } from '../../spec/types.js'
import type { Bus, BusEvent, BusListener } from '../bus.js'
import { MemoryBus } from '../memory-bus.js'
import type { RedisClient, RedisConnection } from './connection.js'

export class RedisBus implements Bus {
  /** This instance's listeners: the memory bus, which Redis feeds with the other instances' events. */
  private readonly local = new MemoryBus()
  private readonly origin = randomUUID()
  private readonly channel: string
  private readonly subscriber: RedisClient

  constructor (private readonly redis: RedisConnection, private readonly log: Logger) {
    this.channel = `${redis.prefix}bus`
    this.subscriber = redis.subscriber(log)
    this.subscriber.on('message', (_channel: string, text: string) => { this.received(text) })
    // on every connection, the first and each after Redis came back (a new connection starts
    // unsubscribed); not awaited: the server starts while Redis is away. The connection is
    // made on a later turn, so this listener is there for its first `ready`.
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).catch((err: unknown) => log.warn({ err }, 'fastify-sake: the bus could not subscribe to Redis (it will again once Redis is back)'))
    })
  }

  /** Listeners now subscribed (open streams), for tests and metrics. */
  get size (): number {
    return this.local.size
  }

  async publish (event: BusEvent): Promise<void> {
    // this instance's listeners first (at once, unless a large fan-out goes on in slices), the others through Redis
    await Promise.all([this.local.publish(event), this.redis.command('bus', 'PUBLISH', this.channel, JSON.stringify({ o: this.origin, e: event }))])
  }

  subscribe (listener: BusListener): () => void {
    return this.local.subscribe(listener)
  }

  close (): void {
    this.local.close()
  }

  /** A message on the bus channel (the only one the subscriber is subscribed to). */
  private received (text: string): void {
    let message: { o: string, e: BusEvent }
    try {
      message = JSON.parse(text)
    } catch (err) {
      this.log.warn({ err }, 'fastify-sake: a message on the Redis bus channel is not ours (not JSON); ignored')
      return
    }
    if (message.o === this.origin) return
    try {
      this.local.publish(message.e)?.catch((err: unknown) => this.threw(err))
    } catch (err) {
      this.threw(err)
    }
  }

  /** A listener broke the bus's contract (it threw): logged, since nobody here awaits another instance's event. */
  private threw (err: unknown): void {
    this.log.error({ err }, 'fastify-sake: a bus listener threw while handed another instance\'s event')
  }
}
