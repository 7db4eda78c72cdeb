/**
 * The directory resources of the skills a registry holds (`resources/directory/read`): each skill's
 * folders, and the folders of the namespace above skills; and what a URI inside a skill's folder
 * belongs to. Built from the registry's skills, which own nothing here.
 */
import { DIRECTORY_MIME_TYPE, SKILL_MD, SKILL_SCHEME } from '../spec/skills.js'
import type { Requirement } from './requirement.js'
import type { CompiledSkill, DirectoryChild } from './skill.js'

/**
 * A directory resource (`resources/directory/read`): a skill's folder or one of its sub-folders,
 * or a folder of the namespace above skills (`skill://acme` above `skill://acme/refunds`); a
 * dynamic skill's folders are read live (`skill`).
 */
export interface FoundDirectory {
  readonly kind: 'directory'
  readonly uri: string
  /** Its children as registered; undefined for a dynamic skill's folder. */
  readonly children: readonly DirectoryChild[] | undefined
  /** The dynamic skill it belongs to, whose `list` gives its children. */
  readonly skill: CompiledSkill | undefined
  /** What reading it demands: its skill's scope; nothing for a folder above skills (its children are filtered). */
  readonly access: CompiledSkill['access']
  /** A folder of the namespace above skills: to a caller who may see none of the skills under it, it is not there. */
  readonly above: boolean
}

/**
 * A URI inside a skill's folder that names nothing there of the kind asked for: no such file,
 * folder or nested skill. It belongs to that skill all the same, so that a caller the skill does
 * not allow gets the skill's refusal whether the name exists or not (names inside a skill cannot be
 * probed without its scope), and a caller it allows gets the method's not-found answer.
 */
export interface InSkill {
  readonly kind: 'in-skill'
  readonly uri: string
  /** What the request asked for, as a refusal names it: `resource '…'`, as for a file that exists. */
  readonly asked: 'resource' | 'skill' | 'directory'
  /** What the skill around it demands. */
  readonly access: Requirement | undefined
}

/**
 * A URI inside the folder of a skill (the innermost, for a nested one), as what belongs to it:
 * `skill://acme/refunds/x` is inside `skill://acme/refunds`'s. Only the first `depth` segments
 * are looked at (the most a skill's path has), so a URI of many segments costs no more than a short one.
 */
export function inSkill (skills: ReadonlyMap<string, CompiledSkill>, depth: number, uri: string,
  asked: InSkill['asked']): InSkill | undefined {
  if (!uri.startsWith(SKILL_SCHEME)) return undefined
  let skill: CompiledSkill | undefined
  let end = SKILL_SCHEME.length
  for (let segment = 0; segment < depth; segment++) {
    end = uri.indexOf('/', end + 1)
    if (end === -1) break
    skill = skills.get(`${uri.slice(0, end)}/${SKILL_MD}`) ?? skill
  }
  return skill === undefined ? undefined : { kind: 'in-skill', uri, asked, access: skill.access }
}

/** Every skill's folders, and the folders of the namespace above them, each with its children. */
export function skillDirectories (skills: ReadonlyMap<string, CompiledSkill>): Map<string, FoundDirectory> {
  const directories = new Map<string, FoundDirectory>()
  // the folders above skills, each with its children (a folder's `skills` filled in as skills are met)
  const above = new Map<string, Map<string, DirectoryChild & { skills?: Array<Requirement | undefined> }>>()
  for (const skill of skills.values()) {
    for (const [uri, children] of skill.directories) {
      // a nested skill's folders are its enclosing skill's too: the enclosing one's answer stands
      if (directories.has(uri)) continue
      directories.set(uri, { kind: 'directory', uri, children, skill: undefined, access: skill.access, above: false })
    }
    // skill://acme/billing/refunds: skill://acme lists billing, skill://acme/billing lists refunds
    const segments = skill.path.split('/')
    for (let i = 1; i < segments.length; i++) {
      const parent = SKILL_SCHEME + segments.slice(0, i).join('/')
      const child = SKILL_SCHEME + segments.slice(0, i + 1).join('/')
      const children = above.get(parent) ?? new Map()
      above.set(parent, children)
      // a child that is itself a skill's root demands that skill's scope to be seen; a folder
      // above skills is seen by a caller who may see one of the skills under it (its name says
      // what is there: to anyone else it is not there)
      const own = skills.get(`${child}/${SKILL_MD}`)
      const known = children.get(child)
      const wire = { uri: child, name: segments[i], mimeType: DIRECTORY_MIME_TYPE }
      if (own !== undefined) children.set(child, { wire, access: own.access })
      else if (known === undefined) children.set(child, { wire, access: undefined, skills: [skill.access] })
      else known.skills!.push(skill.access)
    }
  }
  for (const [uri, children] of above) {
    // a skill's own folder holding a nested one: listed from the skill's files
    if (directories.has(uri)) continue
    const sorted = [...children.values()]
      .sort((a, b) => Number(a.wire.uri! > b.wire.uri!) - Number(a.wire.uri! < b.wire.uri!))
    directories.set(uri, { kind: 'directory', uri, children: sorted, skill: undefined, access: undefined, above: true })
  }
  return directories
}
