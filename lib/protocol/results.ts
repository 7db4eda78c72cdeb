/**
 * A result object as the JSON text of its era: a modern result says what it is and who answered
 * (SEP-2575); a legacy result goes as it is.
 */
import type { Era } from '../spec/eras.js'
import { META_SERVER_INFO } from '../spec/meta-keys.js'
import { structuredResultBody } from '../define/result.js'
import type { ServerContext } from './server.js'

/** Serialises a result; throws a TypeError when it holds what JSON cannot carry (a BigInt, a cycle). */
export function resultJson (server: ServerContext, era: Era, result: object): string {
  // a tool's JSON value: its text already made once by `shape`, spliced rather than serialised again
  const body = structuredResultBody(result)
  if (era === 'legacy') return body === undefined ? JSON.stringify(result) : '{' + body + '}'
  const out = result as Record<string, unknown>
  const meta = out._meta as Record<string, unknown> | undefined
  if (meta === undefined && out.resultType === undefined) {
    // the common case, spliced as text: `{"resultType":"complete", ...the result's own keys, "_meta":…}`.
    // Same bytes as serialising `{ resultType, ...out, _meta }`, without copying the object
    // (the profile of a tools/call showed that spread-and-stringify as the plugin's largest cost)
    if (body !== undefined) return '{"resultType":"complete",' + body + ',' + server.serverInfoMetaJson + '}'
    const own = JSON.stringify(out)
    return '{"resultType":"complete",' + (own === '{}' ? '' : own.slice(1, -1) + ',') + server.serverInfoMetaJson + '}'
  }
  // a result with its own _meta, or its own resultType (which then wins, in the first place)
  return JSON.stringify({
    resultType: 'complete',
    ...out,
    _meta: meta === undefined ? server.serverInfoMeta : { ...meta, [META_SERVER_INFO]: server.info }
  })
}
