/**
 * Asking the client mid-call: `ctx.elicit.form/url`, `ctx.sample`, `ctx.roots`, the same handler
 * code in both eras. This file builds each question, checks the client declared what it needs,
 * and checks its answer; an `Asker` carries the question:
 *
 * - `RoundTrip` (2026-07-28, Multi Round-Trip Requests): an answered key returns its answer at
 *   once; an unanswered one is noted and ends the handler (a thrown signal), and the method answers
 *   `input_required` with every question noted and the answers so far sealed in `requestState`.
 *   The client retries; the handler runs again from the top.
 * - `StreamAsker` (2025 sessions): a JSON-RPC request on the call's event stream, awaited until
 *   the client POSTs its response (bounded by a timeout and by `ctx.signal`).
 */
import { randomUUID } from 'node:crypto'
import { Kind } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { ClientInputError, ProtocolError } from '../errors.js'
import { INTERNAL_ERROR, INVALID_PARAMS } from './jsonrpc.js'
import { compile } from '../define/ajv.js'
import { explain } from '../define/messages.js'
import { describe } from '../define/describe.js'
import type { Call } from './context.js'
import type { RequestStateBinding, RequestStateSealer } from '../state/request-state.js'
import type {
  Elicit, FormContent, FormOutcome, InputContext, RootsOutcome, SampleOutcome, SamplingParams, Unsupported, UrlOutcome
} from '../define/input.js'

/** The `_meta` key a 2025 question carries its key under (the project's reverse-DNS prefix). */
export const KEY_META = 'io.github.fastify-sake/key'
/** What a 2025 answer that names no key is taken to answer: the question its JSON-RPC id names. */
export const LEGACY_KEY = 'legacy'

export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list'

/** A question as it travels (an entry of `inputRequests`, or a 2025 request). */
export interface InputRequest {
  readonly method: InputMethod
  readonly params: Record<string, unknown>
}

/** The plugin's settings for questions, shared by every call of one server. */
export interface InputSettings {
  readonly sealer: RequestStateSealer
  /** Milliseconds a 2025 question waits for its answer. */
  readonly timeout: number
}

/** Carries a question to the client; resolves to its raw answer, or undefined when it cannot be asked. */
export interface Asker {
  ask (key: string, request: InputRequest): Promise<unknown>
  /** The answer to `key` is not what `method` returns: throws the era's error. */
  invalid (key: string, method: InputMethod, problem: string): never
}

/** Thrown through the handler when a 2026-07-28 question is unanswered; never an Error, never logged. */
export class InputRequiredSignal {
  readonly key: string
  constructor (key: string) { this.key = key }
}

const UNSUPPORTED = Object.freeze({ action: 'unsupported' as const })
const KEY = /^[A-Za-z0-9_.:/-]{1,128}$/

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What the client declared, in either era (2026: per request in `_meta`; 2025: at initialize). */
function capability (call: Call, name: string): Record<string, unknown> | undefined {
  const value = call.client.capabilities[name]
  return isObject(value) ? value : undefined
}

/** Form elicitation: 2025-06-18 on; `elicitation: {}` means form (2025-11-25 kept it so). */
function supportsForm (call: Call): boolean {
  if (call.era === 'legacy' && call.protocolVersion === '2025-03-26') return false
  const elicitation = capability(call, 'elicitation')
  if (elicitation === undefined) return false
  return elicitation.form !== undefined || elicitation.url === undefined
}

/** URL elicitation: 2025-11-25 sessions and the 2026-07-28 revision, declared as `elicitation.url`. */
function supportsUrl (call: Call): boolean {
  if (call.era === 'legacy' && call.protocolVersion !== '2025-11-25') return false
  return isObject(capability(call, 'elicitation')?.url)
}

/** Whether elicitation/create carries `mode` (2025-11-25 and later; 2025-06-18 has no such field). */
function hasMode (call: Call): boolean {
  return call.era === 'modern' || call.protocolVersion === '2025-11-25'
}

