/**
 * The client itself: one endpoint, one era (decided on first use), and the MCP methods on them.
 * Each concern has its file: the transport, each request in its era's envelope and its answer read
 * (`wire.ts`); the era and the 2025 session (`handshake.ts`); the server's questions, answered from
 * `onInput` (`questions.ts`); the cache and the lists read page after page (`pages.ts`).
 */
import { RpcError, ServerCapabilityError, SkillVerificationError } from './errors.js'
import { HEADER_MISMATCH } from '../spec/jsonrpc.js'
import { SKILLS_EXTENSION } from '../spec/skills.js'
import type { HeaderParam } from '../define/header-params.js'
import { isObject } from '../values.js'
import { checkCallOptions } from './read-options.js'
import type { ResolvedOptions } from './client-options.js'
import { headerParamsOf, paramHeaders } from './tool-headers.js'
import { checkEntry, checkFileArguments, checkUriArgument, entryProblem, fileOf, verifiedFile } from './skills.js'
import { Handshake } from './handshake.js'
import { Cache, pages } from './pages.js'
import { Questions } from './questions.js'
import { Wire, type Send } from './wire.js'
import type { CallOptions, ListOptions, RequestOptions, ToolCallOptions } from './request-options.js'
import type {
  CallToolResult, CompleteRef, CompleteResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate,
  ServerDescription, Skill, SkillFile, Tool
} from './types.js'

/** A client of one MCP endpoint. Made by `createClient`. */
export class Client {
  readonly #wire: Wire
  readonly #cache: Cache
  readonly #handshake: Handshake
  readonly #questions: Questions
  /** A request in the era (the handshake's). */
  readonly #send: Send
  /** Each listed tool's mirrored arguments and task support, from the last `tools/list`; kept whatever the cache says. */
  readonly #tools = new Map<string, { params: readonly HeaderParam[], taskSupport: unknown }>()
  #listed = false

  /** @internal use `createClient` */
  constructor (options: ResolvedOptions) {
    // the server's questions arrive on the wire, and their answers leave on it: #questions is made after it
    this.#wire = new Wire(options, {
      answer: async (message, exchange) => { await this.#questions.answer(message, exchange) },
      unprompted: (message) => { void this.#questions.unprompted(message) }
    })
    this.#cache = new Cache(this.#wire)
    this.#handshake = new Handshake(options, this.#wire, this.#cache)
    this.#send = async (method, params, call, extras) => await this.#handshake.request(method, params, call, extras)
    this.#questions = new Questions(options, this.#wire, this.#send)
  }

