/**
 * Skills in a folder on disk, the usual authoring form: `skills/<path>/SKILL.md` with its
 * `references/`, `scripts/` and `assets/`. Read once, at registration, into skills in code
 * (`skill.ts`): what is served is exactly what was read and digested then. Only regular files are
 * read: a symbolic link (to a file or a folder, inside the folder or out of it) is never followed,
 * a hard link (a file with more than one name: one of them may be `/etc/passwd`, linked in) is not
 * read, and a hidden file or folder (`.env`, `.git/`) is skipped, so nothing outside a skill's own
 * folder, and nothing its author did not mean to publish, can be served.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SakeSkillDefinitionError } from '../errors.js'
import { SKILL_MD } from '../spec/skills.js'
import { kind } from '../values.js'
import type { ScopeRequirement } from './requirement.js'
import type { SkillDirectoryDefinition, SkillFilesDefinition, SkillLimits } from './skill.js'

const KEYS = new Set(['directory', 'prefix', 'scope', 'path', 'files', 'resources'])

/** A skill read from disk, with where each of its files is, for messages. */
export interface FolderSkill {
  readonly definition: SkillFilesDefinition
  /** The file on disk a path inside the skill is. */
  readonly where: (file: string) => string
}

interface Walked {
  /** Regular files, by path relative to the walked folder ('/'-separated). */
  readonly files: string[]
  /** Folders holding a SKILL.md, relative ('' for the walked folder itself). */
  readonly skills: string[]
  /** What was not read: symbolic links, hard links and other special files. */
  readonly skipped: string[]
}

function fail (message: string): never {
  throw new SakeSkillDefinitionError(message)
}

/** Every regular file under `dir` with one name, hidden entries and links left out; a file too large fails. */
function walk (dir: string, limits: SkillLimits): Walked {
  const walked: Walked = { files: [], skills: [], skipped: [] }
  const visit = (folder: string): void => {
    for (const dirent of readdirSync(folder, { withFileTypes: true }).sort((a, b) => Number(a.name > b.name) - Number(a.name < b.name))) {
      if (dirent.name.startsWith('.')) continue // hidden: never published
      const full = join(folder, dirent.name)
      const rel = relative(dir, full).split(sep).join('/')
      if (dirent.isDirectory()) {
        visit(full)
      } else if (dirent.isFile()) {
        const { size, nlink } = lstatSync(full)
        // a second name of a file may be anywhere on the disk: which name is the original, nobody can tell
        if (nlink > 1) {
          walked.skipped.push(rel)
          continue
        }
        if (size > limits.maxFileSize) fail(`skill file ${full} is ${size} bytes, above skills.maxFileSize (${limits.maxFileSize}): make it smaller, move it out of the skills folder, or raise the option`)
        walked.files.push(rel)
        if (dirent.name === SKILL_MD) walked.skills.push(rel.slice(0, -SKILL_MD.length - 1))
      } else {
        walked.skipped.push(rel) // a symbolic link, a socket, a device: not followed, not served
      }
    }
  }
  visit(dir)
  return walked
}

/**
 * A file's bytes, refusing one that became a symbolic link since the walk saw it; undefined for
 * one that became a hard link since (the file opened is what counts, not the name looked at).
 */
function readRegular (file: string): Buffer | undefined {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    return fstatSync(fd).nlink > 1 ? undefined : readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * The skills in a folder: each folder holding a `SKILL.md` is one, with every file under it (a
 * nested skill's files too: to the skill around it they are supporting files, as the spec says).
 * Throws `SakeSkillDefinitionError` naming the folder or file and what to change.
 */
export function readSkillFolder (def: SkillDirectoryDefinition, limits: SkillLimits): { skills: FolderSkill[], skipped: string[] } {
  for (const key of Object.keys(def)) if (!KEYS.has(key)) fail(`skills folder ${String(def.directory)}: unknown option '${key}'; a folder of skills has directory, prefix and scope`)
  if (def.path !== undefined || def.files !== undefined || def.resources !== undefined) fail(`skills folder ${String(def.directory)}: a folder's skills take their paths and files from disk: give 'prefix', not 'path', 'files' or 'resources'`)
  const { directory, prefix, scope } = def
  if (typeof directory !== 'string' && !(directory instanceof URL)) fail(`skills: 'directory' must be a path or a file: URL of a folder holding skills, got ${kind(directory)}`)
  const dir = directory instanceof URL ? fileURLToPath(directory) : directory
  let stat
  try {
    stat = lstatSync(dir)
  } catch (err) {
    fail(`skills folder ${dir} cannot be read: ${(err as Error).message}`)
  }
  if (!stat.isDirectory()) fail(`skills folder ${dir} is not a folder${stat.isSymbolicLink() ? ' (a symbolic link, which is not followed: give the folder itself)' : ''}`)
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix.length === 0 || prefix.startsWith('/') || prefix.endsWith('/'))) fail(`skills folder ${dir}: 'prefix' must be path segments such as 'acme' or 'acme/billing', got ${JSON.stringify(prefix) ?? kind(prefix)}`)
  const walked = walk(dir, limits)
  const skipped = walked.skipped.map((file) => join(dir, file))
  if (walked.skills.length === 0) fail(`skills folder ${dir} holds no skill: each skill is a folder with a ${SKILL_MD} (${dir}/<name>/${SKILL_MD})`)
  const skills = walked.skills.map((folder) => {
    // the folder itself as one skill is named by its own name; a skill under it by its relative path
    const own = folder === '' ? basename(dir) : folder
    const path = prefix === undefined ? own : `${prefix}/${own}`
    const inside = folder === '' ? walked.files : walked.files.filter((file) => file.startsWith(`${folder}/`))
    const files: Record<string, Buffer> = {}
    for (const file of inside) {
      const bytes = readRegular(join(dir, file))
      if (bytes !== undefined) files[folder === '' ? file : file.slice(folder.length + 1)] = bytes
      else if (!skipped.includes(join(dir, file))) skipped.push(join(dir, file)) // a nested skill's file is read twice: reported once
    }
    const definition: SkillFilesDefinition = { path, files, ...(scope === undefined ? {} : { scope: scope as ScopeRequirement }) }
    return { definition, where: (file: string) => join(dir, folder, file) }
  })
  return { skills, skipped }
}
