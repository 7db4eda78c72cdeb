// Questions to the client (ctx.elicit, ctx.sample, ctx.roots) with real clients on a real port: the
// 2026-07-28 client answers input_required rounds through its handlers and retries; the v1 client
// answers elicitation/create (and the others) sent on the call's stream. Same handler code for both.
import t, { type Test } from 'tap'
import { ElicitRequestSchema, CreateMessageRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { Type, definePrompt, toolError } from '../../lib/index.js'
import { build, listen } from '../helpers/app.js'
import { legacyClient, modernClient } from '../helpers/clients.js'

type Answer = { action: 'accept', content: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' }

interface Served { app: FastifyInstance, url: URL, bodies: any[] }

async function serve (t: Test): Promise<Served> {
  const bodies: any[] = []
  const app = await build()
  app.addHook('preHandler', async (request) => { if (request.method === 'POST') bodies.push(request.body) })
  // the seeds' greet: one question, every outcome handled
  app.registerTool({
    name: 'greet',
    description: 'Asks who to greet',
    async execute (args, ctx) {
      const who = await ctx.elicit.form('who', 'Who should be greeted?', Type.Object({ name: Type.String() }))
      switch (who.action) {
        case 'accept': return `Hello, ${who.content.name}!`
        case 'decline': return 'No greeting then.'
        case 'cancel': return toolError('Cancelled.')
        case 'unsupported': return toolError('This client does not support elicitation.')
      }
    }
  })
  // three rounds in 2026-07-28 (one question each), three requests on one stream in a 2025 session
  app.registerTool({
    name: 'trip',
    async execute (args, ctx) {
      const from = await ctx.elicit.form('from', 'Leaving from?', Type.Object({ city: Type.String() }))
      const to = await ctx.elicit.form('to', 'Going to?', Type.Object({ city: Type.String() }))
      const when = await ctx.elicit.form('when', 'On which day?', Type.Object({ day: Type.Integer({ minimum: 1, maximum: 31 }) }))
      if (from.action !== 'accept' || to.action !== 'accept' || when.action !== 'accept') return toolError('no trip')
      return `${from.content.city} to ${to.content.city} on day ${when.content.day}`
    }
  })
  app.registerTool({
    name: 'ask_model',
    async execute (args, ctx) {
      const answer = await ctx.sample('capital', { messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 10 })
      if (answer.action === 'unsupported') return toolError('no sampling')
      const content = answer.message.content as { text: string }
      return `${answer.message.model} says ${content.text}`
    }
  })
  app.registerTool({
    name: 'list_roots',
    async execute (args, ctx) {
      const answer = await ctx.roots('roots')
      return answer.action === 'accept' ? answer.roots.map((root) => root.uri).join(',') : 'no roots'
    }
  })
  app.registerPrompt(definePrompt({
    name: 'brief',
    async get (args, ctx) {
      const topic = await ctx.elicit.form('topic', 'Brief on what?', Type.Object({ topic: Type.String() }))
      return topic.action === 'accept' ? `Write a brief on ${topic.content.topic}.` : 'Write a brief.'
    }
  }))
  return { app, url: new URL(await listen(t, app)), bodies }
}

function textOf (result: any): string {
  return result.content[0].text
}

/** A 2026-07-28 client declaring elicitation, sampling and roots (or `capabilities`), answering elicitation with `elicit`. */
async function askedModern (t: Test, url: URL, elicit: (params: any) => Answer, capabilities: Record<string, unknown> = { elicitation: {}, sampling: {}, roots: {} }) {
  const { client } = await modernClient(t, url, { name: 'modern-input', version: '1' }, {
    options: { capabilities },
    setup: (client) => {
      if (capabilities.elicitation !== undefined) client.setRequestHandler('elicitation/create', async (request) => elicit(request.params) as any)
      if (capabilities.sampling !== undefined) {
        client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } }))
      }
      if (capabilities.roots !== undefined) client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }))
    }
  })
  return client
}

/** The same for the v1 client. */
async function askedLegacy (t: Test, url: URL, elicit: (params: any) => Answer, capabilities: Record<string, unknown> = { elicitation: {}, sampling: {}, roots: {} }) {
  const { client } = await legacyClient(t, url, { name: 'legacy-input', version: '1' }, {
    options: { capabilities },
    setup: (client) => {
      if (capabilities.elicitation !== undefined) client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params) as any)
      if (capabilities.sampling !== undefined) {
        client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } }))
      }
      if (capabilities.roots !== undefined) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }))
    }
  })
  return client
}

