/**
 * The methods this server answers, one row each, and every fact the edge needs about one: which
 * eras serve it, what it names and where its body says so, which field `Mcp-Name` mirrors, whether
 * it may ask the client something or answer as an event stream, and what its traces say. The
 * dispatch table (`protocol/dispatch.ts`), the target lookup (`protocol/target.ts`), the header
 * checks, the log bindings and the traces all read these rows; no other file names a method's
 * facts. Adding a method is its handler and one row here.
 */

/**
 * What a request names, looked up at the edge as the call's target: a tool by `params.name`, a
 * prompt by `params.name`, a resource by `params.uri`, or the prompt, resource template or tool
 * (`ref/tool`, `spec/completion.ts`) a completion's `params.ref` refers to.
 */
export type TargetKind = 'tool' | 'prompt' | 'resource' | 'reference' | 'skill' | 'directory'

/** The OpenTelemetry attribute that carries what a request names (the conventions for MCP). */
export type NameAttribute = 'gen_ai.tool.name' | 'gen_ai.prompt.name' | 'mcp.resource.uri'

export interface MethodFacts {
  readonly method: string
  /** Served to 2026-07-28 requests. */
  readonly modern: boolean
  /** Served in 2025 sessions (some only from a revision on: `spec/eras.ts` says which). */
  readonly legacy: boolean
  /** What the request names (see `TargetKind`); undefined: nothing the edge looks up. */
  readonly target?: TargetKind | undefined
  /** The params field `Mcp-Name` mirrors (SEP-2243); a task method's is its task, not a target. */
  readonly mcpName?: string | undefined
  /**
   * The params field whose value names the request in log lines and span names, where it outlives
   * the request: a tool, a prompt, a resource. Never a task id, which without a known principal is
   * the task's only handle: whoever reads the logs could read the task's result with it.
   */
  readonly logged?: string | undefined
  /** The handler may ask the client something (`ctx.elicit`, `ctx.sample`, `ctx.roots`), or carries questions (`tasks/result`). */
  readonly asks: boolean
  /** The answer may be an event stream of progress and log messages before the result (`stream: true` tools, a progressToken, a log level). */
  readonly streams: boolean
  /** Answered by a long-lived stream of notifications (2026-07-28 `subscriptions/listen`). */
  readonly listens: boolean
  /** The 2025 handshake: answered outside any session, never inside one. */
  readonly handshake: boolean
  /** Its traces: `gen_ai.operation.name`, and the attribute that carries what the request names. */
  readonly otel: { readonly operation?: string | undefined, readonly name?: NameAttribute | undefined }
}

type Row = Partial<Omit<MethodFacts, 'method'>>

function row (method: string, facts: Row): MethodFacts {
  return Object.freeze({
    method,
    modern: facts.modern ?? false,
    legacy: facts.legacy ?? false,
    target: facts.target,
    mcpName: facts.mcpName,
    logged: facts.logged,
    asks: facts.asks ?? false,
    streams: facts.streams ?? false,
    listens: facts.listens ?? false,
    handshake: facts.handshake ?? false,
    otel: Object.freeze(facts.otel ?? {})
  })
}

const BOTH = { modern: true, legacy: true } as const

/** The one method a route tool is called by, for `request.mcp` of a route's request (`http/route-tools`). */
export const CALL_TOOL = 'tools/call'

/** The rows, by method (a Map: a method name is the client's text, `__proto__` included). */
export const METHODS: ReadonlyMap<string, MethodFacts> = new Map([
  row('initialize', { legacy: true, handshake: true }),
  row('ping', { legacy: true }),
  row('server/discover', { modern: true }),
  row('logging/setLevel', { legacy: true }),
  row('tools/list', BOTH),
  row(CALL_TOOL, {
    ...BOTH,
    target: 'tool',
    mcpName: 'name',
    logged: 'name',
    asks: true,
    streams: true,
    otel: { operation: 'execute_tool', name: 'gen_ai.tool.name' }
  }),
  row('resources/list', BOTH),
  row('resources/templates/list', BOTH),
  row('resources/read', { ...BOTH, target: 'resource', mcpName: 'uri', logged: 'uri', asks: true, otel: { name: 'mcp.resource.uri' } }),
  row('resources/subscribe', { legacy: true, target: 'resource', otel: { name: 'mcp.resource.uri' } }),
  row('resources/unsubscribe', { legacy: true, otel: { name: 'mcp.resource.uri' } }),
  row('prompts/list', BOTH),
  row('prompts/get', { ...BOTH, target: 'prompt', mcpName: 'name', logged: 'name', asks: true, otel: { name: 'gen_ai.prompt.name' } }),
  // no Mcp-Name: SEP-2243 mirrors only tools/call, resources/read and prompts/get, so a ref/tool no more than a ref/prompt
  row('completion/complete', { ...BOTH, target: 'reference', otel: { name: 'gen_ai.prompt.name' } }),
  row('subscriptions/listen', { modern: true, listens: true }),
  // the Skills extension (SEP-2640): a skill by its SKILL.md's URI, a folder by its URI (no Mcp-Name: SEP-2243 mirrors neither)
  row('skills/list', BOTH),
  row('skills/get', { ...BOTH, target: 'skill', logged: 'uri', otel: { name: 'mcp.resource.uri' } }),
  row('resources/directory/read', { ...BOTH, target: 'directory', logged: 'uri', otel: { name: 'mcp.resource.uri' } }),
  // the tasks extension (2026-07-28) and the 2025-11-25 tasks; SEP-2663 routes task methods by their task
  row('tasks/get', { ...BOTH, mcpName: 'taskId' }),
  row('tasks/update', { modern: true, mcpName: 'taskId' }),
  row('tasks/cancel', { ...BOTH, mcpName: 'taskId' }),
  row('tasks/result', { legacy: true, asks: true }),
  row('tasks/list', { legacy: true })
].map((facts) => [facts.method, facts]))

/**
 * The notifications a client sends that the server knows: a 2025 session's end of the handshake and
 * its cancels (`protocol/session/sessions.ts`), and those the OpenTelemetry conventions name as
 * `mcp.method.name` values (`http/metrics.ts`). Any other is accepted and dropped.
 */
export const CLIENT_NOTIFICATIONS = Object.freeze({
  initialized: 'notifications/initialized',
  cancelled: 'notifications/cancelled',
  progress: 'notifications/progress',
  rootsListChanged: 'notifications/roots/list_changed'
} as const)

/** The facts of a method, or undefined for one this server does not know. */
export function factsOf (method: string): MethodFacts | undefined {
  return METHODS.get(method)
}

/** Methods whose `Mcp-Name` header mirrors a body field, and which field: what a client mirrors too. */
export const NAME_SOURCE: Readonly<Record<string, string>> = Object.freeze(Object.fromEntries(
  [...METHODS.values()].filter((facts) => facts.mcpName !== undefined).map((facts) => [facts.method, facts.mcpName!])
))
