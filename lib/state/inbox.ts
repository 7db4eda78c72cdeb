/**
 * Messages left for one instance of a fleet, kept until that instance takes them (issue 29). The
 * bus is at most once: an instance whose bus connection blinks misses what was published meanwhile.
 * A 2025 client's answer to a question must not be lost that way, so the instance that receives it
 * leaves it here for the instance that asked, as well as publishing it; the asker takes what is
 * left while its questions wait, and an answer the bus already brought finds its question gone.
 * In memory there is no other instance: nothing needs leaving, and there is no inbox.
 *
 * Only an answer to a question that waits is kept (issue 40): the asker says what it waits for
 * (`expect`) before the question goes out, and `leave` keeps one answer per question, of the session
 * it was asked on; an answer nobody waits for (a made-up id, a second answer, another session's) is
 * never stored. An inbox is bounded in answers and bytes.
 */
import type { ClientAnswer } from '../spec/types.js'

/** A 2025 client's answer to a question, as it waits for the instance that asked. */
export interface LeftAnswer {
  readonly sessionId: string
  readonly id: string
  readonly answer: ClientAnswer
}

/** What `leave` did: kept the answer, or why not (no such question waits; the asker's inbox is full). */
export type Leaving = 'kept' | 'unexpected' | 'full'

/**
 * - `expect` says that `instance` waits for the answer to question `id`, asked on `sessionId`, for
 *   `timeout` ms at most; `forget` that it no longer does (answered, timed out, its call ended);
 * - `leave` keeps an answer for the instance that asked, once, if that question waits, on that
 *   session, and the inbox has room; it rejects when the store failed (the POST that carried the
 *   answer is then refused, so that the client knows);
 * - `take` returns what was left for `instance` and forgets it.
 */
export interface Inbox {
  expect (instance: string, sessionId: string, id: string, timeout: number): void | Promise<void>
  forget (id: string): void | Promise<void>
  leave (instance: string, left: LeftAnswer): Leaving | Promise<Leaving>
  take (instance: string): readonly LeftAnswer[] | Promise<readonly LeftAnswer[]>
}
