// The fuzz harness of issue 17 at a small size (scripts/fuzz.mjs; `npm run fuzz` runs 20,000 cases
// and 2,000 aborted streams): generated requests of both eras against the example server with its
// conformance fixtures, each answer judged by scripts/fuzz/oracle.mjs, then streamed calls read to
// the end and dropped mid-flight, with the server's sockets, timers, prototypes and RSS checked.
// FUZZ_SEED picks another seed; a failure prints the command that reruns its case alone.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
const seed = process.env.FUZZ_SEED ?? '17'

t.test('400 fuzzed requests and 50 aborted streams: no failure, nothing left open', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sake-fuzz-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'report.json')
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'fuzz.mjs'), '--cases', '400', '--aborts', '50', '--seed', seed, '--json', file], { encoding: 'utf8', timeout: 120_000 })
  const report = JSON.parse(readFileSync(file, 'utf8'))
  t.same(report.failed, [], `no failed case (seed ${seed}); the output:\n${run.stdout}`)
  t.same(report.problems, [], 'no leak, pollution or failed stream')
  t.equal(run.status, 0, 'the script exits with 0')
  t.ok(report.statuses['200'] > 50 && report.statuses['400'] > 50, 'the cases reach both answers and refusals')
  t.equal(report.stats.afterAborted.connections, 0, 'every connection closed')
  t.same(report.stats.afterAborted.polluted, [], 'Object.prototype untouched')
})
