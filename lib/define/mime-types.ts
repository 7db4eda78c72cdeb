/**
 * The `mimeType` of a skill's file, from its extension: what `mime-types` (mime-db) says, but for
 * the few extensions where its answer is wrong for a file a skill holds (`OURS`). Anything else is
 * `text/plain` when its bytes are UTF-8 text, `application/octet-stream` when they are not.
 *
 * mime-db is a 200 KB JSON file that takes tens of milliseconds to load, and skills are optional:
 * it is loaded at the first skill file's type, never with the plugin.
 */
import { createRequire } from 'node:module'

/** Where a skill's file is not what mime-db names, or has no type there. */
const OURS: ReadonlyMap<string, string> = new Map([
  // RFC 9512 registered application/yaml; mime-db still says text/yaml
  ['yaml', 'application/yaml'],
  ['yml', 'application/yaml'],
  // TypeScript, not an MPEG transport stream (mime-db: video/mp2t for .ts and .mts)
  ['ts', 'text/x-typescript'],
  ['mts', 'text/x-typescript'],
  ['cts', 'text/x-typescript'],
  // Rust, not RLS services XML (mime-db: application/rls-services+xml)
  ['rs', 'text/x-rust'],
  // JavaScript to whoever reads it (mime-db: application/node)
  ['cjs', 'text/javascript'],
  // scripts read as text (mime-db: none for .py and .rb, application/x-sh for .sh)
  ['py', 'text/x-python'],
  ['rb', 'text/x-ruby'],
  ['sh', 'text/x-shellscript']
])

let lookup: ((extension: string) => string | false) | undefined

const utf8 = new TextDecoder('utf-8', { fatal: true })

export function mimeTypeOf (file: string, bytes: Uint8Array): string {
  const name = file.slice(file.lastIndexOf('/') + 1)
  const dot = name.lastIndexOf('.')
  // a leading dot is a hidden file's name, not an extension
  if (dot > 0) {
    const extension = name.slice(dot + 1).toLowerCase()
    lookup ??= (createRequire(import.meta.url)('mime-types') as typeof import('mime-types')).lookup
    const known = OURS.get(extension) ?? lookup(extension)
    if (known !== false) return known
  }
  try {
    utf8.decode(bytes)
    return 'text/plain'
  } catch {
    return 'application/octet-stream'
  }
}
