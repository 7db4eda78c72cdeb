/**
 * Asking the client mid-call: `ctx.elicit.form/url`, `ctx.sample`, `ctx.roots`, the same handler
 * code in both eras. This file builds each question, checks the client declared what it needs, and
 * checks its answer; an `Asker` carries the question:
 *
 * - `RoundTrip` (2026-07-28, Multi Round-Trip Requests, `round-trip.ts`): an answered key returns
 *   its answer at once; an unanswered one is noted and ends the handler (a thrown signal), and the
 *   method answers `input_required` with every question noted and the answers so far sealed in
 *   `requestState`. The client retries; the handler runs again from the top.
 * - `StreamAsker` (2025 sessions, `stream-asker.ts`): a JSON-RPC request on the call's event
 *   stream, awaited until the client POSTs its response (bounded by a timeout and by `ctx.signal`).
 */
import { randomUUID } from 'node:crypto'
import { Kind } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { ProtocolError, type ClientInputError } from '../../errors.js'
import { INTERNAL_ERROR } from '../../spec/jsonrpc.js'
import { describe, isObject } from '../../values.js'
import { explain } from '../../define/messages.js'
import { checkStandard, jsonSchemaOf, schemaKind, standardOf, type StandardProps } from '../../define/schemas.js'
import type {
  Elicit, FormContent, FormOptions, FormOutcome, InputContext, RootsOutcome, SampleOutcome, SamplingParams, Unsupported, UrlOutcome
} from '../../define/input.js'
import type { Call } from '../call.js'
import { Unanswered, handled, type Asker, type InputRequest } from './asker.js'
import type { FormValidators } from './form-validators.js'

const UNSUPPORTED = Object.freeze({ action: 'unsupported' as const })
const KEY = /^[A-Za-z0-9_.:/-]{1,128}$/

/** What the client declared, in either era (2026: per request in `_meta`; 2025: at initialize). */
function capability (call: Call, name: string): Record<string, unknown> | undefined {
  const value = call.client.capabilities[name]
  return isObject(value) ? value : undefined
}

/** Form elicitation: 2025-06-18 on; `elicitation: {}` means form (2025-11-25 kept it so). */
function supportsForm (call: Call): boolean {
  if (!call.rules.elicitation) return false
  const elicitation = capability(call, 'elicitation')
  if (elicitation === undefined) return false
  return elicitation.form !== undefined || elicitation.url === undefined
}

/** URL elicitation: 2025-11-25 sessions and the 2026-07-28 revision, declared as `elicitation.url`. */
function supportsUrl (call: Call): boolean {
  if (!call.rules.urlElicitation) return false
  return isObject(capability(call, 'elicitation')?.url)
}

/** Whether elicitation/create carries `mode` (2025-11-25 and later; 2025-06-18 has no such field). */
function hasMode (call: Call): boolean {
  // the field came with URL mode, to tell the two apart
  return call.rules.urlElicitation
}

function checkKey (key: unknown): asserts key is string {
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new TypeError(`fastify-sake: an input key must be 1 to 128 characters of A-Z a-z 0-9 _ . : / -, got ${JSON.stringify(key)}`)
  }
}

interface Form {
  readonly schema: Record<string, unknown>
  readonly text: string
  /** A Standard Schema's library, which checks the answer after ajv (and may transform it). */
  readonly standard: StandardProps | undefined
}

/** The forms of Standard Schemas, exported once per schema object (a handler's module-level schema). */
const exportedForms = new WeakMap<object, Form>()

/**
 * The form schema as plain JSON (TypeBox's symbol keys dropped; a Standard Schema's JSON Schema
 * export), checked to be an object schema.
 */
function formSchema (schema: unknown): Form {
  if (schemaKind(schema) === 'standard') {
    let form = exportedForms.get(schema as object)
    if (form === undefined) {
      const fail = (message: string): never => { throw new TypeError(`fastify-sake: ctx.elicit.form's schema ${message}`) }
      const plain = jsonSchemaOf(schema, 'input', fail)
      form = { schema: checkedForm(plain), text: JSON.stringify(plain), standard: standardOf(schema, fail) }
      exportedForms.set(schema as object, form)
    }
    return form
  }
  if (!isObject(schema)) throw new TypeError(`fastify-sake: ctx.elicit.form needs an object schema, got ${describe(schema)}`)
  const text = JSON.stringify(schema)
  const plain = Kind in schema ? JSON.parse(text) as Record<string, unknown> : schema
  return { schema: checkedForm(plain), text, standard: undefined }
}

function checkedForm (plain: Record<string, unknown>): Record<string, unknown> {
  if (plain.type !== 'object' || !isObject(plain.properties)) {
    throw new TypeError('fastify-sake: ctx.elicit.form needs an object schema with properties (type: "object"), e.g. Type.Object({ name: Type.String() })')
  }
  return plain
}

/** A handler's own completions, for a form that offers them (`call-context.ts` makes it). */
export interface Offers {
  /** The target, for messages: `tool 'deploy'`. */
  readonly what: string
  /** The names its `complete` completes (none without a callback). */
  readonly names: readonly string[]
  /** The whole list of values for `name`, or undefined (a partial list, none, or a failed callback). */
  values (name: string): Promise<string[] | undefined>
}

