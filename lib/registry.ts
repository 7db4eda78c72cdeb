/**
 * The tools of one MCP server: kept in a Map for O(1) lookup on every call, frozen when the
 * server is ready, with each `tools/list` page serialised once for each era.
 */
import { SakeDuplicateToolError, SakeRegisterAfterReadyError } from './errors.js'
import { compileTool, type CompiledTool, type ToolDefinition } from './define/tool.js'
import { META_SERVER_INFO, type Era } from './protocol/eras.js'

export interface ServerInfo {
  name: string
  version: string
  title?: string
  description?: string
  websiteUrl?: string
  icons?: Array<{ src: string, mimeType?: string, sizes?: string[], theme?: 'light' | 'dark' }>
}

export interface RegistryOptions {
  info: ServerInfo
  /** Ceiling of every list page's `ttlMs`, in ms. */
  ttl: number
  /** Tools per `tools/list` page. */
  pageSize: number
}

/** The serialised pages of one list, per era; `cursors[i]` opens page i. */
interface Pages {
  readonly modern: readonly string[]
  readonly legacy: readonly string[]
  readonly cursors: ReadonlyMap<string, number>
}

function cursorOf (page: number): string {
  return Buffer.from(`page:${page}`).toString('base64url')
}

export class Registry {
  readonly tools = new Map<string, CompiledTool>()
  readonly options: RegistryOptions
  /** `_meta` with serverInfo, pre-serialised for modern results. */
  readonly serverInfoMeta: Record<string, unknown>
  private ready = false
  private toolPages: Pages | undefined

  constructor (options: RegistryOptions) {
    this.options = options
    this.serverInfoMeta = Object.freeze({ [META_SERVER_INFO]: options.info })
  }

  /** Checks, compiles and adds a tool; throws a `SakeError` on any mistake. */
  addTool (definition: ToolDefinition): CompiledTool {
    if (this.ready) throw new SakeRegisterAfterReadyError(`tool '${String(definition?.name)}'`)
    const tool = compileTool(definition)
    if (this.tools.has(tool.name)) throw new SakeDuplicateToolError(tool.name)
    this.tools.set(tool.name, tool)
    return tool
  }

  /** Freezes the registry and serialises the lists; called from `onReady`. */
  seal (): void {
    this.ready = true
    this.toolPages = this.paginate(this.sortedTools())
  }

  /** By name, in code-unit order: the spec asks for a deterministic order, and pages need one. */
  private sortedTools (): CompiledTool[] {
    return [...this.tools.values()].sort((a, b) => Number(a.name > b.name) - Number(a.name < b.name))
  }

  get sealed (): boolean {
    return this.ready
  }

  /** The serialised `tools/list` result for a cursor; undefined when the cursor is not ours. */
  toolsPage (era: Era, cursor: string | undefined): string | undefined {
    // before the server is ready (a direct call, not a request) the pages are built on demand
    const pages = this.toolPages ?? this.paginate(this.sortedTools())
    const index = cursor === undefined ? 0 : pages.cursors.get(cursor)
    return index === undefined ? undefined : pages[era][index]
  }

  private paginate (tools: CompiledTool[]): Pages {
    const { pageSize, ttl } = this.options
    const modern: string[] = []
    const legacy: string[] = []
    const cursors = new Map<string, number>()
    const count = Math.max(1, Math.ceil(tools.length / pageSize))
    for (let page = 0; page < count; page++) {
      const slice = tools.slice(page * pageSize, (page + 1) * pageSize)
      const next = page + 1 < count ? cursorOf(page + 1) : undefined
      if (page > 0) cursors.set(cursorOf(page), page)
      // a page is fresh for the shortest ttl among the server and the tools on it
      const ttlMs = slice.reduce((min, tool) => tool.ttl === undefined ? min : Math.min(min, tool.ttl), ttl)
      modern.push(JSON.stringify({
        resultType: 'complete',
        tools: slice.map((tool) => tool.wire.modern),
        nextCursor: next,
        ttlMs,
        cacheScope: 'public',
        _meta: this.serverInfoMeta
      }))
      legacy.push(JSON.stringify({ tools: slice.map((tool) => tool.wire.legacy), nextCursor: next }))
    }
    return { modern, legacy, cursors }
  }
}
