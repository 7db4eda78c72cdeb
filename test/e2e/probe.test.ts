// The behaviour transcript of scripts/probe.mjs (about 450 requests at a few apps: both eras, every
// method, the HTTP edge, auth, streams), made against the built package and held as a tap snapshot:
// a refactor that changes anything on the wire fails here, line by line. A change made on purpose
// updates the snapshot: `npm run build && npx tap --snapshot test/e2e/probe.test.ts`.
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

t.test('the wire behaviour transcript is the one on record', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/probe.mjs', 'dist'], { cwd: root, maxBuffer: 16 * 1024 * 1024 })
  const lines = stdout.split('\n')
  t.ok(lines.length > 400, `a whole transcript (${lines.length} lines)`)
  t.notOk(stdout.includes('PROBE WATCHDOG'), 'the probe finished on its own')
  // V8 words a JSON syntax error differently from one Node version to the next (22 adds line and
  // column): the parse error the server passes on is ours to keep, its wording is not
  const text = stdout.replace(/"Parse error: (?!the request body)[^"]*"/g, '"Parse error: <the JSON parser\'s message>"')
  t.matchSnapshot(text, 'scripts/probe.mjs dist')
})
