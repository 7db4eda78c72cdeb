// The example server in conformance mode (CONFORMANCE=1, as `npm run conformance` starts it): the
// fixtures the official suite calls by name are there, and the SEP-2243 custom-header scenario's
// pick (the first listed tool with a header, through its first string header) is `a_region_echo`.
// Without CONFORMANCE the example lists its three demo tools only: example-server.test.ts checks that.
import t from 'tap'
import { legacyClient, startExample, type Running } from '../helpers/clients.js'

let server: Running
t.before(async () => { server = await startExample({ CONFORMANCE: '1' }) })
// bounded, as a guard: a socket left open would hold the server's close(); this file tests the
// fixtures, not shutdown, which example-server.test.ts covers
t.teardown(async () => { await server?.stop({ killAfter: 3000 }) })

t.test('fixtures, with the demo tools kept', async (t) => {
  // terminate: the session ends with DELETE before the client closes, or the server's close() waits ~70 s for an idle socket (nodejs/undici#5845)
  const { client } = await legacyClient(t, server.url, { name: 'fixtures-test', version: '1.0.0' }, { terminate: true })

  const { tools } = await client.listTools()
  const names = tools.map((tool) => tool.name)
  for (const name of ['add', 'echo', 'content_showcase', 'test_simple_text', 'test_tool_with_progress', 'json_schema_2020_12_tool', 'test_missing_capability', 'test_input_required_result_elicitation']) {
    t.ok(names.includes(name), name)
  }
  const firstWithHeader = tools.find((tool) => Object.values((tool.inputSchema.properties ?? {}) as Record<string, any>).some((p) => p['x-mcp-header'] !== undefined))!
  t.equal(firstWithHeader.name, 'a_region_echo', 'the first listed tool with a header')
  t.same((firstWithHeader.inputSchema.properties as any).region, { type: 'string', 'x-mcp-header': 'Region', description: 'A region name, such as eu-west-1' })
  for (const tool of tools) t.ok(tool.description, `${tool.name} has a description`)

  const schema = tools.find((tool) => tool.name === 'json_schema_2020_12_tool')!.inputSchema as any
  t.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema')
  t.equal(schema.$defs.address.$anchor, 'addressDef')
  t.same(schema.else, { required: ['email'] })

  const progress: number[] = []
  const result = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, { onprogress: (p) => { progress.push(p.progress) } })
  t.same(progress, [0, 50, 100])
  t.same(result.content, [{ type: 'text', text: 'Progress test completed' }])

  // this client declared no sampling: the fixture says which capability it needs
  const failed = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } })
  t.equal(failed.isError, true)
  t.match((failed.content as any[])[0].text, /needs the client capabilities sampling/)

  const template = await client.readResource({ uri: 'test://template/123/data' })
  t.same(JSON.parse((template.contents[0] as any).text), { id: '123', templateTest: true, data: 'Data for ID: 123' })
  const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } })
  t.match(JSON.stringify(prompt.messages), "arg1='a', arg2='b'")
})
