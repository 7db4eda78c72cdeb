/**
 * The host's side of the Skills extension (SEP-2640), without a request of its own: an entry
 * checked against the extension's rules, a file of a skill found by its path or URI (only files
 * the entry lists), the bytes read checked against the entry (size, then digest), and a
 * `SKILL.md`'s frontmatter parsed and compared with the entry's, field by field. `client.ts`
 * sends the requests; this decides what may be used.
 */
import { createHash } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { parseDocument } from 'yaml'
import { SakeClientOptionError } from '../errors.js'
import { got } from '../checks.js'
import { DIGEST_FORMAT, DYNAMIC, SKILL_MD, frontmatterBlock } from '../spec/skills.js'
import { isObject } from '../values.js'
import { HttpError, SkillVerificationError } from './errors.js'
import type { ReadResourceResult, Skill, SkillFile, SkillFrontmatter, SkillResource } from './types.js'

/** A URI has a scheme (`skill:`, `github:`); anything else given as a file is a path in the skill's folder. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function badArgument (method: string, name: string, accepts: string, value: unknown): never {
  throw new SakeClientOptionError(`fastify-sake/client: ${method}'s '${name}' must be ${accepts}, got ${got(value)}`)
}

/** Checks the `uri` argument of `getSkill` and `readSkillDirectory`. */
export function checkUriArgument (method: string, uri: unknown, accepts: string): void {
  if (typeof uri !== 'string' || uri.length === 0) badArgument(method, 'uri', accepts, uri)
}

/** Checks `readSkillFile`'s arguments: an entry (at least its URI) and a file named by a path or a URI. */
export function checkFileArguments (skill: unknown, file: unknown): asserts skill is Skill {
  if (!isObject(skill) || typeof skill.uri !== 'string') badArgument('readSkillFile', 'skill', 'a skill entry, as listSkills or getSkill give it', skill)
  if (typeof file !== 'string' || file.length === 0) badArgument('readSkillFile', 'file', "a path in the skill's folder ('references/GUIDE.md') or a URI its entry lists", file)
}

/** The skill's root folder: the URI of its `SKILL.md` without `/SKILL.md`. */
function rootOf (skill: Skill): string {
  return skill.uri.slice(0, -(SKILL_MD.length + 1))
}

/** The path of `uri` inside `root`, each segment decoded; undefined when it is not inside, or names no file. */
function pathIn (root: string, uri: string): string | undefined {
  if (!uri.startsWith(`${root}/`)) return undefined
  const segments: string[] = []
  for (const raw of uri.slice(root.length + 1).split('/')) {
    let segment = raw
    try {
      segment = decodeURIComponent(raw)
    } catch {
      // not percent-encoding: the segment as written
    }
    if (segment === '' || segment === '.' || segment === '..') return undefined
    segments.push(segment)
  }
  return segments.join('/')
}

/**
 * What is wrong with an entry, by the extension's rules the client relies on to verify it: the
 * URI of a `SKILL.md` whose folder is named as the frontmatter's `name`; a frontmatter with `name`
 * and `description`; `resources` either `"dynamic"` or every file once, inside the skill's folder,
 * with a `sha256:` digest and a size, its `SKILL.md` among them. Undefined when nothing is.
 */
