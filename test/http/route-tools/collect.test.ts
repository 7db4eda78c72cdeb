// Host routes as MCP tools (lib/http/route-tools.ts), through app.inject: the schema rules, the
// registration errors naming the route, what travels into the route, and each kind of answer.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import sake, { Type, type McpRequestInfo, type SakeOptions } from '../../../lib/index.js'
import { build } from '../../helpers/app.js'
import { captureLog } from '../../helpers/logs.js'
import { modernCall, modernRequest } from '../../helpers/requests.js'

async function call (t: Test, app: FastifyInstance, name: string, args: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await app.inject(modernCall(name, args, headers))
  t.equal(response.statusCode, 200, `tools/call ${name} is answered 200`)
  const { resultType, _meta, ...result } = response.json().result
  return result
}

async function tools (app: FastifyInstance): Promise<Map<string, any>> {
  const response = await app.inject(modernRequest('tools/list'))
  return new Map(response.json().result.tools.map((tool: any) => [tool.name, tool]))
}

/** Declaring the route(s) fails with `code` and `message`. */
async function refuses (t: Test, declare: (app: FastifyInstance) => void, message: RegExp, code = 'SAKE_ERR_INVALID_ROUTE_TOOL', options: Partial<SakeOptions> = {}): Promise<void> {
  const app = await build(options)
  t.throws(() => declare(app), { code, message }, String(message))
  await app.close()
}

const ok = async (): Promise<Record<string, unknown>> => ({ ok: true })

t.test('a GET route: params, querystring and the 200 schema make the tool; the call runs the route once', async (t) => {
  const app = await build()
  let runs = 0
  app.get('/users/:id', {
    onRequest: [(_request, _reply, done) => { runs++; done() }],
    schema: {
      params: Type.Object({ id: Type.Integer() }),
      querystring: { type: 'object', properties: { fields: { type: 'string' } } },
      response: { 200: Type.Object({ id: Type.Integer(), name: Type.String(), fields: Type.Optional(Type.String()) }) }
    },
    config: { mcp: { name: 'get_user', description: 'One user' } }
  }, async (request) => {
    const { id } = request.params as { id: number }
    const { fields } = request.query as { fields?: string }
    return { id, name: `user ${id}`, fields, secret: 'not in the schema' }
  })
  const listed = (await tools(app)).get('get_user')
  t.same(listed.inputSchema, {
    type: 'object',
    properties: { id: { type: 'integer' }, fields: { type: 'string' } },
    required: ['id'],
    additionalProperties: false
  })
  t.equal(listed.description, 'One user')
  t.same(listed.annotations, { readOnlyHint: true }, 'GET: read-only')
  t.same(listed.outputSchema.required, ['id', 'name'], 'the 200 schema is the output schema')
  t.same(app.mcp.tools.get('get_user')?.inputSchema, listed.inputSchema, 'app.mcp.tools lists it')

  const result = await call(t, app, 'get_user', { id: 7, fields: 'name' })
  t.same(result.structuredContent, { id: 7, name: 'user 7', fields: 'name' }, "the route's serializer ran: no secret")
  t.same(JSON.parse(result.content[0].text), result.structuredContent)
  t.equal(runs, 1, "the route's own onRequest hook ran once")

  const bad = await call(t, app, 'get_user', { id: 'seven' })
  t.equal(bad.isError, true, 'arguments are checked against the input schema first')
  t.equal(runs, 1, 'the route did not run for bad arguments')

  const http = await app.inject({ url: '/users/3' })
  t.same(http.json(), { id: 3, name: 'user 3' }, 'HTTP clients still reach the route')
  t.equal(runs, 2)
  await app.close()
})

