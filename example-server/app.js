// The example MCP server: a plain Fastify app with fastify-sake registered on it.
// `build()` returns the app without listening, so tests and server.js share it.
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify from 'fastify'
import sake, { Type, defineTool, definePrompt, text, image, resource, resourceLink, toolError, ProtocolError } from 'fastify-sake'
import { registerConformance } from './conformance.js'
import { exampleAuth } from './auth.js'
import { counter, counterIncrement } from './apps.js'

// A 1x1 transparent PNG, so the content example needs no file on disk.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

export const add = defineTool({
  name: 'add',
  title: 'Add two numbers',
  description: 'Adds two numbers, optionally rounding the sum to a number of decimal places',
  annotations: { readOnly: true, idempotent: true, openWorld: false },
  args: {
    a: Type.Number({ description: 'The first addend' }),
    b: Type.Number({ description: 'The second addend' }),
    // mirrored into the Mcp-Param-Precision header, so a gateway can route on it
    precision: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, header: 'Precision', description: 'Decimal places to round to' }))
  },
  output: { sum: Type.Number() },
  execute ({ a, b, precision }) {
    const sum = a + b
    return { sum: precision === undefined ? sum : Number(sum.toFixed(precision)) }
  }
})

export const echo = defineTool({
  name: 'echo',
  description: 'Returns the text it is given',
  annotations: { readOnly: true, idempotent: true, openWorld: false },
  args: { text: Type.String({ description: 'The text to echo' }) },
  execute: ({ text }) => text
})

export const showcase = defineTool({
  name: 'content_showcase',
  title: 'Content showcase',
  description: 'Returns one block of each content kind: text, image, embedded resource and resource link',
  annotations: { readOnly: true },
  execute: () => [
    text('Here is one block of each kind.'),
    image(PIXEL, 'image/png'),
    resource('example://notes/readme', '# Notes\nEmbedded as text.', { mimeType: 'text/markdown' }),
    resourceLink('example://notes/changelog', 'changelog', { mimeType: 'text/markdown', description: 'The changelog, by reference' })
  ]
})

// Asks the person for a name mid-call. The same code serves a 2026-07-28 client (an input_required
// round trip: the handler runs again with the answer) and a 2025 session (elicitation/create on the
// call's stream). Nothing happens before the question, so running again is harmless.
const NAMES = ['Ada', 'Alan', 'Barbara', 'Edsger', 'Grace', 'Katherine', 'Linus', 'Margaret']

export const greet = defineTool({
  name: 'greet',
  description: 'Greets `name`, or asks who to greet when no name is given',
  annotations: { readOnly: true, openWorld: false },
  args: { name: Type.Optional(Type.String({ description: 'Who to greet; asked for when absent' })) },
  // completion/complete with { ref: { type: 'ref/tool', name: 'greet' }, argument: { name: 'name', value: 'Gr' } }
  complete: (_arg, partial) => NAMES.filter((name) => name.toLowerCase().startsWith(partial.toLowerCase())),
  async execute ({ name }, ctx) {
    // the tasks conformance scenarios call greet with a name, as their plain (not a task) tool
    if (name !== undefined) return `Hello, ${name}!`
    const who = await ctx.elicit.form('who', 'Who should be greeted?', Type.Object({ name: Type.String({ description: 'A name' }) }))
    switch (who.action) {
      case 'accept': return `Hello, ${who.content.name}!`
      case 'decline': return 'No greeting then.'
      case 'cancel': return toolError('Cancelled.')
      default: return toolError('This client does not support elicitation.')
    }
  }
})

// A long-running tool: it counts, one step every `delayMs`, reporting progress, and stops when the
// caller cancels. A client that takes tasks gets a task handle at once and polls it (2026-07-28:
// tasks/get; 2025-11-25: tasks/get and tasks/result, with the progress on the way); any other
// client waits for the answer, as for an ordinary tool. The same execute serves both.
export const count = defineTool({
  name: 'count',
  description: 'Counts to `to`, one step every `delayMs` ms, with progress; runs as a task for a client that takes one, and can be cancelled',
  annotations: { readOnly: true, idempotent: true, openWorld: false },
  task: 'optional',
  args: {
    to: Type.Integer({ minimum: 1, maximum: 100, description: 'Where to stop' }),
    delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, default: 500, description: 'Milliseconds per step' }))
  },
  output: { counted: Type.Integer(), cancelled: Type.Boolean() },
  async execute ({ to, delayMs = 500 }, ctx) {
    let counted = 0
    try {
      while (counted < to) {
        // rejects at once when the call is cancelled (tasks/cancel, a cancel notification, a closed connection)
        await sleep(delayMs, undefined, { signal: ctx.signal })
        counted++
        ctx.progress(counted, to, `counted ${counted} of ${to}`)
      }
    } catch (err) {
      if (!ctx.signal.aborted) throw err
    }
    return { counted, cancelled: ctx.signal.aborted }
  }
})

const Note = Type.Object({ id: Type.Integer(), text: Type.String(), tags: Type.Array(Type.String()) })

/**
 * Two REST routes of the service, for HTTP clients as ever, and offered to MCP clients as tools by
 * their `config.mcp` (declared after the plugin is registered, so its onRoute hook sees them): the
 * tool's arguments are the route's params + querystring (GET) or body (POST), its output schema the
 * 2xx response schema, and a call runs the route itself. With AUTH=1, create_note needs notes:write.
 */
