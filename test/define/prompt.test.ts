// Prompt definitions at registration: every rule refused with SAKE_ERR_INVALID_PROMPT and a message
// naming the prompt, duplicates, registering after ready, the `prompts` option, app.mcp.prompts,
// and the message helpers.
import t from 'tap'
import { Type, StringEnum, definePrompt, userMessage, assistantMessage, image, SakePromptDefinitionError, SakeDuplicatePromptError, SakeRegisterAfterReadyError } from '../../lib/index.js'
import { compilePrompt, shapePrompt } from '../../lib/define/prompt.js'
import { build } from '../helpers/app.js'
import { createClient } from '../../lib/client/index.js'
import Type1 from 'typebox'
import * as z from 'zod'
import * as v from 'valibot'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'

const get = (): string => 'x'

t.test('invalid definitions: SAKE_ERR_INVALID_PROMPT naming the prompt and the rule', async (t) => {
  const cases: Array<[unknown, string]> = [
    [undefined, 'a prompt definition must be an object, got undefined'],
    [{ get }, "prompt definition: 'name' is required: 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.'"],
    [{ name: 5, get }, 'prompt definition: name 5 is not allowed'],
    [{ name: 'has space', get }, "prompt 'has space': name \"has space\" is not allowed"],
    [{ name: 'x'.repeat(129), get }, `prompt '${'x'.repeat(129)}': name`],
    [{ name: 'p', get, argz: {} }, "prompt 'p': unknown option 'argz' (did you mean 'args'?); known options are name, title, description, icons, meta, ttl, args, get, complete, scope"],
    [{ name: 'p', get, title: 5 }, "prompt 'p': 'title' must be a string, got number"],
    [{ name: 'p', get, description: {} }, "prompt 'p': 'description' must be a string, got object"],
    [{ name: 'p', get, ttl: 1.5 }, "prompt 'p': 'ttl' must be a non-negative integer (milliseconds), got 1.5"],
    [{ name: 'p', get, ttl: () => 1 }, "prompt 'p': 'ttl' must be a non-negative integer (milliseconds), got function"],
    [{ name: 'p', get, ttl: null }, "prompt 'p': 'ttl' must be a non-negative integer (milliseconds), got null"],
    [{ name: 'p', get, meta: 'x' }, "prompt 'p': 'meta' must be an object (sent as the prompt's _meta), got string"],
    [{ name: 'p', get, icons: 'x' }, "prompt 'p': 'icons' must be an array of { src, mimeType?, sizes?, theme? }: it is not an array"],
    [{ name: 'p' }, "prompt 'p': 'get' must be a function (args, ctx) => messages, got undefined"],
    [{ name: 'p', get, complete: [] }, "prompt 'p': 'complete' must be a function (argument, partial, ctx) => values, got an array"],
    [{ name: 'p', get, args: Type.Object({ a: Type.String() }) }, "prompt 'p': 'args' must be a map of argument names to string schemas"],
    [{ name: 'p', get, args: [] }, "prompt 'p': 'args' must be a map of argument names to string schemas"],
    [{ name: 'p', get, args: { n: Type.Number() } }, "prompt 'p': argument 'n' must be a string schema (Type.String(), StringEnum([...]), z.string(), or an optional one): prompt arguments are strings, got type \"number\""],
    [{ name: 'p', get, args: { n: Type.Union([Type.String(), Type.Null()]) } }, "prompt 'p': argument 'n' must be a string schema (Type.String(), StringEnum([...]), z.string(), or an optional one): prompt arguments are strings, got type \"unspecified\""],
    [{ name: 'p', get, args: { n: { type: 'string' } } }, "prompt 'p': argument 'n' must be a string schema (Type.String(), StringEnum([...]), z.string(), or an optional one): prompt arguments are strings, got a plain object"],
    [{ name: 'p', get, args: { n: Type.String({ pattern: '(' }) } }, "prompt 'p': its arguments do not compile"],
    [{ name: 'p', get, args: { n: Type.String({ format: 'dat-time' }) } }, "prompt 'p': its arguments do not compile"],
    [{ name: 'p', get, args: { n: Type.String({ default: 1n as any }) } }, "prompt 'p': argument 'n' cannot be sent as JSON"],
    [{ name: 'p', get, meta: { n: 1n } }, "prompt 'p': its definition cannot be sent as JSON"]
  ]
  for (const [def, message] of cases) {
    const err = t.throws(() => compilePrompt(def as any), SakePromptDefinitionError) as SakePromptDefinitionError
    t.equal(err.code, 'SAKE_ERR_INVALID_PROMPT')
    t.ok(err.message.startsWith(message), `${err.message}\n  starts with ${message}`)
  }
})

