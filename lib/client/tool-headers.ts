/**
 * The `Mcp-Param-*` headers a client sends with `tools/call` (SEP-2243): read once from each listed
 * tool's `inputSchema` (`x-mcp-header`), then filled from the call's arguments. The rules are the
 * server's own (`define/header-params.ts`), so a tool the server would have refused, the client
 * leaves out of its list, as the spec asks of clients.
 */
import { extractHeaders, type HeaderParam } from '../define/header-params.js'
import { encodeHeaderValue, headerString } from '../spec/headers.js'
import type { Tool } from './types.js'

/** The tool's mirrored arguments, or undefined when an annotation is invalid (the tool is dropped). */
export function headerParamsOf (tool: Tool): readonly HeaderParam[] | undefined {
  try {
    return extractHeaders(tool.name, tool.inputSchema as Record<string, unknown>).headers
  } catch {
    return undefined
  }
}

function valueAt (args: unknown, path: readonly string[]): unknown {
  let value = args
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/** `Mcp-Param-{Name}` for every mirrored argument the call has (absent or null: no header). */
export function paramHeaders (params: readonly HeaderParam[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const param of params) {
    const value = headerString(valueAt(args, param.path))
    if (value !== undefined) headers[`mcp-param-${param.name.toLowerCase()}`] = encodeHeaderValue(value)
  }
  return headers
}
