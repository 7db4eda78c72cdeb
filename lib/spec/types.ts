/**
 * The protocol's shared nouns, for every layer: who calls (`AuthInfo`), which client
 * (`ClientInfo`), a client's answer to a question (`ClientAnswer`), and the least a logger must do.
 */

/** Who is calling, once a bearer token was verified (`ctx.auth`, `request.mcpAuth`). */
export interface AuthInfo {
  /** The token's subject (`sub`), or whatever the verifier names the caller by. */
  readonly subject: string
  /** The scopes the token grants. */
  readonly scopes: readonly string[]
  /** Authentication context class (`acr`), when the token carries one. */
  readonly acr?: string | undefined
  /** When the user authenticated (`auth_time`), in seconds since the epoch. */
  readonly authTime?: number | undefined
  /** When the token expires (`exp`), in seconds since the epoch. */
  readonly expiresAt?: number | undefined
  /** Every claim the verifier returned (a JWT's payload). */
  readonly claims: Readonly<Record<string, unknown>>
}

/** Who is calling, as the client declared itself (self-reported: for display and logs only). */
export interface ClientInfo {
  info: { name: string, version: string, [key: string]: unknown } | undefined
  capabilities: Record<string, unknown>
}

/** A 2025 client's JSON-RPC response to a question of ours: its result or its error. */
export type ClientAnswer = { readonly result: unknown } | { readonly error: { readonly code: number, readonly message: string, readonly data?: unknown } }

/** The least a logger must do; pino and Fastify's logger fit. */
export interface Logger {
  child (bindings: Record<string, unknown>): Logger
  error (obj: unknown, msg?: string): void
  warn (obj: unknown, msg?: string): void
  info (obj: unknown, msg?: string): void
  debug (obj: unknown, msg?: string): void
}

/** What the server says of itself (`serverInfo`, and `_meta` serverInfo in 2026-07-28 results). */
export interface ServerInfo {
  name: string
  version: string
  title?: string
  description?: string
  websiteUrl?: string
  icons?: Array<{ src: string, mimeType?: string, sizes?: string[], theme?: 'light' | 'dark' }>
}
