// The fixtures the official MCP conformance suite (@modelcontextprotocol/conformance) calls by name:
// tools, resources and prompts with the names, contents and timings its scenarios check. They live
// here, apart from the example's demo tools in app.js, so that file stays a readable example.
// `npm run conformance` serves them (scripts/conformance.mjs); expected failures are in conformance/.
import { Type, StringEnum, text, image, audio, resource, toolError, userMessage, MissingCapabilityError } from 'fastify-sake'

// A 1x1 PNG (the suite checks type and MIME type, not the pixels).
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
// A valid, silent WAV: 44-byte header, eight 8 kHz 8-bit mono samples.
const WAV = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=='

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** A user message for sampling. */
const ask = (text) => ({ role: 'user', content: { type: 'text', text } })
/** The text of a sampled message (content is one block or an array of them). */
const textOf = (message) => [message.content].flat().filter((block) => block.type === 'text').map((block) => block.text).join(' ')
/** An elicitation outcome as the fixtures report it. */
const elicited = (label, answer) => `${label}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`

/** The tools. Every one has a description and an input schema: `tools-list` checks all of them. */
export const tools = [
  // the tasks extension scenarios (tasks-*): a cancellable long-running tool, a tool error, a crash
  {
    name: 'slow_compute',
    description: 'Sleeps for `seconds` (cancellable), then reports; runs as a task for a client that takes one',
    task: 'optional',
    args: { seconds: Type.Number({ minimum: 0 }), label: Type.Optional(Type.String()) },
    async execute ({ seconds, label }, ctx) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, seconds * 1000)
        ctx.signal.addEventListener('abort', () => { clearTimeout(timer); resolve() }, { once: true })
      })
      return `Computed ${label ?? 'result'} after ${seconds}s`
    }
  },
  {
    name: 'failing_job',
    description: 'Runs only as a task and ends with a tool error after about a second',
    task: 'required',
    async execute (args, ctx) {
      await sleep(1000)
      return toolError('failing_job failed, as it always does')
    }
  },
  {
    name: 'protocol_error_job',
    description: 'Runs as a task and crashes (a failed task with a JSON-RPC error)',
    task: 'optional',
    async execute () {
      throw new Error('protocol_error_job crashed, as it always does')
    }
  },
  // questions inside a task (tasks-mrtr-input, tasks-dispatch-and-envelope): the task waits in
  // input_required until tasks/update (2026-07-28) or a tasks/result stream (2025) brings the answer
  {
    name: 'confirm_delete',
    description: 'Asks the client to confirm the deletion of `filename`, as a task, then reports',
    task: 'optional',
    args: { filename: Type.String() },
    async execute ({ filename }, ctx) {
      const answer = await ctx.elicit.form('confirm', `Delete ${filename}?`, Type.Object({ confirm: Type.Boolean() }))
      if (answer.action !== 'accept') return `Kept ${filename} (${answer.action})`
      return answer.content.confirm ? `Deleted ${filename}` : `Kept ${filename}`
    }
  },
  {
    name: 'multi_input',
    description: 'Asks two questions at once, as a task, then reports both answers',
    task: 'optional',
    async execute (args, ctx) {
      const schema = Type.Object({ name: Type.Optional(Type.String()), confirm: Type.Optional(Type.Boolean()) })
      const [first, second] = await Promise.all([
        ctx.elicit.form('first', 'First question', schema),
        ctx.elicit.form('second', 'Second question', schema)
      ])
      return `${elicited('first', first)}; ${elicited('second', second)}`
    }
  },
  // multi round-trip before the task (tasks-mrtr-composition): prepare asks in the request, and the
  // task it then starts uses the answer
  {
    name: 'test_tool_with_task',
    description: 'Asks for a name before it starts (in the request), then greets it from a task',
    task: 'required',
    async prepare (args, ctx) {
      const answer = await ctx.elicit.form('user_name', 'What is your name?', Type.Object({ name: Type.String() }))
      return answer.action === 'accept' ? { name: answer.content.name } : toolError(`No name given (${answer.action})`)
    },
    async execute ({ name }) {
      await sleep(100)
      return `Hello, ${name}, from a task!`
    }
  },
  {
    // Named to sort first in tools/list (names sort by code unit: '_' < 'd'): the SEP-2243
    // custom-header scenario tests the FIRST listed tool declaring any x-mcp-header, through its
    // first string-typed one. `add` has only an integer header, so it must not come first.
    name: 'a_region_echo',
    description: 'Echoes the region it was asked for; `region` is mirrored into the Mcp-Param-Region header so a gateway can route on it',
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    args: { region: Type.String({ header: 'Region', description: 'A region name, such as eu-west-1' }) },
    execute: ({ region }) => `region: ${region}`
  },
  {
    name: 'test_simple_text',
    description: 'Returns one text block',
    execute: () => 'This is a simple text response for testing.'
  },
  {
    name: 'test_image_content',
    description: 'Returns a 1x1 PNG image block',
    execute: () => image(PNG, 'image/png')
  },
  {
    name: 'test_audio_content',
    description: 'Returns a short WAV audio block',
    execute: () => audio(WAV, 'audio/wav')
  },
  {
    name: 'test_embedded_resource',
    description: 'Returns an embedded text resource',
    execute: () => resource('test://embedded-resource', 'This is an embedded resource content.', { mimeType: 'text/plain' })
  },
  {
    name: 'test_multiple_content_types',
    description: 'Returns text, an image and an embedded JSON resource',
    execute: () => [
      text('Multiple content types test:'),
      image(PNG, 'image/png'),
      resource('test://mixed-content-resource', JSON.stringify({ test: 'data', value: 123 }), { mimeType: 'application/json' })
    ]
  },
  {
    name: 'test_tool_with_logging',
    description: 'Sends three info log messages about 50 ms apart while it runs (2025 sessions after logging/setLevel)',
    stream: true,
    async execute (_args, ctx) {
      ctx.notify('info', 'Tool execution started')
      await sleep(50)
      ctx.notify('info', 'Tool processing data')
      await sleep(50)
      ctx.notify('info', 'Tool execution completed')
      return 'Logging test completed'
    }
  },
  {
    name: 'test_logging_tool',
    description: 'Logs through ctx.notify; a 2026-07-28 call without a log level in _meta must get no notifications/message',
    async execute (_args, ctx) {
      ctx.notify('info', 'test_logging_tool ran')
      return 'Logged one info message (sent only to clients that asked for a log level)'
    }
  },
  {
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100, about 50 ms apart',
    stream: true,
    async execute (_args, ctx) {
      ctx.progress(0, 100)
      await sleep(50)
      ctx.progress(50, 100)
      await sleep(50)
      ctx.progress(100, 100)
      return 'Progress test completed'
    }
  },
  {
    name: 'test_error_handling',
    description: 'Always fails as a tool (isError: true), never as a protocol error',
    execute: () => toolError('This tool intentionally returns an error for testing')
  },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    // exactly what the suite (0.2.0-alpha.12) lists: $anchor in $defs, allOf/anyOf, if/then/else
    input: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } }
        }
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' }
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false
    },
    execute: (args) => `Received: ${JSON.stringify(args)}`
  },
  {
    name: 'test_reconnection',
    description: 'Closes its event stream before answering (SSE polling), so the client resumes with Last-Event-ID',
    stream: true,
    async execute (_args, ctx) {
      // ends this response's stream now (after a retry hint); the result is delivered on the
      // client's GET with Last-Event-ID, from the event store
      ctx.closeStream(100)
      await sleep(200)
      return 'Reconnection test completed'
    }
  },
  {
    name: 'test_trigger_tool_change',
    description: 'Announces that the tool list changed (subscriptions/listen)',
    async execute (_args, ctx) {
      await ctx.request.server.mcp.listChanged('tools')
      return 'tools/list_changed sent'
    }
  },
  {
    name: 'test_trigger_prompt_change',
    description: 'Announces that the prompt list changed (subscriptions/listen)',
    async execute (_args, ctx) {
      await ctx.request.server.mcp.listChanged('prompts')
      return 'prompts/list_changed sent'
    }
  },
  {
    name: 'test_missing_capability',
    description: 'Needs the client\'s sampling capability: without it the call is refused with -32021 (2026-07-28)',
    async execute (args, ctx) {
      const answer = await ctx.sample('summary', { messages: [ask('Say hello in one word.')], maxTokens: 20 })
      if (answer.action === 'unsupported') throw new MissingCapabilityError({ sampling: {} })
      return `The client's model said: ${textOf(answer.message)}`
    }
  },
  {
    name: 'test_streaming_elicitation',
    description: 'Asks the user for input mid-call: an InputRequiredResult in 2026-07-28, elicitation/create on the stream in a 2025 session',
    async execute (args, ctx) {
      const answer = await ctx.elicit.form('confirm', 'Continue?', Type.Object({ ok: Type.Boolean() }))
      return `Elicitation: action=${answer.action}`
    }
  },
  {
    name: 'test_sampling',
    description: 'Asks the client\'s model to answer a prompt (sampling/createMessage)',
    args: { prompt: Type.Optional(Type.String({ description: 'The prompt to send' })) },
    async execute ({ prompt = 'Say hello' }, ctx) {
      const answer = await ctx.sample('llm', { messages: [ask(prompt)], maxTokens: 100 })
      if (answer.action === 'unsupported') throw new MissingCapabilityError({ sampling: {} })
      return `LLM response: ${textOf(answer.message)}`
    }
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user for a username and an email (elicitation/create)',
    args: { message: Type.Optional(Type.String({ description: 'The message shown to the user' })) },
    async execute ({ message = 'Please provide your information' }, ctx) {
      const answer = await ctx.elicit.form('user', message, Type.Object({
        username: Type.String({ description: 'User\'s response' }),
        email: Type.String({ description: 'User\'s email address' })
      }))
      return elicited('User response', answer)
    }
  },
  {
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicitation with default values on every primitive type (SEP-1034)',
    async execute (args, ctx) {
      const answer = await ctx.elicit.form('defaults', 'Please review your details', Type.Object({
        name: Type.String({ default: 'John Doe' }),
        age: Type.Integer({ default: 30 }),
        score: Type.Number({ default: 95.5 }),
        status: StringEnum(['active', 'inactive', 'pending'], { default: 'active' }),
        verified: Type.Boolean({ default: true })
      }))
      return elicited('Elicitation completed', answer)
    }
  },
  {
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicitation with every enum variant (SEP-1330)',
    async execute (args, ctx) {
      const titled = (title) => ['value1', 'value2', 'value3'].map((value, i) => ({ const: value, title: `${['First', 'Second', 'Third'][i]} ${title}` }))
      const answer = await ctx.elicit.form('enums', 'Pick your options', {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', oneOf: titled('Option') },
          legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
          untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: { type: 'array', items: { anyOf: titled('Choice') } }
        }
      })
      return elicited('Elicitation completed', answer)
    }
  },
  // Multi round-trip requests (SEP-2322): in 2026-07-28 each unanswered question ends the round
  // with input_required; in a 2025 session the same code asks on the call's stream
  {
    name: 'test_input_required_result_elicitation',
    description: 'Asks for a name, then greets',
    async execute (args, ctx) {
      const answer = await ctx.elicit.form('user_name', 'What is your name?', Type.Object({ name: Type.String() }))
      return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `No name given (${answer.action})`
    }
  },
  {
    name: 'test_input_required_result_sampling',
    description: 'Asks the client\'s model a question',
    async execute (args, ctx) {
      const answer = await ctx.sample('capital_question', { messages: [ask('What is the capital of France?')], maxTokens: 100 })
      return answer.action === 'accept' ? `The model says: ${textOf(answer.message)}` : 'No sampling available'
    }
  },
  {
    name: 'test_input_required_result_list_roots',
    description: 'Asks the client for its roots',
    async execute (args, ctx) {
      const answer = await ctx.roots('client_roots')
      return answer.action === 'accept' ? `Roots: ${answer.roots.map((root) => root.uri).join(', ')}` : 'No roots available'
    }
  },
  {
    name: 'test_input_required_result_request_state',
    description: 'Asks for a confirmation; its answer comes back through requestState',
    async execute (args, ctx) {
      const answer = await ctx.elicit.form('confirm', 'Please confirm', Type.Object({ ok: Type.Boolean() }))
      return answer.action === 'accept' && answer.content.ok ? 'state-ok' : `not confirmed (${answer.action})`
    }
  },
  {
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks three questions at once (elicitation, sampling, roots)',
    async execute (args, ctx) {
      const [user, greeting, roots] = await Promise.all([
        ctx.elicit.form('user_name', 'What is your name?', Type.Object({ name: Type.String() })),
        ctx.sample('greeting', { messages: [ask('Write a one-line greeting.')], maxTokens: 50 }),
        ctx.roots('client_roots')
      ])
      return `user=${user.action} greeting=${greeting.action} roots=${roots.action}`
    }
  },
  {
    name: 'test_input_required_result_multi_round',
    description: 'Asks two questions, one round each',
    async execute (args, ctx) {
      const step1 = await ctx.elicit.form('step1', 'Step 1: What is your name?', Type.Object({ name: Type.String() }))
      const step2 = await ctx.elicit.form('step2', 'Step 2: What is your favorite color?', Type.Object({ color: Type.String() }))
      return `step1=${step1.action} step2=${step2.action}`
    }
  },
  {
    name: 'test_input_required_result_tampered_state',
    description: 'Asks for a confirmation; a retry with an altered requestState is refused',
    async execute (args, ctx) {
      const answer = await ctx.elicit.form('confirm', 'Please confirm', Type.Object({ ok: Type.Boolean() }))
      return `confirmed: ${answer.action}`
    }
  },
  {
    name: 'test_input_required_result_capabilities',
    description: 'Asks only what the client declared: a form when it elicits, its model otherwise',
    async execute (args, ctx) {
      const form = await ctx.elicit.form('user_input', 'What should I do?', Type.Object({ task: Type.String() }))
      if (form.action !== 'unsupported') return `form: ${form.action}`
      const sampled = await ctx.sample('fallback', { messages: [ask('What should I do?')], maxTokens: 50 })
      return `sampling: ${sampled.action}`
    }
  }
]

