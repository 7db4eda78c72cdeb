/**
 * A rolling deploy: no new requests, calls in flight finish within closeTimeout, open streams are
 * handed over or ended (they would hold server.close() forever), tasks finish or fail; then the
 * stores the plugin made close. Nothing in preClose waits: the host's own preClose hooks run next,
 * then Fastify's server.close() waits for the requests in flight, which the bound started here ends.
 */
import type { FastifyInstance } from 'fastify'
import type { ResolvedOptions } from '../options/server.js'
import type { StdioTransport } from '../stdio/transport.js'
import type { Parts } from './parts.js'

export function closeWithApp (app: FastifyInstance, options: ResolvedOptions, parts: Parts,
  stdioOpen: ReadonlySet<StdioTransport>): void {
  const { shutdown, streams, legacy, server, fleet, stores } = parts
  let tasksClosed: Promise<void> = Promise.resolve()
  let stdioClosed: Promise<unknown> = Promise.resolve()
  app.addHook('preClose', async () => {
    shutdown.draining = true
    shutdown.closing = true
    // in a fleet a resumable stream's events are in the shared store: its client resumes on another
    // instance (retry:, then the connection closes) while the call finishes here
    if (options.redis !== undefined) streams.handOver(shutdown.retryMs)
    // alone, an answer to a question could only come here, which now refuses it: they end at once;
    // in a fleet the answer reaches another instance, which leaves it in this one's inbox
    else legacy.close()
    streams.close(shutdown.retryMs)
    shutdown.begin(options.closeTimeout, app.log)
    // stdio connections: no new messages, listens end, calls in flight within closeTimeout (not awaited here either)
    stdioClosed = Promise.all([...stdioOpen].map(async (transport) => { await transport.close() }))
    // tasks in a store that outlives this process may finish within tasks.closeTimeout
    tasksClosed = server.tasks.close(options.redis !== undefined || options.tasks.store !== undefined)
  })
  app.addHook('onClose', async () => {
    // calls whose connection is gone (a resumable 2025 call) and tasks: within their bounds
    await Promise.all([shutdown.settled, tasksClosed, stdioClosed])
    // and the answers those calls pushed to their resumable streams, written to the store before it
    // closes (a call bound by closeTimeout has answered by now: this is the write, bounded the same)
    await written(streams.calls.written(), options.closeTimeout)
    // questions still waiting for a 2025 client's answer end now (their calls were told to stop)
    legacy.close()
    legacy.cancellations.close()
    await fleet.stop()
    await stores.close()
    // stdout is the process's again
    for (const transport of stdioOpen) transport.release()
  })
}

/** `writes`, or `timeout` ms, whichever comes first: a store that hangs does not hold the close. */
async function written (writes: Promise<void>, timeout: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([writes, new Promise<void>((resolve) => { timer = setTimeout(resolve, timeout) })])
  clearTimeout(timer)
}
