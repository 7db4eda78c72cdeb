/** `resources/list`, `resources/templates/list` and `resources/read`, for both eras. */
import { ClientInputError, ProtocolError } from '../../errors.js'
import { INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND } from '../../spec/jsonrpc.js'
import { shapeContents, type CompiledResource } from '../../define/resource.js'
import type { Call } from '../call.js'
import { FeatureContext } from '../call-context.js'
import { clientInputFailure } from '../input/client-input.js'
import { finishRound, readRetry, settle } from '../input/round-trip.js'
import type { PagedList } from '../lists.js'
import { resultJson } from '../results.js'
import type { ServerContext } from '../server.js'
import { APP_MIME_TYPE } from '../../spec/apps.js'
import { declaresApps, uiContents } from './apps.js'

/** A page of one of the lists besides tools; a cursor that is not a string, or not ours, is -32602. */
export function listPage (server: ServerContext, call: Call, list: Exclude<PagedList, 'tools'>): string {
  const cursor = call.params.cursor
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ProtocolError(INVALID_PARAMS, 'Invalid params: "cursor" must be a string')
  }
  const page = server.lists.page(list, call.era, cursor, call.auth, declaresApps(call.client))
  if (page === undefined) throw new ProtocolError(INVALID_PARAMS, `Invalid params: unknown cursor ${JSON.stringify(cursor)}; start again without a cursor`)
  return page
}

/** -32602 in 2026-07-28, -32002 in 2025 sessions (the code those revisions define), with `data.uri`. */
function notFound (call: Call, uri: string): ProtocolError {
  return new ProtocolError(call.era === 'modern' ? INVALID_PARAMS : RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, 200, { uri })
}

/**
 * The `ttlMs` of a read: the resource's own ttl under the server's ceiling; a UI resource's own
 * (a day by default) even above it, since an app's HTML changes with a deploy, not with the data.
 */
function readTtl (server: ServerContext, resource: CompiledResource): number {
  if (resource.ui !== undefined) return resource.ttl!
  return Math.min(resource.ttl ?? server.ttl, server.ttl)
}

/**
 * Reads a resource and returns the result as JSON text. A read that throws (anything but a
 * ProtocolError, which is sent as it is) or returns what we cannot send is -32603 with a generic
 * message; the error goes to the log. Behind authorization a read may depend on who asks, so its
 * result is `private` then (a cache never shares it across tokens).
 */
export async function readResource (server: ServerContext, call: Call): Promise<string> {
  const { input } = server
  const uri = call.params.uri
  if (typeof uri !== 'string') throw new ProtocolError(INVALID_PARAMS, 'Invalid params: resources/read needs "uri", the resource to read, as a string')
  const found = call.target?.kind === 'found' ? call.target : undefined // looked up at the edge
  if (found === undefined) throw notFound(call, uri)
  const { resource, vars } = found
  const retry = call.era === 'modern' ? readRetry(input, call, uri, undefined) : undefined
  const ctx = new FeatureContext(call, { resource: uri }, input, retry)
  let json: string
  try {
    const settled = await settle(resource.definition.read(uri, vars as never, ctx))
    // a question asked and not yet answered wins over whatever the handler did after it
    const round = ctx.round === undefined ? undefined : finishRound(ctx.round, input, call, uri, undefined)
    if (round !== undefined) return resultJson(server, 'modern', round)
    const returned = settled()
    if (returned === undefined || returned === null) throw notFound(call, uri)
    const shaped = shapeContents(returned, uri, resource.ui === undefined ? resource.definition.mimeType : APP_MIME_TYPE)
    const contents = resource.ui === undefined ? shaped : uiContents(resource, shaped, declaresApps(call.client))
    json = call.era === 'modern'
      ? resultJson(server, 'modern', { contents, ttlMs: readTtl(server, resource), cacheScope: resource.cacheScope ?? (call.auth === undefined ? 'public' : 'private') })
      : resultJson(server, 'legacy', { contents })
  } catch (err) {
    if (err instanceof ProtocolError) throw err
    if (err instanceof ClientInputError) throw clientInputFailure(`resource '${uri}'`, err)
    // a driver message or a path is not for the client
    ctx.log.error({ err }, `resource '${uri}' could not be read`)
    throw new ProtocolError(INTERNAL_ERROR, `Internal error: resource '${uri}' could not be read`)
  }
  return json
}
