/**
 * fastify-sake: serve the Model Context Protocol from a Fastify service.
 *
 * The plugin wires options to the pieces that do the work: the registry (tools), the session
 * store (2025 clients), and the endpoint's routes, which live in their own encapsulated context.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { TProperties, TSchema } from '@sinclair/typebox'
import { resolveOptions, type SakeOptions } from './options.js'
import { Registry, type ServerInfo } from './registry.js'
import { MemorySessionStore } from './state/memory-session-store.js'
import { routes } from './http/routes.js'
import { SakeOptionError } from './errors.js'
import type { ServerState } from './protocol/dispatch.js'
import type {
  ArgsToolDefinition, DefinedTool, JsonSchemaToolDefinition, OutputSpec, SchemaToolDefinition, ToolDefinition
} from './define/tool.js'

/** Registers one tool or several; typed so `execute` sees its arguments as declared. */
export interface RegisterTool {
  <const A extends TProperties = {}, const O extends OutputSpec | undefined = undefined>(definition: ArgsToolDefinition<A, O>): void
  <I extends TSchema, const O extends OutputSpec | undefined = undefined>(definition: SchemaToolDefinition<I, O>): void
  <const O extends OutputSpec | undefined = undefined>(definition: JsonSchemaToolDefinition<O>): void
  (definitions: DefinedTool | readonly DefinedTool[]): void
}

/** A tool as listed to clients (the modern `Tool` object). */
export type ToolInfo = Readonly<Record<string, unknown>> & { readonly name: string }

/** The read-only view of this MCP server on the Fastify instance: `app.mcp`. */
export interface McpView {
  readonly info: Readonly<ServerInfo>
  /** The endpoint path. */
  readonly path: string
  /** The registered tools, by name. */
  readonly tools: ReadonlyMap<string, ToolInfo>
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Registers MCP tools on the server this plugin serves at its `path`. */
    registerTool: RegisterTool
    /** The MCP server registered in this context. */
    mcp: McpView
  }
}

/** A live, read-only window on the registry's tools. */
class ToolsView implements ReadonlyMap<string, ToolInfo> {
  constructor (private readonly registry: Registry) {}
  get size (): number { return this.registry.tools.size }
  get (name: string): ToolInfo | undefined { return this.registry.tools.get(name)?.wire.modern as ToolInfo | undefined }
  has (name: string): boolean { return this.registry.tools.has(name) }
  * entries (): MapIterator<[string, ToolInfo]> { for (const [name, tool] of this.registry.tools) yield [name, tool.wire.modern as ToolInfo] }
  keys (): MapIterator<string> { return this.registry.tools.keys() }
  * values (): MapIterator<ToolInfo> { for (const tool of this.registry.tools.values()) yield tool.wire.modern as ToolInfo }
  forEach (fn: (value: ToolInfo, key: string, map: ReadonlyMap<string, ToolInfo>) => void): void { for (const [k, v] of this.entries()) fn(v, k, this) }
  [Symbol.iterator] (): MapIterator<[string, ToolInfo]> { return this.entries() }
}

async function sake (app: FastifyInstance, rawOptions: SakeOptions): Promise<void> {
  const options = resolveOptions(rawOptions)
  if (app.hasDecorator('registerTool') || app.hasDecorator('mcp')) {
    throw new SakeOptionError('fastify-sake: an MCP server is already registered in this context or a parent of it; register each server in its own sibling context: app.register(async (child) => { await child.register(sake, {...}) })')
  }

  const registry = new Registry({ info: options.info, ttl: options.ttl, pageSize: options.pageSize })
  const sessions = options.sessions.store ?? new MemorySessionStore(options.sessions)
  const state: ServerState = { registry, instructions: options.instructions, discover: undefined }

  const registerTool = (definition: ToolDefinition | readonly ToolDefinition[]): void => {
    if (Array.isArray(definition)) {
      for (const one of definition) registry.addTool(one)
    } else {
      registry.addTool(definition as ToolDefinition)
    }
  }
  registerTool(options.tools)

  app.decorate('registerTool', registerTool as RegisterTool)
  app.decorate('mcp', Object.freeze({ info: options.info, path: options.path, tools: new ToolsView(registry) }))

  app.addHook('onReady', async () => {
    registry.seal()
  })
  app.addHook('onClose', async () => {
    // only what we made: a store the user passed in is theirs to close
    if (options.sessions.store === undefined) await sessions.close?.()
  })

  await app.register(routes, { endpoint: { state, sessions, keepAlive: options.keepAlive }, path: options.path, bodyLimit: options.bodyLimit })
}

/** The plugin. `await app.register(sake, { name, version })` */
const plugin = fp(sake, { name: 'fastify-sake', fastify: '5.x' })
export default plugin
export { plugin as sake }

export { Type, type Static, type TSchema } from '@sinclair/typebox'
export { defineTool, StringEnum } from './define/tool.js'
export type {
  ToolDefinition, DefinedTool, ToolContext, ToolAnnotations, ClientInfo, OutputSpec, OutputOf, ToolReturn,
  ArgsToolDefinition, SchemaToolDefinition, JsonSchemaToolDefinition
} from './define/tool.js'
export { text, image, audio, resource, resourceLink } from './define/content.js'
export type { ContentBlock, TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink, ContentAnnotations, Icon } from './define/content.js'
export { withMeta, toolError } from './define/result.js'
export type { WithMeta, ToolErrorResult, CallToolResult } from './define/result.js'
export {
  SakeError, SakeOptionError, SakeToolDefinitionError, SakeHeaderDefinitionError, SakeDuplicateToolError,
  SakeRegisterAfterReadyError, ProtocolError, ToolError, errorCodes
} from './errors.js'
export type { SakeOptions, SessionOptions } from './options.js'
export type { Session, SessionStore } from './state/session-store.js'
export { MemorySessionStore } from './state/memory-session-store.js'
export type { ServerInfo } from './registry.js'
export { SUPPORTED_VERSIONS, MODERN_VERSIONS, LEGACY_VERSIONS, type Era } from './protocol/eras.js'
