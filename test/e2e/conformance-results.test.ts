// How `npm run conformance` reads the suites' results (scripts/conformance-results.mjs): a scenario
// fails on a FAILURE or an unexcused WARNING, and one the suite skipped (it checked nothing) is
// skipped, counted neither as a pass nor as a failure (issue 28: tasks-status-notifications showed as passing).
// A run where every check must run (the forced Skills extension scenarios) lists each SKIPPED check
// as a problem, unless excused as not applicable in its era, and a stale excuse too.
import t from 'tap'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
// a path the type checker does not follow: the script is plain JavaScript, without types
const results = await import(join(root, 'scripts', 'conformance-results.mjs'))

const check = (status: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ id: `c-${status.toLowerCase()}`, name: 'C', description: `a ${status} check.`, status, ...extra })

t.test('one scenario: failing, skipped or passing', async (t) => {
  const { scenarioOutcome } = results
  t.equal(scenarioOutcome([check('SKIPPED')]), 'skipped', 'every check SKIPPED: the suite checked nothing')
  t.equal(scenarioOutcome([]), 'skipped', 'no check at all')
  t.equal(scenarioOutcome([check('INFO'), check('SKIPPED')]), 'skipped', 'INFO is no check of ours')
  t.equal(scenarioOutcome([check('SUCCESS'), check('SKIPPED')]), 'passing', 'a check that passed beside one that was skipped')
  t.equal(scenarioOutcome([check('SUCCESS'), check('FAILURE')]), 'failing')
  t.equal(scenarioOutcome([check('SKIPPED'), check('WARNING')]), 'failing', 'an unexcused WARNING')
  t.equal(scenarioOutcome([check('WARNING')], () => true), 'passing', 'an excused WARNING is a check that ran')
})

t.test('a run: skipped scenarios are named apart and left out of the counts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sake-conformance-results-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const scenario = (name: string, checks: unknown[]): void => {
    const at = join(dir, `server-${name}-2026-12-03T13-25-19-653Z`)
    mkdirSync(at)
    writeFileSync(join(at, 'checks.json'), JSON.stringify(checks))
  }
  scenario('scored-ok', [check('SUCCESS')])
  scenario('scored-bad', [check('FAILURE')])
  scenario('scored-skipped', [check('SKIPPED', { description: 'Pending its rewrite.', errorMessage: 'Skipped: a long story' })])
  scenario('other-ok', [check('SUCCESS'), check('WARNING', { id: 'known' })])
  scenario('other-skipped', [check('SKIPPED', { description: undefined, errorMessage: 'not applicable here' })])
  writeFileSync(join(dir, 'not-a-scenario.txt'), '')

  const s = results.summarise(dir, new Set(['scored-ok', 'scored-bad', 'scored-skipped']), ['other-ok:known'])
  t.equal(s.scored.passing, 1)
  t.same(s.scored.failing, ['scored-bad'])
  t.same([...s.scored.skipped], [['scored-skipped', 'Pending its rewrite']], "the suite's description of the skip")
  t.equal(s.other.passing, 1, 'the deliberate warning is excused')
  t.same([...s.other.skipped], [['other-skipped', 'not applicable here']], 'its message when the check has no description')
  t.same(s.excused, ['other-ok:known'])
  t.same(s.misused, [])
  t.equal(results.tally(s.scored), '1/2 pass; skipped by the suite: scored-skipped', 'a skip is no pass')
  t.equal(results.tally(s.other), '1/1 pass; skipped by the suite: other-skipped')

  const all = results.summarise(dir, undefined, [])
  t.equal(all.other, undefined, 'no scored set: every scenario counts')
  t.same(all.scored.failing.sort(), ['other-ok', 'scored-bad'], 'without the excuse, the WARNING fails')
  t.equal(all.scored.skipped.size, 2)
  t.equal(results.summarise(join(dir, 'missing'), undefined, []).scored.passing, 0, 'a run that wrote nothing')
})

t.test('a scenario the suite did not run at the --spec-version asked (its folder, no checks.json) is skipped, and says why', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sake-conformance-results-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'server-sep-2640-skills-manifest-2026-12-03T18-36-50-313Z'))
  const s = results.summarise(dir, undefined, [])
  t.same([...s.scored.skipped], [['sep-2640-skills-manifest', results.NOT_APPLICABLE]])
  t.equal(s.scored.passing, 0)
  t.match(results.NOT_APPLICABLE, /--force/)
  t.same(results.everyCheck(s).problems, [`sep-2640-skills-manifest checked nothing (${results.NOT_APPLICABLE})`], 'a run that must check everything fails for it')
})

t.test('everyCheck: the checks that ran, the SKIPPED ones excused as not applicable, and every other SKIPPED check a problem', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sake-conformance-results-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const run = (checks: unknown[]): ReturnType<typeof results.summarise> => {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(join(dir, 'server-sep-2640-skills-enumeration-2026-12-03T18-36-50-313Z'), { recursive: true })
    writeFileSync(join(dir, 'server-sep-2640-skills-enumeration-2026-12-03T18-36-50-313Z', 'checks.json'), JSON.stringify(checks))
    return results.summarise(dir, undefined, [])
  }
  const ok = (id: string): Record<string, unknown> => check('SUCCESS', { id })
  const skipped = (id: string, errorMessage?: string): Record<string, unknown> => check('SKIPPED', { id, errorMessage, description: 'The check.' })
  const ERA = { 'cache-attributes': 'a 2026-07-28 field' }

  t.same(results.everyCheck(run([ok('a'), ok('b'), check('WARNING', { id: 'w' }), check('INFO', { id: 'i' })])), { ran: 3, excused: [], problems: [] }, 'SUCCESS and WARNING checks ran; INFO is no check')
  t.same(results.everyCheck(run([ok('a'), skipped('cache-attributes', 'not applicable on 2025-11-25')]), ERA), { ran: 1, excused: ['cache-attributes'], problems: [] }, 'excused for its era')
  t.same(results.everyCheck(run([ok('a'), skipped('directory-read-subdir-mimetype', 'no directory declared.')]), ERA).problems, [
    'sep-2640-skills-enumeration:directory-read-subdir-mimetype was SKIPPED (no directory declared)',
    'cache-attributes is excused as not applicable, but the suite did not skip it: remove the excuse'
  ], 'a SKIPPED check without an excuse, and an excuse for a check that ran')
  t.same(results.everyCheck(run([skipped('x')])).problems, [
    'sep-2640-skills-enumeration checked nothing (The check)',
    'sep-2640-skills-enumeration:x was SKIPPED (The check)'
  ], "a scenario whose every check was skipped; the check's description when it gives no message")
  t.same(results.everyCheck(run([check('FAILURE', { id: 'f' })])), { ran: 0, excused: [], problems: [] }, 'a failure is the verdict\'s to report, not a skip')
})
