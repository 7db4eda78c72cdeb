/**
 * Skill definitions (the Skills extension, SEP-2640): the shapes users write, the checks run at
 * registration (the path, the files, the `SKILL.md` frontmatter against the Agent Skills rules,
 * the limits), and the compiled form: the entry `skills/list` and `skills/get` send, with every
 * file's digest and size computed here, once, and each file as a resource `resources/read` serves
 * from memory. A skill in a folder on disk is read into the same form (`skill-folder.ts`).
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { isDeepStrictEqual } from 'node:util'
import type * as Yaml from 'yaml'
import { SakeSkillDefinitionError } from '../errors.js'
import { DYNAMIC, SKILL_LIMITS, SKILL_MD, SKILL_MD_MIME_TYPE, SKILL_SCHEME, frontmatterBlock, isSkillName } from '../spec/skills.js'
import { deepFreeze, isObject, kind } from '../values.js'
import { requirementOf, type Requirement, type ScopeRequirement } from './requirement.js'
import type { RequestContext } from './handler-context.js'
import type { CompiledResource, ResourceDefinition } from './resource.js'
import { mimeTypeOf } from './mime-types.js'

/** A skill's `SKILL.md` frontmatter: `name` and `description`, and whatever else its author wrote. */
export interface SkillFrontmatter {
  name: string
  description: string
  [field: string]: unknown
}

interface SkillBase {
  /**
   * Where the skill sits in the server's skill namespace: `'refunds'`, or with a prefix
   * `'acme/billing/refunds'`. Its `SKILL.md` is `skill://<path>/SKILL.md`; the last segment is the
   * skill's name, which its frontmatter's `name` must equal.
   */
  path: string
  /** With `auth` on: the scope (or every one of several) a token must grant to see the skill and read its files. */
  scope?: ScopeRequirement
}

/** A skill written in code: its files by path inside the skill's folder, `SKILL.md` among them. */
export interface SkillFilesDefinition extends SkillBase {
  files: Readonly<Record<string, string | Uint8Array>>
  resources?: undefined
  directory?: undefined
}

/** What a dynamic skill's `read` returns for a file: its text or bytes; undefined or null, no such file. */
export type SkillFileReturn = string | Uint8Array | undefined | null

/**
 * A skill whose content is generated when read (its entry's `resources` is `"dynamic"`: no
 * digests, and some hosts decline such skills). The frontmatter is declared here, so that the
 * entry and the file always agree: `read('SKILL.md')` returns the body, and the server writes the
 * frontmatter before it.
 */
export interface DynamicSkillDefinition extends SkillBase {
  resources: 'dynamic'
  frontmatter: SkillFrontmatter
  /** The body of `SKILL.md`, or a supporting file (`'references/today.md'`), as it is now. */
  read (file: string, ctx: RequestContext): SkillFileReturn | Promise<SkillFileReturn>
  /** The skill's files now (paths inside its folder), for `resources/directory/read`; without it, only `SKILL.md` is shown. */
  list? (ctx: RequestContext): readonly string[] | Promise<readonly string[]>
  /** Milliseconds a client may keep what a read of its files returned. Default 0: generated content is read afresh. */
  ttl?: number
  files?: undefined
  directory?: undefined
}

/**
 * A folder of skills on disk: each folder under it that holds a `SKILL.md` is a skill, at its
 * path relative to `directory` (`skills/acme/refunds/SKILL.md` is `skill://acme/refunds`); a
 * `directory` that holds a `SKILL.md` itself is one skill, named by its own folder. Read once, at
 * registration: hidden files, symbolic links and hard links are never served.
 */
export interface SkillDirectoryDefinition {
  directory: string | URL
  /** Put before each skill's path: `prefix: 'acme'` serves `refunds` as `skill://acme/refunds`. */
  prefix?: string
  /** Every skill found gets this scope. */
  scope?: ScopeRequirement
  path?: undefined
  files?: undefined
  resources?: undefined
}

export type SkillDefinition = SkillFilesDefinition | DynamicSkillDefinition | SkillDirectoryDefinition

/** One file of a skill entry's `resources`: its URI, and the digest and size of its exact bytes. */
export interface SkillFileEntry {
  readonly uri: string
  readonly digest: string
  readonly size: number
}

