/**
 * The client itself: one endpoint, one era (decided on first use), and for every request the
 * envelope of that era (2026-07-28 `_meta` on each request; a 2025 session's id), the `Mcp-*`
 * headers, the answer read as JSON or as an event stream, and the server's questions answered
 * from `onInput`: as multi round-trip rounds in 2026-07-28, as responses POSTed back in 2025.
 */
import { AuthChallengeError, HttpError, RpcError, ServerCapabilityError, SkillVerificationError, UnansweredInputError } from './errors.js'
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_INPUT_KEY, META_LOG_LEVEL, META_PROTOCOL_VERSION, META_SERVER_INFO } from '../spec/meta-keys.js'
import { HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION } from '../spec/jsonrpc.js'
import { MODERN_VERSIONS, isLegacyVersion } from '../spec/eras.js'
import { LAST_EVENT_ID, METHOD, NAME, PROTOCOL_VERSION, SESSION_ID, WWW_AUTHENTICATE, encodeHeaderValue } from '../spec/headers.js'
import { NAME_SOURCE } from '../spec/methods.js'
import { TASKS_EXTENSION } from '../spec/tasks.js'
import { SKILLS_EXTENSION } from '../spec/skills.js'
import type { HeaderParam } from '../define/header-params.js'
import { isObject } from '../values.js'
import { checkCallOptions } from './read-options.js'
import type { FetchLike, ResolvedOptions } from './client-options.js'
import { injectFetch } from './inject.js'
import { StdioTransport } from './stdio.js'
import { readEvents } from './sse.js'
import { parseChallenges } from './www-authenticate.js'
import { LEGACY_KEY, answerFor, capabilitiesFor } from './input.js'
import { headerParamsOf, paramHeaders } from './tool-headers.js'
import { checkEntry, checkFileArguments, checkUriArgument, entryProblem, fileOf, verifiedFile } from './skills.js'
import type {
  CallToolResult, CompleteRef, CompleteResult, GetPromptResult, InputAnswer, InputRequest, LogLevel, LogMessage, OnInput,
  Progress, Prompt, ReadResourceResult, Resource, ResourceTemplate, ServerDescription, Skill, SkillFile, Tool, Unanswered
} from './types.js'

const MODERN = MODERN_VERSIONS[0]
const INPUT_METHODS = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list'])
/** Errors a 2026-07-28 server answers a well-meant request with: a modern server, not a 2025 one. */
const MODERN_ERRORS = new Set([HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION])
/** How many times a 2025-11-25 stream that closed early is resumed with `Last-Event-ID`. */
const MAX_RESUMES = 5

/** What every method takes last. */
export interface RequestOptions {
  /** Aborts the request (a 2026-07-28 stream closed is its cancellation; a 2025 session gets `notifications/cancelled`). */
  signal?: AbortSignal
  /** Milliseconds each round may take; default the client's `timeout`. */
  timeout?: number
  /** Headers for this request only. */
  headers?: Record<string, string>
  /** Merged into `params._meta`. */
  meta?: Record<string, unknown>
}

/** A list's options. */
export interface ListOptions extends RequestOptions {
  /** Ask the server even when the cached list is still fresh. */
  fresh?: boolean
}

/** The options of a request that may ask questions and report progress (`callTool`, `getPrompt`, `readResource`). */
export interface CallOptions extends RequestOptions {
  /** Answers for this call; they win over the client's `onInput`, which still answers the rest. */
  onInput?: OnInput
  /** What a question neither `onInput` answers gets, for this call. */
  unanswered?: Unanswered
  /** `notifications/progress` of this call (a `progressToken` is sent when given). */
  onProgress?: (progress: Progress) => void
  /** `notifications/message` of this call. */
  onLog?: (message: LogMessage) => void
  /** The log level asked for this call (default the client's, else `'debug'` when `onLog` is given). */
  logLevel?: LogLevel
}

/** `callTool`'s options. */
export interface ToolCallOptions extends CallOptions {
  /**
   * Run the call as a task when the tool offers it: declares the tasks extension (2026-07-28) or
   * sends `params.task` (2025-11-25), then waits for the task's result (polling `tasks/get`, or
   * `tasks/result` in 2025), answering its questions from `onInput` on the way.
   */
  task?: boolean | { ttl?: number }
}

type Message = Record<string, unknown>
/**
 * A progress token its request's caller chose, rather than the fresh one `#send` makes for a call
 * with `onProgress`: a 2025 task's. The task's progress keeps its `tools/call`'s token for the
 * task's life, so `tasks/result` follows that token (`sent: false`) instead of sending one of its
 * own, which the task's progress would never carry (and a token must be unique among active requests).
 */
