// A stdio connection on its streams: the process's stdout held for the protocol and given back
// when the app closes, text chunks as well as bytes, and a failing input taken as the client gone.
import t from 'tap'
import { PassThrough } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { build } from '../helpers/app.js'
import { captureLog } from '../helpers/logs.js'

t.test('on process.stdout: the protocol\'s lines through its write, stray output to stderr, both given back at app.close()', async (t) => {
  const app = await build()
  await app.ready()
  const input = new PassThrough()
  const stdout: string[] = []
  const stderr: string[] = []
  const out = process.stdout.write
  const err = process.stderr.write
  const stub = ((chunk: string | Uint8Array) => { stdout.push(String(chunk)); return true }) as typeof out
  process.stdout.write = stub
  process.stderr.write = ((chunk: string | Uint8Array) => { stderr.push(String(chunk)); return true }) as typeof err
  let heldDuring = false
  let givenBack = false
  try {
    await app.mcp.stdio({ input, output: process.stdout, closeOnEnd: false })
    heldDuring = process.stdout.write !== stub
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    for (let i = 0; i < 100 && stdout.length === 0; i++) await sleep(10)
    console.log('stray')
    await app.close()
    givenBack = process.stdout.write === stub
  } finally {
    process.stdout.write = out
    process.stderr.write = err
  }
  t.ok(heldDuring, 'stdout.write was redirected while the connection ran')
  t.same(stdout, ['{"jsonrpc":"2.0","id":1,"result":{}}\n'], 'stdout carried the protocol alone')
  t.same(stderr, ['stray\n'])
  t.ok(givenBack, 'and was given back when the app closed')
})

t.test('text chunks (an input with an encoding) are read as well as bytes', async (t) => {
  const app = await build()
  t.teardown(async () => { await app.close() })
  const input = new PassThrough()
  input.setEncoding('utf8')
  const output = new PassThrough()
  const lines: string[] = []
  output.on('data', (chunk: Buffer) => lines.push(chunk.toString()))
  await app.mcp.stdio({ input, output, closeOnEnd: false })
  input.write('{"jsonrpc":"2.0","id":"é","method":"ping"}\n')
  for (let i = 0; i < 100 && lines.length === 0; i++) await sleep(10)
  t.same(lines, ['{"jsonrpc":"2.0","id":"é","result":{}}\n'])
})

t.test('an input that fails: logged, and the connection closes as if the client closed it', async (t) => {
  const log = captureLog()
  const app = await build({}, { logger: log.logger })
  t.teardown(async () => { await app.close() })
  const input = new PassThrough()
  const handle = await app.mcp.stdio({ input, output: new PassThrough(), closeOnEnd: false })
  input.emit('error', new Error('EIO'))
  await handle.closed
  t.match(log.lines.find((line) => line.msg === 'fastify-sake: the stdio stream failed; the client is taken to be gone'), { err: { message: 'EIO' } })
})
