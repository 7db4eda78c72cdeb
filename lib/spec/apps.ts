/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): the extension's id, the one content type it
 * defines, and whether a client declared it. The extension only adds metadata to tools and
 * resources; everything else happens between the host and the app's iframe.
 */
import type { ClientInfo } from './types.js'
import { isObject } from '../values.js'

/** The extension's id, in `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui'

/** The MIME type of an app's HTML (`text/html;profile=mcp-app`), the only one the extension defines. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app'

/** The scheme every UI resource's URI has. */
export const UI_SCHEME = 'ui://'

/** The flat, deprecated key older hosts read the tool's app from (`_meta["ui/resourceUri"]`). */
export const META_UI_RESOURCE_URI = 'ui/resourceUri'

/**
 * Whether the client declared MCP Apps for the HTML apps this server serves: the extension with
 * `mimeTypes` (REQUIRED by the extension) including `text/html;profile=mcp-app`. In 2026-07-28
 * `client` is the request's own `clientCapabilities`; in a 2025 session, what `initialize` declared.
 */
export function declaresApps (client: ClientInfo): boolean {
  const extensions = client.capabilities.extensions
  if (!isObject(extensions)) return false
  const settings = extensions[APPS_EXTENSION]
  return isObject(settings) && Array.isArray(settings.mimeTypes) && settings.mimeTypes.includes(APP_MIME_TYPE)
}
