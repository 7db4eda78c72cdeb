// Failures the harness found that are being fixed elsewhere, allowed here until that fix is merged:
// each entry `{ reason, covers(failure, request) }`. Empty: every failure fails the run. (Issue 17's
// (a) hostile keys, (b) HEAD and (c) deep nesting were listed here until main's fixes were merged.)
export const KNOWN = []

/** The allowance that covers a failure, if any. */
export function knownReason (failure, request) {
  return KNOWN.find((entry) => entry.covers(failure, request))?.reason
}
