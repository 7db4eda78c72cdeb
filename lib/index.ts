/**
 * fastify-sake: serve the Model Context Protocol from a Fastify service.
 *
 * The plugin wires options to the pieces that do the work, each made in lib/plugin/: the registry
 * (what is served), the protocol core's server and the stores (parts.ts, stores.ts), `app.mcp` and
 * the decorators (decorators.ts), stdio connections (stdio.ts), the close (closing.ts), and the
 * endpoint's routes, which live in their own encapsulated context.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { SakeOptionError } from './errors.js'
import { resolveOptions, type SakeOptions } from './options/server.js'
import { Registry } from './define/registry.js'
import { addToCatalogue } from './auth/catalogue.js'
import { underPrefix } from './auth/auth-options.js'
import { kMcpRoute, routes } from './http/routes.js'
import { collectRouteTools } from './http/route-tools/collect.js'
import { warnOnRequestTimeout } from './http/request-timeout.js'
import { Tracing, type OtelLoader } from './http/tracing.js'
import { openTelemetry } from './protocol/otel/api.js'
import { mcpView } from './mcp-view.js'
import { makeParts, requestStateSealer } from './plugin/parts.js'
import { decorate } from './plugin/decorators.js'
import { stdioConnections } from './plugin/stdio.js'
import { closeWithApp } from './plugin/closing.js'

async function sake (app: FastifyInstance, rawOptions: SakeOptions): Promise<void> {
  const options = resolveOptions(rawOptions)
  if (app.hasDecorator('registerTool') || app.hasDecorator('mcp')) {
    throw new SakeOptionError('fastify-sake: an MCP server is already registered in this context or a parent of it; register each server in its own sibling context: app.register(async (child) => { await child.register(sake, {...}) })')
  }
  const sealer = requestStateSealer(app, options)

  // under a Fastify prefix (the context's, and the register option's) every route of ours answers
  // below it: the endpoint and the metadata alike
  const prefix = app.prefix + options.prefix
  const path = prefix === '' || options.path !== '/' ? prefix + options.path : prefix
  const auth = options.auth === undefined ? undefined : underPrefix(options.auth, prefix)
  const registry = new Registry(options.scopes, { maxFileSize: options.skills.maxFileSize, directoryRead: options.skills.directoryRead })
  // the app's scope catalogue (mcpScopes), across its servers: a scope described otherwise elsewhere fails here
  addToCatalogue(app, { name: options.info.name, path, resource: auth?.resource ?? null, registry, scopes: options.scopes })
  const parts = await makeParts(app, options, registry, auth, sealer)
  const { server, shutdown } = parts
  const stdio = stdioConnections(app, options, parts)
  const lists = server.lists
  decorate(app, registry, options, mcpView({
    info: options.info, path, registry, bus: parts.stores.bus, scopes: options.scopes, shutdown, lists, stdio: stdio.open
  }))
  // routes declared from here on, in this context and the ones made after it, with config.mcp (http/route-tools/)
  collectRouteTools(app, { registry, ownRoutes: kMcpRoute })

  app.addHook('onReady', async () => {
    registry.seal()
    lists.build()
  })
  // Fastify's requestTimeout 0 (its default) on an address other machines reach: one warn line (docs/production.md)
  warnOnRequestTimeout(app)
  closeWithApp(app, options, parts, stdio.transports)

  // @opentelemetry/api is an optional peer, imported once something is registered with it (an SDK set
  // up): here when it already is, else at the first message after; absent, there are no spans and no metrics
  const tracing = new Tracing(options.tracing, undefined, undefined, options.tracing ? OTEL : undefined)
  await tracing.attach()
  const requestIdHeader = app.initialConfig.requestIdHeader
  const batch = { maxItems: options.maxBatchItems, inject: async (opts: InjectOptions) => await app.inject(opts), requestIdHeader: typeof requestIdHeader === 'string' ? requestIdHeader : undefined }
  const endpoint = { server, sessions: parts.legacy, streams: parts.streams, auth, tracing, shutdown, batch }
  // the routes in a context of their own, below the register option's prefix when there is one
  await app.register(routes, { prefix: options.prefix, endpoint, path: options.path, bodyLimit: options.bodyLimit, origin: options, routeOptions: options.routeOptions, openapi: options.openapi, scopes: options.scopes })
}

/** The api, and http/metrics.ts with it: a server whose process has no OpenTelemetry SDK loads neither. */
const OTEL: OtelLoader = {
  api: async () => await openTelemetry(),
  metrics: async (api) => new (await import('./http/metrics.js')).Metrics(api)
}

/** The plugin. `await app.register(sake, { name, version })` */
const plugin = fp(sake, { name: 'fastify-sake', fastify: '5.x' })
export default plugin
export { plugin as sake }