export function entryProblem (entry: unknown): string | undefined {
  if (!isObject(entry)) return `it is not an object, got ${got(entry)}`
  const { uri, frontmatter, resources } = entry
  if (typeof uri !== 'string' || !uri.endsWith(`/${SKILL_MD}`)) return `its uri is not the URI of a ${SKILL_MD}, got ${got(uri)}`
  if (!isObject(frontmatter) || typeof frontmatter.name !== 'string' || typeof frontmatter.description !== 'string') return 'its frontmatter is not an object with a string name and description'
  const root = rootOf(entry as unknown as Skill)
  if (root.slice(root.lastIndexOf('/') + 1) !== frontmatter.name) return `the last segment of its path is not its frontmatter's name ${JSON.stringify(frontmatter.name)}`
  if (resources === DYNAMIC) return undefined
  if (!Array.isArray(resources)) return `its resources are neither an array of files nor "dynamic", got ${got(resources)}`
  const seen = new Set<string>()
  for (const file of resources as unknown[]) {
    if (!isObject(file) || typeof file.uri !== 'string' || typeof file.digest !== 'string' || !DIGEST_FORMAT.test(file.digest) || !Number.isSafeInteger(file.size) || (file.size as number) < 0) {
      return `a file of its resources is not { uri, digest: 'sha256:<64 hex>', size }: ${got(file)}`
    }
    if (file.uri !== uri && pathIn(root, file.uri) === undefined) return `${file.uri} in its resources is not a file in the skill's folder`
    if (seen.has(file.uri)) return `${file.uri} is in its resources twice`
    seen.add(file.uri)
  }
  if (!seen.has(uri)) return `its resources do not list its ${SKILL_MD}`
  return undefined
}

/** Throws the `'entry'` failure of an entry that breaks the rules (`uri`: what to name it by). */
export function checkEntry (entry: unknown, uri: string): asserts entry is Skill {
  const problem = entryProblem(entry)
  if (problem !== undefined) throw new SkillVerificationError('entry', uri, uri, `${uri}: the skill's entry breaks the Skills extension's rules (${problem}); such a skill is not loaded`)
}

/** A path resolved as a filesystem path would be (`.`, `..`, empty segments); undefined when it leaves the folder or names none of its files. */
function normalized (path: string): string | undefined {
  const out: string[] = []
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') {
      if (out.pop() === undefined) return undefined
      continue
    }
    out.push(segment)
  }
  return out.length === 0 ? undefined : out.join('/')
}

/**
 * The file of `skill` that `file` names: a URI as it is, a path against the skill's root. With
 * a list of files, only one of them (as the spec asks of a host holding the entry: a file it
 * does not list is a verification failure); for a dynamic skill, any file in its folder.
 */
export function fileOf (skill: Skill, file: string): { uri: string, listed: SkillResource | undefined } {
  const root = rootOf(skill)
  const refused = (uri: string, why: string): SkillVerificationError =>
    new SkillVerificationError('unlisted', uri, skill.uri, `${uri}: ${why}; a file the entry does not list is not read (getSkill with fresh: true gets the skill's current files)`)
  const isUri = SCHEME.test(file)
  const path = isUri ? undefined : normalized(file)
  if (!isUri && path === undefined) throw refused(file, `the path names no file inside the folder of ${skill.uri}`)
  if (skill.resources === DYNAMIC) {
    const uri = isUri ? file : `${root}/${path!.split('/').map(encodeURIComponent).join('/')}`
    if (uri !== skill.uri && pathIn(root, uri) === undefined) throw refused(uri, `not a file of ${skill.uri}: it is outside the skill's folder`)
    return { uri, listed: undefined }
  }
  const listed = skill.resources.find((r) => isUri ? r.uri === file : r.uri === `${root}/${path!}` || pathIn(root, r.uri) === path)
  if (listed === undefined) throw refused(isUri ? file : `${root}/${path!}`, `the entry of ${skill.uri} does not list it`)
  return { uri: listed.uri, listed }
}

