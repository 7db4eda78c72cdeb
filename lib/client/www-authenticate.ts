/**
 * `WWW-Authenticate` (RFC 9110 §11.6.1) read into its challenges: `Bearer error="insufficient_scope",
 * scope="a b", resource_metadata="…"` becomes `{ scheme: 'Bearer', params: { error, scope, resource_metadata } }`.
 */
import type { AuthChallenge } from './errors.js'

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/

/** Every challenge of the header's value; an unreadable tail is dropped, what came before it kept. */
export function parseChallenges (header: string | null | undefined): AuthChallenge[] {
  const challenges: Array<{ scheme: string, params: Record<string, string> }> = []
  let rest = header ?? ''
  const skip = (): void => { rest = rest.replace(/^[ \t]+/, '') }
  while (rest.length > 0) {
    rest = rest.replace(/^[ \t,]+/, '')
    const scheme = TOKEN.exec(rest)?.[0]
    if (scheme === undefined) break
    rest = rest.slice(scheme.length)
    const challenge = { scheme, params: {} as Record<string, string> }
    challenges.push(challenge)
    for (;;) {
      skip()
      const name = TOKEN.exec(rest)?.[0]
      if (name === undefined) break
      const after = rest.slice(name.length).replace(/^[ \t]*/, '')
      // a token not followed by '=' starts the next challenge (token68 credentials are not read)
      if (!after.startsWith('=')) break
      rest = after.slice(1).replace(/^[ \t]*/, '')
      let value: string
      if (rest.startsWith('"')) {
        const match = /^"((?:[^"\\]|\\.)*)"/.exec(rest)
        if (match === null) return challenges
        value = match[1].replace(/\\(.)/g, '$1')
        rest = rest.slice(match[0].length)
      } else {
        value = TOKEN.exec(rest)?.[0] ?? ''
        rest = rest.slice(value.length)
      }
      challenge.params[name.toLowerCase()] = value
      skip()
      if (!rest.startsWith(',')) break
      rest = rest.slice(1)
    }
  }
  return challenges
}
