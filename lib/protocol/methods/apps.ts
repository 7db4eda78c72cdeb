/**
 * MCP Apps in the methods (`io.modelcontextprotocol/ui`): who gets UI metadata, the refusal of an
 * app-only tool to a client without the extension, a UI tool's text fallback, and a UI resource's
 * `_meta.ui` on what `resources/read` returns. Lists are per audience (`lists.ts`).
 */
import { ProtocolError } from '../../errors.js'
import { APPS_EXTENSION, APP_MIME_TYPE, declaresApps } from '../../spec/apps.js'
import type { Era } from '../../spec/eras.js'
import { INVALID_PARAMS, MISSING_CLIENT_CAPABILITY } from '../../spec/jsonrpc.js'
import { isObject } from '../../values.js'
import type { CallToolResult } from '../../define/result.js'
import type { CompiledResource } from '../../define/resource.js'
import type { CompiledTool } from '../../define/tool.js'

export { declaresApps }

/** What the extension's settings must hold for this server's apps. */
const REQUIRED = Object.freeze({ extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } })

/**
 * A call of an app-only tool (`visibility: ['app']`) from a client without MCP Apps: it was never
 * listed to that client, and only an app may call it. 2026-07-28 has the error for it (-32021,
 * HTTP 400, naming the extension to declare); a 2025 session, which does not, gets -32602.
 */
export function appOnlyRefusal (tool: CompiledTool, era: Era): ProtocolError {
  const message = `Tool '${tool.name}' is called only by an MCP App (visibility ['app']): the client must declare the ${APPS_EXTENSION} extension with mimeTypes ["${APP_MIME_TYPE}"]`
  if (era === 'modern') return new ProtocolError(MISSING_CLIENT_CAPABILITY, `${message} in the request's clientCapabilities.extensions`, 400, { requiredCapabilities: REQUIRED })
  return new ProtocolError(INVALID_PARAMS, `Invalid params: ${message} at initialize`)
}

/**
 * A UI tool's result always has `content` a client without the app can show (the extension's
 * MUST): a tool that returned nothing gets one line saying it completed.
 */
export function uiFallback (tool: CompiledTool, result: CallToolResult): CallToolResult {
  if (result.content.length > 0) return result
  return { ...result, content: [{ type: 'text', text: `Tool '${tool.name}' completed.` }] }
}

/**
 * The content items of a UI resource's read: its type by default, and its `_meta.ui` for a client
 * with MCP Apps (an item's own `_meta.ui` wins, as the extension says the content item does).
 */
export function uiContents (resource: CompiledResource, contents: Array<Record<string, unknown>>, apps: boolean): Array<Record<string, unknown>> {
  const meta = resource.ui?.meta
  if (!apps || meta === undefined) return contents
  return contents.map((item) => {
    const own = isObject(item._meta) ? item._meta : undefined
    return own?.ui !== undefined ? item : { ...item, _meta: { ...own, ui: meta } }
  })
}
