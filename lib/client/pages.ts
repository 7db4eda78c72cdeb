/**
 * The client's cache (lists, `server/discover`, `resources/read` and `skills/get` results, each for
 * its `ttlMs`), and paged requests gathered page after page.
 */
import { HttpError } from './errors.js'
import type { ListOptions, RequestOptions } from './request-options.js'
import type { Message, Send, Wire } from './wire.js'

interface Cached { value: Message, expires: number, scope: unknown, token: string | undefined }

export class Cache {
  readonly #entries = new Map<string, Cached>()

  /** `wire`: whose bearer token a `private` value is kept for. */
  constructor (private readonly wire: Wire) {}

  /**
   * A cached value (method and the params that shape it as key): fresh for its `ttlMs` after it
   * arrived; a `private` one only for the token it was fetched with. `keep` says whether this
   * value may be kept at all (a multi round-trip result may not).
   */
  async get<T extends Message> (
    key: string, options: ListOptions, load: () => Promise<T>, keep = () => true
  ): Promise<T> {
    const token = await this.wire.token()
    const hit = this.#entries.get(key)
    const fresh = hit !== undefined && hit.expires > Date.now() && (hit.scope !== 'private' || hit.token === token)
    // a key is only ever loaded by one request, whose result type its entry holds
    if (options.fresh !== true && fresh) return hit.value as T
    const value = await load()
    const ttl = value.ttlMs
    if (typeof ttl === 'number' && ttl > 0 && keep()) {
      this.#entries.set(key, { value, expires: Date.now() + ttl, scope: value.cacheScope, token })
    } else {
      this.#entries.delete(key)
    }
    return value
  }

  clear (): void {
    this.#entries.clear()
  }
}

/** Every page of a paged request, its items in `field` gathered, with the shortest `ttlMs` of the pages. */
export async function pages<T> (
  send: Send, method: string, params: Message, field: string, options: RequestOptions
): Promise<{ items: T[], ttlMs: number, cacheScope: unknown }> {
  const items: T[] = []
  let ttlMs = Infinity
  let cacheScope: unknown
  let cursor: unknown
  const seen = new Set<unknown>()
  do {
    const page = await send(method, cursor === undefined ? params : { ...params, cursor }, options)
    // the server's word for what its list holds, as the spec's schema writes it
    if (Array.isArray(page[field])) items.push(...page[field] as T[])
    ttlMs = Math.min(ttlMs, typeof page.ttlMs === 'number' ? page.ttlMs : 0)
    cacheScope ??= page.cacheScope
    seen.add(cursor)
    cursor = page.nextCursor
    // a server that hands back a cursor it gave before would page forever
    if (cursor !== undefined && seen.has(cursor)) {
      const twice = `${method}: the server returned the cursor ${JSON.stringify(cursor)} twice`
      throw new HttpError(200, twice, JSON.stringify(page))
    }
  } while (cursor !== undefined && cursor !== null)
  return { items, ttlMs, cacheScope }
}
