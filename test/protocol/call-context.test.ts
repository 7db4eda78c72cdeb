// What a tool's `ctx` carries in each era: the Fastify request, a child logger bound to the tool
// and request, an AbortSignal that fires when the client goes away, and who is calling; and
// `ctx.progress`, silent for a call that sent no progressToken.
import t from 'tap'
import { request as httpRequest } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { Type, type ToolContext } from '../../lib/index.js'
import { build, deferred, listen, portOf } from '../helpers/app.js'
import { openSession, modernCall, modernMeta, modernPost, send, sessionPost } from '../helpers/requests.js'
import { captureLog } from '../helpers/logs.js'
import { sseMessages } from '../helpers/sse.js'

interface Seen { ctx: ToolContext, signalIsAbortSignal: boolean, abortedAtStart: boolean, hasRaw: boolean }

const log = captureLog()
let app: FastifyInstance
let seen: Seen | undefined

t.before(async () => {
  app = await build({}, { logger: log.logger })
  app.registerTool({
    name: 'inspect',
    args: { note: Type.Optional(Type.String()) },
    execute: (_args, ctx) => {
      ctx.log.info({ step: 'inspecting' }, 'tool log line')
      seen = { ctx, signalIsAbortSignal: ctx.signal instanceof AbortSignal, abortedAtStart: ctx.signal.aborted, hasRaw: ctx.request!.raw !== undefined }
      return 'ok'
    }
  })
  await app.ready()
})
t.teardown(() => app.close())

t.test('modern ctx', async (t) => {
  seen = undefined
  const res = await send(app, modernCall('inspect', {}, { 'x-trace': 'abc' }, 'ctx-1'))
  t.equal(res.status, 200)
  const { ctx } = seen!
  t.equal(ctx.era, 'modern')
  t.equal(ctx.protocolVersion, '2026-07-28')
  t.equal(ctx.requestId, 'ctx-1')
  t.equal(ctx.tool, 'inspect')
  t.equal(ctx.sessionId, undefined, 'no session in 2026-07-28')
  t.same(ctx.client.info, { name: 'test-client', version: '0.0.1' })
  t.same(ctx.client.capabilities, {})
  t.equal(ctx.request!.headers['x-trace'], 'abc', 'the Fastify request, with its headers')
  t.equal(ctx.request!.url, '/mcp')
  t.ok(seen!.hasRaw, 'and its raw request')
  t.ok(seen!.signalIsAbortSignal, 'signal is an AbortSignal')
  t.notOk(seen!.abortedAtStart, 'not aborted while the client waits')
  t.equal(ctx.signal, ctx.signal, 'one signal per call')
  t.equal(ctx.log, ctx.log, 'one child logger per call')

  const line = log.lines.find((l) => l.msg === 'tool log line' && l.mcpRequestId === 'ctx-1')
  t.ok(line, 'the tool logged through ctx.log')
  t.equal(line?.tool, 'inspect', 'bound to the tool')
  t.equal(line?.step, 'inspecting', 'with the tool\'s own fields')
  t.equal(line?.level, 30)
  t.type(line?.reqId, 'string', 'a child of the request logger')
})

t.test('modern ctx: clientInfo and capabilities come from this request\'s _meta', async (t) => {
  seen = undefined
  const meta = modernMeta({
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }
  })
  delete meta['io.modelcontextprotocol/clientInfo']
  await send(app, modernPost({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'inspect', arguments: {}, _meta: meta } }))
  t.equal(seen!.ctx.client.info, undefined, 'no clientInfo sent, none reported')
  t.same(seen!.ctx.client.capabilities, { elicitation: { form: {} } })
  t.equal(seen!.ctx.requestId, 9, 'a numeric id stays a number')
})

t.test('legacy ctx', async (t) => {
  const session = await openSession(app, '2025-06-18')
  seen = undefined
  const res = await send(app, sessionPost(session, '2025-06-18', { jsonrpc: '2.0', id: 'l-1', method: 'tools/call', params: { name: 'inspect', arguments: {} } }))
  t.equal(res.status, 200)
  const { ctx } = seen!
  t.equal(ctx.era, 'legacy')
  t.equal(ctx.protocolVersion, '2025-06-18', 'the negotiated version')
  t.equal(ctx.sessionId, session)
  t.equal(ctx.requestId, 'l-1')
  t.same(ctx.client.info, { name: 'legacy', version: '1' }, 'clientInfo from initialize')
  t.same(ctx.client.capabilities, {})
  t.equal(ctx.request!.headers['mcp-session-id'], session)
  const line = log.lines.find((l) => l.msg === 'tool log line' && l.mcpRequestId === 'l-1')
  t.equal(line?.tool, 'inspect')
})