function notesRoutes (app, { scope }) {
  const notes = new Map([[1, { id: 1, text: 'Try the route tools', tags: ['mcp'] }]])
  notesResourceAndPrompt(app, notes)
  app.get('/notes/:id', {
    schema: {
      summary: 'Reads a note',
      params: Type.Object({ id: Type.Integer({ minimum: 1, description: 'The note id' }) }),
      querystring: Type.Object({ upper: Type.Optional(Type.Boolean({ description: 'Return the text upper-cased' })) }),
      response: { 200: Note }
    },
    config: { mcp: { name: 'get_note' } }
  }, async (request, reply) => {
    const note = notes.get(request.params.id)
    if (note === undefined) return reply.code(404).send({ message: `No note ${request.params.id}` })
    return request.query.upper === true ? { ...note, text: note.text.toUpperCase() } : note
  })
  app.post('/notes', {
    schema: {
      summary: 'Adds a note',
      body: Type.Object({ text: Type.String({ minLength: 1 }), tags: Type.Optional(Type.Array(Type.String())) }),
      response: { 201: Note }
    },
    config: { mcp: { name: 'create_note', annotations: { openWorld: false }, ...(scope === undefined ? {} : { scope }) } }
  }, async (request, reply) => {
    const note = { id: notes.size + 1, text: request.body.text, tags: request.body.tags ?? [] }
    notes.set(note.id, note)
    return reply.code(201).send(note)
  })
}

/**
 * A resource and a prompt over the same notes: every note as one JSON document (`notes://all`, read
 * with resources/read), and a prompt that asks a model to review one note (its `id` completed from
 * the notes there are).
 */
function notesResourceAndPrompt (app, notes) {
  app.registerResource({
    uri: 'notes://all',
    name: 'notes',
    title: 'All notes',
    description: 'Every note of the service, as JSON',
    mimeType: 'application/json',
    read: () => JSON.stringify([...notes.values()])
  })
  app.registerPrompt(definePrompt({
    name: 'review_note',
    title: 'Review a note',
    description: 'Asks for a review of one note, with tags to add',
    args: { id: Type.String({ description: 'The note id (notes://all lists them)' }) },
    complete: (_argument, partial) => [...notes.keys()].map(String).filter((id) => id.startsWith(partial)),
    get: ({ id }) => {
      const note = notes.get(Number(id))
      if (note === undefined) throw new ProtocolError(-32602, `Invalid params: there is no note ${id}; notes://all lists them`)
      return `Review this note. Say what is unclear, and suggest up to three tags (it has: ${note.tags.join(', ') || 'none'}).\n\n${note.text}`
    }
  }))
}

/**
 * `options.conformance` (or CONFORMANCE=1 in the environment) adds the fixtures of the official
 * conformance suite from conformance.js: `npm run conformance` starts the server that way.
 * `options.auth` (or AUTH=1) turns authorization on for a server at `options.baseUrl` (see auth.js).
 */
export async function build (options = {}) {
  // return503OnClosing: false lets the plugin answer a request that arrives while the instance
  // closes: 503 with Retry-After and a JSON-RPC error (Fastify's own 503 has neither), and /ready
  // below goes on answering 503 for the gateway's check
  const app = Fastify({ logger: options.logger ?? { level: process.env.LOG_LEVEL ?? 'info' }, return503OnClosing: false })
  const auth = (options.auth ?? process.env.AUTH === '1') ? await exampleAuth(options.baseUrl) : undefined
  await app.register(sake, {
    name: 'example-server',
    version: '0.1.0',
    instructions: 'Example tools: add numbers, echo text, greet someone (asks for a name), a showcase of content blocks, count (a long-running tool that runs as a task), and a counter (an MCP App); notes through get_note and create_note, the resource notes://all and the prompt review_note. The skill skill://count-then-greet/SKILL.md shows how to use count and greet together.',
    // a fleet shares this key (openssl rand -base64 32); without it each process makes its own, with a warning
    requestState: process.env.MCP_STATE_KEY === undefined ? {} : { keys: [process.env.MCP_STATE_KEY] },
    // REDIS_URL (redis://127.0.0.1:6379): 2025 sessions, resumable streams, the bus and tasks shared by every instance on it
    ...(process.env.REDIS_URL === undefined ? {} : { redis: process.env.REDIS_URL }),
    // SESSIONS_PER_CALLER: 2025 sessions one caller (here, without auth, one address) may hold; the
    // fleet tests' load stands for many clients from one process
    ...(process.env.SESSIONS_PER_CALLER === undefined ? {} : { sessions: { maxPerCaller: Number(process.env.SESSIONS_PER_CALLER) } }),
    tools: [add, echo, greet, showcase, count, counter, counterIncrement, ...(auth?.tools ?? [])],
    // the Skills extension: skills/count-then-greet teaches a model to use count and greet together
    skills: { directory: new URL('./skills', import.meta.url) },
    ...auth?.options
  })
  if (auth !== undefined) await auth.install(app)
  notesRoutes(app, { scope: auth === undefined ? undefined : 'notes:write' })
  if (options.conformance ?? process.env.CONFORMANCE === '1') registerConformance(app)
  // readiness for a gateway's health check (gateway/haproxy.cfg): 503 from app.mcp.drain() on
  // (server.js, at SIGTERM), so that the gateway sends no new requests before the instance closes
  app.get('/ready', async (_request, reply) => app.mcp.draining ? reply.code(503).send({ ready: false }) : { ready: true })
  return app
}
