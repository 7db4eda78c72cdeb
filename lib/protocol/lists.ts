/**
 * The list results (`tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`),
 * serialised once when the server is ready, a page at a time and once for each era, and once for
 * clients with MCP Apps and once for the others when anything listed differs between them (UI
 * metadata, app-only tools, UI resources). With `auth.hideForbidden`, the pages a caller sees
 * depend on the declared scopes it holds: those are built on first use per set of held scopes, and
 * kept (a bounded number of sets).
 */
import type { Era } from '../spec/eras.js'
import type { AuthInfo } from '../spec/types.js'
import { allows, type Requirement } from '../define/requirement.js'
import type { Registry } from '../define/registry.js'

/** The paged lists: the tools, the fixed resources, the resource templates, the prompts, the skills. */
export type PagedList = 'tools' | 'resources' | 'resourceTemplates' | 'prompts' | 'skills'

export interface ListOptions {
  /** Ceiling of every page's `ttlMs`, in ms. */
  readonly ttl: number
  /** Items per page. */
  readonly pageSize: number
  /** `_meta` with serverInfo, on every modern page. */
  readonly serverInfoMeta: Readonly<Record<string, unknown>>
  /** Lists show each caller only what its scopes allow, as private results. */
  readonly hideForbidden: boolean
}

/** Sets of filtered pages kept at once (one per combination of held scopes seen). */
const MAX_FILTERED = 256

/**
 * The pages of one list: `cursors` opens page i; each page is serialised for an era the first time
 * it is asked for, and kept. Ten thousand tools are some 8 MB of JSON in two eras, most of it never
 * asked for in a process's life (a 2026-07-28-only fleet, a first page that lists enough): made at
 * first use, they cost neither the start-up nor the memory then (issue 41).
 */
class Pages {
  private readonly text: Record<Era, Array<string | undefined>>

  constructor (
    private readonly key: string,
    /** The items of each page, with the cursor of the next one (undefined on the last) and the page's ttl. */
    private readonly slices: ReadonlyArray<{ readonly items: readonly Listed[], readonly next: string | undefined, readonly ttlMs: number }>,
    private readonly cacheScope: string,
    private readonly serverInfoMeta: Readonly<Record<string, unknown>>,
    readonly cursors: ReadonlyMap<string, number>
  ) {
    this.text = { modern: new Array(slices.length), legacy: new Array(slices.length) }
  }

  page (era: Era, index: number): string {
    return (this.text[era][index] ??= this.serialise(era, index))
  }

  /** A modern page carries `ttlMs` and `cacheScope`; a legacy page the items alone. */
  private serialise (era: Era, index: number): string {
    const { items, next, ttlMs } = this.slices[index]!
    if (era === 'legacy') return JSON.stringify({ [this.key]: items.map((item) => item.wire.legacy), nextCursor: next })
    return JSON.stringify({
      resultType: 'complete',
      [this.key]: items.map((item) => item.wire.modern),
      nextCursor: next,
      ttlMs,
      cacheScope: this.cacheScope,
      _meta: this.serverInfoMeta
    })
  }
}

/** What a list page needs of an item: its wire object per era, its own ttl, what it demands. */
interface Listed {
  /** As a client with MCP Apps sees it. */
  readonly wire: Readonly<Record<Era, Record<string, unknown>>>
  /** As a client without MCP Apps sees it: null, not listed; undefined (or absent), the same as `wire`. */
  readonly withoutApps?: Readonly<Record<Era, Record<string, unknown>>> | null | undefined
  readonly ttl: number | undefined
  readonly access: Requirement | undefined
  /** A skill, or its `SKILL.md`: content, never listed to a caller its scope does not allow, `hideForbidden` or not. */
  readonly skill?: true | undefined
}

/** Every list's pages, for clients with MCP Apps (`apps`) and without (`plain`; the same object when nothing differs). */
interface Audiences {
  readonly apps: AllPages
  readonly plain: AllPages
}

/** Each list's key in its result, and the prefix that keeps one list's cursors from opening another's pages. */
const SHAPES: Record<PagedList, { readonly key: string, readonly prefix: string }> = {
  tools: { key: 'tools', prefix: 'page' },
  resources: { key: 'resources', prefix: 'resources' },
  resourceTemplates: { key: 'resourceTemplates', prefix: 'templates' },
  prompts: { key: 'prompts', prefix: 'prompts' },
  skills: { key: 'skills', prefix: 'skills' }
}

type AllPages = Record<PagedList, Pages>

export class ListPages {
  private readonly registry: Registry
  private readonly options: ListOptions
  private pages: Audiences | undefined
  /** With `hideForbidden`: the pages per set of held declared scopes, built on first use. */
  private readonly filtered = new Map<string, Audiences>()

  constructor (registry: Registry, options: ListOptions) {
    this.registry = registry
    this.options = options
  }

  /** Items per page, for the lists served live (`resources/directory/read`). */
  get pageSize (): number {
    return this.options.pageSize
  }

  /** Serialises every list; called once the registry is sealed (`onReady`). */
  build (): void {
    this.pages = this.paginate(undefined)
    // skills read again (`app.mcp.reloadSkills`): every filtered page is stale
    this.filtered.clear()
  }