  /** `'modern'` or `'legacy'` once the client has talked to the server; undefined before. */
  get era (): 'modern' | 'legacy' | undefined { return this.#wire.era }
  /** The protocol version in use (`2026-07-28`, or the one the 2025 session negotiated). */
  get protocolVersion (): string | undefined { return this.#wire.version }
  /** The 2025 session's `Mcp-Session-Id`, while one is open. */
  get sessionId (): string | undefined { return this.#wire.session }

  // -- the methods ------------------------------------------------------------------------------

  /** What the server says of itself: `server/discover` (2026-07-28, cached for its `ttlMs`), or the `initialize` result (2025). */
  async discover (options: ListOptions = {}): Promise<ServerDescription> {
    await this.#ready(options)
    return await this.#handshake.describe(options)
  }

  /** Every tool, through every page (cached for the pages' `ttlMs`). A tool with an invalid `x-mcp-header` is left out, as the spec asks. */
  async listTools (options: ListOptions = {}): Promise<Tool[]> {
    const tools = await this.#list<Tool>('tools/list', 'tools', options)
    this.#tools.clear()
    this.#listed = true
    const valid: Tool[] = []
    for (const tool of tools) {
      const params = headerParamsOf(tool)
      if (params === undefined) continue
      this.#tools.set(tool.name, { params, taskSupport: tool.execution?.taskSupport })
      valid.push(tool)
    }
    return valid
  }

  /**
   * Calls a tool. The `Mcp-Name` and `Mcp-Param-*` headers are the client's (from the tool's
   * `x-mcp-header`, listed once); the server's questions are answered from `onInput`. A tool that
   * fails answers `isError: true`: that is a result, not an error.
   */
  async callTool<S = unknown> (name: string, args: Record<string, unknown> = {}, options: ToolCallOptions = {}): Promise<CallToolResult<S>> {
    await this.#ready(options)
    if (!this.#listed) await this.listTools({ signal: options.signal } as ListOptions)
    const params: Record<string, unknown> = { name, arguments: args }
    const task = options.task === undefined || options.task === false ? undefined : options.task === true ? {} : options.task
    // a 2025 server refuses params.task on a tool without task support (-32601): asked only of those that have it
    const support = this.#tools.get(name)?.taskSupport
    if (task !== undefined && this.#wire.era === 'legacy' && (support === 'optional' || support === 'required')) {
      params.task = task.ttl === undefined ? {} : { ttl: task.ttl }
    }
    // a 2025 task's progress comes on its tools/call's token, which tasks/result then follows
    const token = params.task !== undefined && options.onProgress !== undefined ? this.#wire.freshToken() : undefined
    const extras = { tasks: task !== undefined, chosen: token === undefined ? undefined : { token, sent: true } }
    let retried = false
    for (;;) {
      try {
        const headers = paramHeaders(this.#tools.get(name)?.params ?? [], args)
        const result = await this.#questions.rounds('tools/call', params, options, { ...extras, headers })
        if (task === undefined) return result as CallToolResult<S>
        return await this.#questions.awaitTask(result, options, token) as CallToolResult<S>
      } catch (err) {
        // the spec's recovery from a header mismatch: list the tools again (the schema may have changed), retry once
        if (retried || !(err instanceof RpcError) || err.code !== HEADER_MISMATCH) throw err
        retried = true
        await this.listTools({ fresh: true })
      }
    }
  }

  /** Every resource, through every page (cached). */
  async listResources (options: ListOptions = {}): Promise<Resource[]> {
    return await this.#list<Resource>('resources/list', 'resources', options)
  }

  /** Every resource template, through every page (cached). */
  async listResourceTemplates (options: ListOptions = {}): Promise<ResourceTemplate[]> {
    return await this.#list<ResourceTemplate>('resources/templates/list', 'resourceTemplates', options)
  }

  /** Reads a resource (cached for its `ttlMs` when it took no questions). */
  async readResource (uri: string, options: CallOptions & { fresh?: boolean } = {}): Promise<ReadResourceResult> {
    await this.#ready(options)
    return (await this.#readResource(uri, options)).result
  }

  /** Every prompt, through every page (cached). */
  async listPrompts (options: ListOptions = {}): Promise<Prompt[]> {
    return await this.#list<Prompt>('prompts/list', 'prompts', options)
  }

  /** Gets a prompt with its (string) arguments; its questions are answered from `onInput`. */
  async getPrompt (name: string, args: Record<string, string> = {}, options: CallOptions = {}): Promise<GetPromptResult> {
    await this.#ready(options)
    return await this.#questions.rounds('prompts/get', { name, arguments: args }, options, {}) as GetPromptResult
  }

  /**
   * `completion/complete`: values for `argument` of a prompt, a resource template or (`ref/tool`, on
   * a server that advertises `TOOL_COMPLETION_EXTENSION`) a tool, given what is typed so far.
   */
  async complete (ref: CompleteRef, argument: { name: string, value: string }, context: Record<string, string> = {}, options: RequestOptions = {}): Promise<CompleteResult> {
    await this.#ready(options)
    const params: Record<string, unknown> = { ref, argument }
    if (Object.keys(context).length > 0) params.context = { arguments: context }
    return await this.#send('completion/complete', params, options) as CompleteResult
  }

  // -- skills (the Skills extension, SEP-2640) -----------------------------------------------------

  /**
   * Every skill, through every page (cached): each entry with its frontmatter and its files'
   * digests. An entry that breaks the extension's rules is left out, as hosts must not load it.
   * A server that does not declare the extension is not asked (`ServerCapabilityError`).
   */
  async listSkills (options: ListOptions = {}): Promise<Skill[]> {
    checkCallOptions(options)
    await this.#skillsDeclared('skills/list', options, false)
    const skills = await this.#list<unknown>('skills/list', 'skills', options)
    return skills.filter((entry): entry is Skill => entryProblem(entry) === undefined)
  }

  /** One skill's entry, by the URI of its `SKILL.md` (cached); one that breaks the extension's rules is a `SkillVerificationError`. */
  async getSkill (uri: string, options: ListOptions = {}): Promise<Skill> {
    checkCallOptions(options)
    checkUriArgument('getSkill', uri, "the URI of a skill's SKILL.md ('skill://git-workflow/SKILL.md')")
    await this.#skillsDeclared('skills/get', options, false)
    const load = async () => await this.#send('skills/get', { uri }, options)
    const { skill } = await this.#cache.get(`skills/get\n${uri}`, options, load)
    checkEntry(skill, uri)
    if (skill.uri !== uri) throw new SkillVerificationError('entry', uri, uri, `${uri}: skills/get answered with the entry of another skill, ${skill.uri}`)
    return skill
  }

  /**
   * Reads a file of a skill (`resources/read`), named by its path in the skill's folder
   * (`'references/GUIDE.md'`) or by a URI its entry lists, and verifies it against the entry: a
   * file the entry does not list is not read; the bytes must have the entry's size and digest; the
   * skill's own `SKILL.md` must carry the entry's frontmatter (parsed, compared field by field).
   * Any failure is a `SkillVerificationError`. A dynamic skill's file has no digest: it comes back
   * with `verified: false`. A copy from the cache that fails is read again once, fresh.
   */
  async readSkillFile (skill: Skill, file: string, options: CallOptions & { fresh?: boolean } = {}): Promise<SkillFile> {
    checkCallOptions(options)
    checkFileArguments(skill, file)
    checkEntry(skill, skill.uri)
    const { uri, listed } = fileOf(skill, file)
    await this.#handshake.ready()
    const first = await this.#readResource(uri, options)
    try {
      return verifiedFile(skill, uri, listed, first.result)
    } catch (err) {
      // a cached copy the entry no longer describes must be fetched again (the spec's lazy retrieval)
      if (first.fetched || !(err instanceof SkillVerificationError)) throw err
    }
    return verifiedFile(skill, uri, listed, (await this.#readResource(uri, { ...options, fresh: true })).result)
  }

  /**
   * The direct children of a folder (`resources/directory/read`), through every page: files and
   * sub-folders (`mimeType: 'inode/directory'`). Asked only of a server that declares
   * `directoryRead` (else `ServerCapabilityError`). A live view: a file it shows that the skill's
   * entry does not list is still refused by `readSkillFile`.
   */
  async readSkillDirectory (uri: string, options: RequestOptions = {}): Promise<Resource[]> {
    checkCallOptions(options)
    checkUriArgument('readSkillDirectory', uri, "the URI of a skill's folder ('skill://git-workflow/references')")
    await this.#skillsDeclared('resources/directory/read', options, true)
    return (await pages<Resource>(this.#send, 'resources/directory/read', { uri }, 'resources', options)).items
  }

  /** Any request, as it is (`ping`, `logging/setLevel`, an extension's): its result, or an `RpcError`. */
  async request (method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Record<string, unknown>> {
    await this.#ready(options)
    return await this.#send(method, params, options)
  }

  /**
   * Ends a 2025 session (DELETE), or stops the server process of a `{ command }` client, and
   * forgets what the client knew; the next request starts again (a new process).
   */
  async close (): Promise<void> {
    const session = this.#wire.session
    const connecting = this.#handshake.forget()
    this.#tools.clear()
    this.#listed = false
    this.#cache.clear()
    await connecting?.catch(() => {})
    await this.#wire.close(session)
  }

  /** Checks a call's options, then waits for the era. */
  async #ready (options: RequestOptions): Promise<void> {
    checkCallOptions(options)
    await this.#handshake.ready()
  }

  /**
   * Throws the `ServerCapabilityError` of a server that does not declare the Skills extension (or,
   * for `directory`, its `directoryRead`): clients ask for skills only after seeing it declared.
   * What the server said of itself is read once (`fresh` asks again), once the era is decided.
   */
  async #skillsDeclared (method: string, options: ListOptions, directory: boolean): Promise<void> {
    await this.#handshake.ready()
    const known = this.#handshake.description
    const description = known !== undefined && options.fresh !== true ? known : await this.#handshake.describe(options)
    const extensions = description.capabilities.extensions
    const settings = isObject(extensions) ? extensions[SKILLS_EXTENSION] : undefined
    const where = `capabilities.extensions["${SKILLS_EXTENSION}"]`
    if (!isObject(settings)) {
      throw new ServerCapabilityError(method, SKILLS_EXTENSION, `${method}: the server does not declare the Skills extension (${where}), so the client does not ask it for skills`)
    }
    if (directory && settings.directoryRead !== true) {
      throw new ServerCapabilityError(method, `${SKILLS_EXTENSION}.directoryRead`, `${method}: the server does not declare directoryRead: true in ${where}, so the client does not call it (a skill's entry, from getSkill, lists its files)`)
    }
  }

  /** Every item of a list, page after page; cached whole for the shortest `ttlMs` of its pages. */
  async #list<T> (method: string, field: string, options: ListOptions): Promise<T[]> {
    await this.#ready(options)
    const load = async () => await pages<T>(this.#send, method, {}, field, options)
    const list = await this.#cache.get(method, options, load)
    return [...list.items]
  }

  /**
   * `resources/read` (cached for its `ttlMs` when it took no questions), and whether it was fetched
   * now rather than taken from the cache.
   */
  async #readResource (uri: string, options: CallOptions & { fresh?: boolean }): Promise<{ result: ReadResourceResult, fetched: boolean }> {
    let rounds = 0
    let fetched = false
    const result = await this.#cache.get(`resources/read\n${uri}`, options, async () => {
      fetched = true
      return await this.#questions.rounds('resources/read', { uri }, options, {}, () => { rounds++ })
    }, () => rounds === 0)
    return { result: result as ReadResourceResult, fetched }
  }
}
