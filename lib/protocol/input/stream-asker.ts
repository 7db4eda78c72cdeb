/**
 * 2025 sessions: a question goes out as a JSON-RPC request on the call's event stream (opened on
 * demand for a call that answered JSON so far) and is awaited until the client POSTs its response.
 */
import { ClientInputError } from '../../errors.js'
import { META_INPUT_KEY } from '../../spec/meta-keys.js'
import { isObject } from '../../values.js'
import type { Call } from '../call.js'
import { askOnce, type Asker, type InputMethod, type InputRequest } from './asker.js'

/** The 2025 asker: one request per key (asked again, the same answer), on the call's stream. */
export class StreamAsker implements Asker {
  private readonly asked = new Map<string, Promise<unknown>>()

  constructor (private readonly call: Call, private readonly timeout: number, private readonly signal: () => AbortSignal) {}

  async ask (key: string, request: InputRequest): Promise<unknown> {
    return askOnce(this.asked, key, async () => this.send(key, request))
  }

  private async send (key: string, request: InputRequest): Promise<unknown> {
    const channel = this.call.channel ?? this.call.openStream?.()
    // no event stream to ask on (a batch, or a client that does not accept one)
    if (channel?.request === undefined) return undefined
    const params = { ...request.params, _meta: { [META_INPUT_KEY]: key } }
    const answer = await channel.request(request.method, params, { timeout: this.timeout, signal: this.signal(), key })
    if ('error' in answer) {
      throw new ClientInputError(key, request.method, 'error', `the client answered ${request.method} ('${key}') with error ${answer.error.code}: ${answer.error.message}`)
    }
    const { result } = answer
    // an answer naming its key must name this one; one naming none answers what its id asked
    const named = isObject(result) && isObject(result._meta) ? result._meta[META_INPUT_KEY] : undefined
    if (named !== undefined && named !== key) this.invalid(key, request.method, `it answers key ${JSON.stringify(named)}`)
    return result
  }

  invalid (key: string, method: InputMethod, problem: string): never {
    throw new ClientInputError(key, method, 'invalid', `the client's answer to ${method} ('${key}') is not valid: ${problem}`)
  }
}