t.test('a compiled prompt', async (t) => {
  const prompt = compilePrompt({ name: 'p', args: { a: Type.String(), b: Type.Optional(StringEnum(['x', 'y'])) }, get, title: undefined })
  t.same(prompt.arguments, ['a', 'b'])
  t.same(prompt.required, ['a'])
  t.same(prompt.wire.modern, { name: 'p', arguments: [{ name: 'a', required: true }, { name: 'b', required: false }] })
  t.ok(Object.isFrozen(prompt.wire.modern.arguments))
  t.ok(prompt.validate({ a: 'x', b: 'y' }))
  t.notOk(prompt.validate({ a: 'x', b: 'z' }))
})

t.test('userMessage and assistantMessage', async (t) => {
  t.same(userMessage('hi'), { role: 'user', content: { type: 'text', text: 'hi' } })
  t.same(assistantMessage('ok'), { role: 'assistant', content: { type: 'text', text: 'ok' } })
  t.same(userMessage(image('AAAA', 'image/png')), { role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } })
  t.same(shapePrompt([assistantMessage('a')], undefined), { messages: [{ role: 'assistant', content: { type: 'text', text: 'a' } }] })
  t.same(shapePrompt({ messages: [] }, 'd'), { description: 'd', messages: [] })
  t.throws(() => shapePrompt(null, undefined), { message: 'get() returned null; it returns a string, an array of messages, or { description?, messages }' })
  t.throws(() => shapePrompt({ messages: 'x' }, undefined), { message: /^get\(\) returned object/ })
})

t.test('registerPrompt: one or an array, duplicates refused, closed once ready', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerPrompt({ name: 'one', get })
  app.registerPrompt([definePrompt({ name: 'two', get }), definePrompt({ name: 'three', args: { a: Type.String() }, get: ({ a }) => a })])
  const dup = t.throws(() => app.registerPrompt({ name: 'one', get }), SakeDuplicatePromptError) as SakeDuplicatePromptError
  t.equal(dup.code, 'SAKE_ERR_DUPLICATE_PROMPT')
  t.equal(dup.message, "a prompt named 'one' is already registered on this MCP server; prompt names must be unique")
  app.registerPrompt({ name: 'One', get })
  t.same([...app.mcp.prompts.keys()], ['one', 'two', 'three', 'One'], 'names are case-sensitive')
  t.same(app.mcp.prompts.get('three'), { name: 'three', arguments: [{ name: 'a', required: true }] })
  await app.ready()
  const late = t.throws(() => app.registerPrompt({ name: 'late', get }), SakeRegisterAfterReadyError) as SakeRegisterAfterReadyError
  t.match(late.message, /^cannot register prompt 'late' after the server is ready/)
  t.throws(() => app.registerPrompt(undefined as any), { message: /^cannot register prompt 'undefined'/ })
})

