// The transport seam (docs/architecture.md, "Transports"): what a second transport needs to serve
// the same tools, with no Fastify anywhere. It implements `Transport` (lib/protocol/call.ts) and,
// for a question asked on an open answer, `Channel`; classifies each message (`classify`), builds a
// call from plain values (`modernCall`, `sessionCall`) and dispatches it; 2025 sessions run through
// the session protocol (`Sessions`). Here a transport of newline-delimited JSON over plain arrays,
// as a stdio transport would be, drives both eras through that interface.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { ProtocolError } from '../../lib/errors.js'
import { errorBody, notificationText, resultText, type RequestId } from '../../lib/spec/jsonrpc.js'
import type { ClientAnswer, Logger } from '../../lib/spec/types.js'
import { MemoryLiveness } from '../../lib/state/liveness.js'
import { Registry } from '../../lib/define/registry.js'
import type { ToolContext } from '../../lib/define/handler-context.js'
import { MemoryBus } from '../../lib/state/memory-bus.js'
import { MemorySessionStore } from '../../lib/state/memory-session-store.js'
import { MemoryTaskStore } from '../../lib/state/memory-task-store.js'
import { RequestStateSealer } from '../../lib/state/request-state.js'
import type { Session } from '../../lib/state/session-store.js'
import { modernCall, sessionCall, type Channel, type ClientRequestOptions, type Transport } from '../../lib/protocol/call.js'
import { dispatch } from '../../lib/protocol/dispatch.js'
import { classify, readModernMeta, type InboundRequest } from '../../lib/protocol/inbound.js'
import { answerOf } from '../../lib/protocol/session/client-requests.js'
import { Sessions, sessionNotFound } from '../../lib/protocol/session/sessions.js'
import { serverContext, type ServerContext } from '../../lib/protocol/server.js'

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {}
}

function quietLog (lines: string[]): Logger {
  const log: Logger = {
    child: () => log,
    error: (_obj, msg) => { lines.push(`error ${msg ?? ''}`) },
    warn: (_obj, msg) => { lines.push(`warn ${msg ?? ''}`) },
    info: (_obj, msg) => { lines.push(`info ${msg ?? ''}`) },
    debug: () => {}
  }
  return log
}

/**
 * One client's connection: lines in, lines out. A transport is this much: it reads a message,
 * lets the protocol core say what it is, and writes what the core answers.
 */
class LineTransport {
  readonly out: string[] = []
  readonly logged: string[] = []
  private session: Session | undefined
  private readonly running = new Map<RequestId, AbortController>()

  constructor (private readonly server: ServerContext, private readonly sessions: Sessions) {}

  /** The protocol core's view of this connection, for one call. */
  private transportFor (id: RequestId): Transport {
    const controller = new AbortController()
    this.running.set(id, controller)
    const { session, sessions } = this
    return {
      request: undefined, // a transport's own request object; this one has none
      caller: 'test',
      log: quietLog(this.logged),
      // a 2025 call is cancellable by notifications/cancelled, through the session protocol's registry
      signal: () => {
        if (session !== undefined) sessions.cancellations.track(session.id, id, controller)
        return controller.signal
      }
    }
  }

  /** The call's open answer, on which a 2025 handler's question goes out as a line of its own. */
  private channelFor (session: Session): Channel {
    return {
      notify: (method, params) => { this.out.push(notificationText(method, params)); return true },
      request: async (method: string, params: Record<string, unknown>, options: ClientRequestOptions): Promise<ClientAnswer> =>
        await this.sessions.questions.send(session.id, (line) => { this.out.push(line); return true }, method, params, options, { caller: 'test', log: quietLog([]) })
    }
  }

  async receive (line: string): Promise<void> {
    const inbound = classify(this.server.registry, JSON.parse(line), this.session?.id, undefined)
    if (inbound.refusal !== undefined) {
      this.out.push(JSON.stringify(errorBody(inbound.id ?? null, inbound.refusal)))
      return
    }
    if (inbound.kind === 'response') {
      await this.sessions.answered(this.session!.id, inbound.responseId, answerOf(inbound.result, inbound.error), quietLog(this.logged))
      return
    }
    if (inbound.kind === 'notification') {
      if (this.session !== undefined) await this.sessions.notified(this.session, inbound.method!, inbound.params)
      return
    }
    const request = inbound as InboundRequest
    if (request.facts?.handshake === true) {
      const { session, result } = this.sessions.open(this.server, request.params, undefined, 'test')
      await this.sessions.create(session, quietLog([]))
      this.session = session
      this.out.push(resultText(request.id, result))
      return
    }
    let call
    if (inbound.era === 'modern') {
      call = modernCall(request, readModernMeta(request.params), this.transportFor(request.id), undefined, undefined)
    } else {
      // no version travels beside a line (HTTP's MCP-Protocol-Version does): the session alone is looked up
      const session = await this.sessions.find(this.session!.id, undefined, quietLog(this.logged))
      if (session === undefined) throw sessionNotFound
      call = { ...sessionCall(session, request, this.transportFor(request.id), undefined, undefined), channel: this.channelFor(session) }
    }
    try {
      this.out.push(resultText(request.id, await dispatch(this.server, call)))
    } catch (err) {
      this.out.push(JSON.stringify(errorBody(request.id, err as ProtocolError)))
    }
  }
}

