/**
 * Stdio connections (lib/stdio/): the same server to a local host that started the process.
 * `open` is `app.mcp.stdio`; the transports it opened close with the app (closing.ts).
 */
import type { FastifyInstance } from 'fastify'
import type { ResolvedOptions } from '../options/server.js'
import { resolveStdioOptions, type StdioOptions } from '../options/stdio.js'
import type { StdioHandle, StdioTransport } from '../stdio/transport.js'
import type { Parts } from './parts.js'

export function stdioConnections (app: FastifyInstance, options: ResolvedOptions, parts: Parts):
{ open: (given?: StdioOptions) => Promise<StdioHandle>, transports: Set<StdioTransport> } {
  const transports = new Set<StdioTransport>()
  const open = async (given?: StdioOptions): Promise<StdioHandle> => {
    const { input, output, caller, closeOnEnd } = resolveStdioOptions(given)
    // loaded with the first stdio connection (a server over HTTP alone never loads lib/stdio/), before
    // ready: from ready on, stdout is held in the same turn, so nothing else writes to it in between
    const { StdioTransport } = await import('../stdio/transport.js')
    await app.ready()
    const transport = new StdioTransport({
      server: parts.server,
      sessions: parts.legacy,
      bus: parts.stores.bus,
      log: app.log,
      logRequests: app.initialConfig.disableRequestLogging !== true,
      auth: caller,
      lineLimit: options.bodyLimit,
      closeTimeout: options.closeTimeout,
      streams: parts.streamQuota,
      maxBatchItems: options.maxBatchItems,
      maxBuffered: options.streams.maxBuffered
    }, { input, output, logger: app.log })
    transports.add(transport)
    // the client closed stdin: it is done with this process, which may now exit
    if (closeOnEnd) void transport.inputEnded.then(async () => { if (!parts.shutdown.closing) await app.close() })
    return transport
  }
  return { open, transports }
}
