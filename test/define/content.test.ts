// Content helpers (Sake.Content): each block as the spec shapes it, bytes encoded for the caller,
// annotations and _meta, and the brand that tells a helper's block from a look-alike object.
import t from 'tap'
import { text, image, audio, resource, resourceLink, isContent } from '../../lib/define/content.js'

const annotations = { audience: ['user' as const], priority: 0.5, lastModified: '2026-01-01T00:00:00Z' }

function json (value: unknown): unknown {
  return JSON.parse(JSON.stringify(value))
}

t.test('text', async (t) => {
  t.same(json(text('hello')), { type: 'text', text: 'hello' })
  t.same(json(text('hi', { annotations, meta: { k: 1 } })), { type: 'text', text: 'hi', annotations, _meta: { k: 1 } })
})

t.test('image and audio take base64 text as it is', async (t) => {
  t.same(json(image('iVBORw0KGgo=', 'image/png')), { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' })
  t.same(json(audio('UklGRg==', 'audio/wav', { annotations })), { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav', annotations })
})

t.test('image and audio encode bytes', async (t) => {
  const bytes = new Uint8Array([0, 1, 2, 253, 254, 255])
  t.equal(image(bytes, 'image/png').data, 'AAEC/f7/', 'a Uint8Array')
  t.equal(audio(Buffer.from('RIFF'), 'audio/wav').data, 'UklGRg==', 'a Buffer')
  const backing = new Uint8Array([9, 9, 1, 2, 3, 9])
  t.equal(image(backing.subarray(2, 5), 'image/png').data, Buffer.from([1, 2, 3]).toString('base64'), 'only the view, not its whole buffer')
  t.equal(image(new Uint8Array(0), 'image/png').data, '', 'empty bytes')
})

t.test('resource: text, or bytes as a base64 blob', async (t) => {
  t.same(json(resource('file:///notes.md', '# Notes', { mimeType: 'text/markdown' })), {
    type: 'resource', resource: { uri: 'file:///notes.md', text: '# Notes', mimeType: 'text/markdown' }
  })
  t.same(json(resource('file:///a.bin', new Uint8Array([255, 0]))), { type: 'resource', resource: { uri: 'file:///a.bin', blob: '/wA=' } }, 'no mimeType unless given')
  t.same(json(resource('file:///a.txt', 'x', { annotations, meta: { m: true } })), {
    type: 'resource', resource: { uri: 'file:///a.txt', text: 'x' }, annotations, _meta: { m: true }
  }, 'annotations and _meta on the block, not on the resource')
})

t.test('resourceLink', async (t) => {
  t.same(json(resourceLink('file:///report.pdf', 'report.pdf')), { type: 'resource_link', uri: 'file:///report.pdf', name: 'report.pdf' })
  const icons = [{ src: 'https://example.com/pdf.png' }]
  t.same(json(resourceLink('file:///report.pdf', 'report.pdf', {
    title: 'Report', description: 'Q3', mimeType: 'application/pdf', size: 1024, icons, annotations, meta: { id: 7 }
  })), {
    type: 'resource_link', uri: 'file:///report.pdf', name: 'report.pdf', title: 'Report', description: 'Q3', mimeType: 'application/pdf', size: 1024, icons, annotations, _meta: { id: 7 }
  })
  t.notOk('meta' in resourceLink('u', 'n', { meta: { a: 1 } }), 'meta goes to _meta only')
})

t.test('the brand', async (t) => {
  for (const block of [text('a'), image('AA==', 'image/png'), audio('AA==', 'audio/wav'), resource('u', 'x'), resourceLink('u', 'n')]) {
    t.ok(isContent(block), block.type)
    const symbols = Object.getOwnPropertySymbols(block)
    t.equal(symbols.length, 1, 'branded')
    t.notOk(Object.getOwnPropertyDescriptor(block, symbols[0])!.enumerable, 'not enumerable')
    t.notMatch(JSON.stringify(block), /fastify-sake/, 'never serialised')
  }
  t.notOk(isContent({ type: 'text', text: 'a' }), 'a look-alike object is not a block')
  t.notOk(isContent({ ...text('a') }), 'a spread copy loses the brand')
  t.notOk(isContent(null))
  t.notOk(isContent('text'))
  t.notOk(isContent(undefined))
})