t.test('POST, PUT and DELETE routes: body arguments, 201, 204, hints from the method', async (t) => {
  const app = await build()
  const bodies: unknown[] = []
  app.post('/users', {
    schema: {
      body: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] },
      response: { 201: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } }
    },
    config: { mcp: { name: 'create_user', annotations: { openWorld: false } } }
  }, async (request, reply) => {
    bodies.push(request.body)
    return reply.code(201).send({ id: 9, name: (request.body as { name: string }).name })
  })
  app.put('/users/:id', { config: { mcp: { name: 'replace_user' } } }, async (request) => ({ replaced: (request.params as { id: string }).id }))
  app.delete('/users/:id', { config: { mcp: { name: 'delete_user', annotations: { destructive: false } } } }, async (_request, reply) => reply.code(204).send())
  const listed = await tools(app)
  t.same(listed.get('create_user').inputSchema, {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'integer' } },
    required: ['name'],
    additionalProperties: false
  })
  t.same(listed.get('create_user').annotations, { openWorldHint: false }, 'POST implies nothing')
  t.same(listed.get('replace_user').annotations, { idempotentHint: true }, 'PUT: idempotent')
  t.same(listed.get('replace_user').inputSchema.properties, { id: { type: 'string' } }, 'a path parameter without a params schema is a string')
  t.same(listed.get('delete_user').annotations, { destructiveHint: false }, "DELETE's destructive hint, overridden")

  const created = await call(t, app, 'create_user', { name: 'Ada', age: 36 })
  t.same(created.structuredContent, { id: 9, name: 'Ada' }, 'the 201 body')
  t.same(bodies, [{ name: 'Ada', age: 36 }], 'the body arguments, as the route read them')
  t.same((await call(t, app, 'replace_user', { id: 'a b/c' })).structuredContent, { replaced: 'a b/c' }, 'a path parameter is encoded')
  t.same(await call(t, app, 'delete_user', { id: '1' }), { content: [] }, '204: no content')
  await app.close()
})

t.test('config.mcp: true takes the name from operationId, the description from description or summary', async (t) => {
  const app = await build()
  app.get('/a', { schema: { operationId: 'get_a', summary: 'Gets A' }, config: { mcp: true } }, ok)
  app.get('/b', { schema: { operationId: 'get_b', summary: 'Gets B', description: 'Gets B, longer' }, config: { mcp: { title: 'B' } } }, ok)
  app.get('/c', { config: { mcp: false } }, ok)
  app.get('/d', async (request) => ({ mcp: request.mcp }))
  const listed = await tools(app)
  t.same((await app.inject({ url: '/d' })).json(), { mcp: null }, "a host route's request.mcp is null")
  t.same([...listed.keys()], ['get_a', 'get_b'], 'mcp: false and no config.mcp are never exposed')
  t.equal(listed.get('get_a').description, 'Gets A')
  t.equal(listed.get('get_b').description, 'Gets B, longer')
  t.equal(listed.get('get_b').title, 'B')
  t.same(listed.get('get_a').inputSchema, { type: 'object', properties: {}, additionalProperties: false })
  await app.close()
})

