/**
 * The tools, resources and prompts of one MCP server, compiled once at registration and kept in
 * Maps for O(1) lookup on every call; closed to new items when the server is ready. Finding what a
 * name or URI refers to is this file's job: every layer asks here, none keeps a lookup of its own
 * (the skills' folders are built by skill-directories.ts, from the skills kept here).
 */
import { SakeDuplicatePromptError, SakeDuplicateResourceError, SakeDuplicateToolError, SakeRegisterAfterReadyError, SakeResourceDefinitionError, SakeSkillDefinitionError, SakeToolDefinitionError } from '../errors.js'
import { SKILL_SCHEME } from '../spec/skills.js'
import {
  compileDynamicSkill, compileFilesSkill, fileInSkill, type CompiledSkill, type SkillDefinition, type SkillDirectoryDefinition, type SkillLimits
} from './skill.js'
import { inSkill, skillDirectories, type FoundDirectory, type InSkill } from './skill-directories.js'
import { readSkillFolder } from './skill-folder.js'
import { compileResource, type CompiledResource, type ResourceDefinition } from './resource.js'
import { compilePrompt, type CompiledPrompt, type PromptDefinition } from './prompt.js'
import { compileTool, type CompiledTool } from './tool.js'
import type { ToolDefinition } from './tool-definition.js'

/** A resource a URI names: the fixed one, or a template with the variables the URI gave it. */
export interface FoundResource {
  readonly kind: 'found'
  readonly uri: string
  readonly resource: CompiledResource
  readonly vars: Record<string, string>
}

/** What `reloadSkills` changed, by the URI of each skill's `SKILL.md`. */
export interface SkillChanges {
  readonly added: readonly string[]
  readonly removed: readonly string[]
  /** Skills whose entry differs: a file added, removed or changed, or the frontmatter. */
  readonly changed: readonly string[]
  /** Files of the folders that were not read (symbolic and hard links), as at registration. */
  readonly skipped: readonly string[]
}

/** A folder of skills as registered, and the skills it holds now. */
interface SkillFolder {
  readonly definition: SkillDirectoryDefinition
  skills: readonly CompiledSkill[]
}

export class Registry {
  readonly tools = new Map<string, CompiledTool>()
  /** Fixed resources by URI, and templates by template, each in registration order. */
  readonly resources = new Map<string, CompiledResource>()
  readonly templates = new Map<string, CompiledResource>()
  readonly prompts = new Map<string, CompiledPrompt>()
  /** Skills by the URI of their `SKILL.md`, in registration order. */
  readonly skills = new Map<string, CompiledSkill>()
  /** Skill files other than `SKILL.md`s (those are fixed resources, listed): found by URI, never listed. */
  private readonly skillFiles = new Map<string, CompiledResource>()
  /** Dynamic skills by their root URI: what is under it is read live. */
  private readonly dynamicSkills = new Map<string, CompiledSkill>()
  /** The folders of skills registered, read again by `reloadSkills`. */
  private readonly folders: SkillFolder[] = []
  /** Directory resources by URI, built when the registry is sealed (or on first use before). */
  private directories: Map<string, FoundDirectory> | undefined
  /** The most segments a skill's path has had: how far up a URI a skill's folder may begin. */
  private skillDepth = 0
  /** The declared scopes (`scopes` option), which `scope` on a definition must come from. */
  readonly scopes: ReadonlyMap<string, string>
  private ready = false
  /** While `all` runs: what was added, so that a failure takes it back. */
  private journal: Array<() => void> | undefined

  /** Limits every skill is checked against (`skills` option). */
  readonly skillLimits: SkillLimits

  constructor (scopes: ReadonlyMap<string, string> = new Map(), skillLimits: SkillLimits = { maxFileSize: 1024 * 1024, directoryRead: true }) {
    this.scopes = scopes
    this.skillLimits = skillLimits
  }

