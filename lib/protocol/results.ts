/**
 * A result object as the JSON text of its era: a modern result says what it is and who answered
 * (SEP-2575); a legacy result goes as it is.
 */
import { META_SERVER_INFO, type Era } from './eras.js'
import type { Registry } from '../registry.js'

/** Serialises a result; throws a TypeError when it holds what JSON cannot carry (a BigInt, a cycle). */
export function resultJson (registry: Registry, era: Era, result: object): string {
  if (era === 'legacy') return JSON.stringify(result)
  const out = result as Record<string, unknown>
  const meta = out._meta as Record<string, unknown> | undefined
  return JSON.stringify({
    resultType: 'complete',
    ...out,
    _meta: meta === undefined ? registry.serverInfoMeta : { ...meta, [META_SERVER_INFO]: registry.options.info }
  })
}
