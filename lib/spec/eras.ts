/**
 * The protocol revisions this server speaks, and what differs between them, as data: the rest of
 * the code asks these tables instead of comparing version strings (mercurius keeps its two
 * subscription dialects the same way).
 */

export type Era = 'modern' | 'legacy'

/** Stateless revisions: every request carries its version and capabilities in `_meta`. */
export const MODERN_VERSIONS = Object.freeze(['2026-07-28'] as const)
/** Session revisions, negotiated by `initialize`, newest first (the first is offered by default). */
export const LEGACY_VERSIONS = Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26'] as const)
/** Every version, newest first: the `supported` list of an unsupported-version error. */
export const SUPPORTED_VERSIONS: readonly string[] = Object.freeze([...MODERN_VERSIONS, ...LEGACY_VERSIONS])

export type LegacyVersion = typeof LEGACY_VERSIONS[number]

/** What a revision has. A call carries its revision's rules (`Call.rules`), looked up once when it is made. */
export interface Rules {
  /** Clients send `MCP-Protocol-Version` on every request after `initialize`. */
  readonly versionHeader: boolean
  /** A POST body may be a JSON-RPC batch (an array). */
  readonly batches: boolean
  /** `structuredContent` and `outputSchema` exist. */
  readonly structuredOutput: boolean
  /** SSE streams carry event ids (a priming event first) and resume with GET + `Last-Event-ID`. */
  readonly resumable: boolean
  /** The server may ask `elicitation/create` (form mode; `elicitation: {}` declares it). */
  readonly elicitation: boolean
  /** URL-mode elicitation (`elicitation.url`), and with it the `mode` field of `elicitation/create`. */
  readonly urlElicitation: boolean
  /** Tasks: the `tasks` capability, `params.task` on `tools/call`, the `tasks/*` methods. */
  readonly tasks: boolean
}

const legacyRules: Record<LegacyVersion, Rules> = {
  '2025-11-25': { versionHeader: true, batches: false, structuredOutput: true, resumable: true, elicitation: true, urlElicitation: true, tasks: true },
  '2025-06-18': { versionHeader: true, batches: false, structuredOutput: true, resumable: false, elicitation: true, urlElicitation: false, tasks: false },
  '2025-03-26': { versionHeader: false, batches: true, structuredOutput: false, resumable: false, elicitation: false, urlElicitation: false, tasks: false }
}

/**
 * The 2026-07-28 revision's: no resumable streams (no event ids), and the tasks extension instead of
 * 2025's `tasks` (so `tasks` is false here); everything else it has.
 */
export const MODERN_RULES: Rules = Object.freeze({ versionHeader: true, batches: false, structuredOutput: true, resumable: false, elicitation: true, urlElicitation: true, tasks: false })

export function isModernVersion (version: unknown): boolean {
  return (MODERN_VERSIONS as readonly unknown[]).includes(version)
}

export function isLegacyVersion (version: unknown): version is LegacyVersion {
  // a scan of the three, not a keyed lookup: asked on every 2025 request, where the lookup showed in the profile
  return (LEGACY_VERSIONS as readonly unknown[]).includes(version)
}

export function rulesOf (version: LegacyVersion): Rules {
  return legacyRules[version]
}

/**
 * `initialize` negotiation: the requested version when we speak it, else our newest legacy one.
 * Never a modern version: those are not reached through `initialize`.
 */
export function negotiate (requested: unknown): LegacyVersion {
  return isLegacyVersion(requested) ? requested : LEGACY_VERSIONS[0]
}

/** The 2025 revisions that have `rule`, newest first: for messages that name them. */
export function legacyVersionsWith (rule: keyof Rules): readonly LegacyVersion[] {
  return LEGACY_VERSIONS.filter((version) => legacyRules[version][rule])
}