/**
 * The properties of `options.complete`, checked against the form and the handler: each a string
 * property of the form without listed values, and an argument the handler's `complete` completes.
 */
function offered (key: string, schema: Record<string, unknown>, options: FormOptions | undefined, offers: () => Offers | undefined): { names: readonly string[], offers: Offers } | undefined {
  if (options === undefined) return undefined
  if (!isObject(options)) throw new TypeError(`fastify-sake: ctx.elicit.form('${key}')'s options must be an object such as { complete: ['name'] }, got ${describe(options)}`)
  const names = options.complete
  if (names === undefined) return undefined
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
    throw new TypeError(`fastify-sake: ctx.elicit.form('${key}')'s 'complete' must be an array of the form's property names, got ${describe(names)}`)
  }
  const handler = offers()!
  const properties = schema.properties as Record<string, unknown>
  for (const name of names) {
    const property = properties[name]
    if (!isObject(property) || property.type !== 'string' || property.enum !== undefined || property.oneOf !== undefined || property.const !== undefined) {
      throw new TypeError(`fastify-sake: ctx.elicit.form('${key}'): '${name}' in 'complete' must be a string property of the form without listed values`)
    }
    if (!handler.names.includes(name)) {
      throw new TypeError(`fastify-sake: ctx.elicit.form('${key}'): ${handler.what} has no complete() for '${name}'${handler.names.length > 0 ? `; it completes ${handler.names.join(', ')}` : ''}`)
    }
  }
  return { names, offers: handler }
}

/**
 * The form with each offered property a choice among its values (`enum`), where `complete` gave
 * the whole list. The property keeps its title, description and a default among the values; the
 * rest of a string's keywords (length, pattern, format) the list makes moot.
 */
async function withChoices (schema: Record<string, unknown>, names: readonly string[], offers: Offers): Promise<Record<string, unknown>> {
  const lists = await Promise.all(names.map(async (name) => await offers.values(name)))
  const properties = { ...schema.properties as Record<string, Record<string, unknown>> }
  names.forEach((name, i) => {
    const values = lists[i]
    if (values === undefined) return
    const { title, description, default: fallback } = properties[name]!
    const choice: Record<string, unknown> = { type: 'string', enum: values }
    if (title !== undefined) choice.title = title
    if (description !== undefined) choice.description = description
    if (values.includes(fallback as string)) choice.default = fallback
    properties[name] = choice
  })
  return { ...schema, properties }
}

/** The questions of one handler run: what `ctx.elicit`, `ctx.sample` and `ctx.roots` do. */
export class ClientInput implements InputContext {
  readonly elicit: Elicit

  /** `offers`: the handler's own completions, looked up only for a form that offers them. */
  constructor (private readonly call: Call, private readonly asker: Asker | undefined, private readonly validators: FormValidators, private readonly offers: () => Offers | undefined) {
    this.elicit = {
      form: (key, message, schema, options) => this.question(() => this.form(key, message, schema, options)),
      url: (key, message, url) => this.question(() => this.url(key, message, url))
    }
  }

  sample (key: string, params: SamplingParams): Promise<SampleOutcome> {
    return this.question(() => this.sampleOnce(key, params))
  }

  roots (key: string): Promise<RootsOutcome> {
    return this.question(() => this.rootsOnce(key))
  }

  /**
   * Runs a question's checks and asks it. Not async on purpose: the promise handed out is the one
   * marked handled (or an `Unanswered`), not a wrapper around it.
   */
  private question<T> (ask: () => Promise<T> | T): Promise<T> {
    let outcome: Promise<T> | T
    try {
      outcome = ask()
    } catch (err) {
      return handled(Promise.reject(err))
    }
    if (outcome instanceof Unanswered) return outcome as unknown as Promise<T>
    return handled(Promise.resolve(outcome))
  }

  /** Asks, then reads the answer with `read`; `unsupported` when there is nothing to ask on. */
  private ask<T> (key: string, request: InputRequest, read: (answer: unknown) => T | Promise<T>): Promise<T | Unsupported> {
    const answer = this.asker!.ask(key, request)
    if (answer instanceof Unanswered) return answer as unknown as Promise<T>
    return answer.then((value) => value === undefined ? UNSUPPORTED : read(value))
  }

  private form<S> (key: string, message: string, schema: S, options: FormOptions | undefined): Promise<FormOutcome<FormContent<S>>> | Unsupported {
    checkKey(key)
    if (typeof message !== 'string') throw new TypeError(`fastify-sake: ctx.elicit.form('${key}') needs a message string`)
    const { schema: requestedSchema, text, standard } = formSchema(schema)
    const offer = offered(key, requestedSchema, options, this.offers)
    const validate = this.validators.get(requestedSchema, text)
    if (this.asker === undefined || !supportsForm(this.call)) return UNSUPPORTED
    if (offer === undefined || offer.names.length === 0) return this.askForm(key, message, requestedSchema, validate, standard)
    // the values are asked for only now, when the form will be sent; the question goes once they are in
    return withChoices(requestedSchema, offer.names, offer.offers).then((choices) => {
      const text = JSON.stringify(choices)
      return this.askForm(key, message, choices, this.validators.get(choices, text), standard)
    })
  }

