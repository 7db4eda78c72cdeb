// A hostile client's repeated header lines, against the built package over a real port (issue 40):
// Node joins two lines of a header it does not know with ', ' (`us, eu`), while a gateway routing
// on the header may read the first line alone (`us`). A repeated Mcp-Param-*, Mcp-Method, Mcp-Name,
// MCP-Protocol-Version or Mcp-Session-Id line is refused with 400 and -32020 naming the header, in
// both eras and on GET and DELETE; one line whose value holds a comma is still fine.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import sake, { Type } from '../../dist/index.js'
import { listen, portOf } from '../helpers/app.js'
import { rawRequest, sessionOn } from '../helpers/network.js'
import { MODERN, modernMeta } from '../helpers/requests.js'

async function serve (t: Test): Promise<{ app: FastifyInstance, url: string, port: number }> {
  const app = Fastify({ logger: false })
  await app.register(sake, { name: 'hostile-headers', version: '1.0.0' })
  app.registerTool({ name: 'pick', args: { region: Type.String({ header: 'Region' }) }, execute: ({ region }) => `ran in ${region}` })
  app.registerResource({ uri: 'notes://all', name: 'notes', read: () => 'the notes' })
  const url = await listen(t, app)
  return { app, url, port: portOf(app) }
}

type Lines = string[]

/** A POST with exactly these header lines (Host, Content-Type, Accept and Content-Length added). */
async function postLines (port: number, lines: Lines, body: unknown): Promise<{ status: number, body: any }> {
  const text = JSON.stringify(body)
  const headers = ['Host', `127.0.0.1:${port}`, 'Content-Type', 'application/json', 'Accept', 'application/json, text/event-stream', 'Content-Length', String(Buffer.byteLength(text)), ...lines]
  return await rawRequest({ port, headers, body: text })
}

const call = (region: string): unknown => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pick', arguments: { region }, _meta: modernMeta() } })
const modernLines: Lines = ['MCP-Protocol-Version', MODERN, 'Mcp-Method', 'tools/call', 'Mcp-Name', 'pick']

function refusedFor (t: Test, res: { status: number, body: any }, header: string, what: string): void {
  t.equal(res.status, 400, what)
  t.equal(res.body?.error?.code, -32020, what)
  t.match(res.body?.error?.message, new RegExp(`^Header mismatch: ${header} header is sent on 2 field lines`), `${what}: the message names ${header}`)
}

t.test('2026-07-28: two Mcp-Param-Region lines are refused, not read as "us, eu"', async (t) => {
  const { port } = await serve(t)
  const joined = await postLines(port, [...modernLines, 'Mcp-Param-Region', 'us', 'Mcp-Param-Region', 'eu'], call('us, eu'))
  refusedFor(t, joined, 'Mcp-Param-Region', 'us + eu against a body of "us, eu"')
  t.equal(joined.body.error.message, "Header mismatch: Mcp-Param-Region header is sent on 2 field lines, which are read as one value 'us, eu'; a gateway may read the first alone: send it once")
  const cased = await postLines(port, [...modernLines, 'Mcp-Param-Region', 'us', 'mcp-param-region', 'eu'], call('us, eu'))
  refusedFor(t, cased, 'Mcp-Param-Region', 'names differing only in case are one header')
  const one = await postLines(port, [...modernLines, 'Mcp-Param-Region', 'us, eu'], call('us, eu'))
  t.equal(one.status, 200, 'one line whose value holds a comma is fine')
  t.equal(one.body.result.content[0].text, 'ran in us, eu')
  const plain = await postLines(port, [...modernLines, 'Mcp-Param-Region', 'us'], call('us'))
  t.equal(plain.body.result.content[0].text, 'ran in us')
})

t.test('2026-07-28: a repeated Mcp-Method, Mcp-Name or MCP-Protocol-Version line is refused naming it', async (t) => {
  const { port } = await serve(t)
  const param = ['Mcp-Param-Region', 'us']
  refusedFor(t, await postLines(port, ['MCP-Protocol-Version', MODERN, 'MCP-Protocol-Version', MODERN, 'Mcp-Method', 'tools/call', 'Mcp-Name', 'pick', ...param], call('us')),
    'MCP-Protocol-Version', 'the version twice')
  refusedFor(t, await postLines(port, ['MCP-Protocol-Version', MODERN, 'Mcp-Method', 'tools/call', 'Mcp-Method', 'tools/list', 'Mcp-Name', 'pick', ...param], call('us')),
    'Mcp-Method', 'the method twice')
  refusedFor(t, await postLines(port, ['MCP-Protocol-Version', MODERN, 'Mcp-Method', 'tools/call', 'Mcp-Name', 'pick', 'Mcp-Name', 'other', ...param], call('us')),
    'Mcp-Name', 'the name twice')
  const read = { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'notes://all', _meta: modernMeta() } }
  refusedFor(t, await postLines(port, ['MCP-Protocol-Version', MODERN, 'Mcp-Method', 'resources/read', 'Mcp-Name', 'notes://all', 'Mcp-Name', 'notes://all'], read),
    'Mcp-Name', 'a resource URI twice, even the same value')
})

t.test('2025 sessions: a repeated Mcp-Session-Id, MCP-Protocol-Version or Mcp-Param-* line is refused, on POST, GET and DELETE', async (t) => {
  const { url, port } = await serve(t)
  const session = await sessionOn(url)
  const other = await sessionOn(url)
  const legacyCall = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'pick', arguments: { region: 'us, eu' } } }
  refusedFor(t, await postLines(port, ['Mcp-Session-Id', session, 'Mcp-Session-Id', other, 'MCP-Protocol-Version', '2025-11-25'], legacyCall), 'Mcp-Session-Id', 'two sessions')
  refusedFor(t, await postLines(port, ['Mcp-Session-Id', session, 'MCP-Protocol-Version', '2025-11-25', 'MCP-Protocol-Version', '2025-06-18'], legacyCall), 'MCP-Protocol-Version', 'two versions')
  refusedFor(t, await postLines(port, ['Mcp-Session-Id', session, 'MCP-Protocol-Version', '2025-11-25', 'Mcp-Param-Region', 'us', 'Mcp-Param-Region', 'eu'], legacyCall),
    'Mcp-Param-Region', 'a 2025 client that sends the headers is held to them')
  const ok = await postLines(port, ['Mcp-Session-Id', session, 'MCP-Protocol-Version', '2025-11-25'], legacyCall)
  t.equal(ok.body.result.content[0].text, 'ran in us, eu', 'without the headers, the session call runs')
  for (const method of ['GET', 'DELETE']) {
    const res = await rawRequest({ port, method, headers: ['Host', `127.0.0.1:${port}`, 'Accept', 'text/event-stream', 'Mcp-Session-Id', session, 'Mcp-Session-Id', other, 'MCP-Protocol-Version', '2025-11-25'] })
    refusedFor(t, res, 'Mcp-Session-Id', method)
  }
  const still = await postLines(port, ['Mcp-Session-Id', other, 'MCP-Protocol-Version', '2025-11-25'], { ...legacyCall, id: 4 })
  t.equal(still.status, 200, 'the refused DELETE ended no session')
})
