// What a conformance run found, from the suite's checks.json of each scenario (scripts/conformance.mjs
// prints it; test/e2e/conformance-results.test.ts holds it). Kept apart from the runner, which starts
// a server and the suites when imported.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * One scenario's outcome: 'failing' when a check is a FAILURE or a WARNING that is not excused (as
 * the suites' expected-failures files judge); 'skipped' when the suite checked nothing (every check
 * SKIPPED or INFO, or none at all), which is the suite's decision, so neither a pass nor a failure;
 * else 'passing'.
 */
export function scenarioOutcome (checks, isDeliberate = () => false) {
  if (checks.some((c) => c.status === 'FAILURE' || (c.status === 'WARNING' && !isDeliberate(c)))) return 'failing'
  if (!checks.some((c) => c.status === 'SUCCESS' || c.status === 'WARNING')) return 'skipped'
  return 'passing'
}

/** What the suite says of a skipped scenario: its first SKIPPED check's description, as its own log line prints it. */
export function skipReason (checks) {
  const check = checks.find((c) => c.status === 'SKIPPED')
  return String(check?.description ?? check?.errorMessage ?? 'no check ran').replace(/\.$/, '')
}

/**
 * What the suite leaves of a scenario it will not run at the requested `--spec-version` (an
 * extension scenario is on no revision's timeline): its folder, without checks.json.
 */
export const NOT_APPLICABLE = 'not applicable at the requested --spec-version: the suite ran nothing (--force runs it)'

/**
 * The scenarios of a run's output directory, split into scored and not (`scored`: the names a
 * `--requirements` run scores; undefined: all count), each part `{ passing, failing, skipped }`
 * (a count, then names), with the deliberate warnings found (`excused`) and the deliberate entries
 * whose check is no WARNING (`misused`). `skipped` maps a name to the suite's reason; a scenario
 * folder without checks.json is one the suite did not run at that spec version (`NOT_APPLICABLE`).
 * `scenarios` maps every name to its outcome, checks and reason.
 */
export function summarise (outDir, scored, deliberate) {
  const scenarios = new Map()
  const excused = []
  const misused = []
  for (const dir of existsSync(outDir) ? readdirSync(outDir) : []) {
    const name = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(dir)?.[1]
    if (name === undefined) continue
    const file = join(outDir, dir, 'checks.json')
    const ran = existsSync(file)
    const checks = ran ? JSON.parse(readFileSync(file, 'utf8')) : []
    const isDeliberate = (c) => deliberate.includes(`${name}:${c.id}`)
    for (const c of checks.filter(isDeliberate)) {
      if (c.status === 'WARNING') excused.push(`${name}:${c.id}`)
      else misused.push(`${name}:${c.id} is ${c.status}, not the WARNING conformance/deliberate-warnings.yml excuses`)
    }
    scenarios.set(name, { outcome: scenarioOutcome(checks, isDeliberate), checks, reason: ran ? skipReason(checks) : NOT_APPLICABLE })
  }
  const pick = (inScored) => [...scenarios].filter(([name]) => scored === undefined || scored.has(name) === inScored)
  const count = (list) => ({
    passing: list.filter(([, s]) => s.outcome === 'passing').length,
    failing: list.filter(([, s]) => s.outcome === 'failing').map(([name]) => name),
    skipped: new Map(list.filter(([, s]) => s.outcome === 'skipped').map(([name, s]) => [name, s.reason]))
  })
  return { scored: count(pick(true)), other: scored === undefined ? undefined : count(pick(false)), excused, misused, scenarios }
}

/**
 * For a run where every check must run (a forced extension scenario): how many checks ran (SUCCESS
 * or WARNING), the SKIPPED checks `notApplicable` excuses (id → why it cannot apply, such as a field
 * the era does not have), and as `problems` everything else: a scenario that checked nothing, a
 * check SKIPPED without an excuse (something not declared or not discoverable), and an excuse for a
 * check that was not SKIPPED (stale: the suite checks it now, so the excuse must go).
 */
export function everyCheck (summary, notApplicable = {}) {
  const problems = []
  const excused = new Set()
  let ran = 0
  for (const [name, { checks, reason }] of summary.scenarios) {
    if (!checks.some((c) => c.status === 'SUCCESS' || c.status === 'WARNING' || c.status === 'FAILURE')) problems.push(`${name} checked nothing (${reason})`)
    for (const c of checks) {
      if (c.status === 'SUCCESS' || c.status === 'WARNING') ran++
      if (c.status !== 'SKIPPED') continue
      if (Object.hasOwn(notApplicable, c.id)) excused.add(c.id)
      else problems.push(`${name}:${c.id} was SKIPPED (${String(c.errorMessage ?? c.description ?? 'no reason given').replace(/\.$/, '')})`)
    }
  }
  for (const id of Object.keys(notApplicable)) if (!excused.has(id)) problems.push(`${id} is excused as not applicable, but the suite did not skip it: remove the excuse`)
  return { ran, excused: [...excused], problems }
}

/** `passing/counted pass`, skipped scenarios named apart and left out of both numbers (the suite checked nothing there). */
export function tally (part) {
  return `${part.passing}/${part.passing + part.failing.length} pass${part.skipped.size > 0 ? `; skipped by the suite: ${[...part.skipped.keys()].join(', ')}` : ''}`
}
