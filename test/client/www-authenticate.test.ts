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

t.test('AuthChallengeError reads the Bearer challenge; HttpError keeps a bounded body', async (t) => {
  const { AuthChallengeError, HttpError } = await import('../../lib/client/errors.js')
  const stepUp = new AuthChallengeError(401, parseChallenges('Basic realm="x", Bearer error="insufficient_user_authentication", acr_values="mfa  phr", max_age=300, error_description="Sign in again"'))
  t.match(stepUp, { error: 'insufficient_user_authentication', acrValues: ['mfa', 'phr'], maxAge: 300, description: 'Sign in again', scopes: [], rpc: undefined })
  t.equal(stepUp.message, 'the server refused the request with 401 (insufficient_user_authentication)')
  t.equal(new AuthChallengeError(401, parseChallenges('Bearer max_age=soon')).maxAge, undefined, 'a max_age that is not a number')
  const none = new AuthChallengeError(401, parseChallenges('Basic realm="x"'), { code: -32600, message: 'Unauthorized' })
  t.match(none, { error: undefined, scopes: [], acrValues: [], maxAge: undefined, resourceMetadata: undefined })
  t.equal(none.message, 'the server refused the request with 401: Unauthorized', 'no Bearer challenge: the body says why')
  t.equal(new HttpError(502, 'bad', 'x'.repeat(3000)).body.length, 2000)
})
