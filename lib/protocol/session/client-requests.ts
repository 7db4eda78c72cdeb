/**
 * Questions this server asks 2025 clients mid-call (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`): each goes out as a JSON-RPC request on the call's event stream and waits here
 * until the client POSTs its response on the same session, the timeout passes, or the call ends.
 *
 * Ids carry the asking instance's id (`sake-<instance>-<n>`), so that in a fleet an answer reaching
 * another instance can travel the bus to the right one without colliding with another instance's
 * question, and the instance that asked is known even when it died.
 */
import { ClientInputError } from '../../errors.js'
import type { ClientAnswer, Logger } from '../../spec/types.js'
import type { Quota } from '../../state/quota.js'
import type { Inbox } from '../../state/inbox.js'
import type { ClientRequestOptions } from '../call.js'

/** Who a question is asked for: the caller its quota counts (`Transport.caller`), and where a refusal is logged. */
export interface AskedFor {
  readonly caller: string
  readonly log: Logger
}

interface Pending {
  settle (answer: ClientAnswer): void
  /** Ends the wait with a `cancelled` error saying why (`why`: "the session ended"). */
  cancel (why: string): void
}

/** A response's `result` or `error`, as a question's answer; an error without code or message is kept readable. */
export function answerOf (result: unknown, error: unknown): ClientAnswer {
  if (error === undefined) return { result }
  const { code, message, data } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>
  return {
    error: {
      code: typeof code === 'number' ? code : -32603,
      message: typeof message === 'string' ? message : 'the client sent an error without a message',
      ...(data === undefined ? {} : { data })
    }
  }
}

export class ClientRequests {
  /**
   * `instance`: this instance's id in the fleet (random per process). `quota`: the questions each
   * caller has waiting here (`questions.maxPerCaller`, `questions.maxQuestions`).
   * `inbox` (a fleet's): told of each question while it waits, so that another instance keeps an
   * answer to it, and only to it, for this one.
   */
  constructor (private readonly instance: string, private readonly quota: Quota, private readonly inbox?: Inbox) {}

  /** Waiting questions by session and id. */
  private readonly pending = new Map<string, Pending>()
  private next = 0
  /** Set when the server closes: a question asked after that fails at once. */
  private closed = false

  /**
   * Throws the quota's error (logged) when `caller` may not have one more question waiting: what a
   * stream checks before it opens to ask, so that the refusal can still be the call's plain answer.
   */
  admit (caller: string, log: Logger): void {
    const refusal = this.quota.check(caller)
    if (refusal !== undefined) throw this.quota.refused(refusal, caller, log)
  }

