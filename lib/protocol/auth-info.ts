/**
 * Who is calling, once a bearer token was verified (issue 6 fills it in; issue 5 binds sealed
 * request state to `subject`). Protocol core: nothing here knows of Fastify.
 */
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