/** A child of a directory resource, as `resources/directory/read` lists it, with what it demands. */
export interface DirectoryChild {
  readonly wire: Readonly<Record<string, unknown>>
  readonly access: Requirement | undefined
  /** A folder above skills: what each skill under it demands; it is shown to a caller who may see one of them. */
  readonly skills?: ReadonlyArray<Requirement | undefined> | undefined
}

/** A skill as the server keeps it. */
export interface CompiledSkill {
  readonly kind: 'skill'
  /** `skill://<path>/SKILL.md`: what `skills/get` and `resources/read` name it by. */
  readonly uri: string
  /** `skill://<path>`: its root directory resource. */
  readonly root: string
  readonly path: string
  /** The entry of `skills/list` and `skills/get` (the same in both eras). */
  readonly entry: Readonly<Record<string, unknown>>
  readonly access: Requirement | undefined
  /** Every file as a resource, by URI, `SKILL.md` first; a dynamic skill's `SKILL.md` only. */
  readonly files: ReadonlyMap<string, CompiledResource>
  /** Each of its directories (its root included) and their direct children, by URI; empty for a dynamic skill. */
  readonly directories: ReadonlyMap<string, readonly DirectoryChild[]>
  /** Set for a dynamic skill: its files other than `SKILL.md` are read by this resource, `vars.file` the path. */
  readonly dynamic: CompiledResource | undefined
  /** Set for a dynamic skill with `list`: its directory reads are answered live. */
  readonly list: DynamicSkillDefinition['list']
}

/** Limits a registration checks a skill against, and what the server serves of skills. */
export interface SkillLimits {
  /** Bytes of one file at most. */
  readonly maxFileSize: number
  /** `resources/directory/read` is served (and `directoryRead` declared). */
  readonly directoryRead: boolean
}

const FILES_KEYS = new Set(['path', 'files', 'scope', 'resources', 'directory'])
const DYNAMIC_KEYS = new Set(['path', 'resources', 'frontmatter', 'read', 'list', 'scope', 'ttl', 'files', 'directory'])
/** A path segment we serve: no hidden name, nothing a URI would need to escape but what encodeURIComponent does. */
const PREFIX_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_~-]*(\.[A-Za-z0-9_~-]+)*$/
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function fail (who: string, message: string): never {
  throw new SakeSkillDefinitionError(`${who}: ${message}`)
}

/**
 * Checks a skill's path: segments of letters, digits, `-`, `_`, `~` and inner dots, the last a
 * skill name by the Agent Skills rule. Returns its segments.
 */
export function checkSkillPath (path: unknown, who: string): string[] {
  if (typeof path !== 'string' || path.length === 0) fail(who, `'path' must be the skill's place in the namespace, such as 'refunds' or 'acme/billing/refunds', got ${JSON.stringify(path) ?? kind(path)}`)
  const segments = path.split('/')
  const name = segments[segments.length - 1]!
  if (!isSkillName(name)) fail(who, `the last segment of 'path' is the skill's name, which must be 1 to 64 lowercase letters, digits and single hyphens (not first or last), such as 'pdf-processing'; got '${name}'`)
  for (const segment of segments.slice(0, -1)) {
    if (!PREFIX_SEGMENT.test(segment)) fail(who, `'${segment}' in 'path' is not a segment we serve: letters, digits, '-', '_', '~' and inner dots, not starting with a dot (no '..', no empty segment)`)
  }
  return segments
}

/** A file's URI in a skill: each segment of its path encoded, so that the URI names exactly that file. */
function fileUri (root: string, file: string): string {
  return `${root}/${file.split('/').map(encodeURIComponent).join('/')}`
}

