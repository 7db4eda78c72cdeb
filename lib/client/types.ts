/**
 * The shapes `fastify-sake/client` hands back and takes, as the spec's schema writes them (both
 * eras: a 2025 server's results lack `resultType`, `ttlMs` and `cacheScope`). Open-ended: every
 * object may carry more fields than named here.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** `_meta` of a request or result. */
export type Meta = Record<string, unknown>

export interface TextContent { type: 'text', text: string, annotations?: Record<string, unknown>, _meta?: Meta }
export interface ImageContent { type: 'image', data: string, mimeType: string, annotations?: Record<string, unknown>, _meta?: Meta }
export interface AudioContent { type: 'audio', data: string, mimeType: string, annotations?: Record<string, unknown>, _meta?: Meta }
export interface ResourceLink { type: 'resource_link', uri: string, name: string, mimeType?: string, description?: string, _meta?: Meta, [key: string]: unknown }
export interface EmbeddedResource { type: 'resource', resource: ResourceContents, annotations?: Record<string, unknown>, _meta?: Meta }
/** One block of a tool result or a prompt message. */
export type Content = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource

/** A tool as `tools/list` gives it. */
export interface Tool {
  name: string
  title?: string
  description?: string
  inputSchema: { type: 'object', properties?: Record<string, unknown>, required?: string[], [key: string]: unknown }
  outputSchema?: Record<string, unknown>
  annotations?: Record<string, unknown>
  icons?: unknown[]
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' }
  _meta?: Meta
  [key: string]: unknown
}

/** What `tools/call` answers: a tool's failure is `isError: true` here, never a thrown error. */
export interface CallToolResult<S = unknown> {
  content: Content[]
  structuredContent?: S
  isError?: boolean
  _meta?: Meta
  [key: string]: unknown
}

export interface Resource { uri: string, name: string, title?: string, description?: string, mimeType?: string, size?: number, _meta?: Meta, [key: string]: unknown }
export interface ResourceTemplate { uriTemplate: string, name: string, title?: string, description?: string, mimeType?: string, _meta?: Meta, [key: string]: unknown }
export type ResourceContents =
  | { uri: string, mimeType?: string, text: string, _meta?: Meta }
  | { uri: string, mimeType?: string, blob: string, _meta?: Meta }
export interface ReadResourceResult { contents: ResourceContents[], _meta?: Meta, [key: string]: unknown }

export interface Prompt { name: string, title?: string, description?: string, arguments?: Array<{ name: string, description?: string, required?: boolean }>, _meta?: Meta, [key: string]: unknown }
export interface PromptMessage { role: 'user' | 'assistant', content: Content }
export interface GetPromptResult { description?: string, messages: PromptMessage[], _meta?: Meta, [key: string]: unknown }

/**
 * `completion/complete`'s target: a prompt by name, a resource template by its URI template, or a
 * tool by name (`ref/tool`: an extension of fastify-sake servers, `TOOL_COMPLETION_EXTENSION`,
 * which they advertise in `capabilities.extensions`; other servers answer -32602).
 */
export type CompleteRef = { type: 'ref/prompt', name: string } | { type: 'ref/resource', uri: string } | { type: 'ref/tool', name: string }
export interface CompleteResult { completion: { values: string[], total?: number, hasMore?: boolean }, _meta?: Meta, [key: string]: unknown }

/** What the server says of itself: `server/discover` (2026-07-28) or `initialize` (2025). */
export interface ServerDescription {
  era: 'modern' | 'legacy'
  protocolVersion: string
  serverInfo: { name: string, version: string, [key: string]: unknown } | undefined
  capabilities: Record<string, unknown>
  instructions: string | undefined
  /** The versions `server/discover` lists (2026-07-28); the negotiated one alone in a 2025 session. */
  supportedVersions: string[]
  /** The raw result. */
  result: Record<string, unknown>
}

// Questions and their answers (the client side of elicitation, sampling and roots)

