// Routes as tools with Fastify's type providers (issue 41): a route declared with
// fastify-type-provider-zod (Zod schemas, its validator and serializer compilers) or
// @fastify/type-provider-typebox 6 (TypeBox 1.x) becomes a tool whose input and output are its
// schemas' JSON Schema; the route's own validation still runs on the call, and a schema that cannot
// be exported is refused naming the route.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type1 from 'typebox'
import * as z from 'zod'
import { build } from '../../helpers/app.js'
import { createClient } from '../../../lib/client/index.js'

async function listed (app: FastifyInstance, name: string): Promise<Record<string, any>> {
  await app.ready()
  return app.mcp.tools.get(name) as Record<string, any>
}

t.test('fastify-type-provider-zod: params, querystring, body and response in Zod', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  app.withTypeProvider<ZodTypeProvider>().post('/orders/:shop', {
    schema: {
      operationId: 'place_order',
      params: z.object({ shop: z.string() }),
      querystring: z.object({ dry: z.enum(['yes', 'no']).optional() }),
      body: z.object({ item: z.string().min(2), qty: z.number().int().positive() }),
      response: { 201: z.object({ id: z.string(), qty: z.number() }) }
    },
    config: { mcp: true }
  }, async (request, reply) => {
    const { shop } = request.params
    const { item, qty } = request.body
    return await reply.code(201).send({ id: `${shop}-${item}`, qty })
  })
  const tool = await listed(app, 'place_order')
  t.same(tool.inputSchema, {
    type: 'object',
    properties: { shop: { type: 'string' }, dry: { type: 'string', enum: ['yes', 'no'] }, item: { type: 'string', minLength: 2 }, qty: { type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 } },
    additionalProperties: false,
    required: ['shop', 'item', 'qty']
  }, "the tool's input: the parts' properties, from Zod's export")
  t.same(tool.outputSchema.properties, { id: { type: 'string' }, qty: { type: 'number' } }, 'its output: the 201 schema')
  for (const era of ['modern', 'legacy'] as const) {
    const client = createClient({ app, era })
    t.same((await client.callTool('place_order', { shop: 'north', item: 'tea', qty: 2 })).structuredContent, { id: 'north-tea', qty: 2 }, era)
    const bad = await client.callTool('place_order', { shop: 'north', item: 'tea', qty: -1 })
    t.equal(bad.isError, true, `${era}: a bad argument is refused`)
    await client.close()
  }
})

t.test('@fastify/type-provider-typebox 6: TypeBox 1.x route schemas', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.withTypeProvider<TypeBoxTypeProvider>().get('/users/:id', {
    schema: {
      operationId: 'get_user',
      params: Type1.Object({ id: Type1.Integer() }),
      querystring: Type1.Object({ fields: Type1.Optional(Type1.String()) }),
      response: { 200: Type1.Object({ id: Type1.Integer(), name: Type1.String() }) }
    },
    config: { mcp: true }
  }, async (request) => ({ id: request.params.id, name: `user ${request.params.id}` }))
  const tool = await listed(app, 'get_user')
  t.same(tool.inputSchema.properties, { id: { type: 'integer' }, fields: { type: 'string' } })
  t.same(tool.inputSchema.required, ['id'])
  t.same(tool.outputSchema.properties, { id: { type: 'integer' }, name: { type: 'string' } })
  const client = createClient({ app, era: 'modern' })
  t.teardown(() => client.close())
  t.same((await client.callTool('get_user', { id: 7 })).structuredContent, { id: 7, name: 'user 7' })
  t.equal((await client.callTool('get_user', { id: 'seven' })).isError, true)
})

t.test('a route schema that cannot be exported is refused, naming the route', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  t.throws(() => app.withTypeProvider<ZodTypeProvider>().post('/when', {
    schema: { body: z.object({ at: z.date() }) },
    config: { mcp: { name: 'when' } }
  }, async () => 'ok'), { code: 'SAKE_ERR_INVALID_ROUTE_TOOL', message: /^route 'POST \/when': its body schema cannot be exported as JSON Schema \(its input\): Date cannot be represented/ })
  t.throws(() => app.withTypeProvider<ZodTypeProvider>().get('/then', {
    schema: { response: { 200: z.object({ at: z.string().transform((s) => new Date(s)) }) } },
    config: { mcp: { name: 'then' } }
  }, async () => ({ at: new Date() })), { message: /^route 'GET \/then': its 200 response schema cannot be exported as JSON Schema \(its output\)/ })
  t.throws(() => app.post('/json', {
    schema: { body: { content: { 'application/json': { schema: z.object({ at: z.date() }) } } } },
    config: { mcp: { name: 'json' } }
  }, async () => 'ok'), { message: /^route 'POST \/json': its body schema cannot be exported/ })
  t.throws(() => app.get('/json-out', {
    schema: { response: { 200: { content: { 'application/json': { schema: z.object({ at: z.date() }) } } } } },
    config: { mcp: { name: 'json_out' } }
  }, async () => 'ok'), { message: /^route 'GET \/json-out': its 200 response schema cannot be exported/ })
})