/**
 * Form schemas compiled once per distinct schema text: handlers often build the schema inline, a
 * new object on every call, so identity would miss. Bounded, oldest out.
 */
const validators = new Map<string, ValidateFunction>()
const MAX_VALIDATORS = 256

function validatorFor (schema: Record<string, unknown>, text: string): ValidateFunction {
  let validate = validators.get(text)
  if (validate === undefined) {
    validate = compile(schema)
    if (validators.size >= MAX_VALIDATORS) validators.delete(validators.keys().next().value as string)
    validators.set(text, validate)
  }
  return validate
}

function checkKey (key: unknown): asserts key is string {
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new TypeError(`fastify-sake: an input key must be 1 to 128 characters of A-Z a-z 0-9 _ . : / -, got ${JSON.stringify(key)}`)
  }
}

/** The form schema as plain JSON (TypeBox's symbol keys dropped), checked to be an object schema. */
function formSchema (schema: unknown): { schema: Record<string, unknown>, text: string } {
  if (!isObject(schema)) throw new TypeError(`fastify-sake: ctx.elicit.form needs an object schema, got ${describe(schema)}`)
  const text = JSON.stringify(schema)
  const plain = Kind in schema ? JSON.parse(text) as Record<string, unknown> : schema
  if (plain.type !== 'object' || !isObject(plain.properties)) {
    throw new TypeError('fastify-sake: ctx.elicit.form needs an object schema with properties (type: "object"), e.g. Type.Object({ name: Type.String() })')
  }
  return { schema: plain, text }
}

/**
 * Marks a question's promise as handled, and returns it. A handler that starts two questions and
 * awaits one at a time leaves the second one's rejection (the round's end, in 2026-07-28; a
 * timeout, in a 2025 session) unobserved, and Node ends the process on an unhandled rejection:
 * a server must not crash for that. Whoever awaits the promise still gets the rejection.
 */
function handled<T> (promise: Promise<T>): Promise<T> {
  promise.catch(noop)
  return promise
}

function noop (): void {}

/**
 * A 2026-07-28 question not answered yet: a thenable that never settles on its own. Awaiting it
 * (or `Promise.all`/`race` over it) rejects the awaiting code with the round's signal; `.then(f)`
 * without a rejection handler gives back the same thenable. So no promise of ours ever rejects
 * unobserved: here the rejection is the plugin's control flow, and a handler that chained a
 * question and never awaited it must not crash the process (Node ends it on an unhandled one).
 */
class Unanswered implements PromiseLike<never> {
  readonly [Symbol.toStringTag] = 'Promise'
  constructor (private readonly signal: InputRequiredSignal) {}

  then<A = never, B = never> (_onFulfilled?: unknown, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    if (typeof onRejected !== 'function') return this as unknown as Promise<A | B>
    return handled(Promise.resolve(this.signal).then(onRejected))
  }

  catch<B = never> (onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<B> {
    return this.then(undefined, onRejected)
  }

  finally (onFinally?: (() => void) | null): Promise<never> {
    return this.then(undefined, (reason) => {
      onFinally?.()
      throw reason
    })
  }
}

/** The questions of one handler run: what `ctx.elicit`, `ctx.sample` and `ctx.roots` do. */
export class ClientInput implements InputContext {
  readonly elicit: Elicit