const eras = [
  { era: '2026-07-28 client (multi round-trip requests)', connect: askedModern },
  { era: 'v1 client (2025-11-25 session, requests on the stream)', connect: askedLegacy }
]

for (const { era, connect } of eras) {
  t.test(`${era}: greet asks for a name and says hello`, async (t) => {
    const { url } = await serve(t)
    const seen: any[] = []
    const client = await connect(t, url, (params) => { seen.push(params); return { action: 'accept', content: { name: 'Ada' } } })
    const result = await client.callTool({ name: 'greet', arguments: {} })
    t.equal(textOf(result), 'Hello, Ada!')
    t.equal(seen.length, 1, 'asked once')
    t.equal(seen[0].message, 'Who should be greeted?')
    t.same(seen[0].requestedSchema, { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] })
  })

  t.test(`${era}: decline and cancel reach the tool`, async (t) => {
    const { url } = await serve(t)
    let next: Answer = { action: 'decline' }
    const client = await connect(t, url, () => next)
    t.equal(textOf(await client.callTool({ name: 'greet', arguments: {} })), 'No greeting then.')
    next = { action: 'cancel' }
    const cancelled = await client.callTool({ name: 'greet', arguments: {} })
    t.equal(cancelled.isError, true)
    t.equal(textOf(cancelled), 'Cancelled.')
  })

  t.test(`${era}: a client without the capability is never asked; the tool decides`, async (t) => {
    const { url, bodies } = await serve(t)
    const client = await connect(t, url, () => { throw new Error('never asked') }, {})
    const result = await client.callTool({ name: 'greet', arguments: {} })
    t.equal(result.isError, true)
    t.equal(textOf(result), 'This client does not support elicitation.')
    t.equal(textOf(await client.callTool({ name: 'ask_model', arguments: {} })), 'no sampling')
    t.equal(textOf(await client.callTool({ name: 'list_roots', arguments: {} })), 'no roots')
    t.notOk(bodies.some((body) => body?.params?.inputResponses !== undefined), 'no round trip: nothing was asked')
  })

  t.test(`${era}: three questions, each answered, one after the other`, async (t) => {
    const { url, bodies } = await serve(t)
    const asked: string[] = []
    const answers: Record<string, Record<string, unknown>> = { 'Leaving from?': { city: 'Oslo' }, 'Going to?': { city: 'Rome' }, 'On which day?': { day: 12 } }
    const client = await connect(t, url, (params) => { asked.push(params.message); return { action: 'accept', content: answers[params.message]! } })
    t.equal(textOf(await client.callTool({ name: 'trip', arguments: {} })), 'Oslo to Rome on day 12')
    t.same(asked, ['Leaving from?', 'Going to?', 'On which day?'], 'each question asked once, in order')
    const calls = bodies.filter((body) => body?.method === 'tools/call')
    if (era.startsWith('2026')) {
      t.equal(calls.length, 4, 'the first request and three retries')
      t.same(calls.map((call) => Object.keys(call.params.inputResponses ?? {})), [[], ['from'], ['to'], ['when']], 'each retry answers the last round only')
      t.equal(new Set(calls.slice(1).map((call) => call.params.requestState)).size, 3, 'a new requestState each round')
    } else {
      t.equal(calls.length, 1, 'one call; the answers came as responses on the session')
      t.equal(bodies.filter((body) => body?.result !== undefined).length, 3)
    }
  })

  t.test(`${era}: sampling and roots`, async (t) => {
    const { url } = await serve(t)
    const client = await connect(t, url, () => ({ action: 'decline' }))
    t.equal(textOf(await client.callTool({ name: 'ask_model', arguments: {} })), 'test-model says Paris')
    t.equal(textOf(await client.callTool({ name: 'list_roots', arguments: {} })), 'file:///work')
  })

  t.test(`${era}: a prompt asks too`, async (t) => {
    const { url } = await serve(t)
    const client = await connect(t, url, () => ({ action: 'accept', content: { topic: 'tides' } }))
    const prompt = await client.getPrompt({ name: 'brief' })
    t.same(prompt.messages[0]!.content, { type: 'text', text: 'Write a brief on tides.' })
  })
}
