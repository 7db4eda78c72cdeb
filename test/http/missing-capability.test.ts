// A tool that needs a client capability the request lacks (Sake's {:error, {:missing_capability, map}}).
import t from 'tap'
import { MissingCapabilityError } from '../../lib/index.js'
import { build, modernRequest, openSession, legacyRequest, rpc } from '../helpers/app.js'

t.test('missing capability: -32021 in 2026-07-28, a tool error in a 2025 session', async (t) => {
  const app = await build()
  app.registerTool({
    name: 'needs_sampling',
    execute (args, ctx) {
      if (ctx.client.capabilities.sampling === undefined) throw new MissingCapabilityError({ sampling: {} })
      return 'sampled'
    }
  })
  app.registerTool({ name: 'returns_it', execute: () => new MissingCapabilityError({ elicitation: { form: {} } }, 'I must ask the user') })
  await app.ready()
  t.teardown(() => app.close())

  const modern = await app.inject(modernRequest('tools/call', { name: 'needs_sampling', arguments: {} }))
  t.equal(modern.statusCode, 400)
  const body = rpc(modern)
  t.equal(body.error!.code, -32021)
  t.same(body.error!.data, { requiredCapabilities: { sampling: {} } })
  t.match(body.error!.message, /^Tool 'needs_sampling': this call needs the client capabilities sampling, which the request did not declare$/)
  t.equal(typeof body.id, 'number', 'the request id is echoed')

  const returned = await app.inject(modernRequest('tools/call', { name: 'returns_it', arguments: {} }))
  t.equal(returned.statusCode, 400)
  t.same(rpc(returned).error, { code: -32021, message: "Tool 'returns_it': I must ask the user", data: { requiredCapabilities: { elicitation: { form: {} } } } })

  const withIt = await app.inject(modernRequest('tools/call', { name: 'needs_sampling', arguments: {}, _meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } } }))
  t.equal(withIt.statusCode, 200)
  t.same(rpc(withIt).result.content, [{ type: 'text', text: 'sampled' }])

  const session = await openSession(app)
  const legacy = await app.inject(legacyRequest(session, '2025-11-25', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'needs_sampling', arguments: {} } }))
  t.equal(legacy.statusCode, 200)
  t.same(rpc(legacy).result, { content: [{ type: 'text', text: "Tool 'needs_sampling': this call needs the client capabilities sampling, which the request did not declare" }], isError: true })
})
