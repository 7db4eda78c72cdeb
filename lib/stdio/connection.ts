/**
 * The stdio transport (issue 32): one client on a pair of byte streams, the process's stdin and
 * stdout (or a socket's two ends), newline-delimited JSON-RPC in both directions. Written against
 * the protocol core's transport seam (docs/architecture.md, "Transports"), with no Fastify: each
 * line is classified (`classify`), made a call from plain values (`modernCall`, `sessionCall`) and
 * dispatched, so the same tools, resources, prompts, skills and tasks answer with the same
 * validation and errors as over HTTP. What stays here is what stdio makes different:
 *
 * - both eras on one pair of streams: a message with the 2026-07-28 `_meta` is served statelessly,
 *   and `initialize` opens the process's one 2025 session, which every later 2025 message belongs
 *   to (there is no session id on the wire: `session.ts`);
 * - one channel for everything (`output.ts`): a call's progress and log messages, a 2025 call's
 *   questions to the client, the session's list changes and resource updates, and each 2026-07-28
 *   `subscriptions/listen`'s notifications (tagged with its id: `listens.ts`) all go out on it, as
 *   lines;
 * - cancellation is `notifications/cancelled` in both eras (no stream to close), and a request id
 *   names one request until it is answered (`requests.ts`);
 * - authorization: none unless the host names the caller (`caller`); then every call is checked as
 *   over HTTP, and a refusal is the JSON-RPC error alone (there is no challenge to send);
 * - the end: the input ending (the client's way to shut a server down) aborts the calls in flight,
 *   writes what they still answer, and ends the session.
 *
 * This file reads the lines (a message, a batch, or the error that answers one), hands each
 * message to what handles it, and ends the connection.
 */
import { RefusedBodyError, type ProtocolError } from '../errors.js'
import { LEGACY_VERSIONS } from '../spec/eras.js'
import { CLIENT_NOTIFICATIONS } from '../spec/methods.js'
import { LineSplitter } from '../spec/lines.js'
import { classify, type Inbound, type InboundRequest } from '../protocol/inbound.js'
import { parseMessage } from '../protocol/parse.js'
import { Listens } from './listens.js'
import { StdioOutput, errorText, invalidRequest } from './output.js'
import { Requests } from './requests.js'
import { StdioSession } from './session.js'
import type { StdioSettings } from './settings.js'

/** The input ended or closed before this call answered. */
const INPUT_ENDED = 'the client closed its input (stdin)'
/** `app.close()` came before this call answered, and closeTimeout passed. */
const CLOSED_UNDER_CALL = 'the server closed before the call finished'
/** After the calls still running were told to stop, how long they get to answer, in ms. */
const AFTER_ABORT = 1000

export class StdioConnection {
  private readonly output: StdioOutput
  private readonly session: StdioSession
  private readonly listens: Listens
  private readonly requests: Requests
  /** The answers still to come, for the close to wait for. */
  private readonly answers = new Set<Promise<void>>()
  private readonly lines: LineSplitter
  /** Messages are taken until the input ended or the server began to close. */
  private open = true
  private ending: Promise<void> | undefined
  private endedResolve!: () => void
  private closedResolve!: () => void
  /** Settles once the input ended and what it sent was answered: the client is done. */
  readonly ended: Promise<void>
  /** Settles once the connection closed, whichever end closed it. */
  readonly closed: Promise<void>

  constructor (private readonly settings: StdioSettings) {
    // who calls, as quotas count it: the host's `caller` when it named one, else the process's owner
    const caller = settings.auth === undefined ? 'stdio' : `sub:${settings.auth.subject}`
    this.output = new StdioOutput(settings)
    this.session = new StdioSession(settings, caller, this.output)
    this.listens = new Listens(settings, caller, this.output)
    this.requests = new Requests(settings, caller, this.output, this.session, this.listens)
    const limit = settings.lineLimit
    this.lines = new LineSplitter(limit, {
      line: (text) => { this.receive(text) },
      overlong: (bytes) => {
        this.refuse(`a message of ${bytes} bytes is over this server's limit of ${limit} bytes (bodyLimit)`)
      }
    })
    this.ended = new Promise((resolve) => { this.endedResolve = resolve })
    this.closed = new Promise((resolve) => { this.closedResolve = resolve })
  }

  /** Takes the bytes of the input stream; `end`: it ended (or failed: the client is gone either way). */
  data (chunk: Buffer): void {
    if (this.open) this.lines.push(chunk)
  }

  /** The input ended: its last line is still a message; then the calls in flight are stopped and answered. */
  inputEnded (): void {
    if (!this.open) return
    this.lines.end()
    this.settings.log.debug('fastify-sake: stdio input ended; stopping the calls in flight')
    void this.finish(INPUT_ENDED, 0).then(this.endedResolve)
  }

