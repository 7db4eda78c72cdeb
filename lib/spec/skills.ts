/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): its id, methods, limits and
 * the Agent Skills naming rule. The server (define/, protocol/) serves it and the client (client/)
 * reads it, so its facts live here, as `spec/apps.ts` holds MCP Apps'.
 */

/** The extension's id in `capabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills'

/** The scheme skills are served under (the spec's SHOULD). */
export const SKILL_SCHEME = 'skill://'

/** Every skill's manifest, at the root of its folder. */
export const SKILL_MD = 'SKILL.md'

/** The `mimeType` of a directory resource (`resources/directory/read`). */
export const DIRECTORY_MIME_TYPE = 'inode/directory'

/** A skill's `SKILL.md` is markdown (the spec's SHOULD). */
export const SKILL_MD_MIME_TYPE = 'text/markdown'

/** The per-skill limits every conforming host accepts: a skill beyond them is not served. */
export const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 })

/** A skill entry's `resources` when its content is generated: no digests to publish. */
export const DYNAMIC = 'dynamic'

/**
 * The Agent Skills rule for `name` (and so for the last segment of a skill's path): 1 to 64
 * lowercase letters, digits and hyphens, no hyphen first, last or twice in a row.
 */
export function isSkillName (name: string): boolean {
  return name.length >= 1 && name.length <= 64 && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)
}

/** `sha256:` and the 64 lowercase hex digits of a file's bytes: the form of an entry's `digest`. */
export const DIGEST_FORMAT = /^sha256:[0-9a-f]{64}$/

/**
 * A `SKILL.md`'s frontmatter block: the YAML between a first line `---` and the next line `---`,
 * and where the body starts; undefined when the text does not begin with one. A byte order mark
 * before it is allowed, as YAML allows it.
 */
export function frontmatterBlock (text: string): { readonly yaml: string, readonly bodyStart: number } | undefined {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text.slice(start))
  return match === null ? undefined : { yaml: match[1]!, bodyStart: start + match[0].length }
}