  private askForm<S> (key: string, message: string, requestedSchema: Record<string, unknown>, validate: ValidateFunction, standard: StandardProps | undefined): Promise<FormOutcome<FormContent<S>>> {
    const params: Record<string, unknown> = hasMode(this.call) ? { mode: 'form', message, requestedSchema } : { message, requestedSchema }
    return this.ask(key, { method: 'elicitation/create', params }, (answer): FormOutcome<FormContent<S>> | Promise<FormOutcome<FormContent<S>>> => {
      const outcome = this.elicitResult(key, answer)
      if (outcome.action !== 'accept') return outcome
      if (!isObject(outcome.content)) this.asker!.invalid(key, 'elicitation/create', 'an accepted form must carry "content", an object')
      if (!validate(outcome.content)) this.asker!.invalid(key, 'elicitation/create', `its content does not match the requested schema: ${explain(validate.errors, 'property')}`)
      if (standard === undefined) return { action: 'accept', content: outcome.content as FormContent<S> }
      // the schema's own library has the last word, and its output (a transform's) is the content
      return Promise.resolve(checkStandard({ whole: standard, props: [] }, outcome.content, 'property')).then((checked) => {
        if (checked.problems !== undefined) return this.asker!.invalid(key, 'elicitation/create', `its content does not match the requested schema: ${checked.problems}`)
        return { action: 'accept' as const, content: checked.value as FormContent<S> }
      })
    })
  }

  private url (key: string, message: string, url: string): Promise<UrlOutcome> | Unsupported {
    checkKey(key)
    if (typeof message !== 'string' || typeof url !== 'string' || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new TypeError(`fastify-sake: ctx.elicit.url('${key}') needs a message string and an absolute http(s) URL`)
    }
    if (this.asker === undefined || !supportsUrl(this.call)) return UNSUPPORTED
    const params: Record<string, unknown> = { mode: 'url', message, url }
    // 2025-11-25 wants an id per URL elicitation (for its completion notification), unique on the
    // server and not guessable; 2026-07-28 dropped it
    if (this.call.era === 'legacy') params.elicitationId = randomUUID()
    return this.ask(key, { method: 'elicitation/create', params }, (answer): UrlOutcome => {
      const outcome = this.elicitResult(key, answer)
      return outcome.action === 'accept' ? { action: 'accept' } : outcome
    })
  }

  private elicitResult (key: string, answer: unknown): { action: 'accept', content: unknown } | { action: 'decline' } | { action: 'cancel' } {
    if (!isObject(answer)) return this.asker!.invalid(key, 'elicitation/create', `expected an elicitation result ({ action, content }), got ${describe(answer)}`)
    const { action } = answer
    if (action === 'decline' || action === 'cancel') return { action }
    if (action !== 'accept') return this.asker!.invalid(key, 'elicitation/create', `"action" must be accept, decline or cancel, got ${describe(action)}`)
    return { action, content: answer.content }
  }

  private sampleOnce (key: string, params: SamplingParams): Promise<SampleOutcome> | Unsupported {
    checkKey(key)
    if (!isObject(params) || !Array.isArray(params.messages) || typeof params.maxTokens !== 'number') {
      throw new TypeError(`fastify-sake: ctx.sample('${key}') needs { messages: [...], maxTokens: number }`)
    }
    if (this.asker === undefined || capability(this.call, 'sampling') === undefined) return UNSUPPORTED
    return this.ask(key, { method: 'sampling/createMessage', params }, (answer): SampleOutcome => {
      if (!isObject(answer) || typeof answer.model !== 'string' || (answer.role !== 'assistant' && answer.role !== 'user') || !(isObject(answer.content) || Array.isArray(answer.content))) {
        return this.asker!.invalid(key, 'sampling/createMessage', 'expected a sampling result ({ role, content, model })')
      }
      return { action: 'accept', message: answer as unknown as Extract<SampleOutcome, { action: 'accept' }>['message'] }
    })
  }

  private rootsOnce (key: string): Promise<RootsOutcome> | Unsupported {
    checkKey(key)
    if (this.asker === undefined || capability(this.call, 'roots') === undefined) return UNSUPPORTED
    return this.ask(key, { method: 'roots/list', params: {} }, (answer): RootsOutcome => {
      if (!isObject(answer) || !Array.isArray(answer.roots) || !answer.roots.every((root) => isObject(root) && typeof root.uri === 'string')) {
        return this.asker!.invalid(key, 'roots/list', 'expected a roots result ({ roots: [{ uri }] })')
      }
      return { action: 'accept', roots: answer.roots as Extract<RootsOutcome, { action: 'accept' }>['roots'] }
    })
  }
}

/** A prompt or resource whose question to a 2025 client failed: -32603 naming the question. */
export function clientInputFailure (what: string, err: ClientInputError): ProtocolError {
  return new ProtocolError(INTERNAL_ERROR, `Internal error: ${what} failed: ${err.message}`)
}
