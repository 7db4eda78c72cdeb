/**
 * `app.mcp`: the read-only view of one MCP server on the Fastify instance. Its maps are live
 * windows on the registry, giving each item as clients see it; its functions tell subscribed
 * clients about changes.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { ServerInfo } from './spec/types.js'
import type { Registry, SkillChanges } from './define/registry.js'
import { LIST_NAMES, type Bus, type ListName } from './state/bus.js'
import { scopeList } from './auth/scopes.js'
import type { ListedInfo, McpView, ToolInfo } from './api.js'
import type { Shutdown } from './http/shutdown.js'

/** A live, read-only window on one of the registry's maps, giving each entry's wire object. */
export class WireView implements ReadonlyMap<string, ListedInfo> {
  constructor (private readonly map: ReadonlyMap<string, { readonly wire: { readonly modern: Record<string, unknown> } }>) {}
  get size (): number { return this.map.size }
  get (key: string): ListedInfo | undefined { return this.map.get(key)?.wire.modern as ListedInfo | undefined }
  has (key: string): boolean { return this.map.has(key) }
  * entries (): MapIterator<[string, ListedInfo]> { for (const [key, item] of this.map) yield [key, item.wire.modern as ListedInfo] }
  keys (): MapIterator<string> { return this.map.keys() }
  * values (): MapIterator<ListedInfo> { for (const item of this.map.values()) yield item.wire.modern as ListedInfo }
  forEach (fn: (value: ListedInfo, key: string, map: ReadonlyMap<string, ListedInfo>) => void): void { for (const [k, v] of this.entries()) fn(v, k, this) }
  [Symbol.iterator] (): MapIterator<[string, ListedInfo]> { return this.entries() }
}

/** A live, read-only window on the skills, giving each one's entry (`skills/list`). */
class EntryView implements ReadonlyMap<string, Readonly<Record<string, unknown>>> {
  constructor (private readonly map: ReadonlyMap<string, { readonly entry: Readonly<Record<string, unknown>> }>) {}
  get size (): number { return this.map.size }
  get (key: string): Readonly<Record<string, unknown>> | undefined { return this.map.get(key)?.entry }
  has (key: string): boolean { return this.map.has(key) }
  * entries (): MapIterator<[string, Readonly<Record<string, unknown>>]> { for (const [key, item] of this.map) yield [key, item.entry] }
  keys (): MapIterator<string> { return this.map.keys() }
  * values (): MapIterator<Readonly<Record<string, unknown>>> { for (const item of this.map.values()) yield item.entry }
  forEach (fn: (value: Readonly<Record<string, unknown>>, key: string, map: ReadonlyMap<string, Readonly<Record<string, unknown>>>) => void): void { for (const [k, v] of this.entries()) fn(v, k, this) }
  [Symbol.iterator] (): MapIterator<[string, Readonly<Record<string, unknown>>]> { return this.entries() }
}

export interface McpViewOptions {
  readonly info: ServerInfo
  readonly path: string
  readonly registry: Registry
  readonly bus: Bus
  readonly scopes: ReadonlyMap<string, string>
  /** The endpoint's draining and closing, for the readiness signal. */
  readonly shutdown: Shutdown
  /** The serialised lists, built again when the skills change. */
  readonly lists: { build (): void }
  /** Starts a stdio connection (`app.mcp.stdio`), made by the plugin, which holds the app. */
  readonly stdio: McpView['stdio']
}

/** The longest `app.mcp.drain` delay, in ms (ten minutes): longer is a mistake, not a drain. */
const MAX_DRAIN_DELAY = 600_000

/** The frozen `app.mcp` object. */
export function mcpView (options: McpViewOptions): McpView {
  const { info, path, registry, bus, scopes, shutdown, lists, stdio } = options
  return Object.freeze({
    info,
    path,
    tools: new WireView(registry.tools) as ReadonlyMap<string, ToolInfo>,
    resources: new WireView(registry.resources),
    templates: new WireView(registry.templates),
    prompts: new WireView(registry.prompts),
    skills: new EntryView(registry.skills),
    async listChanged (list: ListName): Promise<void> {
      if (!LIST_NAMES.includes(list)) throw new TypeError(`fastify-sake: app.mcp.listChanged takes 'tools', 'resources' or 'prompts', got ${JSON.stringify(list)}`)
      await bus.publish({ type: 'listChanged', list })
    },
    async resourceUpdated (uri: string): Promise<void> {
      if (typeof uri !== 'string' || uri.length === 0) throw new TypeError(`fastify-sake: app.mcp.resourceUpdated takes the resource's URI, a non-empty string, got ${JSON.stringify(uri)}`)
      await bus.publish({ type: 'resourceUpdated', uri })
    },
    scopes: () => scopeList(registry, scopes),
    async reloadSkills (): Promise<SkillChanges> {
      const changes = registry.reloadSkills()
      if (changes.added.length + changes.removed.length + changes.changed.length === 0) return changes
      // before the server is ready the lists are built at onReady, and nobody is listening yet
      if (registry.sealed) {
        lists.build()
        await bus.publish({ type: 'listChanged', list: 'resources' })
      }
      return changes
    },
    get draining (): boolean {
      return shutdown.draining
    },
    async drain (delay = 0): Promise<void> {
      if (!Number.isInteger(delay) || delay < 0 || delay > MAX_DRAIN_DELAY) {
        throw new TypeError(`fastify-sake: app.mcp.drain takes a delay in milliseconds, an integer from 0 to ${MAX_DRAIN_DELAY}, got ${JSON.stringify(delay)}`)
      }
      shutdown.draining = true
      if (delay > 0) await sleep(delay)
    },
    stdio
  })
}
