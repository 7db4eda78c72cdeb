/**
 * What a request's `Accept` allows of the two media types the endpoint answers with: JSON and an
 * event stream. Negotiated by `negotiator` (RFC 9110 §12.5.1: q-values, the most specific range
 * wins, `q=0` means "not acceptable"), so `application/json;q=0` refuses JSON even beside the
 * any-type range, which allows it at any q above 0, as `application/*` does. An absent header
 * accepts anything (RFC 9110); an empty or unreadable one accepts nothing. A q-value above 0 only
 * says acceptable: which of the two a call answers with is the server's choice (`answer.ts`), not
 * the client's ranking, since every MCP client sends `application/json, text/event-stream`, JSON
 * first.
 *
 * Parsing costs on every POST, so the verdict of the value every MCP client sends is a constant,
 * and the verdicts of the last few other values are kept (a pure function of the string: one cache
 * for the process). A value longer than any client sends is not read: it allows nothing.
 * `negotiator` itself (a few milliseconds to load) is loaded at the first other value: a server
 * whose clients all send the common one, or that serves stdio alone, never loads it.
 */
import { createRequire } from 'node:module'
import type NegotiatorClass from 'negotiator'

/** What an `Accept` value allows. */
export interface Acceptable {
  readonly json: boolean
  readonly eventStream: boolean
}

// both are UTF-8 (an event stream always is), so a range naming charset=utf-8 matches them
const JSON_TYPE = 'application/json; charset=utf-8'
const EVENT_STREAM_TYPE = 'text/event-stream; charset=utf-8'
const OFFERED = [JSON_TYPE, EVENT_STREAM_TYPE] as const

/** The value MCP clients send (the spec's "MUST"): its verdict without a parse or a lookup. */
const COMMON = 'application/json, text/event-stream'

/** The four verdicts, by `json + 2 * eventStream`: no object per request. */
const VERDICTS: readonly Acceptable[] = [
  Object.freeze({ json: false, eventStream: false }),
  Object.freeze({ json: true, eventStream: false }),
  Object.freeze({ json: false, eventStream: true }),
  Object.freeze({ json: true, eventStream: true })
]
const NOTHING = VERDICTS[0]!
const ANYTHING = VERDICTS[3]!

/**
 * The longest value read. Clients send far shorter ones (a browser's is about 135 characters), and
 * `negotiator` takes microseconds per range and offered type: a 16 KiB value of `a/b,` ranges cost
 * milliseconds of the event loop, where the substring checks it replaced cost 60 µs.
 */
const LONGEST = 512

/** How many other values keep their verdict (with LONGEST, at most 32 KiB of strings). */
const CACHED = 64
const verdicts = new Map<string, Acceptable>()

let Negotiator: typeof NegotiatorClass | undefined

/** The negotiation itself, uncached. */
export function negotiate (accept: string): Acceptable {
  Negotiator ??= createRequire(import.meta.url)('negotiator') as typeof NegotiatorClass
  const types = new Negotiator({ headers: { accept } }).mediaTypes(OFFERED)
  return VERDICTS[(types.includes(JSON_TYPE) ? 1 : 0) + (types.includes(EVENT_STREAM_TYPE) ? 2 : 0)]!
}

/** What `accept` (a request's `Accept`, undefined when absent) allows. */
export function acceptable (accept: string | undefined): Acceptable {
  if (accept === undefined || accept === COMMON) return ANYTHING
  if (accept.length > LONGEST) return NOTHING
  let verdict = verdicts.get(accept)
  if (verdict === undefined) {
    verdict = negotiate(accept)
    // the oldest goes first: a flood of distinct values costs each its parse, as without a cache
    if (verdicts.size === CACHED) verdicts.delete(verdicts.keys().next().value!)
    verdicts.set(accept, verdict)
  }
  return verdict
}
