// The era tables (issue 27, item 7): what each revision has is data in lib/spec/eras.ts, read
// through its helpers, and no protocol version is written anywhere else in lib/ but the client's
// user-facing option type.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  LEGACY_VERSIONS, MODERN_RULES, MODERN_VERSIONS, isModernVersion, legacyVersionsWith, rulesOf
} from '../../lib/spec/eras.js'

t.test('isModernVersion reads MODERN_VERSIONS', async (t) => {
  for (const version of MODERN_VERSIONS) t.ok(isModernVersion(version), version)
  for (const version of [...LEGACY_VERSIONS, '2099-01-01', undefined, 20260728]) t.notOk(isModernVersion(version), String(version))
})

t.test('questions to the client: form elicitation from 2025-06-18, URL mode from 2025-11-25, both in 2026-07-28', async (t) => {
  t.same(LEGACY_VERSIONS.map((v) => rulesOf(v).elicitation), [true, true, false])
  t.same(LEGACY_VERSIONS.map((v) => rulesOf(v).urlElicitation), [true, false, false])
  t.ok(MODERN_RULES.elicitation && MODERN_RULES.urlElicitation, 'the modern revision has both')
})

t.test('tasks: the 2025-11-25 sessions only', async (t) => {
  t.same(legacyVersionsWith('tasks'), ['2025-11-25'])
  t.same(legacyVersionsWith('batches'), ['2025-03-26'])
  t.same(LEGACY_VERSIONS.map((v) => rulesOf(v).tasks), [true, false, false])
  t.notOk(MODERN_RULES.tasks, 'the modern era has the tasks extension instead')
  t.notOk(MODERN_RULES.resumable, 'nor resumable streams')
  t.ok(Object.isFrozen(MODERN_RULES), 'one object, shared by every modern call')
})

t.test('no protocol version literal in lib/ outside lib/spec/ (and lib/client/, for its option type)', async (t) => {
  const lib = fileURLToPath(new URL('../../lib/', import.meta.url))
  const files = readdirSync(lib, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'))
  t.ok(files.length > 50, 'lib/ is read')
  const found: string[] = []
  for (const file of files) {
    const path = file.split('\\').join('/') // readdirSync names files with the platform's separator
    if (path.startsWith('spec/') || path.startsWith('client/')) continue
    const lines = readFileSync(join(lib, file), 'utf8').split('\n')
    lines.forEach((line, i) => { if (/'20(25|26)-\d{2}-\d{2}'/.test(line)) found.push(`lib/${path}:${i + 1}`) })
  }
  t.same(found, [], 'ask spec/eras.ts (rulesOf; a call carries its rules) instead of comparing versions')
})
