/**
 * fastify-sake: serve the Model Context Protocol from a Fastify service.
 *
 * The plugin wires options to the pieces that do the work: the registry (tools), the session
 * store (2025 clients), and the endpoint's routes, which live in their own encapsulated context.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Static, TObject, TProperties, TSchema } from '@sinclair/typebox'
import { resolveOptions, type SakeOptions } from './options.js'
import { Registry, type ServerInfo } from './registry.js'
import { MemorySessionStore } from './state/memory-session-store.js'
import { MemoryBus } from './state/memory-bus.js'
import { MemoryEventStore } from './state/memory-event-store.js'
import { LIST_NAMES, type ListName } from './state/bus.js'
import { Streams } from './http/streams.js'
import { WireView } from './views.js'
import { routes } from './http/routes.js'
import { SakeOptionError } from './errors.js'
import { metadataRoutes } from './auth/metadata.js'
import { scopeList, type ScopeInfo } from './auth/scopes.js'
import type { AuthInfo } from './protocol/auth-info.js'
import type { ServerState } from './protocol/dispatch.js'
import type {
  ArgsToolDefinition, DefinedTool, JsonSchemaToolDefinition, OutputSpec, SchemaToolDefinition, ToolDefinition
} from './define/tool.js'
import type { FixedResourceDefinition, ResourceDefinition, TemplateResourceDefinition } from './define/resource.js'
import type { DefinedPrompt, PromptArguments, PromptDefinition, TypedPromptDefinition } from './define/prompt.js'

/** Registers one resource (or template) or several; a template's `read` gets its variables typed. */
export interface RegisterResource {
  <const T extends string>(definition: TemplateResourceDefinition<T>): void
  (definition: FixedResourceDefinition): void
  (definitions: ResourceDefinition | readonly ResourceDefinition[]): void
}

/** Registers one prompt or several; typed so `get` sees its arguments as declared. */
export interface RegisterPrompt {
  <const A extends PromptArguments = {}>(definition: TypedPromptDefinition<A>): void
  (definitions: DefinedPrompt | readonly DefinedPrompt[]): void
}

/** A resource, resource template or prompt as listed to clients. */
export type ListedInfo = Readonly<Record<string, unknown>> & { readonly name: string }

/** Registers one tool or several; typed so `execute` sees its arguments as declared. */
export interface RegisterTool {
  <const A extends TProperties = {}, const O extends OutputSpec | undefined = undefined, P = Static<TObject<A>>>(definition: ArgsToolDefinition<A, O, P>): void
  <I extends TSchema, const O extends OutputSpec | undefined = undefined, P = Static<I>>(definition: SchemaToolDefinition<I, O, P>): void
  <const O extends OutputSpec | undefined = undefined, P = Record<string, unknown>>(definition: JsonSchemaToolDefinition<O, P>): void
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
  /** The fixed resources, by URI, as `resources/list` sends them. */
  readonly resources: ReadonlyMap<string, ListedInfo>
  /** The resource templates, by URI template, as `resources/templates/list` sends them. */
  readonly templates: ReadonlyMap<string, ListedInfo>
  /** The prompts, by name, as `prompts/list` sends them. */
  readonly prompts: ReadonlyMap<string, ListedInfo>
  /**
   * Tells subscribed clients that a list changed: `notifications/{list}/list_changed` on 2025 GET
   * streams and on 2026-07-28 listens that opted in. Resolves once the bus took the event.
   */
  listChanged (list: ListName): Promise<void>
  /** Tells clients subscribed to `uri` that the resource changed (`notifications/resources/updated`). */
  resourceUpdated (uri: string): Promise<void>
  /** Every declared scope with its description and what needs it, for a consent page (`scopes_supported` lists the same). */
  scopes (): ScopeInfo[]
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Registers MCP tools on the server this plugin serves at its `path`. */
    registerTool: RegisterTool
    /** Registers MCP resources and resource templates on this server. */
    registerResource: RegisterResource
    /** Registers MCP prompts on this server. */
    registerPrompt: RegisterPrompt
    /** The MCP server registered in this context. */
    mcp: McpView
  }
  interface FastifyRequest {
    /**
     * The verified caller on fastify-sake's routes when `auth` is on (`ctx.auth` in handlers);
     * null when auth is off, and on the host's other routes.
     */
    mcpAuth: AuthInfo | null
  }
}

