/**
 * The `mimeType` of a skill's file, from its extension: the types a skill folder usually holds
 * (markdown, scripts, data, images). Anything else is `text/plain` when its bytes are UTF-8 text,
 * `application/octet-stream` when they are not.
 */
const TYPES: Readonly<Record<string, string>> = Object.freeze({
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  xml: 'application/xml',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  rb: 'text/x-ruby',
  sql: 'application/sql',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  zip: 'application/zip'
})

const utf8 = new TextDecoder('utf-8', { fatal: true })

export function mimeTypeOf (file: string, bytes: Uint8Array): string {
  const name = file.slice(file.lastIndexOf('/') + 1)
  const dot = name.lastIndexOf('.')
  const known = dot > 0 ? TYPES[name.slice(dot + 1).toLowerCase()] : undefined
  if (known !== undefined) return known
  try {
    utf8.decode(bytes)
    return 'text/plain'
  } catch {
    return 'application/octet-stream'
  }
}
