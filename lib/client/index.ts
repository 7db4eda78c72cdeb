/**
 * `fastify-sake/client`: an MCP client of the package's own, for testing tools and for calling
 * MCP servers from a service. Over HTTP (`{ url }`, with `fetch`), in-process (`{ app }`, over
 * `app.inject`: no port, the same requests) or over stdio (`{ command }`: a server process it
 * starts and stops), in both protocol eras; it sets the `Mcp-*` headers
 * itself and answers the server's questions from `onInput`, keyed as the server keys them.
 *
 * @example
 * import { createClient } from 'fastify-sake/client'
 * const client = createClient({ app, onInput: { who: { action: 'accept', content: { name: 'Ada' } } } })
 * const result = await client.callTool('greet', {})   // { content: [{ type: 'text', text: 'Hello, Ada!' }] }
 * await client.close()
 */
import { Client } from './client.js'
import { resolveOptions } from './read-options.js'
import type { ClientOptions } from './client-options.js'

/**
 * Makes a client of one MCP endpoint. Nothing is sent until the first call; the options are
 * checked now (`SakeClientOptionError`, `SAKE_ERR_INVALID_CLIENT_OPTION`).
 */
export function createClient (options: ClientOptions): Client {
  return new Client(resolveOptions(options))
}

export { Client }
export type { ClientOptions, UrlOptions, AppOptions, CommandOptions, CommonOptions, FetchLike, TokenSource, StderrMode } from './client-options.js'
export type { RequestOptions, ListOptions, CallOptions, ToolCallOptions } from './request-options.js'
export type * from './types.js'
export {
  RpcError, AuthChallengeError, HttpError, UnansweredInputError, SkillVerificationError, ServerCapabilityError, ServerProcessError,
  type AuthChallenge, type SkillVerificationReason, type ServerProcessReason
} from './errors.js'
export { SakeClientOptionError } from '../errors.js'
export { TOOL_COMPLETION_EXTENSION } from '../spec/completion.js'
export { SKILLS_EXTENSION } from '../spec/skills.js'