async function sake (app: FastifyInstance, rawOptions: SakeOptions): Promise<void> {
  const options = resolveOptions(rawOptions)
  if (app.hasDecorator('registerTool') || app.hasDecorator('mcp')) {
    throw new SakeOptionError('fastify-sake: an MCP server is already registered in this context or a parent of it; register each server in its own sibling context: app.register(async (child) => { await child.register(sake, {...}) })')
  }

  const registry = new Registry({ info: options.info, ttl: options.ttl, pageSize: options.pageSize, scopes: options.scopes, hideForbidden: options.auth?.hideForbidden, metadataUrl: options.auth?.metadataUrl })
  const sessions = options.sessions.store ?? new MemorySessionStore(options.sessions)
  const state: ServerState = {
    registry,
    instructions: options.instructions,
    discover: undefined,
    sessions,
    input: { sealer: options.sealer, timeout: options.inputTimeout }
  }
  if (options.sealer.ephemeral) {
    app.log.warn('fastify-sake: requestState is sealed with a random key of this process: a 2026-07-28 call that asks the client something (ctx.elicit, ctx.sample, ctx.roots) fails its retry on another instance or after a restart. Behind a load balancer, give every instance the same requestState.keys')
  }
  const bus = options.bus ?? new MemoryBus()
  const events = options.events.store ?? new MemoryEventStore(options.events)
  const streams = new Streams({ bus, events, sessions, keepAlive: options.keepAlive })
  const listChanged = async (list: ListName): Promise<void> => {
    if (!LIST_NAMES.includes(list)) throw new TypeError(`fastify-sake: app.mcp.listChanged takes 'tools', 'resources' or 'prompts', got ${JSON.stringify(list)}`)
    await bus.publish({ type: 'listChanged', list })
  }
  const resourceUpdated = async (uri: string): Promise<void> => {
    if (typeof uri !== 'string' || uri.length === 0) throw new TypeError(`fastify-sake: app.mcp.resourceUpdated takes the resource's URI, a non-empty string, got ${JSON.stringify(uri)}`)
    await bus.publish({ type: 'resourceUpdated', uri })
  }

  // an array registers all or none: a mistake in one definition leaves the server as it was
  const registerTool = (definition: ToolDefinition | readonly ToolDefinition[]): void => {
    registry.all(Array.isArray(definition) ? definition : [definition], (one) => registry.addTool(one))
  }
  registerTool(options.tools)
  const registerResource = (definition: ResourceDefinition | readonly ResourceDefinition[]): void => {
    registry.all(Array.isArray(definition) ? definition : [definition], (one) => registry.addResource(one))
  }
  const registerPrompt = (definition: PromptDefinition | readonly PromptDefinition[]): void => {
    registry.all(Array.isArray(definition) ? definition : [definition], (one) => registry.addPrompt(one))
  }
  registerResource(options.resources)
  registerPrompt(options.prompts)

  app.decorate('registerTool', registerTool as RegisterTool)
  app.decorate('registerResource', registerResource as RegisterResource)
  app.decorate('registerPrompt', registerPrompt as RegisterPrompt)
  app.decorate('mcp', Object.freeze({
    info: options.info,
    path: options.path,
    tools: new WireView(registry.tools) as ReadonlyMap<string, ToolInfo>,
    resources: new WireView(registry.resources),
    templates: new WireView(registry.templates),
    prompts: new WireView(registry.prompts),
    listChanged,
    resourceUpdated,
    scopes: () => scopeList(registry, options.scopes)
  }))
  // null until the auth hook of our routes sets it (and always with auth off)
  app.decorateRequest('mcpAuth', null)
  if (options.auth !== undefined) metadataRoutes(app, options.auth, options.scopes, options.path)

  app.addHook('onReady', async () => {
    registry.seal()
  })
  // open streams would hold server.close() forever: end them first (listens get their final response)
  app.addHook('preClose', async () => {
    streams.close()
  })
  app.addHook('onClose', async () => {
    // only what we made: a store the user passed in is theirs to close
    if (options.sessions.store === undefined) await sessions.close?.()
    if (options.bus === undefined) await bus.close?.()
    if (options.events.store === undefined) await events.close?.()
  })

  await app.register(routes, { endpoint: { state, sessions, keepAlive: options.keepAlive, streams, auth: options.auth }, path: options.path, bodyLimit: options.bodyLimit, origin: options })
}

