/**
 * A running task's questions to the client (`ctx.elicit`, `ctx.sample`, `ctx.roots` inside a
 * task): the task is `input_required` while one waits, and the handler awaits the answer however
 * it arrives. In 2026-07-28 the client reads the questions on `tasks/get` (`inputRequests`) and
 * answers with `tasks/update`; in a 2025-11-25 session the server carries them as requests on a
 * `tasks/result` stream (`relay`), with the task's id in their `_meta`, and takes the responses.
 */
import { ClientInputError, TaskEnded, TooManyQuestions } from '../../errors.js'
import { META_INPUT_KEY, META_RELATED_TASK } from '../../spec/meta-keys.js'
import { TERMINAL, type TaskQuestion, type TaskRecord } from '../../state/task-store.js'
import type { Call, Channel } from '../call.js'
import { askOnce, type Asker, type InputMethod, type InputRequest } from '../input/asker.js'
import type { Tasks } from './lifecycle.js'

/** The asker of a handler running as a task: one question per key, answered through the task. */
export class TaskAsker implements Asker {
  private readonly asked = new Map<string, Promise<unknown>>()

  constructor (private readonly tasks: Tasks, private readonly taskId: string, private readonly signal: AbortSignal) {}

  ask (key: string, request: InputRequest): Promise<unknown> {
    return askOnce(this.asked, key, async () => this.send(key, request))
  }

  private async send (key: string, request: InputRequest): Promise<unknown> {
    let answer
    try {
      answer = await this.tasks.ask(this.taskId, key, request, this.signal)
    } catch (err) {
      if (err instanceof TooManyQuestions) throw new ClientInputError(key, request.method, 'error', `${request.method} ('${key}') was not asked: ${err.message}`)
      const why = err instanceof TaskEnded ? 'the task ended first (cancelled, expired, or the server closed)' : (err as Error).message
      throw new ClientInputError(key, request.method, 'cancelled', `${request.method} ('${key}') got no answer: ${why}`)
    }
    if ('error' in answer) {
      throw new ClientInputError(key, request.method, 'error', `the client answered ${request.method} ('${key}') with error ${answer.error.code}: ${answer.error.message}`)
    }
    return answer.result
  }

  invalid (key: string, method: InputMethod, problem: string): never {
    throw new ClientInputError(key, method, 'invalid', `the client's answer to ${method} ('${key}') is not valid: ${problem}`)
  }
}

/**
 * 2025-11-25 `tasks/result` while its task runs: carries each question the task waits on as a
 * request on this call's stream (opened on demand), delivers the responses to the task, and lends
 * the stream to the task's notifications. Resolves with the terminal record, or undefined when the
 * record vanished or the caller went away.
 */
export async function relay (tasks: Tasks, call: Call, record: TaskRecord): Promise<TaskRecord | undefined> {
  const { taskId } = record
  const signal = call.transport.signal()
  // a 2025 call that may ask opens its answer as a stream on demand; one from a client that takes
  // JSON only (or inside a batch) has no `openStream`: that client can still poll, and waits here
  const open = call.openStream
  const remove = open === undefined ? noop : tasks.outlets.add(taskId, { notify: (method, params) => open().notify(method, params) })
  const carried = new Set<string>()
  try {
    let current: TaskRecord | undefined = record
    for (;;) {
      if (current === undefined || TERMINAL.has(current.status)) return current
      for (const [key, question] of Object.entries(current.inputRequests ?? {})) {
        if (open === undefined || carried.has(key) || !tasks.claim(taskId, key)) continue
        carried.add(key)
        // a question inside a task waits as long as the task lives, not inputTimeout
        const timeout = Math.max(1, Math.min(current.createdAt + current.ttl - Date.now(), MAX_TIMER))
        void carry(tasks, open(), taskId, key, question, { timeout, signal })
      }
      current = await tasks.next(taskId, current.version, signal)
      if (signal.aborted) return undefined
    }
  } finally {
    remove()
  }
}

/** Asks one question on a stream and hands the response to the task; a lost one stays pending. */
async function carry (tasks: Tasks, channel: Channel, taskId: string, key: string, question: TaskQuestion, options: { timeout: number, signal: AbortSignal }): Promise<void> {
  const meta = question.params._meta as Record<string, unknown> | undefined
  const params = { ...question.params, _meta: { ...meta, [META_INPUT_KEY]: key, [META_RELATED_TASK]: { taskId } } }
  try {
    // every 2025 stream can send requests (`Channel.request`)
    const answer = await channel.request!(question.method, params, { ...options, key })
    await tasks.answer(taskId, { [key]: answer })
  } catch {
    // timed out, or the stream closed: the next tasks/result asks again
  } finally {
    tasks.release(taskId, key)
  }
}

function noop (): void {}

/** The longest delay a Node timer takes (about 24.8 days). */
const MAX_TIMER = 2 ** 31 - 1