  /**
   * The server is closing (`app.close()`): no new messages are taken, every listen ends with its
   * final response, the calls in flight get `closeTimeout` ms to answer before their `ctx.signal`
   * aborts, and the session ends.
   */
  async close (): Promise<void> {
    this.listens.respond()
    await this.finish(CLOSED_UNDER_CALL, this.settings.closeTimeout)
  }

  private async finish (why: string, wait: number): Promise<void> {
    this.ending ??= this.stop(why, wait)
    await this.ending
  }

  private async stop (why: string, wait: number): Promise<void> {
    this.open = false
    this.listens.endAll()
    if (this.answers.size > 0 && wait > 0) await settled(this.answers, wait)
    this.requests.stop(why)
    if (this.answers.size > 0) await settled(this.answers, AFTER_ABORT)
    await this.session.end()
    this.output.closed = true
    this.closedResolve()
  }

  /** One line: a message (or a 2025-03-26 batch), or the error that answers it. */
  private receive (line: string): void {
    let body: unknown
    try {
      body = parseMessage(line)
    } catch (err) {
      this.output.send(errorText(err instanceof RefusedBodyError ? err.id : null, err as ProtocolError))
      return
    }
    if (Array.isArray(body)) {
      this.pending(this.batch(body))
      return
    }
    const inbound = classify(this.settings.server.registry, body, this.session.known?.id, undefined)
    if (inbound.refusal !== undefined) {
      this.output.send(errorText(inbound.id ?? null, inbound.refusal))
      return
    }
    if (inbound.kind === 'response') this.pending(this.session.answered(inbound))
    else if (inbound.kind === 'notification') this.pending(this.notified(inbound))
    else {
      this.pending(this.requests.request(inbound as InboundRequest)
        .then((answer) => { if (answer !== undefined) this.output.send(answer) }))
    }
  }

  /** Keeps an answer still to come, for the close to wait for; a failure here is our bug, logged. */
  private pending (work: Promise<void>): void {
    const { log } = this.settings
    /* c8 ignore next -- every step answers its own failures: one that throws is our bug, logged, not left unhandled */
    const tracked = work.catch((err) => log.error({ err }, 'fastify-sake: unexpected error in the stdio transport'))
    this.answers.add(tracked)
    void tracked.finally(() => this.answers.delete(tracked))
  }

  /** Writes a `-32600` refusal of a message whose id is not read (a line too long, a batch). */
  private refuse (what: string): void {
    this.output.send(errorText(null, invalidRequest(what)))
  }

  /** A client notification: a cancel (both eras, the only way to cancel over stdio), or one of the session's. */
  private async notified (inbound: Inbound): Promise<void> {
    const { method, params } = inbound
    if (method === CLIENT_NOTIFICATIONS.cancelled) this.requests.cancel(params?.requestId, params?.reason)
    else if (inbound.era === 'legacy') await this.session.notified(inbound)
  }

  /**
   * A JSON-RPC batch: only a 2025-03-26 session may send one. Each item is taken in order, and the
   * requests' answers go out together, as one array, once all are in.
   */
  private async batch (items: unknown[]): Promise<void> {
    const session = this.session.known
    if (session === undefined || session.protocolVersion !== LEGACY_VERSIONS[2]) {
      this.refuse('JSON-RPC batches (arrays) are only allowed in 2025-03-26 sessions; send one message per line')
      return
    }
    if (items.length === 0) {
      this.refuse('the batch is empty')
      return
    }
    const most = this.settings.maxBatchItems
    if (items.length > most) {
      this.refuse(`the batch holds ${items.length} messages, more than maxBatchItems (${most}) allows; ` +
        'send fewer at a time')
      return
    }
    const answers: Array<Promise<string | undefined>> = []
    for (const item of items) {
      const inbound = classify(this.settings.server.registry, item, session.id, undefined)
      if (inbound.refusal !== undefined) answers.push(Promise.resolve(errorText(inbound.id ?? null, inbound.refusal)))
      else if (inbound.kind === 'request') answers.push(this.requests.request(inbound as InboundRequest))
      else if (inbound.kind === 'response') await this.session.answered(inbound)
      else await this.notified(inbound)
    }
    const texts = (await Promise.all(answers)).filter((text) => text !== undefined)
    if (texts.length > 0) this.output.send(`[${texts.join(',')}]`)
  }
}

/** Settles when every promise of `pending` has, or after `ms`. */
async function settled (pending: ReadonlySet<Promise<void>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<void>((resolve) => { timer = setTimeout(resolve, ms) })
  await Promise.race([Promise.allSettled([...pending]), timeout])
  clearTimeout(timer)
}
