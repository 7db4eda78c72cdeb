import t from 'tap'
import { Readable } from 'node:stream'
import { Type } from '../../lib/index.js'
import { build, modernRequest, openSession, legacyRequest } from '../helpers/app.js'

t.test('explore', async (t) => {
  const app = await build({}, { logger: { level: "error" } })
  app.registerTool({ name: 'big', execute: () => 10n as any })
  app.registerTool({ name: 'fn', execute: () => (() => 1) as any })
  app.registerTool({ name: 'cyc', execute: () => { const a: any = {}; a.a = a; return a } })
  await app.ready()
  const show = async (label: string, o: any) => { const r = await app.inject(o); console.log(label, r.statusCode, JSON.stringify(r.headers), r.body) }
  await show('no ct with body', { method: 'POST', url: '/mcp', payload: '{"jsonrpc":"2.0","id":1,"method":"x"}', headers: { 'content-type': undefined } })
  await show('no ct no body', { method: 'POST', url: '/mcp' })
  await show('ct no body', { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' } })
  await show('text/plain', { method: 'POST', url: '/mcp', payload: 'x', headers: { 'content-type': 'text/plain' } })
  await show('bad ct', { method: 'POST', url: '/mcp', payload: 'x', headers: { 'content-type': 'application/json; charset' } })
  await show('jsonx', { method: 'POST', url: '/mcp', payload: '{}', headers: { 'content-type': 'application/jsonx' } })
  await show('json+', { method: 'POST', url: '/mcp', payload: '{}', headers: { 'content-type': 'application/json-patch+json' } })
  await show('ct charset', { method: 'POST', url: '/mcp', payload: '{}', headers: { 'content-type': 'application/json; charset=utf-8' } })
  await show('clen', { method: 'POST', url: '/mcp', payload: '{}', headers: { 'content-type': 'application/json', 'content-length': '1' } })
  await show('big', { method: 'POST', url: '/mcp', payload: 'x'.repeat(300), headers: { 'content-type': 'application/json' } })
  await show('proto', { method: 'POST', url: '/mcp', payload: '{"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } })
  await show('malformed', { method: 'POST', url: '/mcp', payload: '{"a":', headers: { 'content-type': 'application/json' } })
  const s = new Readable({ read () { this.destroy(new Error('boom')) } })
  await show('stream err', { method: 'POST', url: '/mcp', payload: s, headers: { 'content-type': 'application/json' } })
  await show('bigint', modernRequest('tools/call', { name: 'big' }))
  await show('fn', modernRequest('tools/call', { name: 'fn' }))
  await show('cyc', modernRequest('tools/call', { name: 'cyc' }))
  await show('PUT', { method: 'PUT', url: '/mcp', payload: '{}' })
  await app.close()
})
