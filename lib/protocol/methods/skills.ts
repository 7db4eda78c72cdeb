/**
 * The Skills extension's methods (SEP-2640), in both eras: `skills/list` (a paged list, like the
 * others, serialised once), `skills/get` (an entry, by the URI of its `SKILL.md`) and
 * `resources/directory/read` (a folder's direct children). A skill's files are read with
 * `resources/read` (`resources.ts`): they are resources. A server with no skill answers these as
 * unknown methods, as it declares no extension.
 */
import { ProtocolError } from '../../errors.js'
import { INVALID_PARAMS, METHOD_NOT_FOUND } from '../../spec/jsonrpc.js'
import { DIRECTORY_MIME_TYPE, SKILL_MD } from '../../spec/skills.js'
import { allows } from '../../define/requirement.js'
import type { CompiledSkill, DirectoryChild } from '../../define/skill.js'
import type { FoundDirectory } from '../../define/skill-directories.js'
import type { Call } from '../call.js'
import { FeatureContext } from '../call-context.js'
import { resultJson } from '../results.js'
import type { ServerContext } from '../server.js'
import { listPage } from './resources.js'

/** The extension's methods are not there when the server declares no skill (or no `directoryRead`). */
function served (server: ServerContext, call: Call, directory: boolean): void {
  const { registry } = server
  if (!registry.servesSkills() || (directory && !registry.skillLimits.directoryRead)) {
    throw new ProtocolError(METHOD_NOT_FOUND, `Method not found: ${call.method}`, call.era === 'modern' ? 404 : 200)
  }
}

function uriOf (call: Call): string {
  const uri = call.params.uri
  if (typeof uri !== 'string') throw new ProtocolError(INVALID_PARAMS, `Invalid params: ${call.method} needs "uri" as a string`)
  return uri
}

/** The `cacheScope` of an answer about a skill or a folder: shared caches may keep what needs no token. */
function cacheScopeOf (call: Call, item: { readonly access: CompiledSkill['access'] }): 'public' | 'private' {
  return item.access === undefined && call.auth === undefined ? 'public' : 'private'
}

export function listSkills (server: ServerContext, call: Call): string {
  served(server, call, false)
  return listPage(server, call, 'skills')
}

/** `skills/get`: the entry of the skill whose `SKILL.md` the URI names; -32602 for any other URI (one inside a skill's folder too, once authorized). */
export function getSkill (server: ServerContext, call: Call): string {
  served(server, call, false)
  const uri = uriOf(call)
  const skill = call.target?.kind === 'skill' ? call.target : undefined // looked up at the edge, and authorized there
  if (skill === undefined) throw new ProtocolError(INVALID_PARAMS, `Invalid params: no skill is served at ${uri}; a skill is named by the URI of its ${SKILL_MD} (skills/list gives them)`, 200, { uri })
  return call.era === 'modern'
    ? resultJson(server, 'modern', { skill: skill.entry, ttlMs: server.ttl, cacheScope: cacheScopeOf(call, skill) })
    : resultJson(server, 'legacy', { skill: skill.entry })
}

/** -32602 for a URI that names no directory: a missing one, and one the caller may see nothing in, alike. */
function noDirectory (uri: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, `Invalid params: no directory is served at ${uri}`, 200, { uri })
}

/** Whether a caller holding `held` is shown a child: its own scope, and for a folder above skills, one of theirs. */
function shown (child: DirectoryChild, held: readonly string[]): boolean {
  return allows(child.access, held) && (child.skills === undefined || child.skills.some((access) => allows(access, held)))
}

/**
 * `resources/directory/read`: a folder's direct children, files with their resource metadata and
 * sub-folders as `inode/directory`, a page at a time; only those the caller's scopes allow (a
 * folder above skills may hold skills of several scopes, and one holding none the caller may see
 * is not there for it). -32602 for a URI that is not a folder.
 */
export async function readDirectory (server: ServerContext, call: Call): Promise<string> {
  served(server, call, true)
  const uri = uriOf(call)
  const cursor = call.params.cursor
  if (cursor !== undefined && typeof cursor !== 'string') throw new ProtocolError(INVALID_PARAMS, 'Invalid params: "cursor" must be a string')
  const found = call.target?.kind === 'directory' ? call.target : undefined
  if (found === undefined) {
    if (server.registry.findResource(uri)?.kind !== 'found') throw noDirectory(uri)
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: ${uri} is not a directory resource (read it with resources/read)`, 200, { uri })
  }
  const held = call.auth?.scopes
  const children = (await childrenOf(found, call, server.input)).filter((child) => held === undefined || shown(child, held))
  if (found.above && children.length === 0) throw noDirectory(uri)
  const pageSize = server.lists.pageSize
  const start = cursor === undefined ? 0 : pageIndex(cursor, uri)
  if (start === undefined || (start > 0 && start >= children.length)) throw new ProtocolError(INVALID_PARAMS, `Invalid params: unknown cursor ${JSON.stringify(cursor)}; start again without a cursor`)
  const page = children.slice(start, start + pageSize).map((child) => child.wire)
  const next = start + pageSize < children.length ? Buffer.from(`${uri}\n${start + pageSize}`).toString('base64url') : undefined
  const result = next === undefined ? { resources: page } : { resources: page, nextCursor: next }
  // the spec asks no cache hints here (PaginatedResult only), but the official 2026-07-28 client
  // (@modelcontextprotocol/client 2.4.0, SkillsClient.readDirectory) refuses a page without them;
  // a result may carry more fields, so every client reads it: the server's ttl, as for the folder's files
  return call.era === 'modern'
    ? resultJson(server, 'modern', { ...result, ttlMs: server.ttl, cacheScope: cacheScopeOf(call, found) })
    : resultJson(server, 'legacy', result)
}

/** The offset a cursor of ours opens, for this folder; undefined for anything else. */
function pageIndex (cursor: string, uri: string): number | undefined {
  const [at, offset] = Buffer.from(cursor, 'base64url').toString().split('\n')
  const index = Number(offset)
  return at === uri && Number.isSafeInteger(index) && index > 0 ? index : undefined
}

/** A folder's children: registered, or (a dynamic skill's) from its `list` now. */
async function childrenOf (found: FoundDirectory, call: Call, settings: ServerContext['input']): Promise<readonly DirectoryChild[]> {
  if (found.children !== undefined) return found.children
  const skill = found.skill!
  const files = skill.list === undefined ? [SKILL_MD] : await skill.list(new FeatureContext(call, { resource: found.uri }, settings, undefined, false))
  const children = new Map<string, DirectoryChild>()
  for (const file of files) {
    if (typeof file !== 'string') continue
    const [first, ...rest] = file.split('/')
    if (first === undefined || first === '' || first.startsWith('.')) continue
    const uri = `${found.uri}/${encodeURIComponent(first)}`
    children.set(uri, { wire: rest.length === 0 ? { uri, name: first } : { uri, name: first, mimeType: DIRECTORY_MIME_TYPE }, access: skill.access })
  }
  return [...children.values()].sort((a, b) => Number(a.wire.uri! > b.wire.uri!) - Number(a.wire.uri! < b.wire.uri!))
}
