// Real clients over a real port: progress and log messages in both eras, a 2025-11-25 stream
// resumed with GET + Last-Event-ID, and list changes on the GET stream and on subscriptions/listen.
import t, { type Test } from 'tap'
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { MemoryBus, Type } from '../../lib/index.js'
import { build, listen, until } from '../helpers/app.js'
import { legacyClient, modernClient } from '../helpers/clients.js'

async function serve (t: Test): Promise<{ app: FastifyInstance, url: URL, gets: Array<Record<string, unknown>>, bus: MemoryBus, plugin: number }> {
  const bus = new MemoryBus()
  const app = await build({ keepAlive: 0, bus })
  const gets: Array<Record<string, unknown>> = []
  app.addHook('onRequest', async (request) => { if (request.method === 'GET') gets.push(request.headers) })
  app.registerTool({
    name: 'index',
    args: { n: Type.Integer(), poll: Type.Optional(Type.Boolean()) },
    async execute ({ n, poll }, ctx) {
      ctx.notify('info', { started: n }, 'indexer')
      for (let i = 1; i <= n; i++) {
        ctx.progress(i, n, `item ${i}`)
        if (poll === true && i === 1) {
          ctx.closeStream(10) // SEP-1699: the client comes back with GET + Last-Event-ID
          await until(() => gets.some((h) => typeof h['last-event-id'] === 'string'), { what: 'the client to come back with GET + Last-Event-ID' })
        }
      }
      ctx.notify('debug', 'finished')
      return `indexed ${n}`
    }
  })
  const url = new URL(await listen(t, app))
  // the plugin's own listeners: any more are open streams
  return { app, url, gets, bus, plugin: bus.size }
}

t.test('v1 client (2025-11-25): setLoggingLevel, log messages and progress on the call stream', async (t) => {
  const { url } = await serve(t)
  const { client } = await legacyClient(t, url, { name: 'v1', version: '1' })
  const logs: unknown[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params) })
  t.same(await client.setLoggingLevel('info'), {})
  const progress: unknown[] = []
  const result = await client.callTool({ name: 'index', arguments: { n: 3 } }, undefined, { onprogress: (p) => progress.push(p) })
  t.same(result.content, [{ type: 'text', text: 'indexed 3' }])
  t.same(logs, [{ level: 'info', logger: 'indexer', data: { started: 3 } }], 'info sent, debug below the level dropped')
  t.same(progress, [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `item ${i}` })))
})

t.test('v1 client: a stream closed by ctx.closeStream resumes with GET + Last-Event-ID', async (t) => {
  const { url, gets } = await serve(t)
  const { client } = await legacyClient(t, url, { name: 'v1', version: '1' }, { transport: { reconnectionOptions: { initialReconnectionDelay: 10, maxReconnectionDelay: 50, reconnectionDelayGrowFactor: 1, maxRetries: 3 } } })
  const progress: number[] = []
  const result = await client.callTool({ name: 'index', arguments: { n: 3, poll: true } }, undefined, { onprogress: (p) => progress.push(p.progress) })
  t.same(result.content, [{ type: 'text', text: 'indexed 3' }], 'the result arrived on the resumed stream')
  t.same(progress, [1, 2, 3], 'progress before and after the reconnect, none lost or repeated')
  t.ok(gets.some((h) => typeof h['last-event-id'] === 'string'), 'the client came back with Last-Event-ID')
})

t.test('v1 client: list changes and subscribed resource updates on the GET stream', async (t) => {
  const { app, url, bus, plugin } = await serve(t)
  const { client } = await legacyClient(t, url, { name: 'v1', version: '1' })
  const seen: string[] = []
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { seen.push('tools') })
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { seen.push(n.params.uri) })
  await client.subscribeResource({ uri: 'test://watched' })
  await until(() => bus.size > plugin, { what: 'the client\'s GET stream (opened after notifications/initialized)' })
  await app.mcp.resourceUpdated('test://other')
  await app.mcp.resourceUpdated('test://watched')
  await app.mcp.listChanged('tools')
  await until(() => seen.length >= 2, { what: 'the update and the list change on the GET stream' })
  t.same(seen, ['test://watched', 'tools'])
  await client.unsubscribeResource({ uri: 'test://watched' })
  await app.mcp.resourceUpdated('test://watched')
  await app.mcp.listChanged('tools')
  await until(() => seen.length >= 3, { what: 'the second list change on the GET stream' })
  t.same(seen, ['test://watched', 'tools', 'tools'], 'no update after unsubscribing')
})

t.test('v2 client (2026-07-28): _meta logLevel and onprogress on the call stream', async (t) => {
  const { url } = await serve(t)
  const { client } = await modernClient(t, url, { name: 'v2', version: '1' })
  t.same(client.getServerCapabilities()?.logging, {})
  const logs: unknown[] = []
  client.setNotificationHandler('notifications/message', (n: any) => { logs.push(n.params) })
  const progress: number[] = []
  const result = await client.callTool(
    { name: 'index', arguments: { n: 2 }, _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } },
    { onprogress: (p: any) => progress.push(p.progress) }
  )
  t.same(result.content, [{ type: 'text', text: 'indexed 2' }])
  t.same(progress, [1, 2])
  t.same(logs.map((l: any) => l.level), ['info', 'debug'])
  const quiet: unknown[] = []
  client.setNotificationHandler('notifications/message', (n: any) => { quiet.push(n) })
  await client.callTool({ name: 'index', arguments: { n: 1 } })
  t.same(quiet, [], 'no log level in _meta: no log messages')
})

t.test('v2 client: the listChanged option auto-opens subscriptions/listen and receives tools list_changed', async (t) => {
  const { app, url } = await serve(t)
  const changed: unknown[] = []
  const { client } = await modernClient(t, url, { name: 'v2', version: '1' }, {
    options: {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      listChanged: { tools: { onChanged: (error: unknown, tools: unknown) => { changed.push({ error, tools }) } } }
    } as any
  })
  t.ok(client.autoOpenedSubscription, 'discover advertised tools.listChanged, so the client listens')
  await app.mcp.listChanged('tools')
  await until(() => changed.length > 0, { what: 'the client to refetch the changed tools list' })
  t.equal(changed.length, 1)
  const [{ error, tools }] = changed as Array<{ error: unknown, tools: Array<{ name: string }> }>
  t.equal(error, null)
  t.same(tools.map((tool) => tool.name), ['index'], 'the client refetched tools/list')
  await client.autoOpenedSubscription!.close()
})
