/**
 * A result object as the JSON text of its era: a modern result says what it is and who answered
 * (SEP-2575); a legacy result goes as it is.
 */
import { META_SERVER_INFO, type Era } from './eras.js'
import type { Registry } from '../registry.js'

/** `"_meta":{serverInfo}` of each server, serialised once. */
const serverInfoMeta = new WeakMap<Registry, string>()

/** Serialises a result; throws a TypeError when it holds what JSON cannot carry (a BigInt, a cycle). */
export function resultJson (registry: Registry, era: Era, result: object): string {
  if (era === 'legacy') return JSON.stringify(result)
  const out = result as Record<string, unknown>
  const meta = out._meta as Record<string, unknown> | undefined
  if (meta === undefined && out.resultType === undefined) {
    // the common case, spliced as text: `{"resultType":"complete", ...the result's own keys, "_meta":…}`.
    // Same bytes as serialising `{ resultType, ...out, _meta }`, without copying the object
    // (the profile of a tools/call showed that spread-and-stringify as the plugin's largest cost)
    let metaJson = serverInfoMeta.get(registry)
    if (metaJson === undefined) {
      metaJson = '"_meta":' + JSON.stringify(registry.serverInfoMeta)
      serverInfoMeta.set(registry, metaJson)
    }
    const own = JSON.stringify(out)
    return '{"resultType":"complete",' + (own === '{}' ? '' : own.slice(1, -1) + ',') + metaJson + '}'
  }
  // a result with its own _meta, or its own resultType (which then wins, in the first place)
  return JSON.stringify({
    resultType: 'complete',
    ...out,
    _meta: meta === undefined ? registry.serverInfoMeta : { ...meta, [META_SERVER_INFO]: registry.options.info }
  })
}