t.test('answers: text, JSON without a schema, an image, 404, 401, 500, a redirect, JSON against its schema', async (t) => {
  const log = captureLog()
  const app = await build({}, { logger: log.logger })
  app.get('/text', { config: { mcp: { name: 'text' } } }, async () => 'plain words')
  app.get('/json', { config: { mcp: { name: 'json' } } }, async () => [1, 2])
  app.get('/pixel', { config: { mcp: { name: 'pixel' } } }, async (_request, reply) => reply.type('image/png').send(Buffer.from([1, 2, 3])))
  app.get('/sound', { config: { mcp: { name: 'sound' } } }, async (_request, reply) => reply.type('audio/wav').send(Buffer.from([4, 5])))
  app.get('/missing/:id', { config: { mcp: { name: 'missing' } } }, async (request, reply) => reply.code(404).send({ message: `no user ${(request.params as { id: string }).id}` }))
  app.get('/teapot', { config: { mcp: { name: 'teapot' } } }, async (_request, reply) => reply.code(418).type('text/plain').send('short and stout'))
  app.get('/odd-error', { config: { mcp: { name: 'odd_error' } } }, async (_request, reply) => reply.code(499).send({ message: 'gone' }))
  app.get('/long', { config: { mcp: { name: 'long' } } }, async (_request, reply) => reply.code(400).type('text/plain').send('x'.repeat(600)))
  app.get('/broken', { config: { mcp: { name: 'broken' } } }, async () => { throw new Error('db password is hunter2') })
  app.get('/moved', { config: { mcp: { name: 'moved' } } }, async (_request, reply) => reply.redirect('/text'))
  app.get('/odd', { config: { mcp: { name: 'odd' } } }, async (_request, reply) => reply.code(299).send('?'))
  app.get('/liar', {
    schema: { response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } } },
    config: { mcp: { name: 'liar' } }
  }, async (_request, reply) => reply.type('application/json').serializer((value: unknown) => JSON.stringify(value)).send({ n: 'not a number' }))

  t.same(await call(t, app, 'text', {}), { content: [{ type: 'text', text: 'plain words' }] })
  t.same(await call(t, app, 'json', {}), { content: [{ type: 'text', text: '[1,2]' }], structuredContent: [1, 2] })
  t.same(await call(t, app, 'pixel', {}), { content: [{ type: 'image', data: 'AQID', mimeType: 'image/png' }] })
  t.same(await call(t, app, 'sound', {}), { content: [{ type: 'audio', data: 'BAU=', mimeType: 'audio/wav' }] })
  t.same(await call(t, app, 'missing', { id: '42' }), { content: [{ type: 'text', text: 'GET /missing/42 answered 404 Not Found: no user 42' }], isError: true })
  t.same(await call(t, app, 'teapot', {}), { content: [{ type: 'text', text: "GET /teapot answered 418 I'm a Teapot: short and stout" }], isError: true })
  t.equal((await call(t, app, 'odd_error', {})).content[0].text, 'GET /odd-error answered 499: gone', 'a status without a reason phrase')
  t.equal((await call(t, app, 'long', {})).content[0].text, `GET /long answered 400 Bad Request: ${'x'.repeat(500)}…`, 'a long body is cut')
  const broken = await call(t, app, 'broken', {})
  t.same(broken, { content: [{ type: 'text', text: "Tool 'broken' failed: the route answered 500 Internal Server Error" }], isError: true })
  t.notMatch(JSON.stringify(broken), /hunter2/, 'the route\'s error stays out of the result')
  t.ok(log.errors().some((line) => line.msg === "route tool 'broken': GET /broken answered 500 Internal Server Error" && /hunter2/.test(String(line.body))), 'and goes to the log')
  t.same(await call(t, app, 'moved', {}), { content: [{ type: 'text', text: "Tool 'moved' failed: the route answered 302 Found" }], isError: true }, 'a redirect is not followed')
  t.same(await call(t, app, 'odd', {}), { content: [{ type: 'text', text: '?' }] }, 'an unknown 2xx with text')
  t.same(await call(t, app, 'liar', {}), { content: [{ type: 'text', text: "Tool 'liar' failed with an internal error" }], isError: true }, 'a body that breaks the output schema')
  t.ok(log.errors().some((line) => line.msg === "tool 'liar' returned a value that does not match its output schema"))
  await app.close()
})

