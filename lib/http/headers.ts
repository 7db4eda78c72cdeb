/**
 * The `Mcp-*` request headers of SEP-2243: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
 * `Mcp-Param-{Name}`, decoded and compared with the body they mirror. Gateways route on these
 * headers and the server executes the body, so any disagreement is refused (400 + -32020).
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyRequest } from 'fastify'
import { ProtocolError } from '../errors.js'
import { acceptable, type Acceptable } from './accept.js'
import { SUPPORTED_VERSIONS, isModernVersion } from '../spec/eras.js'
import { HEADER_MISMATCH, INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION } from '../spec/jsonrpc.js'
import { BASE64_PREFIX as PREFIX, BASE64_SUFFIX as SUFFIX, METHOD, NAME, PROTOCOL_VERSION, SESSION_ID, SHOWN } from '../spec/headers.js'
import type { CompiledTool } from '../define/tool.js'
import type { InboundRequest } from '../protocol/inbound.js'

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
// RFC 9110 field value characters: visible ASCII, space and tab
const PLAIN = /^[\x20-\x7E\t]*$/
const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

function mismatch (message: string): ProtocolError {
  return new ProtocolError(HEADER_MISMATCH, `Header mismatch: ${message}`, 400)
}

/** How many field lines named `name` (lowercase) a request sent, from Node's `rawHeaders` (name, value, name, value...). */
function fieldLines (rawHeaders: readonly string[], name: string): number {
  let lines = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const field = rawHeaders[i]!
    if (field.length === name.length && field.toLowerCase() === name) lines++
  }
  return lines
}

/**
 * Refuses a header sent on several field lines (400 + -32020). Node joins the lines of a header it
 * does not know with ', ' (`us, eu`), while a gateway routing on the header may read the first
 * line alone (`us`): the two would act on different values. Only a value holding a comma can be
 * such a join, so the common case costs one `includes` and allocates nothing; `rawHeaders` is
 * read only then.
 */
export function checkOnce (rawHeaders: readonly string[], name: string, value: string | undefined, display?: string): void {
  if (value === undefined || !value.includes(',')) return
  const lines = fieldLines(rawHeaders, name)
  if (lines > 1) throw mismatch(`${display ?? SHOWN[name as keyof typeof SHOWN]} header is sent on ${lines} field lines, which are read as one value ${quote(value)}; a gateway may read the first alone: send it once`)
}

/**
 * One request header as a string. Node already joins a repeated field with ', '; a host hook may
 * still have set an array, which is joined the same way (so a repeated value never passes for one).
 *
 * Every header the hot path reads goes through here, never as `headers.accept`: the headers object's
 * hidden class follows the order the client sent its headers in, so a new order (another client, or
 * each new wrk process, which shuffles them) made V8 throw away the optimised code of every function
 * that read a header by name. This one keyed read sees many names and turns megamorphic, which takes
 * any order without a deopt (bench/RESULTS.md, the session of 2026-12-02 16:02).
 */
export function headerValue (headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

/** Decodes a header value, unwrapping the base64 sentinel; throws -32020 on bad characters. */
export function decodeHeaderValue (display: string, raw: string): string {
  if (raw.length >= PREFIX.length + SUFFIX.length && raw.startsWith(PREFIX) && raw.endsWith(SUFFIX)) {
    const encoded = raw.slice(PREFIX.length, raw.length - SUFFIX.length)
    if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) {
      throw mismatch(`${display} header holds invalid base64 inside =?base64?…?=`)
    }
    try {
      return utf8.decode(Buffer.from(encoded, 'base64'))
    } catch {
      throw mismatch(`${display} header's base64 value is not valid UTF-8`)
    }
  }
  if (!PLAIN.test(raw)) {
    throw mismatch(`${display} header contains characters outside visible ASCII; non-ASCII values must be sent as =?base64?…?=`)
  }
  return raw
}

function quote (value: string): string {
  return value.length > 64 ? `'${value.slice(0, 61)}...'` : `'${value}'`
}

/** What a POST carried beside its body, read once: the headers every step after the Origin guard reads. */
export interface Carried {
  readonly accept: string | undefined
  /** What `Accept` allows (`accept.ts`), read once for the request's checks and for how it is answered. */
  readonly acceptable: Acceptable
  /** `Mcp-Session-Id`: a 2025 session, not yet looked up. */
  readonly sessionId: string | undefined
  /** `MCP-Protocol-Version`, as sent. */
  readonly version: string | undefined
  /** The request's header lines as sent (Node's `rawHeaders`), for a value that may be several lines joined (`checkOnce`). */
  readonly rawHeaders: readonly string[]
}

export function carriedBy (request: FastifyRequest): Carried {
  const { headers } = request
  const accept = headerValue(headers, 'accept')
  return {
    accept,
    acceptable: acceptable(accept),
    sessionId: headerValue(headers, SESSION_ID),
    version: headerValue(headers, PROTOCOL_VERSION),
    rawHeaders: request.raw.rawHeaders
  }
}

const notAcceptable = new ProtocolError(INVALID_REQUEST, 'Not Acceptable: the Accept header must allow application/json (MCP clients send "Accept: application/json, text/event-stream")', 406)

/**
 * What a POST carries, checked: `Accept` must allow JSON (406; q-values honoured, an absent header
 * accepts anything), and the headers every POST is routed by are sent once: `Mcp-Session-Id`
 * (before the session is looked up) and `MCP-Protocol-Version` (400 + -32020, in both eras).
 */
