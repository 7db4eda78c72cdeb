// The example server with AUTH=1, as its own process: the acceptance checks (no token: 401 naming
// the metadata; the metadata lists scopes_supported), then both real clients with its sample token.
import t from 'tap'
import { endSession, legacyClient, modernClient, startExample, type Running } from '../helpers/clients.js'

let server: Running
let token: string
t.before(async () => {
  server = await startExample({ AUTH: '1' })
  token = /Sample token \(issues:read issues:write notes:write, acr mfa, valid 1 hour\): ([\w.-]+)/.exec(server.output)![1]
})
// `?.`: when the server failed to start, that failure is the one to report
t.teardown(async () => server?.stop())

t.test('without a token: 401 naming the metadata, which lists scopes_supported', async (t) => {
  const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) })
  t.equal(res.status, 401)
  const metadataUrl = `${server.url.origin}/.well-known/oauth-protected-resource/mcp`
  t.equal(res.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}"`)
  const metadata = await (await fetch(metadataUrl)).json()
  t.same(metadata, {
    resource: server.url.href,
    authorization_servers: [server.url.origin],
    bearer_methods_supported: ['header'],
    scopes_supported: ['issues:read', 'issues:write', 'issues:admin', 'notes:write'],
    resource_name: 'fastify-sake example issues'
  })
  const jwks = await (await fetch(`${server.url.origin}/.well-known/jwks.json`)).json() as { keys: Array<Record<string, unknown>> }
  t.equal(jwks.keys[0].kty, 'EC')
  t.equal(jwks.keys[0].d, undefined, 'the public key only')
})

t.test('2026-07-28 client with the sample token: scoped tools, step-up passes, the admin scope is asked for', async (t) => {
  const { client } = await modernClient(t, server.url, { name: 'modern', version: '1' }, { transport: { authProvider: { token: async () => token } } })
  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name), ['add', 'close_issue', 'content_showcase', 'count', 'counter', 'create_issue', 'create_note', 'delete_issue', 'echo', 'export_issues', 'get_note', 'greet', 'list_issues'])
  const created = await client.callTool({ name: 'create_issue', arguments: { title: 'From the test' } })
  t.match(created.structuredContent, { title: 'From the test', owner: 'example-user', open: true })
  const deleted = await client.callTool({ name: 'delete_issue', arguments: { id: (created.structuredContent as { id: number }).id } })
  t.match(deleted.content, [{ type: 'text', text: /^Deleted issue \d+$/ }], 'a recent mfa sign-in: the step-up passes')
  const note = await client.callTool({ name: 'create_note', arguments: { text: 'scoped' } })
  t.match(note.structuredContent, { text: 'scoped' }, 'the route tool create_note, with notes:write')
})

t.test('2025 SDK client with the sample token', async (t) => {
  // the test ends the session itself (DELETE, then close), below
  const { client, transport } = await legacyClient(t, server.url, { name: 'legacy', version: '1' }, { transport: { requestInit: { headers: { authorization: `Bearer ${token}` } } }, close: false })
  const listed = await client.callTool({ name: 'list_issues', arguments: {} })
  t.match(JSON.parse((listed.content as Array<{ text: string }>)[0].text), [{ id: 1, title: 'Example issue' }])
  const add = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })
  t.same(add.structuredContent, { sum: 3 }, 'the unscoped example tools work as before')
  await endSession(transport)
  t.equal(transport.sessionId, undefined, 'DELETE, with the token, ended the session')
  await client.close()
})

t.test('a stream: true tool refused for scope inside execute is a plain 403 in both eras; allowed, it streams its progress', async (t) => {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const init = await fetch(server.url, { method: 'POST', headers: auth, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) })
  const session = init.headers.get('mcp-session-id')!
  await init.text()
  t.teardown(async () => { await fetch(server.url, { method: 'DELETE', headers: { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } }) })
  const call = (era: string, args: Record<string, unknown>, meta: Record<string, unknown>): RequestInit => era === 'modern'
    ? {
        method: 'POST',
        headers: { ...auth, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'export_issues' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'export_issues', arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {}, ...meta } } })
      }
    : {
        method: 'POST',
        headers: { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'export_issues', arguments: args, _meta: meta } })
      }
  for (const era of ['modern', '2025-11-25']) {
    for (const meta of [{}, { progressToken: 'p' }]) {
      const what = `${era}, ${'progressToken' in meta ? 'with' : 'without'} a progressToken`
      const refused = await fetch(server.url, call(era, { everyone: true }, meta))
      t.equal(refused.status, 403, what)
      t.match(refused.headers.get('content-type'), /^application\/json/, what)
      t.match(refused.headers.get('www-authenticate'), /^Bearer error="insufficient_scope", scope="issues:admin"/, what)
      t.match(await refused.json(), { id: 1, error: { data: { error: 'insufficient_scope', scopes: ['issues:admin'] } } }, what)
    }
    const allowed = await fetch(server.url, call(era, {}, { progressToken: 'p' }))
    t.equal(allowed.headers.get('content-type'), 'text/event-stream', `${era}: allowed, with a progressToken, it streams`)
    t.match(await allowed.text(), /"method":"notifications\/progress".*\n[^]*"result"/)
  }
})
