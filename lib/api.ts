/**
 * The plugin's public types that are not a definition's: the `register*` decorators, `app.mcp`,
 * and what the plugin adds to Fastify's own types (`declare module 'fastify'`).
 */
import type { AuthInfo, ServerInfo } from './spec/types.js'
import type { ListName } from './state/bus.js'
import type { ScopeInfo } from './auth/scopes.js'
import type { McpRequestInfo } from './http/request-info.js'
import type { McpRouteConfig } from './http/route-tools/schema.js'
import type {
  ArgsOf, ArgsToolDefinition, DefinedTool, JsonSchemaToolDefinition, OutputSpec, SchemaToolDefinition
} from './define/tool-definition.js'
import type { AnySchema, SchemaMap, SchemaOutput } from './define/schemas.js'
import type { FixedResourceDefinition, ResourceDefinition, TemplateResourceDefinition } from './define/resource.js'
import type { DefinedPrompt, PromptArguments, TypedPromptDefinition } from './define/prompt.js'
import type { SkillDefinition } from './define/skill.js'
import type { SkillChanges } from './define/registry.js'
import type { StdioOptions } from './options/stdio.js'
import type { StdioHandle } from './stdio/transport.js'

/**
 * Registers skills (the Skills extension): a folder of them (`{ directory }`), one in code
 * (`{ path, files }`), a dynamic one (`{ path, resources: 'dynamic', frontmatter, read }`), or an
 * array of these, all or none.
 */
export type RegisterSkill = (definitions: SkillDefinition | readonly SkillDefinition[]) => void

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
  (definitions: DefinedTool | readonly DefinedTool[]): void
  <I extends AnySchema, const O extends OutputSpec | undefined = undefined, P = SchemaOutput<I>>(definition: SchemaToolDefinition<I, O, P>): void
  <const O extends OutputSpec | undefined = undefined, P = Record<string, unknown>>(definition: JsonSchemaToolDefinition<O, P>): void
  <const A extends SchemaMap = {}, const O extends OutputSpec | undefined = undefined, P = ArgsOf<A>>(definition: ArgsToolDefinition<A, O, P>): void
}

/** A tool as listed to clients (the modern `Tool` object). */
export type ToolInfo = Readonly<Record<string, unknown>> & { readonly name: string }

/** The read-only view of this MCP server on the Fastify instance: `app.mcp`. */
export interface McpView {
  readonly info: Readonly<ServerInfo>
  /** The endpoint's full path, the prefix of the plugin's Fastify context included (`/a/mcp` under `prefix: '/a'`). */
  readonly path: string
  /** The registered tools, by name. */
  readonly tools: ReadonlyMap<string, ToolInfo>
  /** The fixed resources, by URI, as `resources/list` sends them. */
  readonly resources: ReadonlyMap<string, ListedInfo>
  /** The resource templates, by URI template, as `resources/templates/list` sends them. */
  readonly templates: ReadonlyMap<string, ListedInfo>
  /** The prompts, by name, as `prompts/list` sends them. */
  readonly prompts: ReadonlyMap<string, ListedInfo>
  /** The skills, by the URI of their `SKILL.md`, as `skills/list` sends them (with every file's digest and size). */
  readonly skills: ReadonlyMap<string, Readonly<Record<string, unknown>>>
  /**
   * Tells subscribed clients that a list changed: `notifications/{list}/list_changed` on 2025 GET
   * streams and on 2026-07-28 listens that opted in. Resolves once the bus took the event.
   */
  listChanged (list: ListName): Promise<void>
  /** Tells clients subscribed to `uri` that the resource changed (`notifications/resources/updated`). */
  resourceUpdated (uri: string): Promise<void>
  /**
   * Reads every folder of skills again (`{ directory }`, the `skills.directory` option), all or
   * none: a mistake throws and the skills stay as they were. When anything changed, the lists are
   * built again and clients are told (`notifications/resources/list_changed`). Each instance of a
   * fleet reads its own disk: call it on each (at SIGHUP, say).
   */
  reloadSkills (): Promise<SkillChanges>
  /** Every declared scope with its description and what needs it, for a consent page (`scopes_supported` lists the same). */
  scopes (): ScopeInfo[]
  /**
   * The readiness signal for a rolling deploy: true from `drain()` (or the start of `app.close()`)
   * on. A readiness route answers 503 while it is true, so that the gateway's health check stops
   * sending new requests here before the instance closes (docs/fleet.md, "Draining and rolling
   * deploys").
   */
  readonly draining: boolean
  /**
   * Starts draining (`draining` becomes true) and resolves after `delay` ms (default 0), during
   * which every request is still served: make it long enough for the gateway's check to notice
   * (its interval times its fall count), then `await app.close()`.
   */
  drain (delay?: number): Promise<void>
  /**
   * Serves this server over stdio (docs/stdio.md): the same tools, resources, prompts, skills and
   * tasks to a local host that started the process, newline-delimited JSON-RPC on stdin and stdout
   * (or the streams given), both protocol eras. Readies the app first (as `listen` does); call it
   * instead of `listen`. While it runs, stdout carries the protocol alone: `console.log` and a pino
   * logger writing to stdout go to stderr. With `closeOnEnd` (the default) the app closes once the
   * client closes stdin, so the process can exit.
   */
  stdio (options?: StdioOptions): Promise<StdioHandle>
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Registers MCP tools on the server this plugin serves at its `path`. */
    registerTool: RegisterTool
    /** Registers MCP resources and resource templates on this server. */
    registerResource: RegisterResource
    /** Registers MCP prompts on this server. */
    registerPrompt: RegisterPrompt
    /** Registers skills (the Skills extension, `skill://` resources) on this server. */
    registerSkill: RegisterSkill
    /** The MCP server registered in this context. */
    mcp: McpView
  }
  interface FastifySchema {
    /** The tool name of a route with `config: { mcp: true }` (as @fastify/swagger reads it too). */
    operationId?: string
    /** A route tool's description when neither `config.mcp.description` nor `description` gives one. */
    summary?: string
    /** A route tool's description unless `config.mcp.description` gives one. */
    description?: string
    /** Left out of the OpenAPI document (@fastify/swagger reads it): every route of the plugin's unless `openapi` says otherwise. */
    hide?: boolean
    /** The OpenAPI tags of the route (`openapi.tags` on the MCP endpoint's POST). */
    tags?: readonly string[]
  }
  interface FastifyContextConfig {
    /**
     * Offers this route to MCP clients as a tool (fastify-sake): `true` names it by
     * `schema.operationId`; an object sets its name, scope, annotations… Routes without it are
     * never exposed. The plugin must be registered before the route is declared.
     */
    mcp?: McpRouteConfig | boolean
  }
  interface FastifyRequest {
    /**
     * The verified caller on fastify-sake's routes when `auth` is on (`ctx.auth` in handlers);
     * null when auth is off, and on the host's other routes.
     */
    mcpAuth: AuthInfo | null
    /**
     * What this MCP request is (method, tool or resource, era, session, the tool's mirrored
     * arguments, the definition's `config`), for the host's hooks; null on the host's other routes.
     * From its headers before the body is read (`verified: false`, 2026-07-28 requests), from the
     * body from `preValidation` on.
     */
    readonly mcp: McpRequestInfo | null
  }
}
