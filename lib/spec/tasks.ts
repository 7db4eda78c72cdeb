/**
 * Tasks (`io.modelcontextprotocol/tasks`): the extension's id, which a 2026-07-28 request declares
 * in `clientCapabilities.extensions` and `server/discover` advertises. The server (protocol/) and
 * the client (client/) both write it, so it lives here, as `spec/apps.ts` holds MCP Apps' id.
 */

/** The extension's id, in `capabilities.extensions` (2026-07-28). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'
