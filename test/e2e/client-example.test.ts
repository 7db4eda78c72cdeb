// fastify-sake/client against the example server, as the acceptance runs it: the server as
// its own process over a real port, in both eras, its build() in-process over app.inject, and the
// server started by the client over stdio (`--stdio`, as a local host starts it).
import t, { type Test } from 'tap'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { createClient, type Client } from '../../lib/client/index.js'
import { startExample, type Running } from '../helpers/clients.js'
// @ts-expect-error the example server is plain JavaScript
import { build } from '../../example-server/app.js'

const ADA = { who: { action: 'accept', content: { name: 'Ada' } } } as const
const SERVER = fileURLToPath(new URL('../../example-server/server.js', import.meta.url))
const NAMES = ['add', 'content_showcase', 'count', 'counter', 'create_note', 'echo', 'get_note', 'greet']

let server: Running
t.before(async () => { server = await startExample() })
// `?.`: when the server failed to start, that failure is the one to report
t.teardown(async () => server?.stop())

/** What every transport and era must do alike: the acceptance, step by step. */
async function acceptance (t: Test, client: Client, era: 'modern' | 'legacy'): Promise<void> {
  const tools = await client.listTools()
  t.equal(client.era, era)
  t.same(tools.map((tool) => tool.name), NAMES, 'lists add and greet (and the rest)')
  const sum = await client.callTool('add', { a: 1.5, b: 2.25, precision: 2 })
  t.same(sum.structuredContent, { sum: 3.75 }, 'the Precision header mirrored by the client')
  const greeted = await client.callTool('greet', {})
  t.same(greeted.content, [{ type: 'text', text: 'Hello, Ada!' }], "answered from the client's onInput by key")
  const declined = await client.callTool('greet', {}, { onInput: { who: { action: 'decline' } } })
  t.same(declined.content, [{ type: 'text', text: 'No greeting then.' }], 'a per-call onInput wins')
  const progress: number[] = []
  const counted = await client.callTool('count', { to: 3, delayMs: 1 }, { onProgress: (p) => progress.push(p.progress) })
  t.same(counted.structuredContent, { counted: 3, cancelled: false })
  t.same(progress, [1, 2, 3], 'progress of the call')
  const bad = await client.callTool('add', { a: 1, b: 2, precision: 11 })
  t.equal(bad.isError, true, 'a tool error stays a result')
  await client.close()
}

for (const era of ['modern', 'legacy'] as const) {
  t.test(`over HTTP, era ${era}`, async (t) => {
    const client = createClient({ url: server.url, era, onInput: ADA })
    await acceptance(t, client, era)
  })
}

t.test("era 'auto' picks 2026-07-28 with the example server", async (t) => {
  const client = createClient({ url: server.url.href, onInput: ADA })
  const description = await client.discover()
  t.match(description, { era: 'modern', protocolVersion: '2026-07-28', serverInfo: { name: 'example-server' } })
  t.ok(description.supportedVersions.includes('2025-11-25'))
  await acceptance(t, client, 'modern')
})

t.test('in-process on build(), over app.inject: the same, no port', async (t) => {
  const app = await build({ logger: false }) as FastifyInstance
  t.teardown(() => app.close())
  for (const era of ['modern', 'legacy'] as const) {
    await acceptance(t, createClient({ app, era, onInput: ADA }), era)
  }
  t.notOk(app.server.listening, 'never listened')
})

t.test('over stdio: the client starts `node example-server/server.js --stdio`, in both eras, and close() ends it', async (t) => {
  for (const era of ['auto', 'legacy'] as const) {
    const client = createClient({ command: process.execPath, args: [SERVER, '--stdio'], era, onInput: ADA })
    t.teardown(() => client.close())
    // acceptance() closes the client at its end (its process ended): a call after it starts another
    await acceptance(t, client, era === 'auto' ? 'modern' : 'legacy')
    t.same((await client.callTool('add', { a: 2, b: 3 })).structuredContent, { sum: 5 }, 'a new process after close()')
    await client.close()
  }
})