/** `elicitation/create` as the server asks it. */
export interface ElicitRequest {
  method: 'elicitation/create'
  params: { mode?: 'form' | 'url', message: string, requestedSchema?: Record<string, unknown>, url?: string, elicitationId?: string, _meta?: Meta, [key: string]: unknown }
}
/** `sampling/createMessage` as the server asks it. */
export interface SamplingRequest {
  method: 'sampling/createMessage'
  params: { messages: Array<{ role: 'user' | 'assistant', content: unknown }>, maxTokens: number, systemPrompt?: string, _meta?: Meta, [key: string]: unknown }
}
/** `roots/list` as the server asks it. */
export interface RootsRequest { method: 'roots/list', params?: { _meta?: Meta, [key: string]: unknown } }
/** A question of the server's, in either era. */
export type InputRequest = ElicitRequest | SamplingRequest | RootsRequest

/** An answer to `elicitation/create`: `content` only with `accept` (and only for a form). */
export type ElicitResult =
  | { action: 'accept', content?: Record<string, string | number | boolean | string[]>, _meta?: Meta }
  | { action: 'decline', _meta?: Meta }
  | { action: 'cancel', _meta?: Meta }
/** An answer to `sampling/createMessage`. */
export interface CreateMessageResult {
  role: 'assistant' | 'user'
  content: { type: 'text', text: string } | { type: 'image' | 'audio', data: string, mimeType: string } | Array<Record<string, unknown>>
  model: string
  stopReason?: string
  _meta?: Meta
}
/** An answer to `roots/list`. */
export interface ListRootsResult { roots: Array<{ uri: string, name?: string, _meta?: Meta }>, _meta?: Meta }
/** Any answer to a question. */
export type InputAnswer = ElicitResult | CreateMessageResult | ListRootsResult

/** Answers a question: the answer, or undefined when it has none (then `unanswered` decides). */
export type InputHandler = (request: InputRequest, key: string) => InputAnswer | undefined | Promise<InputAnswer | undefined>

/**
 * The answers to the server's questions, by the key the server gives them (the `ctx.elicit.form`
 * key of a fastify-sake tool: `inputRequests` keys in 2026-07-28, `_meta["io.github.fastify-sake/key"]`
 * in a 2025 session, `legacy` for a 2025 question that names none), each an answer or a function
 * of the question; or one function for every question.
 */
export type OnInput = { readonly [key: string]: InputAnswer | InputHandler } | InputHandler

/** What to send for a question `onInput` does not answer. */
export type Unanswered = 'decline' | 'cancel' | 'error'

/** A `notifications/progress` of the call. */
export interface Progress { progress: number, total?: number, message?: string }
/** A `notifications/message` of the call. */
export interface LogMessage { level: LogLevel, logger?: string, data: unknown }
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency'

// The Skills extension (SEP-2640)

/** One file of a skill entry: its URI, and the digest (`sha256:<64 hex>`) and size of its bytes. */
export interface SkillResource { uri: string, digest: string, size: number }
/** A skill's `SKILL.md` frontmatter: `name`, `description`, and every other field its author wrote. */
export interface SkillFrontmatter { name: string, description: string, [field: string]: unknown }
/**
 * A skill as `skills/list` and `skills/get` give it: the URI of its `SKILL.md`, its frontmatter,
 * and every file with its digest and size, or `'dynamic'` for a skill generated when read.
 */
export interface Skill { uri: string, frontmatter: SkillFrontmatter, resources: SkillResource[] | 'dynamic', [key: string]: unknown }
/** A file of a skill as `readSkillFile` gives it, once verified against the skill's entry. */
export interface SkillFile {
  uri: string
  /** The file's bytes (a text file's UTF-8, a blob's decoded base64). */
  bytes: Uint8Array
  /** The bytes as text when they are UTF-8; undefined for a binary file. */
  text: string | undefined
  mimeType: string | undefined
  /** True: size and digest matched the entry's. False: a dynamic skill's file, which has none to check. */
  verified: boolean
  /** On the skill's own `SKILL.md`: its frontmatter, parsed (and equal to the entry's). */
  frontmatter?: SkillFrontmatter
}