t.test('ctx.signal aborts when the client goes away', async (t) => {
  const running = deferred()
  const result = deferred<{ aborted: boolean, reason: unknown }>()
  const lateRunning = deferred()
  const lateResult = deferred<boolean>()

  const server = await build()
  server.registerTool({
    name: 'wait',
    execute: async (_args, ctx) => {
      const signal = ctx.signal
      running.resolve()
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
      result.resolve({ aborted: signal.aborted, reason: signal.reason })
      return 'too late'
    }
  })
  server.registerTool({
    name: 'late',
    execute: async (_args, ctx) => {
      // the connection closes before the tool first looks at its signal
      const socket = ctx.request!.raw.socket
      lateRunning.resolve()
      await new Promise((resolve) => socket.once('close', resolve))
      lateResult.resolve(ctx.signal.aborted)
      return 'too late'
    }
  })
  await listen(t, server)
  const port = portOf(server)

  function callAndHangUp (name: string, ready: Promise<void>): void {
    const options = modernCall(name, {})
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: options.headers as Record<string, string> })
    req.on('error', () => {}) // the hang-up is ours
    req.end(options.payload as string)
    void ready.then(() => req.destroy())
  }

  callAndHangUp('wait', running.promise)
  const { aborted, reason } = await result.promise
  t.ok(aborted, 'the signal fired')
  t.match(String((reason as Error).message), /the client closed the connection/)

  callAndHangUp('late', lateRunning.promise)
  t.ok(await lateResult.promise, 'a signal first read after the hang-up is already aborted')
})

t.test('a finished call does not abort its signal', async (t) => {
  const server = await build()
  let signal: AbortSignal | undefined
  server.registerTool({ name: 'quick', execute: (_args, ctx) => { signal = ctx.signal; return 'done' } })
  const url = await listen(t, server)
  const options = modernCall('quick', {})
  const res = await fetch(url, { method: 'POST', headers: options.headers as Record<string, string>, body: options.payload as string })
  t.equal(res.status, 200)
  await res.text()
  t.equal(signal?.aborted, false, 'the normal end of a response is not a cancellation')
})

t.test('ctx.progress sends nothing to a call without a progressToken, even on a stream (both eras)', async (t) => {
  const server = await build()
  server.registerTool({
    name: 'reports',
    stream: true,
    execute: (_args, ctx) => {
      ctx.progress(1, 2, 'half')
      ctx.progress(2, 2, 'done')
      return 'reported'
    }
  })
  const url = await listen(t, server)
  const session = await openSession(server, '2025-11-25')
  const calls = {
    modern: (meta: Record<string, unknown>) => modernPost({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'reports', arguments: {}, _meta: modernMeta(meta) } }),
    legacy: (meta: Record<string, unknown>) => sessionPost(session, '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'reports', arguments: {}, _meta: meta } })
  }
  for (const [era, call] of Object.entries(calls)) {
    const raw = async (meta: Record<string, unknown>): Promise<{ type: string | null, messages: any[] }> => {
      const options = call(meta)
      const res = await fetch(url, { method: 'POST', headers: options.headers as Record<string, string>, body: options.payload as string })
      const type = res.headers.get('content-type')
      const text = await res.text()
      return { type, messages: type === 'text/event-stream' ? sseMessages(text) : [JSON.parse(text)] }
    }
    const without = await raw({})
    // a stream opens at the first event: with nothing sent, the answer stays JSON
    t.match(without.type, /^application\/json/, `${era}: nothing sent, so no stream opened`)
    t.same(without.messages.map((m) => m.method ?? 'answer'), ['answer'], `${era}: no notifications/progress without a progressToken`)
    t.same(without.messages.at(-1).result.content, [{ type: 'text', text: 'reported' }])
    // the same call with a token: the tool does report, so the silence above is the token's absence
    const withToken = await raw({ progressToken: 'p' })
    t.equal(withToken.type, 'text/event-stream', `${era}: with a progressToken, its first report opens the stream`)
    t.same(withToken.messages.map((m) => m.params?.progress ?? 'answer'), [1, 2, 'answer'], `${era}: with a progressToken, both reports`)
  }
})
