/**
 * 2026-07-28 Multi Round-Trip Requests: a handler run that meets an unanswered question ends in
 * `input_required`, with the questions and the answers so far sealed in `requestState`; the retry
 * brings the state back with `inputResponses`, and the handler runs again from the top.
 */
import { ProtocolError } from '../../errors.js'
import { INVALID_PARAMS } from '../../spec/jsonrpc.js'
import { describe, isObject } from '../../values.js'
import type { RequestStateBinding } from '../../state/request-state.js'
import type { Call } from '../call.js'
import { InputRequiredSignal, Unanswered, type Asker, type InputMethod, type InputRequest, type InputSettings } from './asker.js'

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
