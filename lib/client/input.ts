/**
 * The client's side of the server's questions: which answer `onInput` gives a question (the call's
 * map first, then the client's), what an unanswered one gets, and which capabilities to declare so
 * that the server asks only what the client can answer.
 */
import { UnansweredInputError } from './errors.js'
import { isObject } from '../values.js'
import type { InputAnswer, InputRequest, OnInput, Unanswered } from './types.js'

/** The key a 2025 question that names none is answered under (the server's rule for such answers). */
export const LEGACY_KEY = 'legacy'

async function from (source: OnInput | undefined, request: InputRequest, key: string): Promise<InputAnswer | undefined> {
  if (source === undefined) return undefined
  if (typeof source === 'function') return await source(request, key)
  if (!Object.hasOwn(source, key)) return undefined
  const entry = source[key]
  return typeof entry === 'function' ? await entry(request, key) : entry
}

/**
 * The answer to the question `key`: the call's `onInput`, else the client's; else, for an
 * elicitation, `{ action: unanswered }`. Sampling and roots have no such answer, and
 * `unanswered: 'error'` wants none: both throw `UnansweredInputError`.
 */
export async function answerFor (request: InputRequest, key: string, sources: ReadonlyArray<OnInput | undefined>, unanswered: Unanswered): Promise<InputAnswer> {
  for (const source of sources) {
    const answer = await from(source, request, key)
    if (answer !== undefined) return answer
  }
  if (request.method === 'elicitation/create' && unanswered !== 'error') return { action: unanswered }
  const why = request.method === 'elicitation/create'
    ? "and unanswered is 'error'"
    : `(${request.method} cannot be declined: give an answer, or leave the capability undeclared)`
  throw new UnansweredInputError(key, request.method, `the server asked ${request.method} ('${key}') and onInput has no answer for it ${why}`)
}

function kinds (source: OnInput | undefined): { sampling: boolean, roots: boolean } {
  if (source === undefined) return { sampling: false, roots: false }
  if (typeof source === 'function') return { sampling: true, roots: true }
  let sampling = false
  let roots = false
  for (const entry of Object.values(source)) {
    // a function of the question may answer whatever it is asked
    const any = typeof entry === 'function'
    sampling ||= any || (isObject(entry) && 'model' in entry)
    roots ||= any || (isObject(entry) && 'roots' in entry)
  }
  return { sampling, roots }
}

/**
 * The client capabilities to declare: elicitation always (any question can be answered, declined
 * or cancelled; with `unanswered: 'error'` only when `onInput` has something), sampling and roots
 * when an `onInput` can answer them; then `explicit` merged over.
 */
export function capabilitiesFor (sources: ReadonlyArray<OnInput | undefined>, unanswered: Unanswered, explicit: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const found = sources.map(kinds)
  const caps: Record<string, unknown> = {}
  if (unanswered !== 'error' || sources.some((s) => s !== undefined)) caps.elicitation = { form: {}, url: {} }
  if (found.some((k) => k.sampling)) caps.sampling = {}
  if (found.some((k) => k.roots)) caps.roots = {}
  return { ...caps, ...explicit }
}
