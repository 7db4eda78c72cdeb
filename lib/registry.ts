/**
 * The tools, resources and prompts of one MCP server: kept in Maps for O(1) lookup on every call,
 * frozen when the server is ready, with each list page serialised once for each era.
 */
import { SakeDuplicateToolError, SakeRegisterAfterReadyError } from './errors.js'
import { SakeDuplicatePromptError, SakeDuplicateResourceError } from './errors.js'
import { compileResource, type CompiledResource, type ResourceDefinition } from './define/resource.js'
import { compilePrompt, type CompiledPrompt, type PromptDefinition } from './define/prompt.js'
import { compileTool, type CompiledTool, type ToolDefinition } from './define/tool.js'
import { META_SERVER_INFO, type Era } from './protocol/eras.js'
import { SakePromptDefinitionError, SakeResourceDefinitionError, SakeToolDefinitionError } from './errors.js'
import { allows, requirementOf, type Requirement } from './auth/access.js'
import type { AuthInfo } from './protocol/auth-info.js'

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
  /** The declared scopes (`scopes` option), which `scope` on a definition must come from. */
  scopes?: ReadonlyMap<string, string>
  /** Lists show each caller only what its scopes allow (`auth.hideForbidden`), as private results. */
  hideForbidden?: boolean
  /** With auth on: the Protected Resource Metadata URL that challenges name. */
  metadataUrl?: string
}

/** Sets of filtered pages kept at once (one per combination of held scopes seen). */
const MAX_FILTERED = 256

/** The serialised pages of one list, per era; `cursors[i]` opens page i. */
interface Pages {
  readonly modern: readonly string[]
  readonly legacy: readonly string[]
  readonly cursors: ReadonlyMap<string, number>
}

/** The lists besides tools, by the key their items travel under. */
export type ListName = 'resources' | 'resourceTemplates' | 'prompts'

/** What a list page needs of an item: its wire object per era, and its own ttl. */
interface Listed {
  readonly wire: Readonly<Record<Era, Record<string, unknown>>>
  readonly ttl: number | undefined
}

/**
 * Splits items into pages serialised per era: a modern page carries `ttlMs` (the shortest of the
 * server's ttl and its items' ttls) and `cacheScope`; a legacy page the items alone. `prefix`
 * keeps one list's cursors from opening another's pages.
 */
function paginateList (key: string, prefix: string, items: readonly Listed[], pageSize: number, ttl: number, serverInfoMeta: Record<string, unknown>, cacheScope = 'public'): Pages {
  const modern: string[] = []
  const legacy: string[] = []
  const cursors = new Map<string, number>()
  const cursor = (page: number): string => Buffer.from(`${prefix}:${page}`).toString('base64url')
  const count = Math.max(1, Math.ceil(items.length / pageSize))
  for (let page = 0; page < count; page++) {
    const slice = items.slice(page * pageSize, (page + 1) * pageSize)
    const next = page + 1 < count ? cursor(page + 1) : undefined
    if (page > 0) cursors.set(cursor(page), page)
    // a page is fresh for the shortest ttl among the server and the items on it
    const ttlMs = slice.reduce((min, item) => item.ttl === undefined ? min : Math.min(min, item.ttl), ttl)
    modern.push(JSON.stringify({
      resultType: 'complete',
      [key]: slice.map((item) => item.wire.modern),
      nextCursor: next,
      ttlMs,
      cacheScope,
      _meta: serverInfoMeta
    }))
    legacy.push(JSON.stringify({ [key]: slice.map((item) => item.wire.legacy), nextCursor: next }))
  }
  return { modern, legacy, cursors }
}

export class Registry {
  readonly tools = new Map<string, CompiledTool>()
  /** Fixed resources by URI, and templates by template, each in registration order. */
  readonly resources = new Map<string, CompiledResource>()
  readonly templates = new Map<string, CompiledResource>()
  readonly prompts = new Map<string, CompiledPrompt>()
  readonly options: RegistryOptions
  /** `_meta` with serverInfo, pre-serialised for modern results. */
  readonly serverInfoMeta: Record<string, unknown>
  private ready = false
  private toolPages: Pages | undefined
  private listPages: Record<ListName, Pages> | undefined
  /** What each item demands of the caller (`scope`, `authentication`); items without a demand are absent. */
  readonly access = new Map<object, Requirement>()
  private readonly declared: ReadonlyMap<string, string>
  /** With `hideForbidden`: the pages per set of held declared scopes, built on first use. */
  private readonly filtered = new Map<string, Record<ListName | 'tools', Pages>>()

