import t from 'tap'
import { parseChallenges } from '../../lib/client/www-authenticate.js'

t.test('challenges and their parameters', async (t) => {
  t.same(parseChallenges('Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource"'), [
    { scheme: 'Bearer', params: { error: 'insufficient_scope', scope: 'a b', resource_metadata: 'https://x/.well-known/oauth-protected-resource' } }
  ])
  t.same(parseChallenges('Basic realm="x", Bearer Max_Age=300 , acr_values="mfa"'), [
    { scheme: 'Basic', params: { realm: 'x' } },
    { scheme: 'Bearer', params: { max_age: '300', acr_values: 'mfa' } }
  ], 'two challenges, a token value, names lower-cased')
  t.same(parseChallenges('Bearer error_description="say \\"hi\\""'), [{ scheme: 'Bearer', params: { error_description: 'say "hi"' } }], 'escapes in a quoted string')
  t.same(parseChallenges('Bearer'), [{ scheme: 'Bearer', params: {} }])
  t.same(parseChallenges('Bearer realm="open'), [{ scheme: 'Bearer', params: {} }], 'an unterminated quote: what came before is kept')
  t.same(parseChallenges('Bearer realm='), [{ scheme: 'Bearer', params: { realm: '' } }])
  t.same(parseChallenges(null), [])
  t.same(parseChallenges(undefined), [])
  t.same(parseChallenges('"nonsense"'), [], 'no scheme')
})
