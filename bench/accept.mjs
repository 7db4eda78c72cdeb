// What reading `Accept` costs per request (issue 41, item 7): `node bench/accept.mjs [N]` after
// `npm run build`. dist/http/accept.js's `acceptable` (the common value compared first, a cache of
// 64 others, `negotiator` for the rest), N calls (default 1e6) per value, each on a fresh flat
// string as a request's header is; then `negotiate` uncached, the worst a hostile value can cost
// (512 characters, the longest read), and the substring checks `acceptable` replaced, for comparison.
import { acceptable, negotiate } from '../dist/http/accept.js'

const N = Number(process.argv[2] ?? 1e6)
const VALUES = {
  'application/json, text/event-stream': 'application/json, text/event-stream',
  absent: undefined,
  '*/*': '*/*',
  'application/json;q=0, */*': 'application/json;q=0, */*',
  'a browser\'s (135 characters)': 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7'
}

// the check of lib/http/post.ts before issue 41, item 7, answering as `acceptable` does
const YES = { json: true }
const NO = { json: false }
const substring = (accept) => accept === undefined || accept.includes('application/json') || accept.includes('*/*') || accept.includes('application/*') ? YES : NO

let sink = 0
/** ns per call of `fn` over `calls` calls, the best of three rounds, on 1,024 fresh copies of `value`. */
function measure (fn, value, calls) {
  const copies = Array.from({ length: 1024 }, () => value === undefined ? undefined : Buffer.from(value).toString('latin1'))
  let best = Infinity
  for (let round = 0; round < 3; round++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < calls; i++) if (fn(copies[i & 1023]).json) sink++
    best = Math.min(best, Number(process.hrtime.bigint() - start) / calls)
  }
  return best
}

const row = (label, ns) => console.log(`${label.padEnd(66)} ${ns < 1000 ? `${ns.toFixed(1)} ns` : `${(ns / 1000).toFixed(1)} µs`}`)
console.log(`ns per call, the best of 3 rounds of ${N} calls (fewer for the uncached)`)
for (const [label, value] of Object.entries(VALUES)) row(`acceptable: ${label}`, measure(acceptable, value, N))
row('acceptable: 16 KiB of "a/b," (over 512 characters: not read)', measure(acceptable, 'a/b,'.repeat(4096), N))
for (const [label, value] of Object.entries(VALUES)) if (value !== undefined) row(`negotiate, uncached: ${label}`, measure(negotiate, value, N / 100))
row('negotiate, uncached: 128 ranges "a/b," (512 characters)', measure(negotiate, 'a/b,'.repeat(128), N / 1000))
for (const [label, value] of Object.entries(VALUES)) row(`substring checks (before): ${label}`, measure(substring, value, N))
if (sink === 0) console.log('(nothing accepted)')
