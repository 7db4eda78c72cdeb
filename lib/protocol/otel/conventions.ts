/**
 * What the OpenTelemetry semantic conventions for MCP say of a message, for its span
 * (`http/spans.ts`) and its measurement (`http/metrics.ts`) alike: what it names, and whether it
 * failed. It knows no transport.
 *
 * The conventions' attribute names are written out as strings, here and where they are used:
 * `@opentelemetry/semantic-conventions` marks its MCP constants deprecated (the GenAI conventions
 * moved to their own repository), and it would be one more package for a few strings.
 */
import {
  INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RESOURCE_NOT_FOUND
} from '../../spec/jsonrpc.js'
import type { NameAttribute } from '../../spec/methods.js'
import { isObject } from '../../values.js'
import type { CallOutcome } from '../call.js'
import type { Inbound } from '../inbound.js'

/**
 * The value of the attribute that carries what a message names: a resource's URI; a tool's or
 * prompt's name, which a completion gives in its reference to a prompt (a reference to a resource
 * template carries no attribute of the conventions).
 */
export function namedIn (inbound: Inbound, attribute: NameAttribute): string | undefined {
  const { params } = inbound
  let named: unknown
  if (attribute === 'mcp.resource.uri') named = params?.uri
  else if (inbound.facts?.target !== 'reference') named = params?.name
  else if (isObject(params?.ref) && params.ref.type === 'ref/prompt') named = params.ref.name
  return typeof named === 'string' ? named : undefined
}

/**
 * The JSON-RPC codes that answer a client's mistake, which the server span and the operation
 * metric do not count as the server failing. The OpenTelemetry semantic conventions for MCP
 * (open-telemetry/semantic-conventions-genai, model/mcp/common.yaml at 0e5e6a8d, group
 * `mcp.server.status.attributes`, since PR #404 for issue #389) on `rpc.response.status_code`:
 *
 *   "The following error codes indicate that the caller sent a request the receiver could not
 *   serve and SHOULD NOT be considered errors: `-32700` (`Parse error`), `-32600` (`Invalid
 *   Request`), `-32601` (`Method not found`), `-32602` (`Invalid params`) - also returned when the
 *   requested tool does not exist, `-32002` (`Resource not found`). Any other error code SHOULD be
 *   considered an error."
 *
 * and on `error.type` ("Conditionally Required: If and only if the operation fails"): "When the
 * response carries a JSON-RPC error code that classifies as an error, `error.type` SHOULD be set
 * to the string representation of that code. See `rpc.response.status_code` for which codes
 * classify as errors." So a client's mistake keeps `rpc.response.status_code` ("Conditionally
 * Required: If response contains an error code") and has no `error.type`; and with no error, the
 * span's status stays UNSET (Recording Errors: "Span Status Code MUST be left unset if the
 * instrumented operation has ended without any errors"). Codes of ours the list does not name
 * (-32001 session not found, -32020 header mismatch, -32022 unsupported version, ...) are errors,
 * as "Any other error code" says.
 */
const CLIENT_MISTAKES: ReadonlySet<number> =
  new Set([PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, RESOURCE_NOT_FOUND])

/**
 * `error.type` of a message as the server saw it end; undefined when it did not fail. A JSON-RPC
 * error answer: its code, unless the client's mistake (`CLIENT_MISTAKES`). A `tools/call` result
 * with `isError: true`: `tool_error` (the conventions: "When CallToolResult is returned with
 * `isError` set to `true`, this attribute SHOULD be set to `tool_error`"), which is a failure, so
 * its span's status is ERROR ("If the span status is set to `ERROR`, the status description SHOULD
 * match the `JSONRPCError.message` if the message is available": a tool error has none).
 */
export function errorTypeOf (outcome: CallOutcome): string | undefined {
  const { rpcError } = outcome
  if (rpcError !== undefined) return CLIENT_MISTAKES.has(rpcError.code) ? undefined : String(rpcError.code)
  return outcome.isError === true ? 'tool_error' : undefined
}
