// Holding stdout for the protocol: console output and a pino logger writing to stdout go to
// stderr meanwhile, the protocol's lines through the original write, and all is put back at
// release. The test process's own stdout carries tap's report: both streams are stubbed for the
// length of each hold, and nothing is asserted inside it.
import t from 'tap'
import Fastify from 'fastify'
import { holdStdout } from '../../lib/stdio/stdout.js'
import { captureLog } from '../helpers/logs.js'

interface Captured { stdout: string[], stderr: string[] }

/** Runs `fn` with process.stdout.write and process.stderr.write stubbed; returns what each got. */
function stubbed (fn: () => void): Captured {
  const captured: Captured = { stdout: [], stderr: [] }
  const out = process.stdout.write
  const err = process.stderr.write
  process.stdout.write = ((chunk: string | Uint8Array) => { captured.stdout.push(String(chunk)); return true }) as typeof out
  process.stderr.write = ((chunk: string | Uint8Array) => { captured.stderr.push(String(chunk)); return true }) as typeof err
  try {
    fn()
  } finally {
    process.stdout.write = out
    process.stderr.write = err
  }
  return captured
}

t.test('console output goes to stderr while held; the protocol writes to stdout; release puts it back', async (t) => {
  let restored = false
  const captured = stubbed(() => {
    const stub = process.stdout.write
    const held = holdStdout(undefined)
    console.log('a stray line')
    held.write('{"jsonrpc":"2.0","id":1,"result":{}}\n')
    held.release()
    held.release()
    restored = process.stdout.write === stub
  })
  t.same(captured.stdout, ['{"jsonrpc":"2.0","id":1,"result":{}}\n'])
  t.same(captured.stderr, ['a stray line\n'])
  t.ok(restored, 'stdout.write is the one it was, after release (twice: once is enough)')
})

t.test("Fastify's default logger (pino on file descriptor 1) is pointed at stderr, children included, and back at release", async (t) => {
  const app = Fastify({ logger: { level: 'info' } })
  const child = app.log.child({ part: 'child' })
  const captured = stubbed(() => {
    const held = holdStdout(app.log)
    app.log.info('from the root')
    child.info('from a child')
    held.release()
  })
  t.same(captured.stdout, [], 'nothing reached stdout')
  t.same(captured.stderr.map((line) => JSON.parse(line).msg), ['from the root', 'from a child'])
  const streamKey = Object.getOwnPropertySymbols(Object.getPrototypeOf(app.log)).concat(Object.getOwnPropertySymbols(app.log)).find((symbol) => symbol.description === 'pino.stream')
  let owner: any = app.log
  while (!Object.prototype.hasOwnProperty.call(owner, streamKey!)) owner = Object.getPrototypeOf(owner)
  t.equal(owner[streamKey!].fd, 1, 'its own destination again after release')
  await app.close()
})

t.test('a pino logger with a destination of its own, and anything that is not pino, are left as they are', async (t) => {
  const log = captureLog()
  const app = Fastify({ logger: log.logger })
  const captured = stubbed(() => {
    const held = holdStdout(app.log)
    app.log.info('to its own stream')
    held.release()
    holdStdout({ info () {} }).release()
    holdStdout(null).release()
  })
  t.same(captured, { stdout: [], stderr: [] })
  t.same(log.lines.map((line) => line.msg), ['to its own stream'])
  await app.close()
})