function sha256 (bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

/** The bytes of the content `resources/read` gave for `uri`: a text's UTF-8, a blob's base64 decoded. */
function bytesOf (result: ReadResourceResult, uri: string): { bytes: Uint8Array, mimeType: string | undefined } {
  const contents: unknown[] = Array.isArray(result.contents) ? result.contents : []
  const content = contents.find((c): c is Record<string, unknown> => isObject(c) && c.uri === uri)
  const mimeType = typeof content?.mimeType === 'string' ? content.mimeType : undefined
  if (typeof content?.text === 'string') return { bytes: new TextEncoder().encode(content.text), mimeType }
  if (typeof content?.blob === 'string') return { bytes: new Uint8Array(Buffer.from(content.blob, 'base64')), mimeType }
  throw new HttpError(200, `resources/read: the server's answer holds no text or blob for ${uri}`, JSON.stringify(result))
}

/** A value as a frontmatter difference shows it. */
function shown (value: unknown): string {
  const json = JSON.stringify(value)
  return json.length > 60 ? `${json.slice(0, 57)}...` : json
}

/** The fields in which two frontmatters differ, each said in a few words. */
function differences (file: Record<string, unknown>, entry: Record<string, unknown>): string[] {
  const out: string[] = []
  for (const key of new Set([...Object.keys(file), ...Object.keys(entry)])) {
    if (!Object.hasOwn(entry, key)) out.push(`'${key}' is only in the file`)
    else if (!Object.hasOwn(file, key)) out.push(`'${key}' is only in the entry`)
    else if (!isDeepStrictEqual(file[key], entry[key])) out.push(`'${key}' is ${shown(file[key])} in the file, ${shown(entry[key])} in the entry`)
  }
  return out
}

/** A `SKILL.md`'s frontmatter, parsed as YAML, once it is the entry's field by field. */
function frontmatterOf (skill: Skill, text: string | undefined): SkillFrontmatter {
  const failure = (what: string): SkillVerificationError =>
    new SkillVerificationError('frontmatter', skill.uri, skill.uri, `${skill.uri}: ${what}; the skill is not loaded`)
  if (text === undefined) throw failure("it is not UTF-8 text, so it has no frontmatter to compare with the entry's")
  const block = frontmatterBlock(text)
  if (block === undefined) throw failure("it does not begin with YAML frontmatter between two '---' lines, as the entry's frontmatter says it does")
  const doc = parseDocument(block.yaml, { uniqueKeys: true, prettyErrors: false })
  if (doc.errors.length > 0) throw failure(`its frontmatter is not valid YAML: ${doc.errors[0]!.message}`)
  let value: unknown
  try {
    value = doc.toJS()
  } catch (err) {
    throw failure(`its frontmatter cannot be read: ${(err as Error).message}`) // too many aliases, say
  }
  if (!isObject(value)) throw failure(`its frontmatter is not a mapping (name: …, description: …), got ${got(value)}`)
  const differs = differences(value, skill.frontmatter)
  if (differs.length > 0) throw failure(`its frontmatter differs from the entry's: ${differs.join('; ')}`)
  return value as SkillFrontmatter
}

/**
 * The file `resources/read` gave, once it is what the entry says: its size, then its digest
 * (a size that differs fails before any hashing, as the spec allows); on the skill's own
 * `SKILL.md`, its frontmatter too. A dynamic skill's file has nothing to check but that.
 */
export function verifiedFile (skill: Skill, uri: string, listed: SkillResource | undefined, result: ReadResourceResult): SkillFile {
  const { bytes, mimeType } = bytesOf(result, uri)
  if (listed !== undefined) {
    const failure = (reason: 'size' | 'digest', what: string): SkillVerificationError =>
      new SkillVerificationError(reason, uri, skill.uri, `${uri}: ${what}, not what the entry of ${skill.uri} says; the content is not used (it may be stale: getSkill with fresh: true gets the current entry)`)
    if (bytes.byteLength !== listed.size) throw failure('size', `${bytes.byteLength} bytes read, the entry says ${listed.size}`)
    const digest = sha256(bytes)
    if (digest !== listed.digest) throw failure('digest', `the bytes read hash to ${digest}, the entry says ${listed.digest}`)
  }
  let text: string | undefined
  try {
    text = utf8.decode(bytes)
  } catch {
    text = undefined // a binary file
  }
  const file: SkillFile = { uri, bytes, text, mimeType, verified: listed !== undefined }
  // a nested skill's SKILL.md is plain markdown to this skill: only its own is compared
  if (uri === skill.uri) file.frontmatter = frontmatterOf(skill, text)
  return file
}