  /** While `all` runs: what was added, so that a failure takes it back. */
  private journal: Array<() => void> | undefined

  constructor (options: RegistryOptions) {
    this.options = options
    this.declared = options.scopes ?? new Map()
    this.serverInfoMeta = Object.freeze({ [META_SERVER_INFO]: options.info })
  }

  /**
   * Adds several definitions with `add`, all or none: when one fails, those before it are taken
   * back and the error goes on, so a registration that throws leaves the server as it was.
   */
  all<T> (definitions: readonly T[], add: (definition: T) => unknown): void {
    const journal: Array<() => void> = []
    this.journal = journal
    try {
      for (const definition of definitions) add(definition)
    } catch (err) {
      for (const undo of journal.reverse()) undo()
      throw err
    } finally {
      this.journal = undefined
    }
  }

  /** Sets `key` in `map`, noting how to undo it while `all` runs. */
  private keep<K, V> (map: Map<K, V>, key: K, value: V): void {
    map.set(key, value)
    this.journal?.push(() => { map.delete(key); this.access.delete(value as object) })
  }

  /** Checks, compiles and adds a tool; throws a `SakeError` on any mistake. */
  addTool (definition: ToolDefinition): CompiledTool {
    if (this.ready) throw new SakeRegisterAfterReadyError(`tool '${String(definition?.name)}'`)
    const tool = compileTool(definition)
    if (this.tools.has(tool.name)) throw new SakeDuplicateToolError(tool.name)
    this.require(tool, definition, (message) => { throw new SakeToolDefinitionError(`tool '${tool.name}': ${message}`) })
    this.keep(this.tools, tool.name, tool)
    return tool
  }

  /** Checks and adds a resource or resource template; throws a `SakeError` on any mistake. */
  addResource (definition: ResourceDefinition): CompiledResource {
    if (this.ready) throw new SakeRegisterAfterReadyError(`resource '${String(definition?.uri ?? definition?.uriTemplate ?? definition?.name)}'`)
    const resource = compileResource(definition)
    const map = resource.template === undefined ? this.resources : this.templates
    if (map.has(resource.key)) throw new SakeDuplicateResourceError(resource.key)
    const who = resource.template === undefined ? 'resource' : 'resource template'
    this.require(resource, definition, (message) => { throw new SakeResourceDefinitionError(`${who} '${resource.key}': ${message}`) })
    this.keep(map, resource.key, resource)
    return resource
  }

  /** Checks and adds a prompt; throws a `SakeError` on any mistake. */
  addPrompt (definition: PromptDefinition): CompiledPrompt {
    if (this.ready) throw new SakeRegisterAfterReadyError(`prompt '${String(definition?.name)}'`)
    const prompt = compilePrompt(definition)
    if (this.prompts.has(prompt.name)) throw new SakeDuplicatePromptError(prompt.name)
    this.require(prompt, definition, (message) => { throw new SakePromptDefinitionError(`prompt '${prompt.name}': ${message}`) })
    this.keep(this.prompts, prompt.name, prompt)
    return prompt
  }

  /** Records what an item demands of callers; before it is listed, so a bad `scope` leaves nothing behind. */
  private require (item: object, definition: object, fail: (message: string) => never): void {
    const requirement = requirementOf(definition as { scope?: unknown, authentication?: unknown }, this.declared, fail)
    if (requirement !== undefined) this.access.set(item, requirement)
  }