t.test('what travels into the route: Authorization, traceparent, the request id, request.mcp; never the session or Mcp-* headers', async (t) => {
  const app = Fastify({ logger: false, requestIdHeader: 'x-request-id' })
  await app.register(sake, { name: 'test-server', version: '1.0.0' })
  const seen: Array<{ headers: Record<string, unknown>, id: string, mcp: McpRequestInfo | null, auth: unknown, ip: string }> = []
  let inner: McpRequestInfo | null | undefined
  app.get('/echo', { config: { mcp: { name: 'echo', config: { cost: 3 } } } }, async (request) => {
    seen.push({ headers: request.headers, id: request.id, mcp: request.mcp, auth: request.mcpAuth, ip: request.ip })
    return { ok: true }
  })
  // a route that injects another exposed route itself: that request is an HTTP one, not the call's
  app.get('/outer', { config: { mcp: { name: 'outer' } } }, async () => {
    const response = await app.inject({ url: '/echo' })
    inner = seen.at(-1)!.mcp
    return response.json()
  })
  await call(t, app, 'echo', {}, { authorization: 'Bearer abc', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'a=1', 'x-request-id': 'req-1', cookie: 'a=b' })
  const [{ headers, id, mcp, auth }] = seen
  t.equal(headers.authorization, 'Bearer abc')
  t.equal(headers.traceparent, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')
  t.equal(headers.tracestate, 'a=1')
  t.equal(id, 'req-1', "the MCP request's id, in the host's requestIdHeader")
  t.equal(headers.cookie, undefined, 'no cookie')
  t.same(Object.keys(headers).filter((name) => name.startsWith('mcp-')), [], 'no Mcp-* header')
  t.match(mcp, { verified: true, era: 'modern', protocolVersion: '2026-07-28', method: 'tools/call', name: 'echo', id: 1, sessionId: undefined, config: { cost: 3 } })
  t.equal(mcp!.tool!.name, 'echo')
  t.equal(auth, null, 'auth off: no caller')

  await app.inject({ url: '/echo' })
  t.equal(seen[1].mcp, null, "an HTTP client's request of the same route is not an MCP call")
  await call(t, app, 'outer', {})
  t.equal(inner, null, 'a request the route makes itself is not the call')
  await app.close()
})

t.test("a route's own auth hook refusing a missing credential is a tool error", async (t) => {
  const app = await build()
  app.get('/private', {
    onRequest: async (request, reply) => { if (request.headers.authorization !== 'Bearer good') return await reply.code(401).send({ message: 'missing or bad credential' }) },
    config: { mcp: { name: 'private' } }
  }, async () => ({ secret: 42 }))
  t.same(await call(t, app, 'private', {}), { content: [{ type: 'text', text: 'GET /private answered 401 Unauthorized: missing or bad credential' }], isError: true })
  t.same((await call(t, app, 'private', {}, { authorization: 'Bearer good' })).structuredContent, { secret: 42 })
  await app.close()
})

t.test('routes in a child context under a prefix, and querystring values of every type', async (t) => {
  const app = await build()
  let query: unknown
  await app.register(async (child) => {
    child.get('/items/*', {
      schema: { querystring: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } }, ids: { type: 'array', items: { type: 'integer' } }, n: { type: 'integer' }, on: { type: 'boolean' }, q: { type: 'string' } } } },
      config: { mcp: { name: 'find_items' } }
    }, async (request) => { query = request.query; return { path: (request.params as Record<string, string>)['*'] } })
    child.get('/things/:id(^\\d+)', { config: { mcp: { name: 'thing' } } }, async (request) => ({ id: (request.params as { id: string }).id }))
  }, { prefix: '/api' })
  const listed = await tools(app)
  t.same(listed.get('find_items').required, undefined)
  t.same(Object.keys(listed.get('find_items').inputSchema.properties), ['*', 'tags', 'ids', 'n', 'on', 'q'], 'the wildcard, then the querystring')
  const found = await call(t, app, 'find_items', { '*': 'a/b c', tags: ['x', 'y'], ids: [1, 2], n: 3, on: true, q: 'z' })
  t.same(found.structuredContent, { path: 'a/b c' })
  t.same(query, { tags: ['x', 'y'], ids: [1, 2], n: 3, on: true, q: 'z' }, "the route's own coercion read them back")
  t.same((await call(t, app, 'thing', { id: '12' })).structuredContent, { id: '12' })
  await app.close()
})