  /**
   * Writes the request with `write` (false: the stream is gone) and resolves to the client's
   * response; rejects with `ClientInputError` on timeout, abort, a stream that is gone, or a
   * server that is closing, and with the quota's error when `asker` (the caller the question is
   * for) has as many questions waiting as it may. `owned` (the asking stream's set) holds the
   * question while it waits.
   */
  async send (sessionId: string, write: (message: string) => boolean, method: string, params: Record<string, unknown>, options: ClientRequestOptions, asker: AskedFor, owned?: Set<string>): Promise<ClientAnswer> {
    const { timeout, signal, key } = options
    if (this.closed) throw new ClientInputError(key, method, 'cancelled', `the server is closing: ${method} ('${key}') was not sent`)
    const refusal = this.quota.take(asker.caller)
    if (refusal !== undefined) throw this.quota.refused(refusal, asker.caller, asker.log)
    const id = `sake-${this.instance}-${++this.next}`
    const slot = `${sessionId}\n${id}`
    // in a fleet, the answer may reach another instance: it keeps it only for a question that waits
    if (this.inbox !== undefined) {
      await this.expect(this.inbox, sessionId, id, timeout, asker.log)
      // the server began to close meanwhile: nothing would end this wait but its timeout
      if (this.closed) {
        this.quota.give(asker.caller)
        void this.forget(this.inbox, id, asker.log)
        throw new ClientInputError(key, method, 'cancelled', `the server is closing: ${method} ('${key}') was not sent`)
      }
    }
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        if (this.pending.delete(slot)) this.quota.give(asker.caller)
        owned?.delete(slot)
        if (this.inbox !== undefined) void this.forget(this.inbox, id, asker.log)
      }
      const fail = (reason: ClientInputError['reason'], message: string): void => {
        cleanup()
        reject(new ClientInputError(key, method, reason, message))
      }
      const onAbort = (): void => fail('cancelled', `the call ended before the client answered ${method} ('${key}')`)
      const timer = setTimeout(() => fail('timeout', `the client did not answer ${method} ('${key}') within ${timeout} ms`), timeout)
      timer.unref()
      signal.addEventListener('abort', onAbort, { once: true })
      this.pending.set(slot, {
        settle: (answer) => { cleanup(); resolve(answer) },
        cancel: (why) => fail('cancelled', `${why} before the client answered ${method} ('${key}')`)
      })
      owned?.add(slot)
      if (signal.aborted) onAbort()
      else if (!write(JSON.stringify({ jsonrpc: '2.0', id, method, params }))) fail('cancelled', `the client's stream closed before ${method} ('${key}') could be sent`)
    })
  }

  /** Tells the inbox a question waits; a store that fails is logged: the answer can still come here. */
  private async expect (inbox: Inbox, sessionId: string, id: string, timeout: number, log: Logger): Promise<void> {
    try {
      await inbox.expect(this.instance, sessionId, id, timeout)
    } catch (err) {
      log.warn({ err, id }, 'fastify-sake: the inbox could not be told of a question; an answer that reaches another instance of the fleet is refused')
    }
  }

  private async forget (inbox: Inbox, id: string, log: Logger): Promise<void> {
    try {
      await inbox.forget(id)
    } catch (err) {
      log.warn({ err, id }, 'fastify-sake: the inbox could not forget a question that no longer waits (it expires with the question\'s timeout)')
    }
  }

  /** How many questions wait for their answers. */
  get waiting (): number {
    return this.pending.size
  }

  /** Ends the waits of these questions (a call that answered while some of its questions were open). */
  cancel (slots: Iterable<string>, why: string): void {
    for (const slot of [...slots]) this.pending.get(slot)?.cancel(why)
  }

  /** Ends the waits of a session's questions (the session ended: its answers cannot arrive). */
  cancelSession (sessionId: string, why: string): void {
    const prefix = `${sessionId}\n`
    this.cancel([...this.pending.keys()].filter((slot) => slot.startsWith(prefix)), why)
  }

  /**
   * Ends every wait, and refuses new questions (the server is closing): a handler waiting for a
   * person must not hold the server open until its timeout, so it hears `cancelled` and answers.
   */
  cancelAll (): void {
    this.closed = true
    this.cancel(this.pending.keys(), 'the server is closing')
  }

  /**
   * Whether this instance asked a question with this id (`sake-<instance>-<n>`, `n` one it gave
   * out), answered, timed out or still waiting: a late answer to it is no forgery.
   */
  asked (id: string): boolean {
    const n = Number(id.slice(id.lastIndexOf('-') + 1))
    return id.startsWith(`sake-${this.instance}-`) && Number.isInteger(n) && n >= 1 && n <= this.next
  }

  /** Whether an id could be one of ours, on this instance or another of the fleet. */
  static mayBeOurs (id: unknown): id is string {
    return typeof id === 'string' && id.startsWith('sake-')
  }

  /** The instance that asked a question, from its id (`sake-<instance>-<n>`). */
  static askedBy (id: string): string {
    return id.slice(5, id.lastIndexOf('-'))
  }

  /** Hands a client's response to the question it answers; false when no question here has that id. */
  answer (sessionId: string, id: unknown, answer: ClientAnswer): boolean {
    if (!ClientRequests.mayBeOurs(id)) return false
    const pending = this.pending.get(`${sessionId}\n${id}`)
    if (pending === undefined) return false
    pending.settle(answer)
    return true
  }
}
