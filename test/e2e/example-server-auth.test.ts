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
  t.same(tools.map((tool) => tool.name), ['add', 'close_issue', 'content_showcase', 'count', 'counter', 'create_issue', 'create_note', 'delete_issue', 'echo', 'get_note', 'greet', 'list_issues'])
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
