// A tool that finds, from its arguments, that it needs more than its declared scopes throws
// InsufficientScopeError: a plain answer becomes the 403 challenge; an answer that already streams
// (a progressToken, stream: true) gets the same error inside the stream, the only place left.
import t from 'tap'
import { InsufficientScopeError, Type } from '../../lib/index.js'
import { build, legacyRequest, modernRequest, rpc } from '../helpers/app.js'
import { METADATA_URL, authApp, bearer, startIssuer } from './helpers.js'

const CHALLENGE = `Bearer error="insufficient_scope", scope="issues:admin", resource_metadata="${METADATA_URL}", error_description="The access token lacks a scope this operation needs"`

function events (body: string): any[] {
  return body.split('\n').filter((line) => line.startsWith('data: ') && line.length > 6).map((line) => JSON.parse(line.slice(6)))
}

t.test('thrown from a tool: 403 with the challenge, or an in-stream error once streaming', async (t) => {
  const issuer = await startIssuer(t)
  const app = await authApp(issuer)
  app.registerTool({
    name: 'close_any',
    scope: 'issues:write',
    args: { owner: Type.String() },
    execute ({ owner }, ctx) {
      ctx.progress(1, 2, 'looking')
      if (owner !== ctx.auth?.subject && !ctx.auth!.scopes.includes('issues:admin')) throw new InsufficientScopeError('issues:admin')
      return 'closed'
    }
  })
  const writer = bearer(await issuer.sign({ scope: 'issues:write' }))
  t.equal(rpc(await app.inject(modernRequest('tools/call', { name: 'close_any', arguments: { owner: 'alice' } }, writer))).result.content[0].text, 'closed')

  const plain = await app.inject(modernRequest('tools/call', { name: 'close_any', arguments: { owner: 'bob' } }, writer))
  t.equal(plain.statusCode, 403)
  t.equal(plain.headers['www-authenticate'], CHALLENGE)
  t.same(rpc(plain).error, { code: -32600, message: "Forbidden: tool 'close_any' needs the scope issues:admin, which the access token does not grant", data: { error: 'insufficient_scope', scopes: ['issues:admin'] } })

  const streamed = await app.inject(modernRequest('tools/call', { name: 'close_any', arguments: { owner: 'bob' }, _meta: { progressToken: 'p' } }, writer))
  t.equal(streamed.statusCode, 200, 'the stream was already open')
  t.match(streamed.headers['content-type'], /^text\/event-stream/)
  const [progress, answer] = events(streamed.body)
  t.equal(progress.method, 'notifications/progress')
  t.same(answer.error, { code: -32600, message: "Forbidden: tool 'close_any' needs the scope issues:admin, which the access token does not grant", data: { error: 'insufficient_scope', scopes: ['issues:admin'] } })

  // 2025 session: a lone message gets the 403; inside a batch the refusal is that item's error
  const reader = bearer(await issuer.sign({ scope: 'issues:write' }))
  const init = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', ...reader }, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } })
  const session = init.headers['mcp-session-id'] as string
  const call = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'close_any', arguments: { owner: 'bob' } } }
  const alone = await app.inject(legacyRequest(session, '2025-03-26', call, reader))
  t.equal(alone.statusCode, 403)
  t.equal(alone.headers['www-authenticate'], CHALLENGE)
  const batch = await app.inject(legacyRequest(session, '2025-03-26', [call, { jsonrpc: '2.0', id: 5, method: 'ping' }], reader))
  t.equal(batch.statusCode, 200)
  t.same(JSON.parse(batch.body).map((item: { id: number, error?: { data: unknown } }) => [item.id, item.error?.data]), [[4, { error: 'insufficient_scope', scopes: ['issues:admin'] }], [5, undefined]])
})

t.test('with auth off, a thrown InsufficientScopeError is still a 403, without metadata to name', async (t) => {
  const app = await build()
  app.registerTool({ name: 'strict', execute: () => { throw new InsufficientScopeError(['a', 'b'], 'custom') } })
  const res = await app.inject(modernRequest('tools/call', { name: 'strict', arguments: {} }))
  t.equal(res.statusCode, 403)
  t.equal(res.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="a b", error_description="The access token lacks a scope this operation needs"')
})

t.test('InsufficientScopeError takes scope tokens only', async (t) => {
  t.same(new InsufficientScopeError('x').scopes, ['x'])
  t.equal(new InsufficientScopeError('x').message, 'this call needs the scopes x')
  t.equal(new InsufficientScopeError('x').name, 'InsufficientScopeError')
  for (const bad of [[], 'a b', ['ok', 'bad"quote'], [5]]) {
    t.throws(() => new InsufficientScopeError(bad as never), { name: 'TypeError', message: /^InsufficientScopeError takes one scope or a non-empty array of scopes/ })
  }
})
