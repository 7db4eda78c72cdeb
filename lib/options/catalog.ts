/**
 * The options that register what the server serves (`tools`, `resources`, `prompts`, `skills`):
 * the definitions themselves are checked when registered; here, only that each option is a list.
 */
import { fail } from '../checks.js'
import { custom, integer, readGroup, type InputOf, type Option } from '../option-spec.js'
import type { SkillDefinition } from '../define/skill.js'
import { SKILL_LIMITS } from '../spec/skills.js'

/** A list of definitions (`tools`, `resources`, `prompts`), copied: later changes to the caller's array do not reach it. */
export function definitions<T> (what: string): Option<T[], readonly T[]> {
  return custom('`[]`', (value, { name }) => {
    const list = value === undefined ? [] : value
    if (!Array.isArray(list)) fail(name, `an array of ${what} definitions`, list)
    return Object.freeze([...list]) as readonly T[]
  })
}

export const SKILLS = {
  /** A folder of skills, read at registration: the same as `app.registerSkill({ directory })`. */
  directory: custom<string | URL, string | URL | undefined>(undefined, (directory, { name }) => {
    if (directory !== undefined && typeof directory !== 'string' && !(directory instanceof URL)) fail(name, "a folder's path or file: URL, such as './skills' or new URL('./skills', import.meta.url)", directory)
    return directory
  }),
  /** Skills in code, dynamic skills, more folders: the same as `app.registerSkill` for each. */
  definitions: custom<SkillDefinition[], readonly SkillDefinition[]>('`[]`', (value, { name }) => {
    const list = value === undefined ? [] : value
    if (!Array.isArray(list)) fail(name, 'an array of skill definitions ({ directory }, { path, files } or { path, resources: \'dynamic\', frontmatter, read })', list)
    return list
  }),
  /** Bytes of one skill file at most; a larger file is a registration error. Default 1 MiB. */
  maxFileSize: integer({ default: 1024 * 1024, min: 1, max: SKILL_LIMITS.bytes, unit: 'bytes' }),
  /** Serve `resources/directory/read` on the skills' folders (declared as `directoryRead`). Default true. */
  directoryRead: custom<boolean, boolean>('`true`', (value = true, { name }) => {
    if (typeof value !== 'boolean') fail(name, 'true or false', value)
    return value
  })
}

export interface SkillsOptions extends InputOf<typeof SKILLS> {}

/** The skills to register (a `directory` first), with their limits. */
export interface ResolvedSkills {
  readonly definitions: readonly SkillDefinition[]
  readonly maxFileSize: number
  readonly directoryRead: boolean
}

/** `skills`: `{ directory?, definitions?, maxFileSize?, directoryRead? }`; the definitions are checked when registered. */
export const SKILLS_OPTION: Option<SkillsOptions, ResolvedSkills> & { members: typeof SKILLS } = {
  shown: undefined,
  members: SKILLS,
  read (value, { root }) {
    const { directory, definitions, maxFileSize, directoryRead } = readGroup(SKILLS, value, 'skills', "an object { directory?, definitions?, maxFileSize?, directoryRead? }, such as { directory: './skills' }", root)
    return Object.freeze({
      definitions: Object.freeze(directory === undefined ? [...definitions] : [{ directory } as SkillDefinition, ...definitions]),
      maxFileSize,
      directoryRead
    })
  }
}
