/**
 * Messages left for one instance of a fleet, kept until that instance takes them (issue 29). The
 * bus is at most once: an instance whose bus connection blinks misses what was published meanwhile.
 * A 2025 client's answer to a question must not be lost that way, so the instance that receives it
 * leaves it here for the instance that asked, as well as publishing it; the asker takes what is
 * left while its questions wait, and an answer the bus already brought finds its question gone.
 * In memory there is no other instance: nothing needs leaving, and there is no inbox.
 */
import type { ClientAnswer } from '../spec/types.js'

/** A 2025 client's answer to a question, as it waits for the instance that asked. */
export interface LeftAnswer {
  readonly sessionId: string
  readonly id: string
  readonly answer: ClientAnswer
}

/**
 * - `leave` keeps an answer for `instance`; it settles once the answer is stored, and rejects when
 *   it could not be (the POST that carried it is then refused, so that the client knows);
 * - `take` returns what was left for `instance` and forgets it.
 */
export interface Inbox {
  leave (instance: string, left: LeftAnswer): void | Promise<void>
  take (instance: string): readonly LeftAnswer[] | Promise<readonly LeftAnswer[]>
}
