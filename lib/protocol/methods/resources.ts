/** `resources/list`, `resources/templates/list` and `resources/read`, for both eras. */
import { INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND } from '../jsonrpc.js'
import { ClientInputError, ProtocolError } from '../../errors.js'
import { FeatureContext } from '../feature-context.js'
import { shapeContents, type CompiledResource } from '../../define/resource.js'
import { resultJson } from '../results.js'
import type { Call } from '../context.js'
import type { ListName, Registry } from '../../registry.js'
import { clientInputFailure, finishRound, readRetry, settle, type InputSettings } from '../input.js'

/** A page of one of the lists besides tools; a cursor that is not a string, or not ours, is -32602. */
export function listPage (registry: Registry, call: Call, list: ListName): string {
  const cursor = call.params.cursor
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ProtocolError(INVALID_PARAMS, 'Invalid params: "cursor" must be a string')
  }
  const page = registry.listPage(list, call.era, cursor, call.auth)
  if (page === undefined) throw new ProtocolError(INVALID_PARAMS, `Invalid params: unknown cursor ${JSON.stringify(cursor)}; start again without a cursor`)
  return page
}

/** The resource a URI names: a fixed one first, then each template in registration order. */
export function findResource (registry: Registry, uri: string): { resource: CompiledResource, vars: Record<string, string> } | undefined {
  const fixed = registry.resources.get(uri)
  if (fixed !== undefined) return { resource: fixed, vars: {} }
  for (const resource of registry.templates.values()) {
    const vars = resource.template!.match(uri)
    if (vars !== undefined) return { resource, vars }
  }
  return undefined
}

/** -32602 in 2026-07-28, -32002 in 2025 sessions (the code those revisions define), with `data.uri`. */
function notFound (call: Call, uri: string): ProtocolError {
  return new ProtocolError(call.era === 'modern' ? INVALID_PARAMS : RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, 200, { uri })
}

/**
 * Reads a resource and returns the result as JSON text. A read that throws (anything but a
 * ProtocolError, which is sent as it is) or returns what we cannot send is -32603 with a generic
 * message; the error goes to the log. Behind authorization a read may depend on who asks, so its
 * result is `private` then (a cache never shares it across tokens).
 */
export async function readResource (registry: Registry, call: Call, input: InputSettings): Promise<string> {
  const uri = call.params.uri
  if (typeof uri !== 'string') throw new ProtocolError(INVALID_PARAMS, 'Invalid params: resources/read needs "uri", the resource to read, as a string')
  const found = findResource(registry, uri)
  if (found === undefined) throw notFound(call, uri)
  const { resource, vars } = found
  const retry = call.era === 'modern' ? readRetry(input, call, uri, undefined) : undefined
  const ctx = new FeatureContext(call, { resource: uri }, input, retry)
  let json: string
  try {
    const settled = await settle(resource.definition.read(uri, vars as never, ctx))
    // a question asked and not yet answered wins over whatever the handler did after it
    const round = ctx.round === undefined ? undefined : finishRound(ctx.round, input, call, uri, undefined)
    if (round !== undefined) return resultJson(registry, 'modern', round)
    const returned = settled()
    if (returned === undefined || returned === null) throw notFound(call, uri)
    const contents = shapeContents(returned, uri, resource.definition.mimeType)
    json = call.era === 'modern'
      ? resultJson(registry, 'modern', { contents, ttlMs: Math.min(resource.ttl ?? registry.options.ttl, registry.options.ttl), cacheScope: call.auth === undefined ? 'public' : 'private' })
      : resultJson(registry, 'legacy', { contents })
  } catch (err) {
    if (err instanceof ProtocolError) throw err
    if (err instanceof ClientInputError) throw clientInputFailure(`resource '${uri}'`, err)
    // a driver message or a path is not for the client
    ctx.log.error({ err }, `resource '${uri}' could not be read`)
    throw new ProtocolError(INTERNAL_ERROR, `Internal error: resource '${uri}' could not be read`)
  }
  return json
}