/** `sha256:` and the hex digest of bytes. */
export function digestOf (bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

let yaml: typeof Yaml | undefined

/**
 * Parses and checks a `SKILL.md`'s frontmatter against the Agent Skills rules: a YAML mapping with
 * `name` (the skill's folder name) and `description`, optional fields of their documented types,
 * and only values JSON can carry (the entry sends it as JSON, verbatim).
 */
export function parseFrontmatter (text: string, name: string, who: string): SkillFrontmatter {
  const block = frontmatterBlock(text)
  if (block === undefined) fail(who, "it must begin with YAML frontmatter between two '---' lines, holding at least 'name' and 'description'")
  // yaml loads with the first skill (registration is synchronous, and yaml is CommonJS: required,
  // the same module an import would give): a server without skills never loads it
  yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml
  const doc = yaml.parseDocument(block.yaml, { uniqueKeys: true, prettyErrors: false })
  if (doc.errors.length > 0) fail(who, `its frontmatter is not valid YAML: ${doc.errors[0]!.message}`)
  const value: unknown = doc.toJS()
  if (!isObject(value)) fail(who, `its frontmatter must be a YAML mapping (name: …, description: …), got ${kind(value)}`)
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value)) fail(who, 'its frontmatter holds a value JSON cannot carry (a date, .inf, .nan, a binary): quote it as a string')
  const { name: given, description, license, compatibility, metadata } = value
  if (given !== name) fail(who, `the frontmatter's 'name' must be the skill's folder name '${name}' (the last segment of its path), got ${JSON.stringify(given) ?? 'nothing'}`)
  if (typeof description !== 'string' || description.trim().length === 0 || description.length > 1024) {
    fail(who, `the frontmatter's 'description' is required: what the skill does and when to use it, 1 to 1024 characters, got ${JSON.stringify(description) ?? 'nothing'}`)
  }
  if (license !== undefined && typeof license !== 'string') fail(who, `the frontmatter's 'license' must be a string, got ${kind(license)}`)
  if (compatibility !== undefined && (typeof compatibility !== 'string' || compatibility.length === 0 || compatibility.length > 500)) fail(who, "the frontmatter's 'compatibility' must be a string of 1 to 500 characters")
  if (metadata !== undefined && (!isObject(metadata) || !Object.values(metadata).every((v) => typeof v === 'string'))) fail(who, "the frontmatter's 'metadata' must be a mapping of strings to strings")
  if (value['allowed-tools'] !== undefined && typeof value['allowed-tools'] !== 'string') fail(who, "the frontmatter's 'allowed-tools' must be a string of tool names separated by spaces")
  return value as SkillFrontmatter
}

/** A file's resource: served from memory, as text when its bytes are UTF-8, else as a blob. */
function fileResource (uri: string, file: string, bytes: Uint8Array, access: Requirement | undefined, wire: Record<string, unknown>): CompiledResource {
  const mimeType = file === SKILL_MD ? SKILL_MD_MIME_TYPE : mimeTypeOf(file, bytes)
  let text: string | undefined
  try {
    text = utf8.decode(bytes)
  } catch {
    text = undefined // not UTF-8: sent as base64, the same bytes
  }
  const content = Object.freeze(text === undefined ? { blob: bytes, mimeType } : { text, mimeType })
  const definition: ResourceDefinition = { uri, name: file, mimeType, read: () => content }
  const listed = deepFreeze({ ...wire, mimeType, size: bytes.byteLength })
  return resourceOf(uri, definition, access, listed)
}

function resourceOf (uri: string, definition: ResourceDefinition, access: Requirement | undefined, wire: Readonly<Record<string, unknown>>, ttl?: number): CompiledResource {
  return Object.freeze({
    skill: true as const,
    kind: 'resource' as const,
    key: uri,
    definition,
    template: undefined,
    wire: Object.freeze({ modern: wire, legacy: wire }),
    ttl,
    access,
    config: undefined,
    cacheScope: undefined,
    ui: undefined,
    withoutApps: undefined
  })
}

