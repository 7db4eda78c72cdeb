/**
 * Content blocks a tool may return, built by helpers so a returned array of them is told apart
 * from a plain JSON array (which becomes JSON text and `structuredContent`), as Sake tells its
 * `%Sake.Content{}` structs from maps.
 */

const kContent = Symbol('fastify-sake.content')

/** `audience`, `priority` and `lastModified`, as the spec defines them. */
export interface ContentAnnotations {
  audience?: Array<'user' | 'assistant'>
  priority?: number
  lastModified?: string
}

export interface Icon {
  src: string
  mimeType?: string
  sizes?: string[]
  theme?: 'light' | 'dark'
}

function iconProblem (icon: unknown, at: string): string | undefined {
  if (typeof icon !== 'object' || icon === null || Array.isArray(icon)) return `${at} is not an object`
  const { src, mimeType, sizes, theme } = icon as Record<string, unknown>
  if (typeof src !== 'string' || src === '') return `${at}.src must be a non-empty string (an https: or data: URI)`
  if (mimeType !== undefined && typeof mimeType !== 'string') return `${at}.mimeType must be a string`
  if (sizes !== undefined && !(Array.isArray(sizes) && sizes.every((size) => typeof size === 'string'))) {
    return `${at}.sizes must be an array of strings such as "48x48" or "any"`
  }
  if (theme !== undefined && theme !== 'light' && theme !== 'dark') return `${at}.theme must be 'light' or 'dark'`
  return undefined
}

/**
 * Why `icons` is not a list of icons as the spec defines them, or undefined when it is. Shared by
 * the server's and the tools' `icons`, so both refuse the same mistakes with the same words.
 */
export function iconsProblem (icons: unknown): string | undefined {
  if (!Array.isArray(icons)) return 'it is not an array'
  for (let i = 0; i < icons.length; i++) {
    const problem = iconProblem(icons[i], `icons[${i}]`)
    if (problem !== undefined) return problem
  }
  return undefined
}

interface BlockOptions {
  annotations?: ContentAnnotations
  meta?: Record<string, unknown>
}

export interface TextContent { type: 'text', text: string, annotations?: ContentAnnotations, _meta?: Record<string, unknown> }
export interface ImageContent { type: 'image', data: string, mimeType: string, annotations?: ContentAnnotations, _meta?: Record<string, unknown> }
export interface AudioContent { type: 'audio', data: string, mimeType: string, annotations?: ContentAnnotations, _meta?: Record<string, unknown> }
export interface EmbeddedResource {
  type: 'resource'
  resource: { uri: string, mimeType?: string, text: string } | { uri: string, mimeType?: string, blob: string }
  annotations?: ContentAnnotations
  _meta?: Record<string, unknown>
}
export interface ResourceLink {
  type: 'resource_link'
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  icons?: Icon[]
  annotations?: ContentAnnotations
  _meta?: Record<string, unknown>
}

export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink

type Binary = string | Uint8Array

function base64 (data: Binary): string {
  return typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64')
}

function brand<T extends ContentBlock> (block: T, options: BlockOptions | undefined): T {
  if (options?.annotations !== undefined) block.annotations = options.annotations
  if (options?.meta !== undefined) block._meta = options.meta
  // not enumerable: JSON.stringify never sees it
  Object.defineProperty(block, kContent, { value: true })
  return block
}

/** True for a block made by one of the helpers below. */
export function isContent (value: unknown): value is ContentBlock {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kContent] === true
}

/** A text block. */
export function text (value: string, options?: BlockOptions): TextContent {
  return brand({ type: 'text', text: value }, options)
}

/** An image block; `data` is base64 text or bytes (encoded for you). */
export function image (data: Binary, mimeType: string, options?: BlockOptions): ImageContent {
  return brand({ type: 'image', data: base64(data), mimeType }, options)
}

/** An audio block; `data` is base64 text or bytes (encoded for you). */
export function audio (data: Binary, mimeType: string, options?: BlockOptions): AudioContent {
  return brand({ type: 'audio', data: base64(data), mimeType }, options)
}

/**
 * An embedded resource: a string is sent as `text`, bytes as a base64 `blob`.
 * @example resource('file:///notes.md', '# Notes', { mimeType: 'text/markdown' })
 */
export function resource (uri: string, contents: string | Uint8Array, options?: BlockOptions & { mimeType?: string }): EmbeddedResource {
  const body = typeof contents === 'string'
    ? { uri, text: contents }
    : { uri, blob: base64(contents) }
  if (options?.mimeType !== undefined) (body as { mimeType?: string }).mimeType = options.mimeType
  return brand({ type: 'resource', resource: body }, options)
}

/** A link to a resource the client may read or subscribe to; not embedded. */
export function resourceLink (uri: string, name: string, options?: BlockOptions & Omit<ResourceLink, 'type' | 'uri' | 'name' | 'annotations' | '_meta'>): ResourceLink {
  const block: ResourceLink = { type: 'resource_link', uri, name }
  if (options !== undefined) {
    const { annotations, meta, ...rest } = options
    Object.assign(block, rest)
  }
  return brand(block, options)
}
