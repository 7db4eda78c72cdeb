// Tests mirror the source: test/x/y.test.ts tests lib/x/y.ts (issue 10).
// Lists every test/**/*.test.ts outside test/e2e/ and test/helpers/ and fails (exit 1) for each one
// with no source file at the mirrored path. No special cases: test/index.test.ts mirrors lib/index.ts,
// test/x/y/index.test.ts mirrors lib/x/y/index.ts, test/smoke.test.ts would need lib/smoke.ts.
//
//   node scripts/check-test-layout.mjs
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const EXEMPT = ['test/e2e/', 'test/helpers/']
const SUFFIX = '.test.ts'

/** Every file under `dir`, as a path relative to the repository root with '/' separators. */
function walk (dir) {
  const files = []
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) files.push(...walk(path))
    else if (entry.isFile()) files.push(path)
  }
  return files
}

function isFile (path) {
  try {
    return statSync(join(root, path)).isFile()
  } catch {
    return false
  }
}

const tests = walk('test').filter((path) => path.endsWith(SUFFIX)).sort()
const checked = tests.filter((path) => !EXEMPT.some((prefix) => path.startsWith(prefix)))
const offenders = []
for (const test of checked) {
  const source = `lib/${test.slice('test/'.length, -SUFFIX.length)}.ts`
  if (!isFile(source)) offenders.push({ test, source })
}

if (offenders.length > 0) {
  for (const { test, source } of offenders) console.error(`${test}: no ${source}`)
  console.error(`check-test-layout: ${offenders.length} of ${checked.length} test files have no source ` +
    'file at the mirrored path (test/x/y.test.ts tests lib/x/y.ts; test/e2e/ and test/helpers/ are exempt)')
  process.exit(1)
}
console.log(`check-test-layout: OK, ${checked.length} test files mirror a lib/ file ` +
  `(${tests.length - checked.length} under test/e2e/ or test/helpers/ not checked)`)
