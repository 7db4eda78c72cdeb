/**
 * `McpConfig`: the type of a definition's `config` (a tool's, a resource's, a prompt's, a route
 * tool's `config.mcp.config`), which the host's hooks read on `request.mcp.config`. Empty but for
 * its index signature, so that any key is accepted and reads as `unknown`; an application types the
 * keys it reads by declaration merging, as Fastify's `FastifyContextConfig` is typed:
 *
 *   declare module 'fastify-sake' {
 *     interface McpConfig { callsPerMinute?: number }
 *   }
 *
 * after which `config: { callsPerMinute: '2' }` fails to compile and `request.mcp.config.callsPerMinute`
 * is a `number | undefined`. The index signature stays (merging cannot remove it): a misspelt key is
 * not caught, its value reads as `unknown`.
 */
export interface McpConfig {
  [key: string]: unknown
}
