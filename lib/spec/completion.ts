/**
 * Completion (`completion/complete`): the spec's cap on one answer, and this project's extension
 * that adds tools to what a completion may refer to (`ref/tool`; MCP names prompts and resource
 * templates only). The server (protocol/) serves and advertises it, the client (client/) sends it,
 * so its facts live here, as `spec/tasks.ts` and `spec/apps.ts` hold their extensions'.
 */

/** The spec's limit on `completion.values` in one answer. */
export const MAX_COMPLETION_VALUES = 100

/**
 * The extension's id in `capabilities.extensions` (the spec asks a third party for a reverse-DNS
 * prefix of its own: the project's, as in `META_INPUT_KEY`). Advertised by a server with a tool
 * that has `complete`; a client opts in by sending the reference, nothing to declare.
 */
export const TOOL_COMPLETION_EXTENSION = 'io.github.fastify-sake/tool-completion'

/** The reference type the extension adds: `{ type: 'ref/tool', name }`. */
export const REF_TOOL = 'ref/tool'