export function checkedCarried (request: FastifyRequest): Carried {
  const carried = carriedBy(request)
  if (!carried.acceptable.json) throw notAcceptable
  checkOnce(carried.rawHeaders, SESSION_ID, carried.sessionId)
  checkOnce(carried.rawHeaders, PROTOCOL_VERSION, carried.version)
  return carried
}

/**
 * The headers of a 2026-07-28 request against its body, in the order the spec fixes:
 * `MCP-Protocol-Version` equals the `_meta` version (-32020), which must be one served (-32022),
 * then `Mcp-Method` and `Mcp-Name` (-32020), then the tool's `Mcp-Param-*` (-32020). An unknown
 * method falls through: dispatch answers it (404 + -32601) after these checks.
 */
export function checkModernHeaders (headers: IncomingHttpHeaders, carried: Carried, request: InboundRequest, bodyVersion: string): void {
  const header = carried.version
  if (header === undefined) throw mismatch(`MCP-Protocol-Version header is required and must equal params._meta version ${quote(bodyVersion)}`)
  if (header !== bodyVersion) throw mismatch(`MCP-Protocol-Version header value ${quote(header)} does not match body value ${quote(bodyVersion)}`)
  if (!isModernVersion(bodyVersion)) {
    throw new ProtocolError(UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${bodyVersion}`, 400, {
      supported: SUPPORTED_VERSIONS,
      requested: bodyVersion
    })
  }
  checkRequestHeaders(headers, carried.rawHeaders, request, true)
}

/**
 * The headers a 2025 session's request sent: 2025 clients predate them, so each is checked only
 * when sent, and a mismatch is refused with the same 400 + -32020 as in the modern era.
 */
export function checkSessionHeaders (headers: IncomingHttpHeaders, carried: Carried, request: InboundRequest): void {
  checkRequestHeaders(headers, carried.rawHeaders, request, false)
}

/**
 * `Mcp-Method`, `Mcp-Name` (the field its method's row names, `spec/methods.ts`) and the called
 * tool's `Mcp-Param-*`. With `required` (modern requests) each must be there; otherwise (legacy
 * clients, which predate them) they are checked only when sent.
 */
function checkRequestHeaders (headers: IncomingHttpHeaders, rawHeaders: readonly string[], request: InboundRequest, required: boolean): void {
  const { method, target } = request
  const sentMethod = headerValue(headers, METHOD)
  checkOnce(rawHeaders, METHOD, sentMethod)
  if (sentMethod === undefined) {
    if (required) throw mismatch(`Mcp-Method header is required and must equal the body's method ${quote(method)}`)
  } else if (sentMethod !== method) {
    throw mismatch(`Mcp-Method header value ${quote(sentMethod)} does not match body value ${quote(method)}`)
  }
  checkNameHeader(headers, rawHeaders, request, required)
  // only a tool's call has Mcp-Param-* headers (not a completion naming the tool, ref/tool); an
  // unknown tool has none: the method answers -32602 for it
  if (target?.kind === 'tool' && target.headers.length > 0 && request.facts!.target === 'tool') checkParamHeaders(headers, rawHeaders, target, request.params!.arguments, required)
}

function checkNameHeader (headers: IncomingHttpHeaders, rawHeaders: readonly string[], request: InboundRequest, required: boolean): void {
  const field = request.facts?.mcpName
  // a body without the field is a malformed request: the method itself answers -32602 for it
  const bodyName = request.name
  if (field === undefined || bodyName === undefined) return
  const rawName = headerValue(headers, NAME)
  checkOnce(rawHeaders, NAME, rawName)
  if (rawName === undefined) {
    if (required) throw mismatch(`Mcp-Name header is required for ${request.method} and must equal params.${field} ${quote(bodyName)}`)
    return
  }
  const name = decodeHeaderValue(SHOWN[NAME], rawName)
  if (name !== bodyName) throw mismatch(`Mcp-Name header value ${quote(name)} does not match body value ${quote(bodyName)}`)
}

export function valueAt (args: unknown, path: readonly string[]): unknown {
  let value = args
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

function matches (header: string, body: unknown): boolean {
  if (typeof body === 'string') return header === body
  if (typeof body === 'boolean') return header === String(body)
  if (typeof body === 'number') {
    // integers compare numerically: 42 and 42.0 are the same value
    return DECIMAL.test(header) && Number(header) === body
  }
  return false
}

/**
 * The tool's `Mcp-Param-{Name}` headers against its arguments. A present, non-null argument needs
 * its header with the same value (unless `required` is false: 2025 clients predate these headers);
 * a header whose argument is absent mirrors nothing and is refused.
 */
function checkParamHeaders (headers: IncomingHttpHeaders, rawHeaders: readonly string[], tool: CompiledTool, args: unknown, required: boolean): void {
  for (const param of tool.headers) {
    const raw = headerValue(headers, param.header)
    checkOnce(rawHeaders, param.header, raw, param.display)
    const body = valueAt(args, param.path)
    // the names in the messages are built only for a refusal: this loop runs on every call
    if (body === undefined || body === null) {
      if (raw !== undefined) throw mismatch(`${param.display} header is present but argument '${param.path.join('.')}' is not in the body`)
      continue
    }
    if (raw === undefined) {
      if (!required) continue
      throw mismatch(`${param.display} header is required when argument '${param.path.join('.')}' is sent (body value ${quote(JSON.stringify(body))})`)
    }
    const value = decodeHeaderValue(param.display, raw)
    if (!matches(value, body)) {
      throw mismatch(`${param.display} header value ${quote(value)} does not match body value ${quote(typeof body === 'string' ? body : JSON.stringify(body))} of argument '${param.path.join('.')}'`)
    }
  }
}
