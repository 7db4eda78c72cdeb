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