/** Checks a file's path inside a skill: relative, `/`-separated, no hidden segment, no `.` or `..`. */
function checkFilePath (file: string, who: string): void {
  if (file.length === 0 || file.startsWith('/') || file.includes('\\')) fail(who, `'${file}' is not a path inside the skill's folder: give it relative, with '/' between folders, such as 'references/GUIDE.md'`)
  for (const segment of file.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') fail(who, `'${file}' is not a path inside the skill's folder: no empty, '.' or '..' segment`)
    if (segment.startsWith('.')) fail(who, `'${file}' is hidden (a segment starts with '.'): hidden files are never served; rename it or leave it out`)
  }
}

/**
 * Compiles a skill from its files: checks the paths, the sizes and the limits, parses `SKILL.md`'s
 * frontmatter, digests every file, and builds its entry, its resources and its directories.
 * `where(file)` names a file in messages (its path on disk for a folder's skill).
 */
export function compileFilesSkill (def: SkillFilesDefinition, scopes: ReadonlyMap<string, string>, limits: SkillLimits, where?: (file: string) => string): CompiledSkill {
  if (!isObject(def)) throw new SakeSkillDefinitionError(`a skill definition must be an object, got ${kind(def)}`)
  const who = `skill '${String(def.path)}'`
  for (const key of Object.keys(def)) if (!FILES_KEYS.has(key)) fail(who, `unknown option '${key}'; a skill in code has path, files and scope (a dynamic one: resources: 'dynamic', frontmatter, read, list)`)
  const segments = checkSkillPath(def.path, who)
  const name = segments[segments.length - 1]!
  if (!isObject(def.files)) fail(who, `'files' must be an object of the skill's files by path ({ 'SKILL.md': '---\\nname: ${name}\\n…' }), got ${kind(def.files)}`)
  const named = where ?? ((file: string) => file)
  const access = requirementOf({ scope: def.scope }, scopes, (message) => fail(who, message))
  const root = SKILL_SCHEME + def.path
  const uri = `${root}/${SKILL_MD}`
  const paths = Object.keys(def.files).sort((a, b) => a === SKILL_MD ? -1 : b === SKILL_MD ? 1 : Number(a > b) - Number(a < b))
  if (paths[0] !== SKILL_MD) fail(who, `every skill has a ${SKILL_MD} at the root of its folder; 'files' has none`)
  if (paths.length > SKILL_LIMITS.files) fail(who, `${paths.length} files; a skill has at most ${SKILL_LIMITS.files} (what every host accepts): split it into several skills`)

  const files = new Map<string, CompiledResource>()
  const resources: SkillFileEntry[] = []
  let total = 0
  let frontmatter: SkillFrontmatter | undefined
  for (const file of paths) {
    const value = def.files[file]
    checkFilePath(file, who)
    if (typeof value !== 'string' && !(value instanceof Uint8Array)) fail(who, `${named(file)}: a file is a string or bytes, got ${kind(value)}`)
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value
    if (bytes.byteLength > limits.maxFileSize) fail(who, `${named(file)} is ${bytes.byteLength} bytes, above skills.maxFileSize (${limits.maxFileSize}): make it smaller or raise the option`)
    total += bytes.byteLength
    if (total > SKILL_LIMITS.bytes) fail(who, `its files add up to more than ${SKILL_LIMITS.bytes} bytes (16 MiB, what every host accepts): split it into several skills`)
    const at = fileUri(root, file)
    let wire: Record<string, unknown> = { uri: at, name: file.slice(file.lastIndexOf('/') + 1) }
    if (file === SKILL_MD) {
      let text: string
      try {
        text = utf8.decode(bytes)
      } catch {
        fail(who, `${named(file)}: it is not UTF-8 text`)
      }
      frontmatter = parseFrontmatter(text, name, `${who}: ${named(file)}`)
      // the list entry of a SKILL.md: named and described by its frontmatter (the spec's SHOULD)
      wire = { uri: at, name, description: frontmatter.description }
    }
    files.set(at, fileResource(at, file, bytes, access, wire))
    resources.push({ uri: at, digest: digestOf(bytes), size: bytes.byteLength })
  }
  const entry = deepFreeze({ uri, frontmatter: frontmatter!, resources })
  return Object.freeze({ kind: 'skill' as const, uri, root, path: def.path, entry, access, files, directories: directoriesOf(root, paths, files, access), dynamic: undefined, list: undefined })
}

/** A skill's directories (its root and every folder in it), each with its direct children. */
function directoriesOf (root: string, paths: readonly string[], files: ReadonlyMap<string, CompiledResource>, access: Requirement | undefined): Map<string, DirectoryChild[]> {
  const directories = new Map<string, DirectoryChild[]>([[root, []]])
  for (const file of paths) {
    const segments = file.split('/')
    let dir = root
    for (let i = 0; i < segments.length; i++) {
      const child = fileUri(dir, segments[i]!)
      const children = directories.get(dir)!
      if (i === segments.length - 1) {
        const resource = files.get(child)!
        children.push({ wire: { uri: child, name: segments[i], mimeType: resource.definition.mimeType, size: resource.wire.modern.size }, access })
      } else if (!directories.has(child)) {
        children.push({ wire: { uri: child, name: segments[i], mimeType: 'inode/directory' }, access })
        directories.set(child, [])
      }
      dir = child
    }
  }
  for (const children of directories.values()) children.sort((a, b) => Number(a.wire.uri! > b.wire.uri!) - Number(a.wire.uri! < b.wire.uri!))
  return directories
}

/** The frontmatter written as YAML, the way a dynamic skill's `SKILL.md` begins. */
function frontmatterText (frontmatter: SkillFrontmatter): string {
  // JSON is YAML: every value survives exactly, whatever its characters
  return `---\n${Object.entries(frontmatter).map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`).join('\n')}\n---\n`
}

/** Compiles a dynamic skill: its frontmatter checked now, its files read when asked for. */
export function compileDynamicSkill (def: DynamicSkillDefinition, scopes: ReadonlyMap<string, string>): CompiledSkill {
  const who = `skill '${String(def.path)}'`
  for (const key of Object.keys(def)) if (!DYNAMIC_KEYS.has(key)) fail(who, `unknown option '${key}'; a dynamic skill has path, resources: 'dynamic', frontmatter, read, list and scope`)
  if (def.files !== undefined || def.directory !== undefined) fail(who, "a dynamic skill generates its files: give 'read', not 'files' or 'directory'")
  const segments = checkSkillPath(def.path, who)
  const name = segments[segments.length - 1]!
  if (!isObject(def.frontmatter)) fail(who, `a dynamic skill declares its 'frontmatter' ({ name: '${name}', description }), got ${kind(def.frontmatter)}`)
  const head = frontmatterText(def.frontmatter)
  // checked as the file's own frontmatter would be: the same rules, the same message
  const frontmatter = parseFrontmatter(head, name, who)
  if (typeof def.read !== 'function') fail(who, `'read' must be a function (file, ctx) => text or bytes, got ${kind(def.read)}`)
  if (def.list !== undefined && typeof def.list !== 'function') fail(who, `'list' must be a function (ctx) => the skill's file paths, got ${kind(def.list)}`)
  const ttl = def.ttl ?? 0
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0) fail(who, `'ttl' must be a non-negative integer (milliseconds a client may keep a read), got ${typeof ttl === 'number' ? ttl : kind(ttl)}`)
  const access = requirementOf({ scope: def.scope }, scopes, (message) => fail(who, message))
  const root = SKILL_SCHEME + def.path
  const uri = `${root}/${SKILL_MD}`
  const read = def.read.bind(def)
  const manifest: ResourceDefinition = {
    uri,
    name,
    mimeType: SKILL_MD_MIME_TYPE,
    async read (_uri, _vars, ctx) {
      const body = await read(SKILL_MD, ctx)
      if (body === undefined || body === null) return body
      return { text: head + (typeof body === 'string' ? body : Buffer.from(body).toString('utf8')), mimeType: SKILL_MD_MIME_TYPE }
    }
  }
  const other: ResourceDefinition = {
    uri: root,
    name,
    async read (_uri, vars, ctx) {
      const file = (vars as Record<string, string>).file!
      const got = await read(file, ctx)
      if (got === undefined || got === null) return got
      const mimeType = mimeTypeOf(file, typeof got === 'string' ? Buffer.from(got) : got)
      return typeof got === 'string' ? { text: got, mimeType } : { blob: got, mimeType }
    }
  }
  const files = new Map([[uri, resourceOf(uri, manifest, access, deepFreeze({ uri, name, description: frontmatter.description, mimeType: SKILL_MD_MIME_TYPE }), ttl)]])
  const entry = deepFreeze({ uri, frontmatter, resources: DYNAMIC })
  return Object.freeze({ kind: 'skill' as const, uri, root, path: def.path, entry, access, files, directories: new Map(), dynamic: resourceOf(root, other, access, { uri: root, name }, ttl), list: def.list?.bind(def) })
}

/**
 * The path inside a dynamic skill that a URI under its root names, decoded; undefined when the URI
 * could lead anywhere else: an encoded separator, a `.` or `..` segment, a hidden or empty one.
 */
export function fileInSkill (root: string, uri: string): string | undefined {
  if (!uri.startsWith(`${root}/`)) return undefined
  const segments = uri.slice(root.length + 1).split('/')
  const decoded: string[] = []
  for (const segment of segments) {
    let plainSegment: string
    try {
      plainSegment = decodeURIComponent(segment)
    } catch {
      return undefined
    }
    if (plainSegment === '' || plainSegment.startsWith('.') || /[/\\\0]/.test(plainSegment)) return undefined
    decoded.push(plainSegment)
  }
  return decoded.join('/')
}
