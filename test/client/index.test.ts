import t from 'tap'
import * as client from '../../lib/client/index.js'
import * as errors from '../../lib/client/errors.js'
import { SakeClientOptionError } from '../../lib/errors.js'

t.test('createClient checks its options and makes a Client; the error classes are the package\'s own', async (t) => {
  t.type(client.createClient({ url: 'http://127.0.0.1:3000/mcp' }), client.Client)
  t.throws(() => client.createClient({} as any), { code: 'SAKE_ERR_INVALID_CLIENT_OPTION' })
  t.equal(client.RpcError, errors.RpcError)
  t.equal(client.AuthChallengeError, errors.AuthChallengeError)
  t.equal(client.HttpError, errors.HttpError)
  t.equal(client.UnansweredInputError, errors.UnansweredInputError)
  t.equal(client.SkillVerificationError, errors.SkillVerificationError)
  t.equal(client.ServerCapabilityError, errors.ServerCapabilityError)
  t.equal(client.SKILLS_EXTENSION, 'io.modelcontextprotocol/skills')
  t.equal(client.SakeClientOptionError, SakeClientOptionError)
})
