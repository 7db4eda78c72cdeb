// Real clients over a real port: the v2 client pinned to 2026-07-28 and in its default legacy mode,
// and the v1 SDK client, each listing and reading resources (fixed, templated, binary), listing
// and getting prompts, and completing a prompt argument and a template variable.
import t, { type Test } from 'tap'
import { Type, StringEnum, userMessage, assistantMessage } from '../../lib/index.js'
import { build, listen } from '../helpers/app.js'
import { legacyClient, modernClient } from '../helpers/clients.js'

const LANGUAGES = ['python', 'perl', 'php', 'typescript']

async function serve (t: Test): Promise<URL> {
  const app = await build({ ttl: 60_000 })
  app.registerResource({ uri: 'config://app', name: 'app config', mimeType: 'application/json', ttl: 30_000, read: () => '{"debug":false}' })
  app.registerResource({ uri: 'bin://logo', name: 'logo', mimeType: 'image/png', read: () => Buffer.from([137, 80, 78, 71]) })
  app.registerResource({
    uriTemplate: 'users://{id}/profile',
    name: 'profile',
    read: (_uri, { id }) => id === 'ghost' ? undefined : `profile of ${id}`,
    complete: (_variable, partial) => ['alice', 'albert', 'bob'].filter((id) => id.startsWith(partial))
  })
  app.registerPrompt({
    name: 'code_review',
    title: 'Code review',
    args: { code: Type.String({ description: 'The code' }), language: Type.Optional(StringEnum(LANGUAGES)) },
    get: ({ code, language }) => ({
      description: 'A review',
      messages: [userMessage(`Review this ${language ?? 'code'}: ${code}`), assistantMessage('Sure.')]
    }),
    complete: (_arg, partial) => LANGUAGES.filter((l) => l.startsWith(partial))
  })
  return new URL(await listen(t, app))
}

interface AnyClient {
  listResources: (params?: any) => Promise<any>
  listResourceTemplates: (params?: any) => Promise<any>
  readResource: (params: any) => Promise<any>
  listPrompts: (params?: any) => Promise<any>
  getPrompt: (params: any) => Promise<any>
  complete: (params: any) => Promise<any>
}

/** `notFound`: the code the client reports; the v2 client reports the 2025 -32002 as -32602 too. */
async function exercise (t: Test, client: AnyClient, era: 'modern' | 'legacy', notFound: number): Promise<void> {
  const { resources } = await client.listResources()
  t.same(resources.map((r: any) => r.uri), ['bin://logo', 'config://app'])
  const { resourceTemplates } = await client.listResourceTemplates()
  t.same(resourceTemplates.map((r: any) => r.uriTemplate), ['users://{id}/profile'])

  const config = await client.readResource({ uri: 'config://app' })
  t.same(config.contents, [{ uri: 'config://app', mimeType: 'application/json', text: '{"debug":false}' }])
  if (era === 'modern') {
    t.equal(config.ttlMs, 30_000)
    t.equal(config.cacheScope, 'public')
  } else {
    t.notOk('ttlMs' in config)
  }
  const logo = await client.readResource({ uri: 'bin://logo' })
  t.same(Buffer.from(logo.contents[0].blob, 'base64'), Buffer.from([137, 80, 78, 71]))
  const profile = await client.readResource({ uri: 'users://alice/profile' })
  t.equal(profile.contents[0].text, 'profile of alice')
  await t.rejects(client.readResource({ uri: 'users://ghost/profile' }), { code: notFound, data: { uri: 'users://ghost/profile' }, message: /Resource not found: users:\/\/ghost\/profile/ })

  const { prompts } = await client.listPrompts()
  t.same(prompts, [{
    name: 'code_review',
    title: 'Code review',
    arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'language', required: false }]
  }].map((p) => ({ ...p, ...(prompts[0]._meta === undefined ? {} : { _meta: prompts[0]._meta }) })))
  const got = await client.getPrompt({ name: 'code_review', arguments: { code: 'x = 1', language: 'python' } })
  t.equal(got.description, 'A review')
  t.same(got.messages, [
    { role: 'user', content: { type: 'text', text: 'Review this python: x = 1' } },
    { role: 'assistant', content: { type: 'text', text: 'Sure.' } }
  ])
  await t.rejects(client.getPrompt({ name: 'code_review', arguments: {} }), { code: -32602, message: /prompt 'code_review' needs argument 'code'/ })
  await t.rejects(client.getPrompt({ name: 'nope' }), { code: -32602, message: /Unknown prompt: nope/ })

  const languages = await client.complete({ ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 'p' } })
  t.same(languages.completion.values, ['python', 'perl', 'php'])
  const ids = await client.complete({ ref: { type: 'ref/resource', uri: 'users://{id}/profile' }, argument: { name: 'id', value: 'al' } })
  t.same(ids.completion.values, ['alice', 'albert'])
}

t.test('v2 client pinned to 2026-07-28', async (t) => {
  const url = await serve(t)
  const { client } = await modernClient(t, url, { name: 'pin', version: '1' })
  t.equal(client.getProtocolEra(), 'modern')
  const capabilities = client.getServerCapabilities()
  t.match(capabilities, { resources: {}, prompts: {}, completions: {} })
  await exercise(t, client as unknown as AnyClient, 'modern', -32602)
})

t.test('v2 client in its default (2025-11-25 session) mode', async (t) => {
  const url = await serve(t)
  const { client } = await modernClient(t, url, { name: 'legacy-v2', version: '1' }, { pin: false })
  t.equal(client.getProtocolEra(), 'legacy')
  await exercise(t, client as unknown as AnyClient, 'legacy', -32602)
})

t.test('v1 SDK client', async (t) => {
  const url = await serve(t)
  const { client } = await legacyClient(t, url, { name: 'v1', version: '1' })
  t.match(client.getServerCapabilities(), { resources: {}, prompts: {}, completions: {} })
  await exercise(t, client as unknown as AnyClient, 'legacy', -32002)
})
