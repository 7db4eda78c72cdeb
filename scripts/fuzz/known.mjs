// Failures the harness found that are being fixed elsewhere, allowed here until that fix is merged.
// Each entry: why, and which failures it covers. This list must be empty once the fixes land: the
// harness then reports 0 failures with no allowance.
export const KNOWN = [
  {
    reason: 'issue 17 (a), fixed on main: a body with a __proto__ / constructor.prototype key is -32700 with id null',
    covers: (failure) => failure.check === 'id lost' && /forbidden prototype property/.test(failure.detail)
  },
  {
    reason: 'issue 17 (b), fixed on main: HEAD /mcp hangs',
    covers: (failure, request) => failure.check === 'hang' && request.method === 'HEAD'
  },
  {
    reason: 'issue 17 (c), fixed on main: deeply nested params are 500 -32603',
    covers: (failure, request) => failure.check === '5xx' && /(\[|\{"a":){500}/.test(request.text ?? '')
  }
]

/** The allowance that covers a failure, if any. */
export function knownReason (failure, request) {
  return KNOWN.find((entry) => entry.covers(failure, request))?.reason
}