/** The plugin. `await app.register(sake, { name, version })` */
const plugin = fp(sake, { name: 'fastify-sake', fastify: '5.x' })
export default plugin
export { plugin as sake }

export { Type, type Static, type TSchema } from '@sinclair/typebox'
export { defineTool, StringEnum } from './define/tool.js'
export type {
  ToolDefinition, DefinedTool, ToolContext, ToolAnnotations, ClientInfo, OutputSpec, OutputOf, ToolReturn,
  ArgsToolDefinition, SchemaToolDefinition, JsonSchemaToolDefinition, Prepared
} from './define/tool.js'
export type {
  InputContext, Elicit, FormOutcome, FormContent, UrlOutcome, SampleOutcome, RootsOutcome, SamplingParams, SamplingMessage,
  SampledMessage, Root, Unsupported, Declined, Cancelled
} from './define/input.js'
export type { AuthInfo } from './protocol/auth-info.js'
export { RequestStateError } from './state/request-state.js'
export { text, image, audio, resource, resourceLink } from './define/content.js'
export type { ContentBlock, TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink, ContentAnnotations, Icon } from './define/content.js'
export { withMeta, toolError } from './define/result.js'
export { defineResource } from './define/resource.js'
export type {
  ResourceDefinition, FixedResourceDefinition, TemplateResourceDefinition, TemplateVariables, ResourceContents, ResourceReturn,
  ResourceAnnotations, RequestContext, CompletionContext, CompletionReturn
} from './define/resource.js'
export { definePrompt, userMessage, assistantMessage } from './define/prompt.js'
export type { PromptDefinition, TypedPromptDefinition, DefinedPrompt, PromptArgument, PromptArguments, PromptMessage, PromptReturn } from './define/prompt.js'
export type { WithMeta, ToolErrorResult, CallToolResult } from './define/result.js'
export {
  SakeError, SakeOptionError, SakeToolDefinitionError, SakeHeaderDefinitionError, SakeDuplicateToolError,
  SakeRegisterAfterReadyError, ProtocolError, ToolError, MissingCapabilityError, ClientInputError, errorCodes,
  SakeResourceDefinitionError, SakePromptDefinitionError, SakeDuplicateResourceError, SakeDuplicatePromptError,
  AuthorizationError, InsufficientScopeError
} from './errors.js'
export type { SakeOptions, SessionOptions, EventOptions, RequestStateOptions } from './options.js'
export type { AuthOptions, Caller, VerifyToken, AuthenticateHook, ScopesOption } from './auth/options.js'
export type { Authentication, ScopeRequirement } from './auth/access.js'
export type { ScopeInfo } from './auth/scopes.js'
export type { Session, SessionStore } from './state/session-store.js'
export type { Bus, BusEvent, BusListener, ListName } from './state/bus.js'
export type { EventStore, StoredEvent, Replay } from './state/event-store.js'
export { MemoryBus } from './state/memory-bus.js'
export { MemoryEventStore } from './state/memory-event-store.js'
export { MemorySessionStore } from './state/memory-session-store.js'
export type { ServerInfo } from './registry.js'
export { SUPPORTED_VERSIONS, MODERN_VERSIONS, LEGACY_VERSIONS, type Era } from './protocol/eras.js'
