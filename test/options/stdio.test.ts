// app.mcp.stdio(options): every mistake fails with SAKE_ERR_INVALID_OPTION naming the option.
import t from 'tap'
import { PassThrough } from 'node:stream'
import { SakeOptionError } from '../../lib/index.js'
import { resolveStdioOptions } from '../../lib/options/stdio.js'
import { build } from '../helpers/app.js'

t.test('app.mcp.stdio(options): { input?, output?, caller?, closeOnEnd? }, each mistake named', async (t) => {
  const defaulted = resolveStdioOptions(undefined)
  t.equal(defaulted.input, process.stdin)
  t.equal(defaulted.output, process.stdout)
  t.equal(defaulted.caller, undefined)
  t.equal(defaulted.closeOnEnd, true)
  const input = new PassThrough()
  const output = new PassThrough()
  const given = resolveStdioOptions({ input, output, caller: { subject: 'dev', scopes: 'a b' }, closeOnEnd: false })
  t.equal(given.input, input)
  t.equal(given.output, output)
  t.same(given.caller, { subject: 'dev', scopes: ['a', 'b'], acr: undefined, authTime: undefined, expiresAt: undefined, claims: {} })
  t.equal(given.closeOnEnd, false)
  const refusals: Array<[unknown, RegExp]> = [
    ['stdin', /option 'stdio' must be an object \(\{ input, output, caller, closeOnEnd \}\) or nothing, got "stdin"/],
    [{ ouput: output }, /stdio\.ouput.*output/],
    [{ input: output.write }, /option 'stdio.input' must be a readable stream/],
    [{ output: {} }, /option 'stdio.output' must be a writable stream/],
    [{ closeOnEnd: 'yes' }, /option 'stdio.closeOnEnd' must be a boolean, got "yes"/],
    [{ caller: { scopes: ['a'] } }, /option 'stdio.caller' must be a caller \(\{ subject, .*\): 'subject' must be a non-empty string$/],
    [{ caller: { subject: 'dev', expiresAt: 1 } }, /option 'stdio.caller' must be a caller .*expiresAt has passed/]
  ]
  for (const [options, message] of refusals) {
    t.throws(() => resolveStdioOptions(options), { name: 'SakeOptionError', code: 'SAKE_ERR_INVALID_OPTION', message }, JSON.stringify(Object.keys(options as object)))
  }
  const app = await build()
  t.teardown(() => app.close())
  await t.rejects(app.mcp.stdio({ closeOnEnd: 1 } as never), SakeOptionError, 'app.mcp.stdio checks them first')
})
