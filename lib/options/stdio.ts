/**
 * `app.mcp.stdio(options)`'s options (docs/stdio.md), declared once (lib/option-spec.ts).
 */
import type { Readable, Writable } from 'node:stream'
import { BadCaller, SakeOptionError } from '../errors.js'
import { fail } from '../checks.js'
import { isObject } from '../values.js'
import { custom, flag, readGroup, type InputOf, type ResolvedOf } from '../option-spec.js'
import type { AuthInfo } from '../spec/types.js'
import type { Caller } from '../auth/auth-options.js'
import { toAuthInfo } from '../auth/verify.js'

function isStream (value: unknown, method: 'read' | 'write'): boolean {
  return isObject(value) && typeof value.on === 'function' && typeof value[method] === 'function'
}

export const STDIO = {
  /** Where the client's messages come from (default `process.stdin`). */
  input: custom<Readable, Readable>('`process.stdin`', (given, { name }) => {
    const value = given ?? process.stdin
    if (!isStream(value, 'read')) fail(name, 'a readable stream (process.stdin, a socket)', value)
    return value as Readable
  }),
  /** Where the server's messages go (default `process.stdout`, held for the protocol alone while the connection runs). */
  output: custom<Writable, Writable>('`process.stdout`', (given, { name }) => {
    const value = given ?? process.stdout
    if (!isStream(value, 'write')) fail(name, 'a writable stream (process.stdout, a socket)', value)
    return value as Writable
  }),
  /**
   * Who calls, when the host knows (the person who started the process, a key from the
   * environment): every call is then checked against its scopes as over HTTP. Absent (the
   * default), nothing is checked: over stdio the caller is whoever started the process, who has
   * its rights already; the `auth` option's tokens are HTTP's.
   */
  caller: custom<Caller, AuthInfo | undefined>(undefined, (value) => {
    if (value === undefined) return undefined
    try {
      return toAuthInfo(value)
    } catch (err) {
      const problem = err instanceof BadCaller ? err.problem : (err as Error).message
      throw new SakeOptionError(`fastify-sake: option 'stdio.caller' must be a caller ({ subject, scopes?, acr?, authTime?, expiresAt?, claims? }, as verifyToken returns): ${problem}`)
    }
  }),
  /** `app.close()` once the client closed its input and its calls were answered (default true): the process can then exit. */
  closeOnEnd: flag(true, 'a boolean')
}

/** `app.mcp.stdio(options)`: one stdio connection (docs/stdio.md). */
export interface StdioOptions extends InputOf<typeof STDIO> {}

/** The stdio options once checked. */
export type ResolvedStdioOptions = ResolvedOf<typeof STDIO>

/** Checks `app.mcp.stdio()`'s options, with a message naming what to change. */
export function resolveStdioOptions (input: unknown): ResolvedStdioOptions {
  return readGroup(STDIO, input, 'stdio', 'an object ({ input, output, caller, closeOnEnd }) or nothing')
}
