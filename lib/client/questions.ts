/**
 * The server's questions, answered from `onInput` (the call's first, then the client's): as multi
 * round-trip rounds in 2026-07-28 (the request sent again with the answers, a task's with
 * `tasks/update`), as responses POSTed back on a 2025 session, and over stdio while no call waits.
 */
import { RpcError, UnansweredInputError } from './errors.js'
import { META_INPUT_KEY } from '../spec/meta-keys.js'
import { isObject } from '../values.js'
import type { ResolvedOptions } from './client-options.js'
import { LEGACY_KEY, answerFor } from './input.js'
import type { CallOptions, ToolCallOptions } from './request-options.js'
import type { InputAnswer, InputRequest } from './types.js'
import { rpcErrorOf, type Exchange, type Extras, type Message, type Send, type Wire } from './wire.js'

const INPUT_METHODS = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list'])
type Answers = Record<string, InputAnswer>

async function sleep (ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted()
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => { clearTimeout(timer); reject(signal.reason) }
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve() }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export class Questions {
  /**
   * `wire`: where a 2025 question's answer is POSTed, and which era a task is in; `send`: a request in
   * the era (the handshake's), for the rounds and a task's polls.
   */
  constructor (private readonly options: ResolvedOptions, private readonly wire: Wire, private readonly send: Send) {}

  /**
   * A question the server asks over stdio while no request waits (`roots/list` after
   * `initialize`, say): answered from the client's own `onInput`, and declined or refused when it
   * has no answer, since there is no call to fail.
   */
  async unprompted (message: Message): Promise<void> {
    const { timeout, unanswered } = this.options
    const call: CallOptions = { unanswered: unanswered === 'error' ? 'decline' : unanswered }
    // a failure (onInput threw: the server heard it as an error answer; the process is gone) has no caller to reach
    await this.answer(message, { call, signal: AbortSignal.timeout(timeout), progressToken: undefined }).catch(() => {})
  }

  /** A 2025 server's request on the call's stream: its answer POSTed back on the session. */
  async answer (message: Message, exchange: Exchange): Promise<void> {
    const { id, method } = message as { id: unknown, method: string }
    const params = isObject(message.params) ? message.params : {}
    const { call } = exchange
    const unanswered = call.unanswered ?? this.options.unanswered
    let reply: Message
    if (method === 'ping') {
      reply = { result: {} }
    } else if (INPUT_METHODS.has(method)) {
      // the key the server gave the question, or the legacy rule's when it gave none
      const meta = isObject(params._meta) ? params._meta : {}
      const key = typeof meta[META_INPUT_KEY] === 'string' ? meta[META_INPUT_KEY] : LEGACY_KEY
      try {
        reply = { result: await this.#answer({ method, params } as InputRequest, key, call) }
      } catch (err) {
        if (!(err instanceof UnansweredInputError)) {
          // the user's onInput function threw: the server hears it as an error answer (else its
          // call would wait for one until its own timeout), and the call fails here with that error
          const error = { code: -32603, message: `the client's onInput failed: ${(err as Error).message}` }
          await this.wire.post({ jsonrpc: '2.0', id, error }, undefined).catch(() => {})
          throw err
        }
        if (unanswered === 'error') throw err
        // sampling and roots cannot be declined in their result: refused as the spec's sampling page shows
        reply = { error: { code: -1, message: err.message } }
      }
    } else {
      reply = { error: { code: -32601, message: `Method not found: the client does not serve ${method}` } }
    }
    await this.wire.post({ jsonrpc: '2.0', id, ...reply }, undefined)
  }

  /**
   * A request that may answer `input_required` (2026-07-28): answered from `onInput` and retried,
   * round after round.
   */
  async rounds (
    method: string, params: Message, call: CallOptions, extras: Extras, onRound?: () => void
  ): Promise<Message> {
    const { maxRounds } = this.options
    let retry: Message = {}
    for (let round = 1; round <= maxRounds; round++) {
      const result = await this.send(method, { ...params, ...retry }, call, extras)
      if (result.resultType !== 'input_required') return result
      if (round === maxRounds) break
      onRound?.()
      retry = { inputResponses: await this.#answers(result.inputRequests, call) }
      if (result.requestState !== undefined) retry.requestState = result.requestState
    }
    const what = `${method}: the server still asks for input after ${maxRounds} rounds (maxRounds ${maxRounds})`
    throw new UnansweredInputError('', method, what)
  }

  async #answers (requests: unknown, call: CallOptions, skip: ReadonlySet<string> = new Set()): Promise<Answers> {
    const answers: Answers = {}
    for (const [key, request] of Object.entries(isObject(requests) ? requests : {})) {
      if (skip.has(key) || !isObject(request)) continue
      answers[key] = await this.#answer(request as unknown as InputRequest, key, call)
    }
    return answers
  }

  /** A question's answer from `onInput`: the call's first, then the client's. */
  async #answer (request: InputRequest, key: string, call: CallOptions): Promise<InputAnswer> {
    const o = this.options
    return await answerFor(request, key, [call.onInput, o.onInput], call.unanswered ?? o.unanswered)
  }

  /**
   * A task's result: 2026-07-28 polls `tasks/get` (answering with `tasks/update`); 2025 waits on
   * `tasks/result`, whose stream carries the task's progress on `token`, the call's.
   */
  async awaitTask (created: Message, call: ToolCallOptions, token: string | undefined): Promise<unknown> {
    if (this.wire.era === 'legacy') {
      const task = isObject(created.task) ? created.task : undefined
      if (task === undefined) return created // the tool ran inline
      const chosen = token === undefined ? undefined : { token, sent: false }
      return await this.send('tasks/result', { taskId: task.taskId }, call, { chosen })
    }
    if (created.resultType !== 'task') return created
    const taskId = created.taskId as string
    const signal = call.signal ?? new AbortController().signal
    const answered = new Set<string>()
    let task = created
    for (;;) {
      const status = task.status
      if (status === 'completed') return task.result
      const failure = { code: -32603, message: `task ${taskId} failed: ${String(task.statusMessage)}` }
      if (status === 'failed') throw rpcErrorOf(isObject(task.error) ? task.error : failure, undefined)
      if (status === 'cancelled') throw new RpcError(-32603, `task ${taskId} was cancelled`, { taskId, status })
      if (status === 'input_required') {
        const answers = await this.#answers(task.inputRequests, call, answered)
        if (Object.keys(answers).length > 0) {
          await this.send('tasks/update', { taskId, inputResponses: answers }, call, { tasks: true })
          for (const key of Object.keys(answers)) answered.add(key)
        }
      }
      try {
        await sleep(Math.min(Math.max(Number(task.pollIntervalMs) || 1000, 10), 60_000), signal)
      } catch (err) {
        await this.send('tasks/cancel', { taskId }, {}, { tasks: true }).catch(() => {})
        throw err
      }
      task = await this.send('tasks/get', { taskId }, call, { tasks: true })
    }
  }
}