/** Resources: three fixed ones and a template. */
export const resources = [
  {
    uri: 'test://static-text',
    name: 'static-text',
    description: 'A fixed text resource',
    mimeType: 'text/plain',
    read: () => 'This is the content of the static text resource.'
  },
  {
    uri: 'test://static-binary',
    name: 'static-binary',
    description: 'A fixed binary resource (a PNG image)',
    mimeType: 'image/png',
    read: () => Buffer.from(PNG, 'base64')
  },
  {
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'A resource clients may subscribe to (2025 sessions)',
    mimeType: 'text/plain',
    read: () => 'Watched resource content'
  },
  {
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    description: 'Data for any id',
    mimeType: 'application/json',
    read: (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` })
  }
]

/** Prompts; `test_prompt_with_arguments` also answers completion/complete for its arguments. */
export const prompts = [
  {
    name: 'test_simple_prompt',
    description: 'A prompt without arguments',
    get: () => 'This is a simple prompt for testing.'
  },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    args: {
      arg1: Type.String({ description: 'First test argument' }),
      arg2: Type.String({ description: 'Second test argument' })
    },
    get: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    complete: (_arg, partial) => ['testValue1', 'testValue2', 'test'].filter((v) => v.startsWith(partial))
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource',
    args: { resourceUri: Type.String({ description: 'The URI of the resource to embed' }) },
    get: ({ resourceUri }) => [
      userMessage(resource(resourceUri, 'Embedded resource content for testing.', { mimeType: 'text/plain' })),
      userMessage(text('Please process the embedded resource above.'))
    ]
  },
  {
    name: 'test_prompt_with_image',
    description: 'A prompt with an image',
    get: () => [
      userMessage(image(PNG, 'image/png')),
      userMessage(text('Please analyze the image above.'))
    ]
  },
  {
    name: 'test_input_required_result_prompt',
    description: 'Asks what context the prompt should use (input_required on prompts/get)',
    async get (args, ctx) {
      const answer = await ctx.elicit.form('user_context', 'What context should the prompt use?', Type.Object({ context: Type.String() }))
      return answer.action === 'accept' ? `Use this context: ${answer.content.context}` : 'Use no particular context.'
    }
  }
]

/** Registers every fixture on an app that has fastify-sake registered. */
export function registerConformance (app) {
  app.registerTool(tools)
  app.registerResource(resources)
  app.registerPrompt(prompts)
}