t.test('rename and header', async (t) => {
  const app = await build()
  app.post('/regions/:id', {
    schema: {
      params: { type: 'object', properties: { id: { type: 'string' } } },
      querystring: { type: 'object', properties: { id: { type: 'string' } } },
      body: { type: 'object', properties: { region: { type: 'string' } } }
    },
    config: { mcp: { name: 'move', rename: { 'querystring.id': 'query_id' }, header: { region: 'Region' } } }
  }, async (request) => ({ params: request.params, query: request.query, body: request.body }))
  const listed = (await tools(app)).get('move')
  t.same(listed.inputSchema.properties, { id: { type: 'string' }, query_id: { type: 'string' }, region: { type: 'string', 'x-mcp-header': 'Region' } })
  const result = await call(t, app, 'move', { id: 'p', query_id: 'q', region: 'eu' }, { 'mcp-param-region': 'eu' })
  t.same(result.structuredContent, { params: { id: 'p' }, query: { id: 'q' }, body: { region: 'eu' } })
  await app.close()
})

t.test('bodies per content type, response schemas in every form', async (t) => {
  const app = await build()
  app.post('/json-content', {
    schema: {
      body: { content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } } },
      response: { 200: { content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } } } }
    },
    config: { mcp: { name: 'json_content' } }
  }, async (request) => request.body)
  app.get('/text-content', {
    schema: { response: { 200: { content: { 'text/plain': { schema: { type: 'string' } } } } } },
    config: { mcp: { name: 'text_content' } }
  }, async () => 'hi')
  app.get('/created', { schema: { response: { 201: { type: 'object', properties: { a: { type: 'string' } } } } }, config: { mcp: { name: 'created' } } }, async (_request, reply) => reply.code(201).send({ a: 'x' }))
  app.get('/wide', { schema: { response: { '2xx': { type: 'object', properties: { w: { type: 'integer' } } }, 404: { type: 'object' } } }, config: { mcp: { name: 'wide' } } }, async () => ({ w: 1 }))
  app.get('/accepted', { schema: { response: { 202: { type: 'object', properties: { k: { type: 'integer' } } }, 400: { type: 'object' } } }, config: { mcp: { name: 'accepted' } } }, async (_request, reply) => reply.code(202).send({ k: 1 }))
  app.get('/errors-only', { schema: { response: { 404: { type: 'object' } } }, config: { mcp: { name: 'errors_only' } } }, ok)
  const listed = await tools(app)
  t.same(listed.get('json_content').inputSchema.properties, { a: { type: 'string' } })
  t.same(listed.get('json_content').outputSchema, { type: 'object', properties: { a: { type: 'string' } } })
  t.equal(listed.get('text_content').outputSchema, undefined, 'a text answer has no output schema')
  t.same(listed.get('created').outputSchema, { type: 'object', properties: { a: { type: 'string' } } })
  t.same(listed.get('wide').outputSchema.properties, { w: { type: 'integer' } })
  t.same(listed.get('accepted').outputSchema.properties, { k: { type: 'integer' } })
  t.equal(listed.get('errors_only').outputSchema, undefined)
  t.same((await call(t, app, 'json_content', { a: 'b' })).structuredContent, { a: 'b' })
  t.same((await call(t, app, 'text_content', {})).content, [{ type: 'text', text: 'hi' }])
  await app.close()
})

