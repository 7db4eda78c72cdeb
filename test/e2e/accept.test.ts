// Accept, negotiated (issue 41, item 7), against the built package over a real port: q-values are
// honoured, so `application/json;q=0` refuses JSON even beside */* (406 with the message naming
// what to send), `text/event-stream;q=0` turns a streaming call's answer into JSON and refuses a
// listen and a 2025 GET stream; two Accept lines are read as the one value Node joins them to; and
// the value MCP clients send, a low q and an absent header are all still fine.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import sake from '../../dist/index.js'
import { listen, portOf } from '../helpers/app.js'
import { open, rawRequest, sessionOn, streamPost } from '../helpers/network.js'
import { MODERN, modernMeta } from '../helpers/requests.js'

const JSON_REFUSED = 'Not Acceptable: the Accept header must allow application/json (MCP clients send "Accept: application/json, text/event-stream")'
const STREAM_REFUSED = /^Not Acceptable: this request answers with an event stream; the Accept header must allow text\/event-stream/

async function serve (t: Test): Promise<{ url: string, port: number }> {
  const app = Fastify({ logger: false })
  await app.register(sake, { name: 'accept', version: '1.0.0' })
  app.registerTool({ name: 'count', stream: true, execute: async (_args, ctx) => { await ctx.progress(1, 2); await ctx.progress(2, 2); return 'counted' } })
  const url = await listen(t, app)
  return { url, port: portOf(app) }
}

const discover = (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: modernMeta() } })

/** A server/discover POST with exactly these header lines beside Host, Content-Type, the version and the method. */
async function discoverWith (port: number, lines: string[]): Promise<{ status: number, body: any }> {
  const body = discover(1)
  return await rawRequest({
    port,
    headers: ['Host', `127.0.0.1:${port}`, 'Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), 'MCP-Protocol-Version', MODERN, 'Mcp-Method', 'server/discover', ...lines],
    body
  })
}

t.test('POST: JSON refused by q=0 is 406, whatever else the header allows; a low q, a wildcard or no header is fine', async (t) => {
  const { port } = await serve(t)
  for (const accept of ['application/json;q=0, */*', '*/*, application/json;q=0', 'application/*;q=0, text/event-stream', 'application/json;charset=iso-8859-1']) {
    const res = await discoverWith(port, ['Accept', accept])
    t.equal(res.status, 406, `Accept: ${accept}`)
    t.same(res.body, { jsonrpc: '2.0', id: 1, error: { code: -32600, message: JSON_REFUSED } })
  }
  for (const accept of ['application/json, text/event-stream', '*/*;q=0.1', 'application/*', 'application/json; charset=UTF-8', 'text/event-stream;q=0, application/json']) {
    const res = await discoverWith(port, ['Accept', accept])
    t.equal(res.status, 200, `Accept: ${accept}`)
    t.equal(res.body.result.resultType, 'complete')
  }
  t.equal((await discoverWith(port, [])).status, 200, 'no Accept: anything (RFC 9110)')
  t.equal((await discoverWith(port, ['Accept', '*/*', 'Accept', 'application/json;q=0'])).status, 406, 'two lines: read as the one value Node joins, "*/*, application/json;q=0"')
  t.equal((await discoverWith(port, ['Accept', ';;,=;q'])).status, 406, 'an unreadable value: refused, not a 500')
})

t.test('a streaming call: an event stream when the Accept allows one, JSON when q=0 refuses it', async (t) => {
  const { url } = await serve(t)
  const params = { name: 'count', arguments: {}, _meta: { progressToken: 'p' } }
  const streamed = await streamPost(url, 'tools/call', params)
  t.match(streamed.headers.get('content-type'), /^text\/event-stream/)
  const events = (await streamed.rest()).filter((event) => event.data !== undefined && event.data !== '').map((event) => JSON.parse(event.data!))
  t.same(events.map((message) => message.method ?? 'answer'), ['notifications/progress', 'notifications/progress', 'answer'])
  const json = await streamPost(url, 'tools/call', params, { accept: 'text/event-stream;q=0, application/json' })
  t.match(json.headers.get('content-type'), /^application\/json/)
  t.equal((await json.json()).result.content[0].text, 'counted', 'the answer alone, as JSON')
})

t.test('a listen and a 2025 GET stream: refused with 406 when q=0 refuses an event stream', async (t) => {
  const { url } = await serve(t)
  const listen = await streamPost(url, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, { accept: 'application/json, text/event-stream;q=0' })
  t.equal(listen.status, 406)
  t.match((await listen.json()).error.message, STREAM_REFUSED)
  const session = await sessionOn(url)
  const get = (accept: string) => open(url, { method: 'GET', headers: { accept, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } })
  const refused = await get('text/event-stream;q=0, */*')
  t.equal(refused.status, 406)
  t.match((await refused.json()).error.message, STREAM_REFUSED)
  const opened = await get('text/*;q=0.5')
  t.equal(opened.status, 200, 'text/* at a low q opens it')
  t.match(opened.headers.get('content-type'), /^text\/event-stream/)
  opened.close()
})
