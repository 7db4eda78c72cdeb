// What a message is, decided once: classify() for bodies, classifyHeaders() for the headers a
// request carries before its body, targetOf() for what a message names.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { ProtocolError } from '../../lib/errors.js'
import { Registry } from '../../lib/define/registry.js'
import { classify, classifyHeaders, readModernMeta, targetOf } from '../../lib/protocol/inbound.js'
import { scopesNamed } from '../../lib/protocol/access-check.js'

const V = 'io.modelcontextprotocol/protocolVersion'
const CAPS = 'io.modelcontextprotocol/clientCapabilities'
const MODERN = { [V]: '2026-07-28', [CAPS]: {} }

function registry (): Registry {
  const r = new Registry(new Map([['read', 'Read']]))
  r.addTool({ name: 'add', scope: 'read', args: { a: Type.Number() }, execute: () => 1 })
  r.addPrompt({ name: 'greet', get: () => 'hi' })
  r.addResource({ uri: 'file:///a', name: 'a', read: () => 'a' })
  r.addResource({ uriTemplate: 'notes://{id}', name: 'note', read: () => 'n' })
  return r
}

t.test('kinds: request, notification, response, batch, and a body that is no message', async (t) => {
  const r = registry()
  const request = classify(r, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'add', _meta: MODERN } }, undefined, undefined)
  t.match(request, { kind: 'request', era: 'modern', protocolVersion: '2026-07-28', method: 'tools/call', id: 7, name: 'add', refusal: undefined })
  t.equal(request.facts?.method, 'tools/call', 'the method\'s row')
  t.equal(request.target?.kind, 'tool', 'what it names, looked up')
  t.same(request.meta, { protocolVersion: '2026-07-28', client: { info: undefined, capabilities: {} }, logLevel: undefined })

  t.match(classify(r, { jsonrpc: '2.0', method: 'notifications/initialized' }, 's1', '2025-11-25'), { kind: 'notification', era: 'legacy', protocolVersion: '2025-11-25', id: undefined, sessionId: 's1' })
  t.match(classify(r, { jsonrpc: '2.0', id: 'sake-x-1', result: { ok: true } }, 's1', undefined), { kind: 'response', era: 'legacy', method: undefined, id: undefined, responseId: 'sake-x-1', result: { ok: true } })
  t.match(classify(r, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], 's1', 'nope'), { kind: 'batch', era: 'legacy', protocolVersion: undefined, items: [{ method: 'ping' }] })

  const invalid = classify(r, { jsonrpc: '1.0', id: 3, method: 'tools/call', params: { name: 'add' } }, undefined, undefined)
  t.match(invalid, { kind: 'invalid', method: 'tools/call', id: 3, name: 'add' }, 'as much as an invalid message tells')
  t.ok(invalid.refusal instanceof ProtocolError)
  t.equal(invalid.refusal?.code, -32600)
  t.match(classify(r, 'just a string', undefined, undefined), { kind: 'invalid', era: undefined, method: undefined, params: undefined, id: undefined })
})

t.test('eras: _meta, the handshake, a session, or neither', async (t) => {
  const r = registry()
  t.match(classify(r, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2030-01-01' } }, undefined, undefined), { era: 'legacy', protocolVersion: '2025-11-25' }, 'the version initialize will negotiate')
  t.match(classify(r, { jsonrpc: '2.0', id: 1, method: 'ping' }, undefined, '2026-07-28'), { era: undefined, protocolVersion: undefined }, 'a version header alone makes no era')
  t.match(classify(r, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [V]: 2026 } } }, undefined, undefined), { era: 'modern', protocolVersion: undefined }, 'not a string: modern, no version')
  const refused = classify(r, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [V]: '2026-07-28' } } }, undefined, undefined)
  t.equal(refused.meta, undefined)
  t.match(refused.metaRefusal, { code: -32602, status: 400, message: /clientCapabilities.*is required/ }, 'the _meta\'s refusal, for the era\'s first check')
  t.equal(classify(r, { jsonrpc: '2.0', method: 'notifications/x', params: { _meta: MODERN } }, undefined, undefined).metaRefusal, undefined, 'a notification\'s _meta is not checked')
  t.throws(() => readModernMeta(undefined), { code: -32602, message: /needs params._meta/ })
  t.throws(() => readModernMeta({ _meta: { ...MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'c' } } }), { message: /clientInfo.*"name" and "version"/ })
  t.throws(() => readModernMeta({ _meta: { ...MODERN, 'io.modelcontextprotocol/logLevel': 'loud' } }), { message: /logLevel.*must be one of/ })
})

t.test('classifyHeaders: what the headers alone say, before the body', async (t) => {
  const r = registry()
  t.match(classifyHeaders(r, '2026-07-28', undefined, 'tools/call', 'add'), { era: 'modern', protocolVersion: '2026-07-28', method: 'tools/call', name: 'add' })
  t.equal(classifyHeaders(r, '2026-07-28', undefined, 'tools/call', 'add').target?.kind, 'tool')
  t.equal(classifyHeaders(r, '2026-07-28', undefined, 'resources/read', 'notes://7').target?.kind, 'found', 'a name the body would give as a URI')
  t.equal(classifyHeaders(r, '2026-07-28', undefined, 'tools/list', 'add').target, undefined, 'a method that names nothing')
  t.equal(classifyHeaders(r, '2026-07-28', undefined, 'nope/nope', 'add').target, undefined, 'a method nobody knows')
  t.match(classifyHeaders(r, '1999-01-01', 's1', undefined, undefined), { era: 'legacy', protocolVersion: '1999-01-01', sessionId: 's1' })
  t.match(classifyHeaders(r, '1999-01-01', undefined, undefined, undefined), { era: undefined, protocolVersion: undefined })
})

t.test('targetOf, by the kind a row names; scopesNamed from the headers\' hint', async (t) => {
  const r = registry()
  t.equal(targetOf(r, 'tool', undefined), undefined, 'no params: nothing named')
  t.equal(targetOf(r, 'tool', { name: 7 }), undefined)
  t.equal(targetOf(r, 'prompt', { name: 'greet' })?.kind, 'prompt')
  t.equal(targetOf(r, 'resource', { uri: 'file:///a' })?.kind, 'found')
  t.equal(targetOf(r, 'reference', { ref: { type: 'ref/prompt', name: 'greet' } })?.kind, 'prompt')
  t.equal(targetOf(r, 'reference', { ref: { type: 'ref/resource', uri: 'notes://{id}' } })?.kind, 'resource')
  t.equal(targetOf(r, 'reference', { ref: { type: 'ref/other' } }), undefined)
  t.equal(targetOf(r, 'reference', { ref: 'greet' }), undefined)
  t.same(scopesNamed(r, 'tools/call', 'add'), ['read'])
  t.equal(scopesNamed(r, 'tools/list', 'add'), undefined, 'a method that names nothing needs nothing named')
  t.equal(scopesNamed(r, 'tools/call', 'gone'), undefined)
})
