/**
 * The app's scope catalogue, `mcpScopes(app)`: every scope the MCP servers of one Fastify app
 * declare, whichever context each is registered in, with what needs it on each server. `app.mcp.scopes()`
 * is one server's part; a consent page (and an authorization server's list of scopes) is the app's.
 */
import type { FastifyInstance } from 'fastify'
import { SakeOptionError } from '../errors.js'
import type { Registry } from '../define/registry.js'
import { got } from '../checks.js'
import { perApp } from './per-app.js'
import { scopeList } from './scopes.js'

/** One scope of the app: what it is for, and the servers that declare it. */
export interface AppScopeInfo {
  readonly scope: string
  readonly description: string
  /** Every server that declares it, in registration order, with what needs it there. */
  readonly servers: readonly ServerScopeInfo[]
}

/** A scope on one server: which server, and what needs it there. */
export interface ServerScopeInfo {
  /** The server's `name` (its `serverInfo`). */
  readonly name: string
  /** Its endpoint's full path, as its `app.mcp.path` gives it (`/a/mcp` under a `/a` prefix). */
  readonly path: string
  /** Its `auth.resource` (the audience of its tokens); null with auth off, where no scope is checked. */
  readonly resource: string | null
  /** Tools that need the scope, by name. */
  readonly tools: readonly string[]
  /** Resources and resource templates that need it, by URI or URI template. */
  readonly resources: readonly string[]
  /** Prompts that need it, by name. */
  readonly prompts: readonly string[]
}

/** A server as the catalogue reads it: its registry is live, so tools registered later count. */
export interface CatalogueEntry {
  readonly name: string
  readonly path: string
  readonly resource: string | null
  readonly registry: Registry
  readonly scopes: ReadonlyMap<string, string>
}

const serversOf = perApp<CatalogueEntry[]>(() => [])

/**
 * Adds a server to its app's catalogue, at registration. A scope that another server of the app
 * describes otherwise is refused: a scope token is one permission at the authorization server, and
 * a consent page shows it once, with one description.
 */
export function addToCatalogue (app: FastifyInstance, server: CatalogueEntry): void {
  const servers = serversOf(app)
  for (const [scope, description] of server.scopes) {
    const other = servers.find((one) => one.scopes.has(scope) && one.scopes.get(scope) !== description)
    if (other !== undefined) {
      throw new SakeOptionError(`fastify-sake: option 'scopes' describes ${JSON.stringify(scope)} as ${JSON.stringify(description)}, but the MCP server at ${other.path} in this app describes it as ${JSON.stringify(other.scopes.get(scope))}: a scope is one permission of the app, shown once on a consent page; give it the same description on both servers, or this one another scope name`)
    }
  }
  servers.push(server)
}

/**
 * Every scope the app's MCP servers declare, in the order they were first declared (servers in
 * registration order), each with its description and, per server, what needs it. Pass the app, or
 * any context of it (`request.server` in a handler): the catalogue is the whole app's. Complete once
 * the app is ready; before, it holds the servers and definitions registered so far.
 */
export function mcpScopes (app: FastifyInstance): AppScopeInfo[] {
  if (typeof app?.initialConfig !== 'object') {
    throw new TypeError(`fastify-sake: mcpScopes takes the Fastify instance (the app, or any context of it such as request.server), got ${got(app)}`)
  }
  const scopes = new Map<string, { scope: string, description: string, servers: ServerScopeInfo[] }>()
  for (const server of serversOf(app)) {
    for (const { scope, description, tools, resources, prompts } of scopeList(server.registry, server.scopes)) {
      let entry = scopes.get(scope)
      if (entry === undefined) {
        entry = { scope, description, servers: [] }
        scopes.set(scope, entry)
      }
      entry.servers.push(Object.freeze({ name: server.name, path: server.path, resource: server.resource, tools, resources, prompts }))
    }
  }
  return [...scopes.values()].map((entry) => Object.freeze({ ...entry, servers: Object.freeze(entry.servers) }))
}