export { Type, type Static, type TSchema } from '@sinclair/typebox'
export { defineTool, StringEnum } from './define/tool-definition.js'
export type {
  ToolDefinition, DefinedTool, ToolAnnotations, OutputSpec, OutputOf, ToolReturn,
  ArgsToolDefinition, SchemaToolDefinition, JsonSchemaToolDefinition, Prepared, ArgumentName, ArgsOf
} from './define/tool-definition.js'
export type {
  AnySchema, SchemaMap, SchemaInput, SchemaOutput, StandardSchemaV1, StandardJsonSchemaV1, TypeBox1Schema
} from './define/schemas.js'
export type { RequestContext, ToolContext, CompletionContext } from './define/handler-context.js'
export type { AuthInfo, ClientInfo, ServerInfo } from './spec/types.js'
export type { LogLevel } from './spec/log-levels.js'
export type { RegisterTool, RegisterResource, RegisterPrompt, RegisterSkill, McpView, ToolInfo, ListedInfo } from './api.js'
export type { SkillChanges } from './define/registry.js'
export type { McpRequestInfo } from './http/request-info.js'
export type { McpConfig } from './define/config.js'
export type { McpRouteOptions } from './http/route-options.js'
export type { McpRouteConfig } from './http/route-tools/schema.js'
export { REQUEST_CHANNEL } from './http/tracing.js'
export type { McpRequestTrace } from './http/request-trace.js'
export type {
  InputContext, Elicit, FormOptions, FormOutcome, FormContent, UrlOutcome, SampleOutcome, RootsOutcome, SamplingParams, SamplingMessage,
  SampledMessage, Root, Unsupported, Declined, Cancelled
} from './define/input.js'
export { text, image, audio, resource, resourceLink } from './define/content.js'
export type { ContentBlock, TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink, ContentAnnotations, Icon } from './define/content.js'
export { withMeta, withText, toolError } from './define/result.js'
export { defineResource } from './define/resource.js'
export type {
  ResourceDefinition, FixedResourceDefinition, TemplateResourceDefinition, TemplateVariables, ResourceContents, ResourceReturn,
  ResourceAnnotations, CompletionReturn
} from './define/resource.js'
export { definePrompt, userMessage, assistantMessage } from './define/prompt.js'
export type { PromptDefinition, TypedPromptDefinition, DefinedPrompt, PromptArgument, PromptArguments, PromptMessage, PromptReturn } from './define/prompt.js'
export type { WithMeta, WithText, ToolErrorResult, CallToolResult } from './define/result.js'
export type { InlineUi, UiResourceMeta, UiCsp, UiPermissions, Visibility } from './define/apps.js'
export { APPS_EXTENSION, APP_MIME_TYPE } from './spec/apps.js'
export { TOOL_COMPLETION_EXTENSION } from './spec/completion.js'
export { mcpCors, type McpCorsOptions, type McpCorsRegistration } from './http/cors.js'
export { SKILLS_EXTENSION } from './spec/skills.js'
export type {
  SkillDefinition, SkillFilesDefinition, DynamicSkillDefinition, SkillDirectoryDefinition, SkillFrontmatter, SkillFileReturn, SkillFileEntry
} from './define/skill.js'
export {
  SakeError, SakeOptionError, SakeToolDefinitionError, SakeHeaderDefinitionError, SakeDuplicateToolError,
  SakeRegisterAfterReadyError, ProtocolError, ToolError, MissingCapabilityError, ClientInputError, errorCodes,
  SakeResourceDefinitionError, SakePromptDefinitionError, SakeDuplicateResourceError, SakeDuplicatePromptError,
  AuthorizationError, InsufficientScopeError, RequestStateError, SakeRouteToolError, StoreUnavailableError, ShuttingDownError, QuotaExceededError,
  SakeClientOptionError, SakeSkillDefinitionError
} from './errors.js'
export type { RequestStateRejection, RequestStateBindingPart, SakeErrorCode, QuotaLimit } from './errors.js'
// the client's errors, from the client's own file (the one import of lib/client/ the server side makes,
// .dependency-cruiser.mjs): the same classes as fastify-sake/client's, so instanceof works with either import
export {
  RpcError, AuthChallengeError, HttpError, UnansweredInputError, SkillVerificationError, ServerCapabilityError, ServerProcessError,
  type AuthChallenge, type SkillVerificationReason, type ServerProcessReason
} from './client/errors.js'
export type { SakeOptions } from './options/server.js'
export type { SessionOptions, EventOptions, TaskOptions, RequestStateOptions, StreamOptions, QuestionOptions } from './options/state.js'
export type { RedisOptions } from './options/redis.js'
export type { SkillsOptions } from './options/catalog.js'
export type { StdioOptions } from './options/stdio.js'
export type { StdioHandle } from './stdio/transport.js'
export type { AuthOptions, Caller, VerifyToken, AuthenticateHook, ScopesOption } from './auth/auth-options.js'
export type { Authentication, ScopeRequirement } from './define/requirement.js'
export type { ScopeInfo } from './auth/scopes.js'
export { mcpScopes, type AppScopeInfo, type ServerScopeInfo } from './auth/catalogue.js'
export type { Session, SessionStore } from './state/session-store.js'
export type { Bus, BusEvent, BusListener, ListName } from './state/bus.js'
export type { EventStore, StoredEvent, Replay } from './state/event-store.js'
export { MemoryBus } from './state/memory-bus.js'
export { MemoryEventStore } from './state/memory-event-store.js'
export { MemorySessionStore } from './state/memory-session-store.js'
export type { TaskStore, TaskRecord, TaskPatch, TaskPage, TaskStatus, TaskAnswer, TaskQuestion, TaskError } from './state/task-store.js'
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './state/memory-task-store.js'
export { SUPPORTED_VERSIONS, MODERN_VERSIONS, LEGACY_VERSIONS, type Era } from './spec/eras.js'
