import t from 'tap'
import { headerParamsOf, paramHeaders } from '../../lib/client/tool-headers.js'

t.test('the mirrored arguments of a listed tool, and their headers for a call', async (t) => {
  const params = headerParamsOf({
    name: 'deploy',
    inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } }, n: { type: 'integer', 'x-mcp-header': 'N' } } }
  })!
  t.same(params.map((p) => p.name), ['Region', 'Dry-Run', 'N'])
  t.same(paramHeaders(params, { region: 'eu', opts: { dry: false }, n: 3 }), { 'mcp-param-region': 'eu', 'mcp-param-dry-run': 'false', 'mcp-param-n': '3' })
  t.same(paramHeaders(params, { region: null, opts: 'not an object', n: 1.5 }), {}, 'null, unreachable and non-integer values send no header')
  t.same(paramHeaders(params, 'not an object'), {})
  t.equal(headerParamsOf({ name: 'bad', inputSchema: { type: 'object', properties: { x: { type: 'number', 'x-mcp-header': 'X' } } } }), undefined, 'an invalid annotation: the tool is dropped')
})
