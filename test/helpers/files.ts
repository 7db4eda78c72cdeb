// Temporary folders of files for a test: written under a fresh folder, removed when the test ends.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Test } from 'tap'

/** A temporary folder with `files` (path → content) written under it; removed when `t` ends. */
export function tree (t: Test, files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), 'sake-test-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}
