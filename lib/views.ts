/** The read-only maps of `app.mcp`: live windows on the registry, giving each item as clients see it. */

/** An item as listed to clients: the modern wire object. */
export type Listed = Readonly<Record<string, unknown>> & { readonly name: string }

/** A live, read-only window on one of the registry's maps, giving each entry's wire object. */
export class WireView implements ReadonlyMap<string, Listed> {
  constructor (private readonly map: ReadonlyMap<string, { readonly wire: { readonly modern: Record<string, unknown> } }>) {}
  get size (): number { return this.map.size }
  get (key: string): Listed | undefined { return this.map.get(key)?.wire.modern as Listed | undefined }
  has (key: string): boolean { return this.map.has(key) }
  * entries (): MapIterator<[string, Listed]> { for (const [key, item] of this.map) yield [key, item.wire.modern as Listed] }
  keys (): MapIterator<string> { return this.map.keys() }
  * values (): MapIterator<Listed> { for (const item of this.map.values()) yield item.wire.modern as Listed }
  forEach (fn: (value: Listed, key: string, map: ReadonlyMap<string, Listed>) => void): void { for (const [k, v] of this.entries()) fn(v, k, this) }
  [Symbol.iterator] (): MapIterator<[string, Listed]> { return this.entries() }
}