  /**
   * The serialised page of a list for a cursor; undefined when the cursor is not ours. `apps`:
   * the client declared MCP Apps (`spec/apps.ts`).
   */
  page (list: PagedList, era: Era, cursor: string | undefined, auth?: AuthInfo, apps = false): string | undefined {
    // before the server is ready (a direct call, not a request) the pages are built on demand; a
    // skill is content, not an operation: a caller never sees one its scopes do not allow
    const filtered = auth !== undefined && (this.options.hideForbidden || ((list === 'skills' || list === 'resources') && this.registry.scopedSkills()))
    const audiences = filtered ? this.pagesFor(auth) : (this.pages ?? this.paginate(undefined))
    const pages = (apps ? audiences.apps : audiences.plain)[list]
    const index = cursor === undefined ? 0 : pages.cursors.get(cursor)
    return index === undefined ? undefined : pages.page(era, index)
  }

  /**
   * The pages a caller sees when lists hide what its scopes do not allow: keyed by the declared
   * scopes it holds (so callers with the same grants share them), `cacheScope: 'private'`.
   */
  private pagesFor (auth: AuthInfo): Audiences {
    const held = [...this.registry.scopes.keys()].filter((scope) => auth.scopes.includes(scope))
    const key = held.join(' ')
    const cached = this.filtered.get(key)
    if (cached !== undefined) return cached
    const pages = this.paginate(held)
    // before the server is ready the registry may still change: nothing is kept then
    if (this.registry.sealed) {
      if (this.filtered.size >= MAX_FILTERED) this.filtered.clear() // bounded: keys come from tokens
      this.filtered.set(key, pages)
    }
    return pages
  }

  /**
   * Tools and resources sorted by name and URI, prompts by name (deterministic, as the spec asks);
   * templates in registration order, the order `resources/read` tries them in. `held`: only what
   * those scopes allow, as private pages.
   */
  private paginate (held: readonly string[] | undefined): Audiences {
    const byKey = <T>(items: Iterable<T>, key: (item: T) => string): T[] => [...items].sort((a, b) => Number(key(a) > key(b)) - Number(key(a) < key(b)))
    const { tools, resources, templates, prompts, skills } = this.registry
    const lists: Record<PagedList, readonly Listed[]> = {
      tools: byKey(tools.values(), (t) => t.name),
      resources: byKey(resources.values(), (r) => r.key),
      resourceTemplates: [...templates.values()],
      prompts: byKey(prompts.values(), (p) => p.name),
      // an entry is the same in both eras; a skill's ttl is the server's
      skills: byKey(skills.values(), (s) => s.uri).map((s) => ({ wire: { modern: s.entry, legacy: s.entry }, ttl: undefined, access: s.access, skill: true as const }))
    }
    const apps = {} as AllPages
    const plain = {} as AllPages
    for (const list of Object.keys(SHAPES) as PagedList[]) {
      const items = held === undefined ? lists[list] : lists[list].filter((item) => (!this.options.hideForbidden && item.skill !== true) || allows(item.access, held))
      // a cache keys a list on its method and cursor, not on the capabilities in _meta: a list
      // that differs with MCP Apps declared or not must not be shared between clients
      const differs = items.some((item) => item.withoutApps !== undefined)
      const cacheScope = held === undefined && !differs ? 'public' : 'private'
      apps[list] = this.paginateList(list, items, cacheScope)
      if (differs) {
        // what a client without MCP Apps sees: no UI metadata, no app-only tool, no UI resource
        const shown: Listed[] = []
        for (const item of items) {
          if (item.withoutApps === undefined) shown.push(item)
          else if (item.withoutApps !== null) shown.push({ ...item, wire: item.withoutApps })
        }
        plain[list] = this.paginateList(list, shown, cacheScope)
      } else {
        plain[list] = apps[list] // nothing differs: one set of pages, shared by both audiences
      }
    }
    return { apps, plain }
  }

  /**
   * Splits items into pages, serialised per era when first asked for: a page's `ttlMs` is the
   * shortest of the server's ttl and its items' ttls.
   */
  private paginateList (list: PagedList, items: readonly Listed[], cacheScope: string): Pages {
    const { key, prefix } = SHAPES[list]
    const { pageSize, ttl, serverInfoMeta } = this.options
    const cursors = new Map<string, number>()
    const cursor = (page: number): string => Buffer.from(`${prefix}:${page}`).toString('base64url')
    const count = Math.max(1, Math.ceil(items.length / pageSize))
    const slices = []
    for (let page = 0; page < count; page++) {
      const slice = items.slice(page * pageSize, (page + 1) * pageSize)
      if (page > 0) cursors.set(cursor(page), page)
      // a page is fresh for the shortest ttl among the server and the items on it
      const ttlMs = slice.reduce((min, item) => item.ttl === undefined ? min : Math.min(min, item.ttl), ttl)
      slices.push({ items: slice, next: page + 1 < count ? cursor(page + 1) : undefined, ttlMs })
    }
    return new Pages(key, slices, cacheScope, serverInfoMeta, cursors)
  }
}