  constructor (private readonly call: Call, private readonly asker: Asker | undefined) {
    this.elicit = {
      form: (key, message, schema) => this.question(() => this.form(key, message, schema)),
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
  private ask<T> (key: string, request: InputRequest, read: (answer: unknown) => T): Promise<T | Unsupported> {
    const answer = this.asker!.ask(key, request)
    if (answer instanceof Unanswered) return answer as unknown as Promise<T>
    return answer.then((value) => value === undefined ? UNSUPPORTED : read(value))
  }

  private form<S> (key: string, message: string, schema: S): Promise<FormOutcome<FormContent<S>>> | Unsupported {
    checkKey(key)
    if (typeof message !== 'string') throw new TypeError(`fastify-sake: ctx.elicit.form('${key}') needs a message string`)
    const { schema: requestedSchema, text } = formSchema(schema)
    const validate = validatorFor(requestedSchema, text)
    if (this.asker === undefined || !supportsForm(this.call)) return UNSUPPORTED
    const params: Record<string, unknown> = hasMode(this.call) ? { mode: 'form', message, requestedSchema } : { message, requestedSchema }
    return this.ask(key, { method: 'elicitation/create', params }, (answer): FormOutcome<FormContent<S>> => {
      const outcome = this.elicitResult(key, answer)
      if (outcome.action !== 'accept') return outcome
      if (!isObject(outcome.content)) this.asker!.invalid(key, 'elicitation/create', 'an accepted form must carry "content", an object')
      if (!validate(outcome.content)) this.asker!.invalid(key, 'elicitation/create', `its content does not match the requested schema: ${explain(validate.errors, 'property')}`)
      return { action: 'accept', content: outcome.content as FormContent<S> }
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

// ---------------------------------------------------------------- 2026-07-28: multi round-trip requests

/** What `requestState` carries: the answers so far, and the keys (and kinds) the last round asked. */
interface RoundState {
  a: Record<string, unknown>
  k: Record<string, InputMethod>
}

/** The retry of a call: the answers it brings (earlier rounds' and this one's). */
export interface Retry {
  readonly answers: Record<string, unknown>
}

function invalidParams (message: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, `Invalid params: ${message}`)
}

/**
 * Reads `requestState` and `inputResponses` of a 2026-07-28 request: undefined when it carries
 * neither (a first round). Answers are only taken for the keys the last round asked (others are
 * ignored, as the spec asks), and only with the state that asked them: `inputResponses` without a
 * `requestState`, or with one that was altered, expired or minted for another call, is -32602.
 */
export function readRetry (settings: InputSettings, call: Call, name: string, args: unknown): Retry | undefined {
  const { requestState, inputResponses } = call.params
  if (requestState === undefined && inputResponses === undefined) return undefined
  if (inputResponses !== undefined && !isObject(inputResponses)) {
    throw invalidParams(`"inputResponses" must be an object mapping each key of inputRequests to the client's result, got ${describe(inputResponses)}`)
  }
  const state = settings.sealer.open(requestState, bindingOf(call, name, args)) as RoundState
  const answers = { ...state.a }
  for (const key of Object.keys(state.k)) {
    if (inputResponses !== undefined && Object.hasOwn(inputResponses, key)) {
      const answer = inputResponses[key]
      if (!isObject(answer)) throw invalidParams(`inputResponses["${key}"] must be the client's result for ${state.k[key]!}, got ${describe(answer)}`)
      answers[key] = answer
    }
  }
  return { answers }
}

/** What a `requestState` is bound to: the caller, the method, what is called, its arguments. */
export function bindingOf (call: Call, name: string, args: unknown): RequestStateBinding {
  return { subject: call.auth?.subject, method: call.method, name, arguments: args }
}

/**
 * After a 2026-07-28 handler run that asked something: throws the -32602 of an unreadable answer,
 * returns the `InputRequiredResult` when a question is unanswered, or undefined (all answered).
 */
export function finishRound (round: RoundTrip, settings: InputSettings, call: Call, name: string, args: unknown): Record<string, unknown> | undefined {
  if (round.failure !== undefined) throw round.failure
  if (round.pending.size === 0) return undefined
  return round.result(settings, bindingOf(call, name, args))
}

/**
 * Waits for a handler and returns a function giving its value or throwing what it threw: the
 * caller checks the round's questions first, whichever way the handler ended.
 */
export async function settle<T> (work: T | Promise<T>): Promise<() => T> {
  try {
    const value = await work
    return () => value
  } catch (err) {
    return () => { throw err }
  }
}

/** A prompt or resource whose question to a 2025 client failed: -32603 naming the question. */
export function clientInputFailure (what: string, err: ClientInputError): ProtocolError {
  return new ProtocolError(INTERNAL_ERROR, `Internal error: ${what} failed: ${err.message}`)
}

/** A 2026-07-28 handler run: answered keys return at once, the others are collected. */
export class RoundTrip implements Asker {
  readonly pending = new Map<string, InputRequest>()
  /** An answer that could not be read: the request fails with it, whatever the handler did next. */
  failure: ProtocolError | undefined

  /** True once the run must end in `input_required` or in `failure`: what the handler does next is moot. */
  get asked (): boolean {
    return this.pending.size > 0 || this.failure !== undefined
  }

  constructor (private readonly answers: Record<string, unknown> | undefined) {}

  ask (key: string, request: InputRequest): Promise<unknown> {
    if (this.answers !== undefined && Object.hasOwn(this.answers, key)) return Promise.resolve(this.answers[key])
    if (!this.pending.has(key)) this.pending.set(key, request)
    return new Unanswered(new InputRequiredSignal(key)) as unknown as Promise<unknown>
  }

  invalid (key: string, method: InputMethod, problem: string): never {
    this.failure ??= invalidParams(`inputResponses["${key}"] is not a valid answer to ${method}: ${problem}`)
    throw this.failure
  }

  /** The `InputRequiredResult` for what this run asked, its answers so far sealed for the retry. */
  result (settings: InputSettings, binding: RequestStateBinding): Record<string, unknown> {
    const inputRequests: Record<string, InputRequest> = {}
    const asked: Record<string, InputMethod> = {}
    for (const [key, request] of this.pending) {
      inputRequests[key] = request
      asked[key] = request.method
    }
    const state: RoundState = { a: this.answers ?? {}, k: asked }
    return { resultType: 'input_required', inputRequests, requestState: settings.sealer.seal(binding, state) }
  }
}

// ---------------------------------------------------------------- 2025 sessions: requests on the stream

/** A 2025 question and its answer: the client's JSON-RPC response, result or error. */
export type ClientAnswer = { readonly result: unknown } | { readonly error: { readonly code: number, readonly message: string, readonly data?: unknown } }

/** The 2025 asker: one request per key (asked again, the same answer), on the call's stream. */
export class StreamAsker implements Asker {
  private readonly asked = new Map<string, Promise<unknown>>()

  constructor (private readonly call: Call, private readonly timeout: number, private readonly signal: () => AbortSignal) {}

  async ask (key: string, request: InputRequest): Promise<unknown> {
    let answer = this.asked.get(key)
    if (answer === undefined) {
      answer = this.send(key, request)
      this.asked.set(key, answer)
    }
    return answer
  }

  private async send (key: string, request: InputRequest): Promise<unknown> {
    const channel = this.call.channel ?? this.call.openStream?.()
    // no event stream to ask on (a batch, or a client that does not accept one)
    if (channel?.request === undefined) return undefined
    const params = { ...request.params, _meta: { [KEY_META]: key } }
    const answer = await channel.request(request.method, params, { timeout: this.timeout, signal: this.signal(), key })
    if ('error' in answer) {
      throw new ClientInputError(key, request.method, 'error', `the client answered ${request.method} ('${key}') with error ${answer.error.code}: ${answer.error.message}`)
    }
    const { result } = answer
    // an answer naming its key must name this one; one naming none answers what its id asked
    const named = isObject(result) && isObject(result._meta) ? result._meta[KEY_META] : undefined
    if (named !== undefined && named !== key) this.invalid(key, request.method, `it answers key ${JSON.stringify(named)}`)
    return result
  }

  invalid (key: string, method: InputMethod, problem: string): never {
    throw new ClientInputError(key, method, 'invalid', `the client's answer to ${method} ('${key}') is not valid: ${problem}`)
  }
}