interface ChosenToken { readonly token: string, readonly sent: boolean }
interface Exchange {
  readonly call: CallOptions
  readonly signal: AbortSignal
  readonly progressToken: string | undefined
}
interface Cached { value: unknown, expires: number, scope: unknown, token: string | undefined }

function rpcErrorOf (error: Record<string, unknown>, status: number | undefined): RpcError {
  const { code, message, data } = error
  return new RpcError(typeof code === 'number' ? code : -32603, typeof message === 'string' ? message : 'the server sent an error without a message', data, status)
}

function parse (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

async function sleep (ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted()
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => { clearTimeout(timer); reject(signal.reason) }
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve() }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** A client of one MCP endpoint. Made by `createClient`. */
export class Client {
  readonly #options: ResolvedOptions
  readonly #fetch: FetchLike
  /** The server process of a `{ command }` client. */
  readonly #stdio: StdioTransport | undefined
  #endpoint: string | undefined
  #era: 'modern' | 'legacy' | undefined
  #version: string | undefined
  #session: string | undefined
  #description: ServerDescription | undefined
  #connecting: Promise<void> | undefined
  #sessionLevel: LogLevel | undefined
  /** Each listed tool's mirrored arguments and task support, from the last `tools/list`; kept whatever the cache says. */
  readonly #tools = new Map<string, { params: readonly HeaderParam[], taskSupport: unknown }>()
  #listed = false
  readonly #cache = new Map<string, Cached>()
  #nextId = 1
  #nextToken = 1

  /** @internal use `createClient` */
  constructor (options: ResolvedOptions) {
    this.#options = options
    this.#stdio = options.process === undefined ? undefined : new StdioTransport(options.process, (message) => { void this.#unprompted(message) })
    this.#fetch = this.#stdio?.fetch ?? (options.app === undefined ? (options.fetch ?? (async (url, init) => await fetch(url, init))) : injectFetch(options.app))
    // the stdio transport reads no URL: any will do
    this.#endpoint = options.url ?? (this.#stdio === undefined ? undefined : 'stdio:')
  }

  /** `'modern'` or `'legacy'` once the client has talked to the server; undefined before. */
  get era (): 'modern' | 'legacy' | undefined { return this.#era }
  /** The protocol version in use (`2026-07-28`, or the one the 2025 session negotiated). */
  get protocolVersion (): string | undefined { return this.#version }
  /** The 2025 session's `Mcp-Session-Id`, while one is open. */
  get sessionId (): string | undefined { return this.#session }

  // -- the methods ------------------------------------------------------------------------------

  /** What the server says of itself: `server/discover` (2026-07-28, cached for its `ttlMs`), or the `initialize` result (2025). */
  async discover (options: ListOptions = {}): Promise<ServerDescription> {
    checkCallOptions(options)
    await this.#ready()
    return await this.#describe(options)
  }

  /** Every tool, through every page (cached for the pages' `ttlMs`). A tool with an invalid `x-mcp-header` is left out, as the spec asks. */
  async listTools (options: ListOptions = {}): Promise<Tool[]> {
    const tools = await this.#list('tools/list', 'tools', options) as Tool[]
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
    checkCallOptions(options)
    await this.#ready()
    if (!this.#listed) await this.listTools({ signal: options.signal } as ListOptions)
    const params: Record<string, unknown> = { name, arguments: args }
    const task = options.task === undefined || options.task === false ? undefined : options.task === true ? {} : options.task
    // a 2025 server refuses params.task on a tool without task support (-32601): asked only of those that have it
    const support = this.#tools.get(name)?.taskSupport
    if (task !== undefined && this.#era === 'legacy' && (support === 'optional' || support === 'required')) params.task = task.ttl === undefined ? {} : { ttl: task.ttl }
    // a 2025 task's progress comes on its tools/call's token, which tasks/result then follows
    const token = params.task !== undefined && options.onProgress !== undefined ? this.#freshToken() : undefined
    let retried = false
    for (;;) {
      try {
        const result = await this.#rounds('tools/call', params, options, paramHeaders(this.#tools.get(name)?.params ?? [], args), task !== undefined, undefined, token === undefined ? undefined : { token, sent: true }) as Message
        if (task === undefined) return result as CallToolResult<S>
        return await this.#awaitTask(result, options, token) as CallToolResult<S>
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
    return await this.#list('resources/list', 'resources', options) as Resource[]
  }

  /** Every resource template, through every page (cached). */
  async listResourceTemplates (options: ListOptions = {}): Promise<ResourceTemplate[]> {
    return await this.#list('resources/templates/list', 'resourceTemplates', options) as ResourceTemplate[]
  }

  /** Reads a resource (cached for its `ttlMs` when it took no questions). */
  async readResource (uri: string, options: CallOptions & { fresh?: boolean } = {}): Promise<ReadResourceResult> {
    checkCallOptions(options)
    await this.#ready()
    return (await this.#readResource(uri, options)).result
  }

  /** Every prompt, through every page (cached). */
  async listPrompts (options: ListOptions = {}): Promise<Prompt[]> {
    return await this.#list('prompts/list', 'prompts', options) as Prompt[]
  }

  /** Gets a prompt with its (string) arguments; its questions are answered from `onInput`. */
  async getPrompt (name: string, args: Record<string, string> = {}, options: CallOptions = {}): Promise<GetPromptResult> {
    checkCallOptions(options)
    await this.#ready()
    return await this.#rounds('prompts/get', { name, arguments: args }, options, {}, false) as GetPromptResult
  }

  /**
   * `completion/complete`: values for `argument` of a prompt, a resource template or (`ref/tool`, on
   * a server that advertises `TOOL_COMPLETION_EXTENSION`) a tool, given what is typed so far.
   */
  async complete (ref: CompleteRef, argument: { name: string, value: string }, context: Record<string, string> = {}, options: RequestOptions = {}): Promise<CompleteResult> {
    checkCallOptions(options)
    await this.#ready()
    const params: Record<string, unknown> = { ref, argument }
    if (Object.keys(context).length > 0) params.context = { arguments: context }
    return await this.#request('completion/complete', params, options) as CompleteResult
  }

  // -- skills (the Skills extension, SEP-2640) -----------------------------------------------------

  /**
   * Every skill, through every page (cached): each entry with its frontmatter and its files'
   * digests. An entry that breaks the extension's rules is left out, as hosts must not load it.
   * A server that does not declare the extension is not asked (`ServerCapabilityError`).
   */
  async listSkills (options: ListOptions = {}): Promise<Skill[]> {
    checkCallOptions(options)
    await this.#ready()
    await this.#skillsDeclared('skills/list', options, false)
    const skills = await this.#list('skills/list', 'skills', options)
    return skills.filter((entry): entry is Skill => entryProblem(entry) === undefined)
  }

  /** One skill's entry, by the URI of its `SKILL.md` (cached); one that breaks the extension's rules is a `SkillVerificationError`. */
  async getSkill (uri: string, options: ListOptions = {}): Promise<Skill> {
    checkCallOptions(options)
    checkUriArgument('getSkill', uri, "the URI of a skill's SKILL.md ('skill://git-workflow/SKILL.md')")
    await this.#ready()
    await this.#skillsDeclared('skills/get', options, false)
    const result = await this.#cached(`skills/get\n${uri}`, options, async () => await this.#request('skills/get', { uri }, options)) as Message
    const skill = result.skill
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
    await this.#ready()
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
    await this.#ready()
    await this.#skillsDeclared('resources/directory/read', options, true)
    return (await this.#pages('resources/directory/read', { uri }, 'resources', options)).items as Resource[]
  }

  /** Any request, as it is (`ping`, `logging/setLevel`, an extension's): its result, or an `RpcError`. */
  async request (method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Record<string, unknown>> {
    checkCallOptions(options)
    await this.#ready()
    return await this.#request(method, params, options) as Record<string, unknown>
  }

  /**
   * Ends a 2025 session (DELETE), or stops the server process of a `{ command }` client, and
   * forgets what the client knew; the next request starts again (a new process).
   */
  async close (): Promise<void> {
    const session = this.#session
    const connecting = this.#connecting
    this.#connecting = undefined
    this.#session = undefined
    this.#description = undefined
    this.#sessionLevel = undefined
    this.#tools.clear()
    this.#listed = false
    this.#cache.clear()
    if (this.#options.era === 'auto') this.#era = undefined
    await connecting?.catch(() => {})
    await this.#stdio?.close()
    if (session === undefined) return
    const headers = await this.#baseHeaders({})
    headers[SESSION_ID] = session
    delete headers['content-type']
    try {
      const res = await this.#fetch(await this.#url(), { method: 'DELETE', headers, signal: AbortSignal.timeout(this.#options.timeout) })
      await res.arrayBuffer() // 204 from fastify-sake; whatever another server says, the session is ours no more
    } catch {
      // the server is gone already (closed, unreachable): the session ends with it, and close() is
      // what a teardown calls after app.close(), so it must not throw for that
    }
  }

  // -- the era ----------------------------------------------------------------------------------

  async #ready (): Promise<void> {
    // a connection under way decides the era first: `#probe` sets 'modern' before its answer,
    // and a call made meanwhile must not go out as 2026-07-28 to a server that turns out 2025-only
    // (it stays set once done: later calls await a settled promise; close() and a lost session clear it)
    if (this.#connecting !== undefined) {
      await this.#connecting
      return
    }
    this.#connecting = this.#connect().catch((err: unknown) => {
      this.#connecting = undefined
      throw err
    })
    await this.#connecting
  }

  async #connect (): Promise<void> {
    const { era } = this.#options
    if (era === 'modern') {
      this.#era = 'modern'
      this.#version = MODERN
      return
    }
    if (era === 'auto' && await this.#probe()) return
    await this.#initialize()
  }

  /**
   * `server/discover`, as the spec's dual-era client does it: a result, or a modern error, is a
   * 2026-07-28 server; anything else (a 2025 server's 400 without a modern error, a 404, a 405)
   * means a 2025 session. A version list without 2026-07-28 means a 2025 session too. Over stdio
   * an error has no HTTP status: a modern one there means a modern server, and any other (a 2025
   * server's -32601 or -32600), or no answer within `timeout`, a 2025 session.
   */
  async #probe (): Promise<boolean> {
    this.#era = 'modern'
    this.#version = MODERN
    try {
      const result = await this.#request('server/discover', {}, {}) as Message
      const description = describeModern(result)
      if (description.supportedVersions.length > 0 && !description.supportedVersions.includes(MODERN)) return this.#unprobe()
      this.#description = description
      return true
    } catch (err) {
      if (err instanceof AuthChallengeError) throw this.#unprobe(err)
      if (err instanceof RpcError && err.status === (this.#stdio === undefined ? 400 : undefined) && MODERN_ERRORS.has(err.code)) {
        const supported = isObject(err.data) && Array.isArray(err.data.supported) ? err.data.supported : undefined
        if (err.code !== UNSUPPORTED_PROTOCOL_VERSION || supported?.includes(MODERN) === true) throw this.#unprobe(err)
      }
      return this.#unprobe()
    }
  }

  #unprobe (): false
  #unprobe (err: unknown): unknown
  #unprobe (err?: unknown): unknown {
    this.#era = undefined
    this.#version = undefined
    return err ?? false
  }

  async #initialize (): Promise<void> {
    const o = this.#options
    const capabilities = capabilitiesFor([o.onInput], o.unanswered, o.capabilities)
    this.#era = 'legacy'
    this.#version = undefined
    let result: Message
    try {
      result = await this.#request('initialize', { protocolVersion: o.legacyVersion, capabilities, clientInfo: o.clientInfo }, {}) as Message
    } catch (err) {
      this.#era = undefined
      throw err
    }
    const version = result.protocolVersion
    if (!isLegacyVersion(version)) {
      this.#era = undefined
      this.#session = undefined
      throw new HttpError(200, `initialize: the server answered protocol version ${JSON.stringify(version)}, which this client does not speak (it speaks ${o.legacyVersion} and the other 2025 revisions)`, JSON.stringify(result))
    }
    this.#version = version
    await this.#notify('notifications/initialized')
    this.#description = {
      era: 'legacy',
      protocolVersion: version,
      serverInfo: isObject(result.serverInfo) ? result.serverInfo as ServerDescription['serverInfo'] : undefined,
      capabilities: isObject(result.capabilities) ? result.capabilities : {},
      instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
      supportedVersions: [version],
      result
    }
    if (o.logLevel !== undefined) await this.#setLevel(o.logLevel, {})
  }

  async #setLevel (level: LogLevel, options: RequestOptions): Promise<void> {
    if (this.#sessionLevel === level || this.#description?.capabilities.logging === undefined) return
    await this.#request('logging/setLevel', { level }, options)
    this.#sessionLevel = level
  }

  /** What the server says of itself: the 2025 session's `initialize` result, or `server/discover` (cached). */
  async #describe (options: ListOptions): Promise<ServerDescription> {
    if (this.#era === 'legacy') return this.#description!
    const result = await this.#cached('server/discover', options, async () => await this.#request('server/discover', {}, options)) as Message
    this.#description = describeModern(result)
    return this.#description
  }

  /**
   * Throws the `ServerCapabilityError` of a server that does not declare the Skills extension (or,
   * for `directory`, its `directoryRead`): clients ask for skills only after seeing it declared.
   * What the server said of itself is read once (`fresh` asks again).
   */
  async #skillsDeclared (method: string, options: ListOptions, directory: boolean): Promise<void> {
    const description = this.#description !== undefined && options.fresh !== true ? this.#description : await this.#describe(options)
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

  // -- requests ---------------------------------------------------------------------------------

  async #url (): Promise<string> {
    if (this.#endpoint !== undefined) return this.#endpoint
    const app = this.#options.app!
    await app.ready()
    const path = this.#options.path ?? (app as unknown as { mcp?: { path?: string } }).mcp?.path ?? '/mcp'
    this.#endpoint = `http://localhost${path}`
    return this.#endpoint
  }

  async #token (): Promise<string | undefined> {
    const { token } = this.#options
    return typeof token === 'function' ? await token() : token
  }

  async #baseHeaders (extra: Record<string, string>): Promise<Record<string, string>> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    for (const [name, value] of Object.entries({ ...this.#options.headers, ...extra })) headers[name.toLowerCase()] = value
    if (this.#version !== undefined) headers[PROTOCOL_VERSION] = this.#version
    if (this.#session !== undefined) headers[SESSION_ID] = this.#session
    const token = await this.#token()
    if (token !== undefined) headers.authorization = `Bearer ${token}`
    return headers
  }

  /** The headers of a request: the era's, then `Mcp-Method`, `Mcp-Name` and the call's `Mcp-Param-*`. */
  async #headers (method: string, params: Record<string, unknown>, extra: Record<string, string>): Promise<Record<string, string>> {
    const headers = await this.#baseHeaders(extra)
    headers[METHOD] = method
    const field = NAME_SOURCE[method]
    const name = field === undefined ? undefined : params[field]
    if (typeof name === 'string') headers[NAME] = encodeHeaderValue(name)
    return headers
  }

  #capabilities (call: CallOptions, tasks: boolean): Record<string, unknown> {
    const o = this.#options
    const caps = capabilitiesFor([call.onInput, o.onInput], call.unanswered ?? o.unanswered, o.capabilities)
    if (tasks) caps.extensions = { ...(isObject(caps.extensions) ? caps.extensions : {}), [TASKS_EXTENSION]: {} }
    return caps
  }

  #logLevel (call: CallOptions): LogLevel | undefined {
    return call.logLevel ?? this.#options.logLevel ?? (call.onLog === undefined ? undefined : 'debug')
  }

  /** `params` with the era's `_meta`. */
  #envelope (params: Record<string, unknown>, call: CallOptions, progressToken: string | undefined, tasks: boolean): Record<string, unknown> {
    const meta: Record<string, unknown> = {}
    if (this.#era === 'modern') {
      meta[META_PROTOCOL_VERSION] = MODERN
      meta[META_CLIENT_CAPABILITIES] = this.#capabilities(call, tasks)
      meta[META_CLIENT_INFO] = this.#options.clientInfo
      const level = this.#logLevel(call)
      if (level !== undefined) meta[META_LOG_LEVEL] = level
    }
    if (progressToken !== undefined) meta.progressToken = progressToken
    Object.assign(meta, call.meta)
    return Object.keys(meta).length === 0 ? params : { ...params, _meta: meta }
  }

  #freshToken (): string {
    return `fastify-sake-client-${this.#nextToken++}`
  }

  #signal (call: RequestOptions): AbortSignal {
    const timeout = AbortSignal.timeout(call.timeout ?? this.#options.timeout)
    return call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout])
  }

  /** One request and its answer; a 2025 session that is gone (404) is opened again, once. */
  async #request (method: string, params: Record<string, unknown>, call: CallOptions, extraHeaders: Record<string, string> = {}, tasks = false, chosen?: ChosenToken): Promise<Message> {
    if (this.#era === 'legacy' && method !== 'initialize' && method !== 'logging/setLevel') {
      const level = this.#logLevel(call)
      if (level !== undefined) await this.#setLevel(level, call)
    }
    try {
      return await this.#send(method, params, call, extraHeaders, tasks, chosen)
    } catch (err) {
      const gone = this.#era === 'legacy' && this.#session !== undefined && (err instanceof RpcError || err instanceof HttpError) && err.status === 404
      if (!gone || method === 'initialize') throw err
      this.#session = undefined
      this.#description = undefined
      this.#sessionLevel = undefined
      this.#connecting = undefined
      await this.#ready()
      return await this.#send(method, params, call, extraHeaders, tasks, chosen)
    }
  }

  async #send (method: string, params: Record<string, unknown>, call: CallOptions, extraHeaders: Record<string, string>, tasks: boolean, chosen: ChosenToken | undefined): Promise<Message> {
    const id = this.#nextId++
    const progressToken = chosen?.token ?? (call.onProgress === undefined ? undefined : this.#freshToken())
    const body = { jsonrpc: '2.0', id, method, params: this.#envelope(params, call, chosen?.sent === false ? undefined : progressToken, tasks) }
    const signal = this.#signal(call)
    const headers = await this.#headers(method, params, { ...call.headers, ...extraHeaders })
    const exchange: Exchange = { call, signal, progressToken }
    try {
      const res = await this.#fetch(await this.#url(), { method: 'POST', headers, body: JSON.stringify(body), signal })
      return await this.#read(res, id, method, exchange)
    } catch (err) {
      // a 2025 call ends on the server when told so (2026-07-28: the closed stream is the cancellation);
      // a question the client refused to answer leaves its call waiting there too
      if ((signal.aborted || err instanceof UnansweredInputError) && this.#era === 'legacy' && this.#session !== undefined && method !== 'initialize') {
        await this.#notify('notifications/cancelled', { requestId: id, reason: signal.aborted ? String(signal.reason) : (err as Error).message }).catch(() => {})
      }
      throw signal.aborted ? signal.reason : err
    }
  }

  /** A notification (no answer but the 202). */
  async #notify (method: string, params?: Record<string, unknown>): Promise<void> {
    await this.#post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }, method)
  }

  /** POSTs a message that gets no JSON-RPC answer (a notification, or our response to a server request). */
  async #post (message: Message, method: string | undefined): Promise<void> {
    const headers = method === undefined ? await this.#baseHeaders({}) : await this.#headers(method, {}, {})
    const res = await this.#fetch(await this.#url(), { method: 'POST', headers, body: JSON.stringify(message), signal: AbortSignal.timeout(this.#options.timeout) })
    const text = await res.text()
    if (res.status === 401 || res.status === 403) throw this.#challenge(res, text)
    if (!res.ok) {
      const answer = parse(text)
      if (isObject(answer) && isObject(answer.error)) throw rpcErrorOf(answer.error, res.status)
      throw new HttpError(res.status, `the server answered ${res.status} to ${method ?? 'a response of the client'}`, text)
    }
  }

  #challenge (res: Response, text: string): AuthChallengeError {
    const body = parse(text)
    const rpc = isObject(body) && isObject(body.error) ? rpcErrorOf(body.error, res.status) : undefined
    return new AuthChallengeError(res.status, parseChallenges(res.headers.get(WWW_AUTHENTICATE)), rpc === undefined ? undefined : { code: rpc.code, message: rpc.message, data: rpc.data })
  }

  /** The answer to request `id`: one JSON body, or the response at the end of an event stream. */
  async #read (res: Response, id: number, method: string, exchange: Exchange): Promise<Message> {
    if (res.status === 401 || res.status === 403) throw this.#challenge(res, await res.text())
    if (method === 'initialize') this.#session = res.headers.get(SESSION_ID) ?? undefined
    const type = res.headers.get('content-type') ?? ''
    if (res.ok && type.startsWith('text/event-stream') && res.body !== null) return await this.#readStream(res.body, id, method, exchange)
    const text = await res.text()
    const answer = parse(text)
    if (isObject(answer) && isObject(answer.error)) throw rpcErrorOf(answer.error, res.status)
    if (res.ok && isObject(answer) && answer.id === id && isObject(answer.result)) return answer.result
    const what = res.ok ? 'no JSON-RPC response to the request' : 'no JSON-RPC error'
    throw new HttpError(res.status, `${method}: the server answered HTTP ${res.status}${type === '' ? '' : ` (${type})`} with ${what}`, text)
  }

  async #readStream (body: ReadableStream<Uint8Array>, id: number, method: string, exchange: Exchange): Promise<Message> {
    let lastEventId: string | undefined
    let stream = body
    for (let resumes = 0; ; resumes++) {
      for await (const event of readEvents(stream)) {
        if (event.id !== undefined && event.id !== '') lastEventId = event.id
        const message = parse(event.data)
        if (!isObject(message)) continue
        if (typeof message.method === 'string') {
          if ('id' in message) await this.#answerServer(message, exchange)
          else this.#notification(message, exchange)
        } else if (message.id === id) {
          if (isObject(message.error)) throw rpcErrorOf(message.error, undefined)
          if (isObject(message.result)) return message.result
        }
      }
      // a 2025-11-25 stream may close before its answer (the server's polling): resume it where it stopped
      if (this.#era !== 'legacy' || this.#session === undefined || lastEventId === undefined || resumes === MAX_RESUMES) break
      const headers = await this.#baseHeaders({ [LAST_EVENT_ID]: lastEventId, accept: 'text/event-stream' })
      delete headers['content-type']
      const res = await this.#fetch(await this.#url(), { method: 'GET', headers, signal: exchange.signal })
      if (!res.ok || res.body === null) throw new HttpError(res.status, `${method}: resuming the event stream after event ${lastEventId} was answered HTTP ${res.status}`, await res.text())
      stream = res.body
    }
    throw new HttpError(200, `${method}: the event stream ended before the response to the request`, '')
  }

  #notification (message: Message, exchange: Exchange): void {
    const params = isObject(message.params) ? message.params : {}
    if (message.method === 'notifications/progress' && params.progressToken === exchange.progressToken && typeof params.progress === 'number') {
      const progress: Progress = { progress: params.progress }
      if (typeof params.total === 'number') progress.total = params.total
      if (typeof params.message === 'string') progress.message = params.message
      exchange.call.onProgress?.(progress)
    } else if (message.method === 'notifications/message' && typeof params.level === 'string') {
      const log: LogMessage = { level: params.level as LogLevel, data: params.data }
      if (typeof params.logger === 'string') log.logger = params.logger
      exchange.call.onLog?.(log)
    }
  }

  /**
   * A question the server asks over stdio while no request waits (`roots/list` after
   * `initialize`, say): answered from the client's own `onInput`, and declined or refused when it
   * has no answer, since there is no call to fail.
   */
  async #unprompted (message: Message): Promise<void> {
    const unanswered = this.#options.unanswered === 'error' ? 'decline' : this.#options.unanswered
    // a failure (onInput threw: the server heard it as an error answer; the process is gone) has no caller to reach
    await this.#answerServer(message, { call: { unanswered }, signal: AbortSignal.timeout(this.#options.timeout), progressToken: undefined }).catch(() => {})
  }

  /** A 2025 server's request on the call's stream: its answer POSTed back on the session. */
  async #answerServer (message: Message, exchange: Exchange): Promise<void> {
    const { id, method } = message as { id: unknown, method: string }
    const params = isObject(message.params) ? message.params : {}
    const { call } = exchange
    const unanswered = call.unanswered ?? this.#options.unanswered
    let reply: Message
    if (method === 'ping') {
      reply = { result: {} }
    } else if (INPUT_METHODS.has(method)) {
      // the key the server gave the question, or the legacy rule's when it gave none
      const meta = isObject(params._meta) ? params._meta : {}
      const key = typeof meta[META_INPUT_KEY] === 'string' ? meta[META_INPUT_KEY] : LEGACY_KEY
      try {
        reply = { result: await answerFor({ method, params } as InputRequest, key, [call.onInput, this.#options.onInput], unanswered) }
      } catch (err) {
        if (!(err instanceof UnansweredInputError)) {
          // the user's onInput function threw: the server hears it as an error answer (else its
          // call would wait for one until its own timeout), and the call fails here with that error
          await this.#post({ jsonrpc: '2.0', id, error: { code: -32603, message: `the client's onInput failed: ${(err as Error).message}` } }, undefined).catch(() => {})
          throw err
        }
        if (unanswered === 'error') throw err
        // sampling and roots cannot be declined in their result: refused as the spec's sampling page shows
        reply = { error: { code: -1, message: err.message } }
      }
    } else {
      reply = { error: { code: -32601, message: `Method not found: the client does not serve ${method}` } }
    }
    await this.#post({ jsonrpc: '2.0', id, ...reply }, undefined)
  }

  /** A request that may answer `input_required` (2026-07-28): answered from `onInput` and retried, round after round. */
  async #rounds (method: string, params: Record<string, unknown>, call: CallOptions, headers: Record<string, string>, tasks: boolean, onRound?: () => void, chosen?: ChosenToken): Promise<Message> {
    const { maxRounds } = this.#options
    let retry: Record<string, unknown> = {}
    for (let round = 1; round <= maxRounds; round++) {
      const result = await this.#request(method, { ...params, ...retry }, call, headers, tasks, chosen)
      if (result.resultType !== 'input_required') return result
      if (round === maxRounds) break
      onRound?.()
      retry = { inputResponses: await this.#answers(result.inputRequests, call) }
      if (result.requestState !== undefined) retry.requestState = result.requestState
    }
    throw new UnansweredInputError('', method, `${method}: the server still asks for input after ${maxRounds} rounds (maxRounds ${maxRounds})`)
  }

  async #answers (requests: unknown, call: CallOptions, skip: ReadonlySet<string> = new Set()): Promise<Record<string, InputAnswer>> {
    const answers: Record<string, InputAnswer> = {}
    const unanswered = call.unanswered ?? this.#options.unanswered
    for (const [key, request] of Object.entries(isObject(requests) ? requests : {})) {
      if (skip.has(key) || !isObject(request)) continue
      answers[key] = await answerFor(request as unknown as InputRequest, key, [call.onInput, this.#options.onInput], unanswered)
    }
    return answers
  }

  /**
   * A task's result: 2026-07-28 polls `tasks/get` (answering with `tasks/update`); 2025 waits on
   * `tasks/result`, whose stream carries the task's progress on `token`, the call's.
   */
  async #awaitTask (created: Message, call: ToolCallOptions, token: string | undefined): Promise<unknown> {
    if (this.#era === 'legacy') {
      const task = isObject(created.task) ? created.task : undefined
      if (task === undefined) return created // the tool ran inline
      return await this.#request('tasks/result', { taskId: task.taskId }, call, {}, false, token === undefined ? undefined : { token, sent: false })
    }
    if (created.resultType !== 'task') return created
    const taskId = created.taskId as string
    const signal = call.signal ?? new AbortController().signal
    const answered = new Set<string>()
    let task = created
    for (;;) {
      const status = task.status
      if (status === 'completed') return task.result
      if (status === 'failed') throw rpcErrorOf(isObject(task.error) ? task.error : { code: -32603, message: `task ${taskId} failed: ${String(task.statusMessage)}` }, undefined)
      if (status === 'cancelled') throw new RpcError(-32603, `task ${taskId} was cancelled`, { taskId, status })
      if (status === 'input_required') {
        const answers = await this.#answers(task.inputRequests, call, answered)
        if (Object.keys(answers).length > 0) {
          await this.#request('tasks/update', { taskId, inputResponses: answers }, call, {}, true)
          for (const key of Object.keys(answers)) answered.add(key)
        }
      }
      try {
        await sleep(Math.min(Math.max(Number(task.pollIntervalMs) || 1000, 10), 60_000), signal)
      } catch (err) {
        await this.#request('tasks/cancel', { taskId }, {}, {}, true).catch(() => {})
        throw err
      }
      task = await this.#request('tasks/get', { taskId }, call, {}, true) as Message
    }
  }

  // -- lists and the cache ----------------------------------------------------------------------

  /**
   * A cached value (method and the params that shape it as key): fresh for its `ttlMs` after it
   * arrived; a `private` one only for the token it was fetched with. `keep` says whether this
   * value may be kept at all (a multi round-trip result may not).
   */
  async #cached (key: string, options: ListOptions, load: () => Promise<Message>, keep: () => boolean = () => true): Promise<unknown> {
    const token = await this.#token()
    const hit = this.#cache.get(key)
    if (options.fresh !== true && hit !== undefined && hit.expires > Date.now() && (hit.scope !== 'private' || hit.token === token)) return hit.value
    const value = await load()
    const ttl = value.ttlMs
    if (typeof ttl === 'number' && ttl > 0 && keep()) {
      this.#cache.set(key, { value, expires: Date.now() + ttl, scope: value.cacheScope, token })
    } else {
      this.#cache.delete(key)
    }
    return value
  }

  /** Every item of a list, page after page; cached whole for the shortest `ttlMs` of its pages. */
  async #list (method: string, field: string, options: ListOptions): Promise<unknown[]> {
    checkCallOptions(options)
    await this.#ready()
    const list = await this.#cached(method, options, async () => await this.#pages(method, {}, field, options)) as { items: unknown[] }
    return [...list.items]
  }

  /** Every page of a paged request, its items in `field` gathered, with the shortest `ttlMs` of the pages. */
  async #pages (method: string, params: Record<string, unknown>, field: string, options: RequestOptions): Promise<{ items: unknown[], ttlMs: number, cacheScope: unknown }> {
    const items: unknown[] = []
    let ttlMs = Infinity
    let cacheScope: unknown
    let cursor: unknown
    const seen = new Set<unknown>()
    do {
      const page = await this.#request(method, cursor === undefined ? params : { ...params, cursor }, options) as Message
      if (Array.isArray(page[field])) items.push(...page[field] as unknown[])
      ttlMs = Math.min(ttlMs, typeof page.ttlMs === 'number' ? page.ttlMs : 0)
      cacheScope ??= page.cacheScope
      seen.add(cursor)
      cursor = page.nextCursor
      // a server that hands back a cursor it gave before would page forever
      if (cursor !== undefined && seen.has(cursor)) throw new HttpError(200, `${method}: the server returned the cursor ${JSON.stringify(cursor)} twice`, JSON.stringify(page))
    } while (cursor !== undefined && cursor !== null)
    return { items, ttlMs, cacheScope }
  }

  /** `resources/read` (cached for its `ttlMs` when it took no questions), and whether it was fetched now rather than taken from the cache. */
  async #readResource (uri: string, options: CallOptions & { fresh?: boolean }): Promise<{ result: ReadResourceResult, fetched: boolean }> {
    let rounds = 0
    let fetched = false
    const result = await this.#cached(`resources/read\n${uri}`, options, async () => {
      fetched = true
      return await this.#rounds('resources/read', { uri }, options, {}, false, () => { rounds++ })
    }, () => rounds === 0) as ReadResourceResult
    return { result, fetched }
  }
}

function describeModern (result: Message): ServerDescription {
  const meta = isObject(result._meta) ? result._meta : {}
  return {
    era: 'modern',
    protocolVersion: MODERN,
    serverInfo: isObject(meta[META_SERVER_INFO]) ? meta[META_SERVER_INFO] as ServerDescription['serverInfo'] : undefined,
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    supportedVersions: Array.isArray(result.supportedVersions) ? result.supportedVersions.filter((v): v is string => typeof v === 'string') : [],
    result
  }
}