t.test('registration errors name the route and what to change', async (t) => {
  await refuses(t, (app) => app.get('/users/:id', { schema: { params: { type: 'object', properties: { id: { type: 'string' } } }, querystring: { type: 'object', properties: { id: { type: 'string' } } } }, config: { mcp: { name: 'x' } } }, ok),
    /^route 'GET \/users\/:id': the argument 'id' would come from both params and querystring; give one of them another name with config.mcp.rename, such as rename: \{ 'querystring.id': 'query_id' \}$/)
  await refuses(t, (app) => app.post('/u/:id', { schema: { body: { type: 'object', properties: { id: { type: 'string' } } } }, config: { mcp: { name: 'x' } } }, ok),
    /route 'POST \/u\/:id': the argument 'id' would come from both params and body; .* rename: \{ 'body.id': 'body_id' \}/)
  await refuses(t, (app) => app.post('/list', { schema: { body: { type: 'array', items: { type: 'string' } } }, config: { mcp: { name: 'x' } } }, ok),
    /^route 'POST \/list': its body schema is type "array"; a tool's arguments are one object/)
  await refuses(t, (app) => app.post('/ref', { schema: { body: { oneOf: [{ type: 'object' }, { type: 'object' }] } }, config: { mcp: { name: 'x' } } }, ok),
    /its body schema is type "unspecified"/)
  await refuses(t, (app) => app.post('/ref', { schema: { body: { type: 'object', $ref: '#/x' } }, config: { mcp: { name: 'x' } } }, ok),
    /its body schema is a \$ref or a oneOf\/anyOf\/allOf at its root/)
  await refuses(t, (app) => app.post('/num', { schema: { body: true as never }, config: { mcp: { name: 'x' } } }, ok),
    /its body schema must be a JSON Schema object, got boolean/)
  await refuses(t, (app) => app.post('/upload', { schema: { body: { content: { 'multipart/form-data': { schema: { type: 'object' } } } } }, config: { mcp: { name: 'x' } } }, ok),
    /^route 'POST \/upload': its body schema is per content type \(multipart\/form-data\); an MCP call sends JSON arguments/)
  await refuses(t, (app) => app.post('/upload', { schema: { consumes: ['multipart/form-data'] } as never, config: { mcp: { name: 'x' } } }, ok),
    /it consumes \["multipart\/form-data"\]; an MCP call sends JSON arguments/)
  await refuses(t, (app) => app.get('/h', { schema: { headers: { type: 'object', properties: { 'x-api-key': { type: 'string' } }, required: ['x-api-key'] } }, config: { mcp: { name: 'x' } } }, ok),
    /^route 'GET \/h': its headers schema requires 'x-api-key'; an MCP call carries no headers of its own/)
  await refuses(t, (app) => app.get('/r', { config: { mcp: { name: 'x', rename: { 'body.nope': 'y' } } } }, ok),
    /config.mcp.rename names 'body.nope', which is not a field of the route's params, querystring or body/)
  await refuses(t, (app) => app.get('/r', { config: { mcp: { name: 'x', rename: { a: 1 } as never } } }, ok),
    /'config.mcp.rename' must be an object of strings, got object/)
  await refuses(t, (app) => app.get('/r', { config: { mcp: { name: 'x', header: 'Region' as never } } }, ok),
    /'config.mcp.header' must be an object of strings, got string/)
  await refuses(t, (app) => app.get('/r', { config: { mcp: { name: 'x', header: { region: 'Region' } } } }, ok),
    /config.mcp.header names 'region', which is not an argument of the tool \(its arguments: none\)/)
  await refuses(t, (app) => app.get('/r/:id', { config: { mcp: { name: 'x', header: { region: 'Region' } } } }, ok),
    /\(its arguments: id\)/)
  await refuses(t, (app) => app.get('/r', { config: { mcp: 'yes' as never } }, ok),
    /^route 'GET \/r': config.mcp must be true or an object such as \{ name: 'get_user' \}, got string$/)
  await refuses(t, (app) => app.route({ method: ['GET', 'POST'], url: '/r', config: { mcp: { name: 'x' } }, handler: ok }),
    /^route 'GET,POST \/r': a route with several methods cannot be one tool/)
  await refuses(t, (app) => app.get('/r', { config: { mcp: { visibility: ['app'] } as never } }, ok),
    /unknown option 'config.mcp.visibility'; known options are name, title/)
  await refuses(t, (app) => app.get('/r', { config: { mcp: true } }, ok),
    /^route 'GET \/r': it has no tool name: give config: \{ mcp: \{ name: 'get_user' \} \}, or a schema.operationId/)
  await refuses(t, (app) => app.get('/r', { schema: { response: { 200: 'yes' as never } }, config: { mcp: { name: 'x' } } }, ok),
    /its 200 response schema must be a JSON Schema object, got string/)
  // the tool's own rules, as registerTool's, with the route named first
  await refuses(t, (app) => app.get('/r', { config: { mcp: { name: 'x', scope: 'users:write' } } }, ok),
    /^route 'GET \/r': tool 'x': scope 'users:write' is not declared; declare it in the plugin's scopes option/, 'SAKE_ERR_INVALID_TOOL')
  await refuses(t, (app) => app.get('/r', { config: { mcp: { name: 'x', annotations: { fast: true } as never } } }, ok),
    /^route 'GET \/r': tool 'x': unknown annotation 'fast'/, 'SAKE_ERR_INVALID_TOOL')
  await refuses(t, (app) => app.get('/r', { config: { mcp: { name: 'x', annotations: 'fast' as never } } }, ok),
    /'annotations' must be an object/, 'SAKE_ERR_INVALID_TOOL')
  await refuses(t, (app) => { app.registerTool({ name: 'x', execute: () => 'tool' }); app.get('/r', { config: { mcp: { name: 'x' } } }, ok) },
    /^route 'GET \/r': a tool named 'x' is already registered/, 'SAKE_ERR_DUPLICATE_TOOL')
  await refuses(t, (app) => app.get('/r', { config: { mcp: { name: 'x', header: { n: 'bad header' } } }, schema: { querystring: { type: 'object', properties: { n: { type: 'string' } } } } }, ok),
    /^route 'GET \/r': tool 'x': /, 'SAKE_ERR_INVALID_HEADER')
})

t.test('a route declared inside a plugin fails the plugin, and ready() with it', async (t) => {
  const app = await build()
  app.register(async (child) => { child.post('/bad', { schema: { body: { type: 'string' } }, config: { mcp: { name: 'bad' } } }, ok) })
  await t.rejects(async () => { await app.ready() }, { code: 'SAKE_ERR_INVALID_ROUTE_TOOL', message: /^route 'POST \/bad': its body schema is type "string"/ })
})

t.test('the plugin sees routes declared after it, and the HEAD route Fastify adds is the same tool', async (t) => {
  const app = Fastify({ logger: false })
  app.get('/before', { config: { mcp: { name: 'before' } } }, ok)
  await app.register(sake, { name: 'test-server', version: '1.0.0', routeOptions: { config: { mcp: { name: 'own' } } } })
  app.get('/after', { config: { mcp: { name: 'after' } } }, ok)
  const listed = await tools(app)
  // documented: Fastify has no list of the routes declared before the plugin to read config.mcp from
  t.same([...listed.keys()], ['after'], "a route declared before the plugin is not seen, nor the plugin's own routes")
  await app.close()
})

t.test('the MCP call itself goes through the route tool with the caller on request.mcpAuth (a verify hook)', async (t) => {
  const app = await build({
    scopes: { 'users:read': 'Read users' },
    auth: { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'], verify: async (token) => ({ subject: token, scopes: ['users:read'] }) }
  })
  let caller: unknown
  app.get('/me', { config: { mcp: { name: 'me', scope: 'users:read' } } }, async (request) => {
    caller = request.mcpAuth
    return { me: (request.mcpAuth as { subject: string }).subject }
  })
  const response = await app.inject(modernCall('me', {}, { authorization: 'Bearer alice' }))
  t.same(response.json().result.structuredContent, { me: 'alice' })
  t.match(caller, { subject: 'alice', scopes: ['users:read'] })
  t.same(app.mcp.scopes(), [{ scope: 'users:read', description: 'Read users', tools: ['me'], resources: [], prompts: [], skills: [] }])
  await app.close()
})

t.test('request.mcp of the route request is claimed by the getter too', async (t) => {
  const app = await build()
  let fromHook: McpRequestInfo | null | undefined
  app.addHook('onRequest', async (request: FastifyRequest) => { if (request.url.startsWith('/who')) fromHook = request.mcp })
  app.get('/who', { config: { mcp: { name: 'who' } } }, async (request) => ({ same: request.mcp === fromHook }))
  t.same((await call(t, app, 'who', {})).structuredContent, { same: true })
  t.equal(fromHook?.name, 'who', "a host hook that runs before the plugin's route hook sees it")
  await app.close()
})
