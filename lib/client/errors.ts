/**
 * The errors of `fastify-sake/client`: what a call to an MCP server can end in besides its result.
 * Here, beside the client, since nothing of the server raises them; the package's main entry point
 * exports them too (the one import of `lib/client/` the server's side makes, allowed by
 * `.dependency-cruiser.mjs`), so `instanceof` works with either import. Not `ProtocolError`s: a tool
 * that calls another server and lets one through would otherwise have our server send it as its own
 * answer. `SakeClientOptionError` stays in `lib/errors.ts` with the other `SAKE_ERR_*` codes.
 */

/**
 * `fastify-sake/client`: the server answered a request with a JSON-RPC error. `code`, `message`
 * and `data` are the server's; `status` is the HTTP status of the response that carried it
 * (undefined when it came inside an event stream). A tool's own failure is not one of these: it is
 * a result with `isError: true`.
 */
export class RpcError extends Error {
  readonly code: number
  readonly data: unknown
  readonly status: number | undefined

  constructor (code: number, message: string, data?: unknown, status?: number) {
    super(message)
    this.name = 'RpcError'
    this.code = code
    this.data = data
    this.status = status
  }
}

/** One challenge of a `WWW-Authenticate` header: its scheme and its parameters (names lower-cased). */
export interface AuthChallenge {
  readonly scheme: string
  readonly params: Readonly<Record<string, string>>
}

/**
 * `fastify-sake/client`: the server refused the request with 401 or 403. `challenges` holds every
 * challenge of `WWW-Authenticate`, parsed; `error`, `scopes`, `resourceMetadata`, `description`
 * read the Bearer one (RFC 6750, RFC 9728, RFC 9470: `acrValues`, `maxAge`). `rpc` is the JSON-RPC
 * error of the body, when there was one.
 */
export class AuthChallengeError extends Error {
  readonly status: number
  readonly challenges: readonly AuthChallenge[]
  /** The OAuth error code (`invalid_token`, `insufficient_scope`, ...); undefined for a bare 401. */
  readonly error: string | undefined
  /** The scopes the challenge names (`scope="a b"`), empty when none. */
  readonly scopes: readonly string[]
  /** Where the protected resource metadata is (`resource_metadata`). */
  readonly resourceMetadata: string | undefined
  readonly description: string | undefined
  readonly acrValues: readonly string[]
  readonly maxAge: number | undefined
  readonly rpc: { readonly code: number, readonly message: string, readonly data?: unknown } | undefined

  constructor (status: number, challenges: readonly AuthChallenge[], rpc?: { code: number, message: string, data?: unknown }) {
    const bearer = challenges.find((c) => c.scheme.toLowerCase() === 'bearer')?.params ?? {}
    const error = bearer.error
    const what = error === undefined ? '' : ` (${error}${bearer.scope === undefined ? '' : `, scope "${bearer.scope}"`})`
    super(`the server refused the request with ${status}${what}${rpc === undefined ? '' : `: ${rpc.message}`}`)
    this.name = 'AuthChallengeError'
    this.status = status
    this.challenges = challenges
    this.error = error
    this.scopes = Object.freeze(bearer.scope === undefined ? [] : bearer.scope.split(' ').filter((s) => s.length > 0))
    this.resourceMetadata = bearer.resource_metadata
    this.description = bearer.error_description
    this.acrValues = Object.freeze(bearer.acr_values === undefined ? [] : bearer.acr_values.split(' ').filter((s) => s.length > 0))
    this.maxAge = bearer.max_age === undefined || !/^\d+$/.test(bearer.max_age) ? undefined : Number(bearer.max_age)
    this.rpc = rpc
  }
}

/**
 * `fastify-sake/client`: an HTTP answer that is no JSON-RPC answer: a status the request did not
 * expect without a JSON-RPC body (a proxy's 502, a 404 page), or a body that is not the response
 * to the request. `body` is the text received (at most 2,000 characters).
 */
