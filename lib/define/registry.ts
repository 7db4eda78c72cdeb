/**
 * The tools, resources and prompts of one MCP server, compiled once at registration and kept in
 * Maps for O(1) lookup on every call; closed to new items when the server is ready. Finding what a
 * name or URI refers to is this file's job: every layer asks here, none keeps a lookup of its own.
 */
import { SakeDuplicatePromptError, SakeDuplicateResourceError, SakeDuplicateToolError, SakeRegisterAfterReadyError, SakeResourceDefinitionError, SakeToolDefinitionError } from '../errors.js'
import { compileResource, type CompiledResource, type ResourceDefinition } from './resource.js'
import { compilePrompt, type CompiledPrompt, type PromptDefinition } from './prompt.js'
import { compileTool, type CompiledTool, type ToolDefinition } from './tool.js'

/** A resource a URI names: the fixed one, or a template with the variables the URI gave it. */
export interface FoundResource {
  readonly kind: 'found'
  readonly uri: string
  readonly resource: CompiledResource
  readonly vars: Record<string, string>
}

export class Registry {
  readonly tools = new Map<string, CompiledTool>()
  /** Fixed resources by URI, and templates by template, each in registration order. */
  readonly resources = new Map<string, CompiledResource>()
  readonly templates = new Map<string, CompiledResource>()
  readonly prompts = new Map<string, CompiledPrompt>()
  /** The declared scopes (`scopes` option), which `scope` on a definition must come from. */
  readonly scopes: ReadonlyMap<string, string>
  private ready = false
  /** While `all` runs: what was added, so that a failure takes it back. */
  private journal: Array<() => void> | undefined

  constructor (scopes: ReadonlyMap<string, string> = new Map()) {
    this.scopes = scopes
  }

  /**
   * Adds several definitions with `add`, all or none: when one fails, those before it are taken
   * back and the error goes on, so a registration that throws leaves the server as it was.
   */
  all<T> (definitions: readonly T[], add: (definition: T) => unknown): void {
    const journal: Array<() => void> = []
    this.journal = journal
    try {
      for (const definition of definitions) add(definition)
    } catch (err) {
      for (const undo of journal.reverse()) undo()
      throw err
    } finally {
      this.journal = undefined
    }
  }

  /** Sets `key` in `map`, noting how to undo it while `all` runs. */
  private keep<K, V> (map: Map<K, V>, key: K, value: V): void {
    map.set(key, value)
    this.journal?.push(() => map.delete(key))
  }

  /**
   * Checks, compiles and adds a tool, and the UI resource its inline `ui` defines; throws a
   * `SakeError` on any mistake (a mistake in that resource names the tool).
   */
  addTool (definition: ToolDefinition): CompiledTool {
    if (this.ready) throw new SakeRegisterAfterReadyError(`tool '${String(definition?.name)}'`)
    const tool = compileTool(definition, this.scopes)
    if (this.tools.has(tool.name)) throw new SakeDuplicateToolError(tool.name)
    if (tool.ui?.inline !== undefined) this.addInlineUi(tool, definition.ui as object)
    this.keep(this.tools, tool.name, tool)
    return tool
  }

  /** The definitions an inline `ui` object made: the same object on two tools is one resource. */
  private readonly inlineUis = new WeakMap<object, CompiledResource>()

  private addInlineUi (tool: CompiledTool, ui: object): void {
    const uri = tool.ui!.resourceUri
    const known = this.inlineUis.get(ui)
    if (known !== undefined && this.resources.get(uri) === known) return
    if (this.resources.has(uri)) {
      throw new SakeToolDefinitionError(`tool '${tool.name}': its 'ui' defines the resource '${uri}', which is already registered; to share one app, give the other tools the same 'ui' object, or its URI as a string`)
    }
    let resource: CompiledResource
    try {
      resource = compileResource(tool.ui!.inline as unknown as ResourceDefinition, this.scopes)
    } catch (err) {
      /* c8 ignore next -- compileResource throws only SakeResourceDefinitionError; anything else is passed on, not renamed */
      if (!(err instanceof SakeResourceDefinitionError)) throw err
      throw new SakeToolDefinitionError(`tool '${tool.name}': its 'ui' ${err.message}`)
    }
    this.keep(this.resources, uri, resource)
    this.inlineUis.set(ui, resource)
  }

  /** Checks and adds a resource or resource template; throws a `SakeError` on any mistake. */
  addResource (definition: ResourceDefinition): CompiledResource {
    if (this.ready) throw new SakeRegisterAfterReadyError(`resource '${String(definition?.uri ?? definition?.uriTemplate ?? definition?.name)}'`)
    const resource = compileResource(definition, this.scopes)
    const map = resource.template === undefined ? this.resources : this.templates
    if (map.has(resource.key)) throw new SakeDuplicateResourceError(resource.key)
    this.keep(map, resource.key, resource)
    return resource
  }

  /** Checks and adds a prompt; throws a `SakeError` on any mistake. */
  addPrompt (definition: PromptDefinition): CompiledPrompt {
    if (this.ready) throw new SakeRegisterAfterReadyError(`prompt '${String(definition?.name)}'`)
    const prompt = compilePrompt(definition, this.scopes)
    if (this.prompts.has(prompt.name)) throw new SakeDuplicatePromptError(prompt.name)
    this.keep(this.prompts, prompt.name, prompt)
    return prompt
  }

  /** The resource a URI names: a fixed one first, then each template in registration order. */
  findResource (uri: string): FoundResource | undefined {
    const fixed = this.resources.get(uri)
    if (fixed !== undefined) return { kind: 'found', uri, resource: fixed, vars: {} }
    for (const resource of this.templates.values()) {
      const vars = resource.template!.match(uri)
      if (vars !== undefined) return { kind: 'found', uri, resource, vars }
    }
    return undefined
  }

  /**
   * Closes registration; called from `onReady`, when the lists are serialised. Every tool's `ui`
   * must name a UI resource by then (MCP Apps: the resource MUST exist): else it throws, naming
   * the tool, and the server does not start.
   */
  seal (): void {
    for (const tool of this.tools.values()) {
      const uri = tool.ui?.resourceUri
      if (uri !== undefined && this.resources.get(uri)?.ui === undefined) {
        throw new SakeToolDefinitionError(`tool '${tool.name}': its 'ui' names the resource '${uri}', which is not registered; register it with registerResource({ uri: '${uri}', name, read }) before the server is ready, or give 'ui' as { uri, html } to define it in place`)
      }
    }
    this.ready = true
  }

  /** Whether anything here uses MCP Apps (a tool's `ui` or `visibility`, a `ui://` resource): the extension is advertised then. */
  servesApps (): boolean {
    for (const tool of this.tools.values()) if (tool.withoutApps !== undefined) return true
    for (const resource of this.resources.values()) if (resource.ui !== undefined) return true
    return false
  }

  /** Whether a tool has `complete`: the tool completion extension (`spec/completion.ts`) is advertised then. */
  completesTools (): boolean {
    for (const tool of this.tools.values()) if (tool.definition.complete !== undefined) return true
    return false
  }

  get sealed (): boolean {
    return this.ready
  }
}
