// MCP Apps on the wire of both eras: the example server (its `counter` app and the app-only
// `counter_increment`) started as its own process, as `npm start` does, and driven by the real
// clients, each once declaring io.modelcontextprotocol/ui and once not.
import t, { type Test } from 'tap'
import { legacyClient, modernClient, startExample, type Running } from '../helpers/clients.js'
import { TOOL_COMPLETION_EXTENSION, SKILLS_EXTENSION } from '../../lib/index.js'

const APPS = 'io.modelcontextprotocol/ui'
const MIME = 'text/html;profile=mcp-app'
const APP = 'ui://example-server/counter'
const DECLARED = { extensions: { [APPS]: { mimeTypes: [MIME] } } }

let server: Running
t.before(async () => { server = await startExample() })
// `?.`: when the server failed to start, that failure is the one to report
t.teardown(async () => server?.stop())

/** What every client with the extension must see, whatever its era. */
function seesApps (t: Test, tools: any[], resources: any[], read: any): void {
  const counter = tools.find((tool) => tool.name === 'counter')
  t.same(counter._meta.ui, { resourceUri: APP, visibility: ['model', 'app'] }, "the tool's app")
  t.equal(counter._meta['ui/resourceUri'], APP, 'and the flat key older hosts read')
  const increment = tools.find((tool) => tool.name === 'counter_increment')
  t.same(increment?._meta.ui, { resourceUri: APP, visibility: ['app'] }, 'the app-only tool is listed, marked so')
  t.same(resources.filter((resource) => resource.uri.startsWith('ui://')), [{
    uri: APP, name: 'Counter app', description: 'A counter with a +1 button', mimeType: MIME, _meta: { ui: { prefersBorder: true } }
  }], 'the UI resource is listed with its _meta.ui')
  const [content] = read.contents
  t.equal(content.mimeType, MIME)
  t.match(content.text, /^<!doctype html>/, 'an HTML document')
  t.same(content._meta, { ui: { prefersBorder: true } }, '_meta.ui on the content item')
}

/** What every client without it must see: nothing of MCP Apps. */
function seesNoApps (t: Test, tools: any[], resources: any[], read: any): void {
  t.notOk(tools.some((tool) => tool.name === 'counter_increment'), 'no app-only tool')
  t.notOk(tools.some((tool) => tool._meta?.ui !== undefined || tool._meta?.['ui/resourceUri'] !== undefined), 'no _meta.ui on any tool')
  t.ok(tools.some((tool) => tool.name === 'counter'), 'the tool with an app is still listed, as a plain tool')
  t.notOk(resources.some((resource) => resource.uri.startsWith('ui://')), 'no UI resource listed')
  t.equal(read.contents[0].mimeType, MIME, 'the HTML stays readable')
  t.equal(read.contents[0]._meta, undefined, 'without _meta.ui')
}

t.test('2026-07-28: a client declaring MCP Apps sees the app; one that does not sees none of it', async (t) => {
  const { client } = await modernClient(t, server.url, { name: 'apps-host', version: '1' }, { options: { capabilities: DECLARED } })
  t.same(client.getServerCapabilities()?.extensions?.[APPS], {}, 'server/discover advertises the extension')
  const { tools } = await client.listTools()
  const { resources } = await client.listResources()
  const read = await client.readResource({ uri: APP })
  seesApps(t, tools, resources, read)
  const shown = await client.callTool({ name: 'counter', arguments: { start: 1 } })
  t.same(shown.content, [{ type: 'text', text: 'The counter is at 1.' }], 'a text fallback…')
  t.same(shown.structuredContent, { count: 1 }, '…besides what the app renders')
  const next = await client.callTool({ name: 'counter_increment', arguments: { count: 1 } })
  t.same(next.structuredContent, { count: 2 }, 'the app-only tool answers a client with the extension')

  const { client: plain } = await modernClient(t, server.url, { name: 'text-only', version: '1' })
  const listed = await plain.listTools()
  const plainResources = await plain.listResources()
  seesNoApps(t, listed.tools, plainResources.resources, await plain.readResource({ uri: APP }))
  const refused = await plain.callTool({ name: 'counter_increment', arguments: { count: 1 } }).then(() => undefined, (err: any) => err)
  t.equal(refused?.code, -32021, 'an app-only tool is refused: the extension is missing')
  t.match(refused?.message, /counter_increment' is called only by an MCP App .*io\.modelcontextprotocol\/ui/)
})

t.test('2025-11-25 session: the extension is declared at initialize, and decides for the session', async (t) => {
  const { client } = await legacyClient(t, server.url, { name: 'apps-host', version: '1' }, { options: { capabilities: DECLARED as any } })
  t.same((client.getServerCapabilities() as any)?.extensions, { [APPS]: {}, [TOOL_COMPLETION_EXTENSION]: {}, [SKILLS_EXTENSION]: { directoryRead: true } }, 'initialize advertises the extension (and the example\'s tool completion and skills)')
  const { tools } = await client.listTools()
  const { resources } = await client.listResources()
  seesApps(t, tools, resources, await client.readResource({ uri: APP }))
  const next = await client.callTool({ name: 'counter_increment', arguments: { count: 7 } })
  t.same(next.structuredContent, { count: 8 })

  const { client: plain } = await legacyClient(t, server.url, { name: 'text-only', version: '1' })
  const listed = await plain.listTools()
  const plainResources = await plain.listResources()
  seesNoApps(t, listed.tools, plainResources.resources, await plain.readResource({ uri: APP }))
  const refused = await plain.callTool({ name: 'counter_increment', arguments: { count: 1 } }).then(() => undefined, (err: any) => err)
  t.equal(refused?.code, -32602, 'refused, with the error 2025 has for it')
  t.match(refused?.message, /called only by an MCP App .* at initialize/)
})