export class HttpError extends Error {
  readonly status: number
  readonly body: string

  constructor (status: number, message: string, body: string) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.body = body.length > 2000 ? body.slice(0, 2000) : body
  }
}

/**
 * `fastify-sake/client`: the server asked a question (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`) that `onInput` does not answer, and the client was told to fail then
 * (`unanswered: 'error'`), or the question is one no default can answer (sampling and roots have no
 * "decline"), or the server kept asking beyond `maxRounds`.
 */
export class UnansweredInputError extends Error {
  readonly key: string
  readonly method: string

  constructor (key: string, method: string, message: string) {
    super(message)
    this.name = 'UnansweredInputError'
    this.key = key
    this.method = method
  }
}

/**
 * Why a skill's file (or its entry) failed verification: an `'entry'` that breaks the Skills
 * extension's rules (such a skill is not loaded), a file the entry does not list (`'unlisted'`),
 * bytes of another `'size'` or `'digest'`, or a `SKILL.md` whose `'frontmatter'` is not the entry's.
 */
export type SkillVerificationReason = 'entry' | 'unlisted' | 'size' | 'digest' | 'frontmatter'

/**
 * `fastify-sake/client`: what a skill's server sent is not what its entry describes (SEP-2640's
 * verification on read): the content must not be used. `uri` is the file's, `skill` the URI of the
 * skill's `SKILL.md`; the message says what differed. Stale content is one cause: `getSkill` with
 * `fresh: true` gets the current entry.
 */
export class SkillVerificationError extends Error {
  readonly reason: SkillVerificationReason
  readonly uri: string
  readonly skill: string

  constructor (reason: SkillVerificationReason, uri: string, skill: string, message: string) {
    super(message)
    this.name = 'SkillVerificationError'
    this.reason = reason
    this.uri = uri
    this.skill = skill
  }
}

/**
 * `fastify-sake/client`: the call needs something the server does not declare in its
 * capabilities (the Skills extension, or its `directoryRead`), so it was not sent: the spec has
 * clients call those methods only on a server that declares them. `capability` names what is missing.
 */
export class ServerCapabilityError extends Error {
  readonly method: string
  readonly capability: string

  constructor (method: string, capability: string, message: string) {
    super(message)
    this.name = 'ServerCapabilityError'
    this.method = method
    this.capability = capability
  }
}

/**
 * Why a stdio server's process failed the client: it could not be started (`'spawn'`: no such
 * program, no such `cwd`, not executable), it exited or was killed (`'exit'`), it wrote a line to
 * stdout that is not a JSON-RPC message (`'output'`: a log line, say), or it closed its stdin
 * while it still ran (`'input'`).
 */
export type ServerProcessReason = 'spawn' | 'exit' | 'output' | 'input'

/**
 * `fastify-sake/client`: the server process of a `{ command }` client failed (`reason`). `exitCode`
 * and `signal` say how it ended (null while it still ran, or when it never started); `stderr` is
 * the end of what it wrote there (at most 2,000 characters) when the client's `stderr` is
 * `'pipe'`, the default. Every request of the client fails with this error from then on, until
 * `close()`; the next request after that starts the process again.
 */
export class ServerProcessError extends Error {
  readonly reason: ServerProcessReason
  /** The command line, as started: the command and its arguments. */
  readonly command: string
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stderr: string | undefined

  constructor (reason: ServerProcessReason, command: string, message: string, ended: { exitCode?: number | null, signal?: string | null, stderr?: string, cause?: unknown } = {}) {
    const { exitCode = null, signal = null, stderr } = ended
    const tail = stderr === undefined || stderr.trim() === '' ? '' : `; its stderr ends with:\n${stderr.trimEnd()}`
    super(`${message}${tail}`, ended.cause === undefined ? undefined : { cause: ended.cause })
    this.name = 'ServerProcessError'
    this.reason = reason
    this.command = command
    this.exitCode = exitCode
    this.signal = signal
    this.stderr = stderr
  }
}