function setup (): { server: ServerContext, sessions: Sessions, registry: Registry } {
  const registry = new Registry(undefined)
  registry.addTool({ name: 'add', args: { a: Type.Number(), b: Type.Number() }, execute: ({ a, b }: { a: number, b: number }) => a + b })
  registry.addTool({
    name: 'confirm',
    execute: async (_args: unknown, ctx: ToolContext) => {
      const answer = await ctx.elicit.form('ok', 'Go ahead?', { type: 'object', properties: {} })
      return `the client said ${answer.action}`
    }
  })
  registry.addTool({
    name: 'wait',
    execute: async (_args: unknown, ctx: ToolContext) => await new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => { resolve(`stopped: ${String(ctx.signal.reason?.message)}`) }, { once: true })
    })
  })
  const store = new MemorySessionStore({ idleTimeout: 60_000, maxSessions: 10 })
  const bus = new MemoryBus()
  const server = serverContext({
    info: { name: 'seam', version: '1.0.0' },
    instructions: undefined,
    ttl: 60_000,
    pageSize: 50,
    registry,
    sessions: store,
    sealer: new RequestStateSealer(),
    inputTimeout: 5_000,
    hideForbidden: false,
    taskStore: new MemoryTaskStore({ maxTasks: 10 }),
    bus,
    tasks: { ttl: 60_000, maxTtl: 60_000, pollInterval: 100, closeTimeout: 100 }
  })
  registry.seal()
  server.lists.build()
  return { server, sessions: new Sessions(store, bus, new MemoryLiveness('here')), registry }
}

const line = (value: unknown): string => JSON.stringify(value)

t.test('2026-07-28: a stateless call, dispatched with no Fastify in sight', async (t) => {
  const { server, sessions } = setup()
  t.teardown(() => sessions.close())
  const conn = new LineTransport(server, sessions)
  await conn.receive(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 }, _meta: MODERN_META } }))
  const answer = JSON.parse(conn.out[0]!)
  t.equal(answer.id, 1)
  t.same(answer.result.content, [{ type: 'text', text: '5' }])
  t.equal(answer.result.resultType, 'complete')
  await conn.receive(line({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: MODERN_META } }))
  t.same(JSON.parse(conn.out[1]!).result.tools.map((tool: { name: string }) => tool.name), ['add', 'confirm', 'wait'])
  await conn.receive(line({ jsonrpc: '2.0', id: 3, method: 'nope/nope', params: { _meta: MODERN_META } }))
  t.same(JSON.parse(conn.out[2]!).error, { code: -32601, message: 'Method not found: nope/nope' })
  await conn.receive(line({ jsonrpc: '1.0', id: 4, method: 'tools/list' }))
  t.same(JSON.parse(conn.out[3]!), { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be the string "2.0"' } })
})

t.test('a 2025 session: the handshake, a question on the open answer, a cancel', async (t) => {
  const { server, sessions } = setup()
  t.teardown(() => sessions.close())
  const conn = new LineTransport(server, sessions)
  await conn.receive(line({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'lines', version: '1' } } }))
  t.equal(JSON.parse(conn.out[0]!).result.protocolVersion, '2025-11-25')
  await conn.receive(line({ jsonrpc: '2.0', method: 'notifications/initialized' }))

  await conn.receive(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } }))
  t.same(JSON.parse(conn.out[1]!), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '2' }] } }, 'a 2025 result: no resultType')

  // the handler asks; the question goes out as a request line, the answer comes back as a response line
  const asking = conn.receive(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'confirm' } }))
  await new Promise((resolve) => setImmediate(resolve))
  const question = JSON.parse(conn.out[2]!)
  t.equal(question.method, 'elicitation/create')
  t.match(question.id, /^sake-/)
  await conn.receive(line({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: {} } }))
  await asking
  t.same(JSON.parse(conn.out[3]!).result.content, [{ type: 'text', text: 'the client said accept' }])

  // notifications/cancelled stops a running call through the session protocol's registry
  const waiting = conn.receive(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wait' } }))
  await new Promise((resolve) => setImmediate(resolve))
  await conn.receive(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'enough' } }))
  await waiting
  t.same(JSON.parse(conn.out[4]!).result.content, [{ type: 'text', text: 'stopped: cancelled by the client: enough' }])

  await conn.receive(line({ jsonrpc: '2.0', id: 5, method: 'ping' }))
  t.same(JSON.parse(conn.out[5]!), { jsonrpc: '2.0', id: 5, result: {} })
})
