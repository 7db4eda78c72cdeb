// The client's error classes (lib/client/errors.ts): one set of classes, exported by both entry
// points, so an error thrown by a client made from either import is an instance of both exports;
// each has its row in docs/errors.md, and no row is left of one that is gone.
import t from 'tap'
import { readFileSync } from 'node:fs'
import * as main from '../../lib/index.js'
import * as client from '../../lib/client/index.js'
import * as errors from '../../lib/client/errors.js'

t.test('both entry points export the very same classes', async (t) => {
  for (const name of ['RpcError', 'AuthChallengeError', 'HttpError', 'UnansweredInputError', 'SkillVerificationError', 'ServerCapabilityError', 'ServerProcessError'] as const) {
    t.equal(main[name], errors[name], `fastify-sake's ${name}`)
    t.equal(client[name], errors[name], `fastify-sake/client's ${name}`)
  }
  const err = new client.RpcError(-32602, 'Invalid params', undefined, 400)
  t.ok(err instanceof main.RpcError, 'instanceof works across the entry points')
  t.same([err.name, err.code, err.message, err.status], ['RpcError', -32602, 'Invalid params', 400])
  const unanswered = new main.UnansweredInputError('who', 'elicitation/create', 'no answer')
  t.ok(unanswered instanceof client.UnansweredInputError)
  t.same([unanswered.name, unanswered.key, unanswered.method], ['UnansweredInputError', 'who', 'elicitation/create'])
  const failed = new client.SkillVerificationError('digest', 'skill://a/b.md', 'skill://a/SKILL.md', 'differs')
  t.ok(failed instanceof main.SkillVerificationError)
  t.same([failed.name, failed.reason, failed.uri, failed.skill, failed.message], ['SkillVerificationError', 'digest', 'skill://a/b.md', 'skill://a/SKILL.md', 'differs'])
  const missing = new main.ServerCapabilityError('skills/list', 'io.modelcontextprotocol/skills', 'not declared')
  t.ok(missing instanceof client.ServerCapabilityError)
  t.same([missing.name, missing.method, missing.capability, missing.message], ['ServerCapabilityError', 'skills/list', 'io.modelcontextprotocol/skills', 'not declared'])
  const exited = new client.ServerProcessError('exit', 'node server.js', 'it exited with code 1', { exitCode: 1, stderr: 'Error: no config\n\n' })
  t.ok(exited instanceof main.ServerProcessError)
  t.same([exited.name, exited.reason, exited.command, exited.exitCode, exited.signal, exited.stderr], ['ServerProcessError', 'exit', 'node server.js', 1, null, 'Error: no config\n\n'])
  t.equal(exited.message, 'it exited with code 1; its stderr ends with:\nError: no config', 'the end of stderr in the message, trailing blank lines off')
  const cause = new Error('spawn x ENOENT')
  const unstarted = new main.ServerProcessError('spawn', 'x', 'could not start', { stderr: ' \n', cause })
  t.same([unstarted.message, unstarted.exitCode, unstarted.cause], ['could not start', null, cause], 'a blank stderr adds nothing')
  t.equal(new client.ServerProcessError('output', 'x', 'a stray line').cause, undefined)
})

t.test('docs/errors.md has a row for each client error class, and none for a class that is gone', async (t) => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
  const start = doc.indexOf('\n## Client errors')
  t.not(start, -1, 'the section is there')
  const end = doc.indexOf('\n## ', start + 1)
  const rows = [...doc.slice(start, end === -1 ? undefined : end).matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1])
  const classes = Object.entries(errors).filter(([, value]) => typeof value === 'function').map(([name]) => name)
  t.same(rows.sort(), classes.sort())
})

t.test('the option error stays with the coded errors: one class, both entry points', async (t) => {
  t.equal(client.SakeClientOptionError, main.SakeClientOptionError)
  t.equal(main.errorCodes[new client.SakeClientOptionError('x').code as 'SAKE_ERR_INVALID_CLIENT_OPTION'], client.SakeClientOptionError)
})