  /**
   * The pages a caller sees when lists hide what its scopes do not allow: keyed by the declared
   * scopes it holds (so callers with the same grants share them), `cacheScope: 'private'`.
   */
  private pagesFor (auth: AuthInfo): Record<ListName | 'tools', Pages> {
    const held = [...this.declared.keys()].filter((scope) => auth.scopes.includes(scope))
    const key = held.join(' ')
    const cached = this.filtered.get(key)
    if (cached !== undefined) return cached
    const { pageSize, ttl } = this.options
    const keep = <T extends object>(items: Iterable<T>): T[] => [...items].filter((item) => allows(this.access.get(item), held))
    const lists = this.sortedLists()
    const pages = {
      tools: paginateList('tools', 'page', keep(this.sortedTools()), pageSize, ttl, this.serverInfoMeta, 'private'),
      resources: paginateList('resources', 'resources', keep(lists.resources), pageSize, ttl, this.serverInfoMeta, 'private'),
      resourceTemplates: paginateList('resourceTemplates', 'templates', keep(lists.resourceTemplates), pageSize, ttl, this.serverInfoMeta, 'private'),
      prompts: paginateList('prompts', 'prompts', keep(lists.prompts), pageSize, ttl, this.serverInfoMeta, 'private')
    }
    // before the server is ready the registry may still change: nothing is kept then
    if (this.ready) {
      if (this.filtered.size >= MAX_FILTERED) this.filtered.clear() // bounded: keys come from tokens
      this.filtered.set(key, pages)
    }
    return pages
  }

  /** Whether this caller gets filtered pages. */
  private filters (auth: AuthInfo | undefined): auth is AuthInfo {
    return auth !== undefined && this.options.hideForbidden === true
  }

  /** The serialised page of `resources/list`, `resources/templates/list` or `prompts/list`; undefined for a cursor not ours. */
  listPage (list: ListName, era: Era, cursor: string | undefined, auth?: AuthInfo): string | undefined {
    const pages = (this.filters(auth) ? this.pagesFor(auth) : (this.listPages ?? this.paginateLists()))[list]
    const index = cursor === undefined ? 0 : pages.cursors.get(cursor)
    return index === undefined ? undefined : pages[era][index]
  }

  /**
   * Resources sorted by URI and prompts by name (deterministic, as the spec asks); templates in
   * registration order, the order `resources/read` tries them in.
   */
  private paginateLists (): Record<ListName, Pages> {
    const { pageSize, ttl } = this.options
    const lists = this.sortedLists()
    return {
      resources: paginateList('resources', 'resources', lists.resources, pageSize, ttl, this.serverInfoMeta),
      resourceTemplates: paginateList('resourceTemplates', 'templates', lists.resourceTemplates, pageSize, ttl, this.serverInfoMeta),
      prompts: paginateList('prompts', 'prompts', lists.prompts, pageSize, ttl, this.serverInfoMeta)
    }
  }

  private sortedLists (): { resources: CompiledResource[], resourceTemplates: CompiledResource[], prompts: CompiledPrompt[] } {
    const byKey = <T>(items: Iterable<T>, key: (item: T) => string): T[] => [...items].sort((a, b) => Number(key(a) > key(b)) - Number(key(a) < key(b)))
    return {
      resources: byKey(this.resources.values(), (r) => r.key),
      resourceTemplates: [...this.templates.values()],
      prompts: byKey(this.prompts.values(), (p) => p.name)
    }
  }

  /** Freezes the registry and serialises the lists; called from `onReady`. */
  seal (): void {
    this.ready = true
    this.toolPages = this.paginate(this.sortedTools())
    this.listPages = this.paginateLists()
  }

  /** By name, in code-unit order: the spec asks for a deterministic order, and pages need one. */
  private sortedTools (): CompiledTool[] {
    return [...this.tools.values()].sort((a, b) => Number(a.name > b.name) - Number(a.name < b.name))
  }

  get sealed (): boolean {
    return this.ready
  }

  /** The serialised `tools/list` result for a cursor; undefined when the cursor is not ours. */
  toolsPage (era: Era, cursor: string | undefined, auth?: AuthInfo): string | undefined {
    // before the server is ready (a direct call, not a request) the pages are built on demand
    const pages = this.filters(auth) ? this.pagesFor(auth).tools : (this.toolPages ?? this.paginate(this.sortedTools()))
    const index = cursor === undefined ? 0 : pages.cursors.get(cursor)
    return index === undefined ? undefined : pages[era][index]
  }

  private paginate (tools: CompiledTool[]): Pages {
    return paginateList('tools', 'page', tools, this.options.pageSize, this.options.ttl, this.serverInfoMeta)
  }
}
