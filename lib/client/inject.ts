/**
 * The `{ app }` transport: a `fetch` over `app.inject`, so an in-process client runs exactly the
 * code an HTTP one runs. The response is streamed (`payloadAsStream`): a call's event stream
 * arrives event by event, and a 2025 question on it can be answered while the call waits.
 */
import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { FetchLike } from './client-options.js'

/** Statuses whose response has no body (a `Response` refuses one). */
const NO_BODY = new Set([101, 204, 205, 304])

/** A `fetch` that sends every request to `app` through `inject`, whatever host the URL names. */
export function injectFetch (app: FastifyInstance): FetchLike {
  return async (url, init) => {
    const { pathname, search } = new URL(url)
    const res = await app.inject({
      method: init.method as 'POST',
      url: pathname + search,
      headers: init.headers,
      ...(init.body === undefined ? {} : { payload: init.body }),
      ...(init.signal === undefined ? {} : { signal: init.signal }),
      payloadAsStream: true
    })
    const headers = new Headers()
    for (const [name, value] of Object.entries(res.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v)
      else if (value !== undefined) headers.set(name, String(value))
    }
    const stream = res.stream()
    if (NO_BODY.has(res.statusCode)) {
      stream.resume()
      return new Response(null, { status: res.statusCode, headers })
    }
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status: res.statusCode, headers })
  }
}