  /**
   * Adds several definitions with `add`, all or none: when one fails, those before it are taken
   * back and the error goes on, so a registration that throws leaves the server as it was.
   */
  all<T> (definitions: readonly T[], add: (definition: T) => unknown): void {
    // within another `all` (a folder of skills in an array of definitions): the outer journal takes it all back
    if (this.journal !== undefined) {
      for (const definition of definitions) add(definition)
      return
    }
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

  /** Deletes `key` from `map`, noting how to undo it while `all` runs. */
  private forget<K, V> (map: Map<K, V>, key: K): void {
    // only called for a key that is there (dropSkill checks what it takes out)
    const value = map.get(key) as V
    map.delete(key)
    this.journal?.push(() => map.set(key, value))
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

  /**
   * Checks and adds a skill, or each skill of a folder (all or none); throws a `SakeError` on any
   * mistake. Returns the files of a folder that were not read (symbolic and hard links), for a warning.
   */
  addSkill (definition: SkillDefinition): { skills: CompiledSkill[], skipped: string[] } {
    const raw = definition as unknown as Record<string, unknown> | undefined
    if (this.ready) throw new SakeRegisterAfterReadyError(`skill '${String(raw?.path ?? raw?.directory)}'`)
    if (raw === null || typeof raw !== 'object') throw new SakeSkillDefinitionError(`a skill definition must be an object: { directory }, { path, files } or { path, resources: 'dynamic', frontmatter, read }, got ${raw === null ? 'null' : typeof raw}`)
    if (raw.directory !== undefined) {
      const read = this.readFolder(definition as SkillDirectoryDefinition)
      const entry: SkillFolder = { definition: definition as SkillDirectoryDefinition, skills: [] }
      this.all([entry], () => {
        entry.skills = read.skills.map((skill) => this.keepSkill(skill))
        this.folders.push(entry)
        this.journal!.push(() => this.folders.pop())
      })
      return { skills: [...entry.skills], skipped: read.skipped }
    }
    const compiled = raw.resources === 'dynamic'
      ? compileDynamicSkill(definition as Parameters<typeof compileDynamicSkill>[0], this.scopes)
      : compileFilesSkill(definition as Parameters<typeof compileFilesSkill>[0], this.scopes, this.skillLimits)
    return { skills: [this.keepSkill(compiled)], skipped: [] }
  }

  /** A folder's skills, read from disk and compiled (nothing kept yet). */
  private readFolder (definition: SkillDirectoryDefinition): { skills: CompiledSkill[], skipped: string[] } {
    const folder = readSkillFolder(definition, this.skillLimits)
    return { skills: folder.skills.map(({ definition: one, where }) => compileFilesSkill(one, this.scopes, this.skillLimits, where)), skipped: folder.skipped }
  }

  /**
   * Reads every registered folder of skills again, after the server is ready too: all or none (a
   * mistake in any folder throws and leaves every skill as it was). Skills in code and dynamic ones
   * stay as they are. The caller rebuilds the lists and tells clients when anything changed.
   */
  reloadSkills (): SkillChanges {
    const read = this.folders.map((folder) => ({ folder, ...this.readFolder(folder.definition) }))
    const before = new Map<string, string>()
    for (const folder of this.folders) for (const skill of folder.skills) before.set(skill.uri, JSON.stringify(skill.entry))
    // all dropped first, then all kept: a skill that moved from one folder to another is no duplicate
    this.all([read], () => {
      for (const { folder } of read) for (const skill of folder.skills) this.dropSkill(skill)
      for (const { folder, skills } of read) {
        const old = folder.skills
        folder.skills = skills.map((skill) => this.keepSkill(skill))
        this.journal!.push(() => { folder.skills = old })
      }
    })
    const after = new Map<string, string>()
    for (const { skills } of read) for (const skill of skills) after.set(skill.uri, JSON.stringify(skill.entry))
    return {
      added: [...after.keys()].filter((uri) => !before.has(uri)),
      removed: [...before.keys()].filter((uri) => !after.has(uri)),
      changed: [...after].filter(([uri, entry]) => before.has(uri) && before.get(uri) !== entry).map(([uri]) => uri),
      skipped: read.flatMap(({ skipped }) => skipped)
    }
  }

  /** Takes a skill out: its entry, its `SKILL.md` and its files (those still its own). */
  private dropSkill (skill: CompiledSkill): void {
    for (const [uri, file] of skill.files) {
      if (this.resources.get(uri) === file) this.forget(this.resources, uri)
      if (this.skillFiles.get(uri) === file) this.forget(this.skillFiles, uri)
    }
    this.forget(this.skills, skill.uri)
    this.directories = undefined
  }

  /** Adds a compiled skill: its `SKILL.md` as a listed resource, its other files found by URI. */
  private keepSkill (skill: CompiledSkill): CompiledSkill {
    if (this.skills.has(skill.uri)) throw new SakeSkillDefinitionError(`skill '${skill.path}': a skill is already registered at this path (${skill.uri}); give one of them another path or prefix`)
    for (const [uri, file] of skill.files) {
      if (this.resources.has(uri)) throw new SakeDuplicateResourceError(uri)
      // a nested skill's files are its enclosing skill's too: the same bytes, one resource
      if (uri === skill.uri) this.keep(this.resources, uri, file)
      else if (!this.skillFiles.has(uri)) this.keep(this.skillFiles, uri, file)
    }
    if (skill.dynamic !== undefined) this.keep(this.dynamicSkills, skill.root, skill)
    this.keep(this.skills, skill.uri, skill)
    // never lowered (a skill dropped, a registration undone): a bound on the search, not a count
    this.skillDepth = Math.max(this.skillDepth, skill.path.split('/').length)
    this.directories = undefined
    return skill
  }

  /** Whether any skill is registered: the Skills extension is advertised then. */
  servesSkills (): boolean {
    return this.skills.size > 0
  }

  /** Whether a skill demands a scope: `skills/list` then shows each caller only those it may read. */
  scopedSkills (): boolean {
    for (const skill of this.skills.values()) if (skill.access !== undefined) return true
    return false
  }

  /**
   * The resource a URI names: a fixed one first (a skill's `SKILL.md` among them), a skill's file,
   * then any other URI inside a skill's folder (`InSkill`: it reaches nothing else, a template
   * included), then each template in registration order.
   */
  findResource (uri: string): FoundResource | InSkill | undefined {
    const fixed = this.resources.get(uri) ?? this.skillFiles.get(uri)
    if (fixed !== undefined) return { kind: 'found', uri, resource: fixed, vars: {} }
    if (this.skills.size > 0 && uri.startsWith(SKILL_SCHEME)) {
      for (const [root, skill] of this.dynamicSkills) {
        const file = fileInSkill(root, uri)
        if (file !== undefined) return { kind: 'found', uri, resource: skill.dynamic!, vars: { file } }
      }
      const around = inSkill(this.skills, this.skillDepth, uri, 'resource')
      if (around !== undefined) return around
    }
    for (const resource of this.templates.values()) {
      const vars = resource.template!.match(uri)
      if (vars !== undefined) return { kind: 'found', uri, resource, vars }
    }
    return undefined
  }

  /** The skill whose `SKILL.md` a URI names (`skills/get`), or what the URI is inside a skill's folder. */
  findSkill (uri: string): CompiledSkill | InSkill | undefined {
    return this.skills.get(uri) ?? inSkill(this.skills, this.skillDepth, uri, 'skill')
  }

  /**
   * The directory resource a URI names, if any: a skill's folder, one of its sub-folders, or a
   * folder above skills; or what the URI is inside a skill's folder.
   */
  findDirectory (uri: string): FoundDirectory | InSkill | undefined {
    const found = (this.directories ??= skillDirectories(this.skills)).get(uri)
    if (found !== undefined) return found
    const dynamic = this.dynamicSkills.get(uri)
    if (dynamic !== undefined) return { kind: 'directory', uri, children: undefined, skill: dynamic, access: dynamic.access, above: false }
    return inSkill(this.skills, this.skillDepth, uri, 'directory')
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
    this.directories = skillDirectories(this.skills)
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