t.test('the prompts option', async (t) => {
  const review = definePrompt({ name: 'review', args: { code: Type.String() }, get: ({ code }) => code })
  const app = await build({ prompts: [review] })
  t.teardown(() => app.close())
  t.ok(app.mcp.prompts.has('review'))
  await t.rejects(build({ prompts: {} as any }), { code: 'SAKE_ERR_INVALID_OPTION', message: "fastify-sake: option 'prompts' must be an array of prompt definitions, got {} (object)" })
  await t.rejects(build({ prompts: [{ name: 'bad name', get } as any] }), { code: 'SAKE_ERR_INVALID_PROMPT' })
})

t.test('config: kept on the compiled prompt and never sent', async (t) => {
  t.throws(() => compilePrompt({ name: 'c', get: () => 'x', config: [] as never }), { message: "prompt 'c': 'config' must be an object (your settings, read by hooks on request.mcp.config), got an array" })
  const prompt = compilePrompt({ name: 'c', get: () => 'x', config: { tier: 'free' } })
  t.same(prompt.config, { tier: 'free' })
  t.notOk('config' in prompt.wire.modern)
})

t.test('arguments of every library (issue 41): TypeBox 1.x, Zod, Valibot, ArkType string schemas; each library checks its own', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  app.registerPrompt({ name: 'tb1', args: { code: Type1.String({ description: 'The code' }), lang: Type1.Optional(Type1.String()) }, get: ({ code, lang }) => `${code}/${lang ?? '-'}` })
  app.registerPrompt({ name: 'zod', args: { code: z.string().min(2, 'two letters at least').describe('The code'), lang: z.string().optional() }, get: ({ code, lang }) => `${code}/${lang ?? '-'}` })
  app.registerPrompt({ name: 'valibot', args: { code: toStandardJsonSchema(v.string()), lang: toStandardJsonSchema(v.optional(v.string())) }, get: ({ code, lang }) => `${code}/${lang ?? '-'}` })
  app.registerPrompt({ name: 'ark', args: { code: type('string'), lang: type('string') }, get: ({ code, lang }) => `${code}/${lang}` })
  app.registerPrompt({ name: 'shout', args: { word: z.string().transform((s) => s.toUpperCase()) }, get: ({ word }) => String(word) })
  t.same(app.mcp.prompts.get('zod'), { name: 'zod', arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'lang', required: false }] })
  t.same(app.mcp.prompts.get('tb1'), { name: 'tb1', arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'lang', required: false }] })
  t.same(app.mcp.prompts.get('valibot'), { name: 'valibot', arguments: [{ name: 'code', required: true }, { name: 'lang', required: false }] })
  for (const era of ['modern', 'legacy'] as const) {
    const client = createClient({ app, era })
    for (const name of ['tb1', 'zod', 'valibot']) {
      t.match(await client.getPrompt(name, { code: 'ab' }), { messages: [{ content: { text: 'ab/-' } }] }, `${era} ${name}`)
    }
    t.match(await client.getPrompt('ark', { code: 'ab', lang: 'ts' }), { messages: [{ content: { text: 'ab/ts' } }] })
    t.match(await client.getPrompt('shout', { word: 'hi' }), { messages: [{ content: { text: 'HI' } }] }, 'a transform is what get receives')
    await t.rejects(client.getPrompt('zod', { code: 'a' }), { code: -32602, message: "Invalid params: invalid arguments for prompt 'zod': argument 'code': two letters at least" }, `${era}: the library's rule refuses`)
    await client.close()
  }
  t.throws(() => compilePrompt({ name: 'p', get, args: { n: z.number() } as never }), { message: "prompt 'p': argument 'n' must be a string schema (Type.String(), StringEnum([...]), z.string(), or an optional one): prompt arguments are strings, got type \"number\"" })
  t.throws(() => compilePrompt({ name: 'p', get, args: { n: 'text' } as never }), { message: /prompt arguments are strings, got string$/ })
  t.throws(() => compilePrompt({ name: 'p', get, args: { n: v.string() } as never }), { message: /^prompt 'p': argument 'n' is a Standard Schema \(valibot\) that does not export JSON Schema/ })
})
