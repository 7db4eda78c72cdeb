// Sealed requestState (issue 5 groundwork): AES-256-GCM under a key ring, bound to the call that
// minted it, with an expiry on an injected clock: no test here waits for real time to pass.
import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { ProtocolError, RequestStateError, SakeOptionError, type RequestStateRejection } from '../../lib/errors.js'
import { INVALID_PARAMS } from '../../lib/spec/jsonrpc.js'
import {
  RequestStateSealer,
  canonicalJson,
  digestArguments,
  type RequestStateBinding
} from '../../lib/state/request-state.js'

const k1 = randomBytes(32)
const k2 = randomBytes(32)
const k3 = randomBytes(32)

const binding: RequestStateBinding = {
  subject: 'user-42',
  method: 'tools/call',
  name: 'deploy',
  arguments: { service: 'api', region: 'eu-west-1', options: { dryRun: false, tags: ['a', 'b'] } }
}

const payload = { answers: { confirm: { action: 'accept', content: { sure: true } } }, round: 2 }

/** A sealer on a clock the test moves by hand. */
function sealerWith (options: { keys?: Array<string | Uint8Array>, ttl?: number } = {}): { sealer: RequestStateSealer, clock: { now: number } } {
  const clock = { now: 1_000_000 }
  const sealer = new RequestStateSealer({ ...options, now: () => clock.now })
  return { sealer, clock }
}

/** The error `fn` throws, checked to be a -32602 RequestStateError for `reason`, answered with HTTP 200. */
function rejection (t: Test, fn: () => unknown, reason: RequestStateRejection): RequestStateError {
  try {
    fn()
  } catch (err) {
    t.ok(err instanceof RequestStateError, 'a RequestStateError')
    t.ok(err instanceof ProtocolError, 'which is a ProtocolError')
    const error = err as RequestStateError
    t.equal(error.code, INVALID_PARAMS)
    t.equal(error.status, 200)
    t.equal(error.reason, reason)
    t.match(error.message, /^Invalid params: /)
    t.match(error.message, /retry the original request without requestState and inputResponses$/)
    return error
  }
  t.fail('expected a rejection')
  throw new Error('unreachable')
}

/** The token's blob (after `v1.`) as bytes, for tampering. */
function blobOf (token: string): Buffer {
  return Buffer.from(token.slice(3), 'base64url')
}

function tokenOf (blob: Buffer, prefix = 'v1.'): string {
  return prefix + blob.toString('base64url')
}

function flip (blob: Buffer, at: number): Buffer {
  const copy = Buffer.from(blob)
  copy[at] = (copy[at] as number) ^ 0x01
  return copy
}

t.test('round trip', async (t) => {
  const { sealer } = sealerWith({ keys: [k1] })
  t.same(sealer.open(sealer.seal(binding, payload), binding), payload, 'an object payload')
  for (const value of [null, 0, 'text', [1, 'two', { three: 3 }], true]) {
    t.same(sealer.open(sealer.seal(binding, value), binding), value, `payload ${JSON.stringify(value)}`)
  }
  const anonymous = { ...binding, subject: undefined }
  t.same(sealer.open(sealer.seal(anonymous, payload), anonymous), payload, 'without auth: no subject')
  const bare = { ...binding, arguments: undefined }
  t.same(sealer.open(sealer.seal(bare, payload), bare), payload, 'no arguments')
  t.same(sealer.open(sealer.seal(binding, { when: new Date(0) }), binding), { when: '1970-01-01T00:00:00.000Z' }, 'through JSON: a Date comes back as a string')
})

t.test('token format: v1., base64url, key id, random IV', async (t) => {
  const { sealer } = sealerWith({ keys: [k1, k2] })
  const a = sealer.seal(binding, payload)
  const b = sealer.seal(binding, payload)
  t.match(a, /^v1\.[A-Za-z0-9_-]+$/, 'v1. then unpadded base64url')
  t.not(a, b, 'two seals of the same thing differ (fresh IV)')
  t.same(blobOf(a).subarray(0, 8), blobOf(b).subarray(0, 8), 'same key id for the same sealing key')
  t.not(blobOf(a).subarray(8, 20).toString('hex'), blobOf(b).subarray(8, 20).toString('hex'), 'different 12-byte IVs')
  const other = sealerWith({ keys: [k2] }).sealer.seal(binding, payload)
  t.not(blobOf(a).subarray(0, 8).toString('hex'), blobOf(other).subarray(0, 8).toString('hex'), 'another key, another key id')
  t.notMatch(a, /user-42|deploy|tools|accept/, 'nothing readable inside')
  const plaintextLength = JSON.stringify(payload).length
  t.ok(blobOf(a).length > 8 + 12 + 16 + plaintextLength, 'key id, IV, ciphertext (binding, expiry, payload) and tag')
})

t.test('argument key order does not matter; values and array order do', async (t) => {
  const { sealer } = sealerWith({ keys: [k1] })
  const token = sealer.seal(binding, payload)
  const reordered = { ...binding, arguments: { options: { tags: ['a', 'b'], dryRun: false }, region: 'eu-west-1', service: 'api' } }
  t.same(sealer.open(token, reordered), payload, 'keys reordered at every depth')
  const withUndefined = { ...binding, arguments: { ...(binding.arguments as object), ignored: undefined } }
  t.same(sealer.open(token, withUndefined), payload, 'an undefined member is absent, as in JSON')
  const swapped = { ...binding, arguments: { service: 'api', region: 'eu-west-1', options: { dryRun: false, tags: ['b', 'a'] } } }
  t.same(rejection(t, () => sealer.open(token, swapped), 'mismatch').differs, ['arguments'], 'array order is meaning')
  const changed = { ...binding, arguments: { service: 'api', region: 'eu-west-1', options: { dryRun: true, tags: ['a', 'b'] } } }
  t.same(rejection(t, () => sealer.open(token, changed), 'mismatch').differs, ['arguments'])
})

t.test('canonicalJson and digestArguments', async (t) => {
  t.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } }), '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}')
  t.equal(canonicalJson({ a: undefined, b: () => 1, c: Symbol('s'), d: null }), '{"d":null}', 'members JSON drops are dropped')
  t.equal(canonicalJson([undefined, () => 1, Symbol('s'), NaN, Infinity]), '[null,null,null,null,null]', 'array slots JSON nulls are nulled')
  t.equal(canonicalJson(undefined), 'null')
  t.equal(canonicalJson('é"\n'), JSON.stringify('é"\n'))
  t.equal(canonicalJson({ 'a"b': 1 }), '{"a\\"b":1}', 'keys are escaped')
  t.throws(() => canonicalJson(1n), TypeError, 'a bigint throws, as in JSON')
  t.equal(digestArguments({ x: 1, y: 2 }), digestArguments({ y: 2, x: 1 }))
  t.equal(digestArguments(undefined), digestArguments(null), 'no arguments digest like null')
  t.not(digestArguments({}), digestArguments(null), 'but {} is not null')
  t.match(digestArguments({}), /^[A-Za-z0-9_-]{43}$/, 'SHA-256, base64url')
})

t.test('missing and malformed tokens', async (t) => {
  const { sealer } = sealerWith({ keys: [k1] })
  const token = sealer.seal(binding, payload)
  t.match(rejection(t, () => sealer.open(undefined, binding), 'missing').message, /inputResponses came without the requestState they answer/)
  t.match(rejection(t, () => sealer.open(42, binding), 'malformed').message, /requestState is not one this server issued \(it must be a string, got a number\)/)
  t.match(rejection(t, () => sealer.open(null, binding), 'malformed').message, /got null/)
  t.match(rejection(t, () => sealer.open({}, binding), 'malformed').message, /got an object/)
  t.match(rejection(t, () => sealer.open([token], binding), 'malformed').message, /got an array/)
  t.match(rejection(t, () => sealer.open('', binding), 'malformed').message, /unknown format: expected a 'v1\.' prefix/)
  t.match(rejection(t, () => sealer.open('eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0', binding), 'malformed').message, /expected a 'v1\.' prefix/, 'plain base64 JSON from some other server')
  t.match(rejection(t, () => sealer.open(token.slice(0, 10) + '!' + token.slice(11), binding), 'malformed').message, /\(it is not base64url\)/)
  t.match(rejection(t, () => sealer.open(token + '=', binding), 'malformed').message, /not base64url/, 'padding: not our spelling')
  t.match(rejection(t, () => sealer.open(token.replace(/-/g, '+').replace(/_/g, '/') + (token.includes('-') || token.includes('_') ? '' : '+'), binding), 'malformed').message, /not base64url/, 'the standard alphabet is not our spelling')
  t.match(rejection(t, () => sealer.open('v1.', binding), 'malformed').message, /\(it is too short\)/)
  t.match(rejection(t, () => sealer.open(tokenOf(blobOf(token).subarray(0, 36)), binding), 'malformed').message, /too short/, 'key id, IV and tag but no ciphertext')
})

t.test('tampering with one byte of each part', async (t) => {
  const { sealer } = sealerWith({ keys: [k1, k2] })
  const token = sealer.seal(binding, payload)
  const blob = blobOf(token)
  t.same(sealer.open(tokenOf(blob), binding), payload, 'untouched, it opens')

  // prefix
  t.match(rejection(t, () => sealer.open('v2.' + token.slice(3), binding), 'malformed').message, /expected a 'v1\.' prefix/, 'version byte')
  t.match(rejection(t, () => sealer.open('v1:' + token.slice(3), binding), 'malformed').message, /expected a 'v1\.' prefix/, 'separator byte')

  // key id: a random flip names no key; the id of another key of the ring fails the tag (the id is AAD)
  t.match(rejection(t, () => sealer.open(tokenOf(flip(blob, 0)), binding), 'unknown-key').message, /sealed with a key this server does not hold/)
  const otherId = blobOf(sealerWith({ keys: [k2] }).sealer.seal(binding, payload)).subarray(0, 8)
  const swapped = Buffer.concat([otherId, blob.subarray(8)])
  t.match(rejection(t, () => sealer.open(tokenOf(swapped), binding), 'tampered').message, /requestState failed its integrity check \(it was altered or corrupted\)/, 'key id of another ring key')

  const parts: Array<[string, number]> = [
    ['iv, first byte', 8],
    ['iv, last byte', 19],
    ['ciphertext, first byte', 20],
    ['ciphertext, last byte', blob.length - 17],
    ['tag, first byte', blob.length - 16],
    ['tag, last byte', blob.length - 1]
  ]
  for (const [part, at] of parts) {
    rejection(t, () => sealer.open(tokenOf(flip(blob, at)), binding), 'tampered')
    t.pass(part)
  }
  rejection(t, () => sealer.open(tokenOf(blob.subarray(0, blob.length - 1)), binding), 'tampered')
  rejection(t, () => sealer.open(tokenOf(Buffer.concat([blob, Buffer.from([0])])), binding), 'tampered')
})

t.test('minted for another call: the message says which part differs', async (t) => {
  const { sealer } = sealerWith({ keys: [k1] })
  const token = sealer.seal(binding, payload)
  const cases: Array<[string, Partial<RequestStateBinding>, string[], RegExp]> = [
    ['another caller', { subject: 'user-43' }, ['caller'], /minted for another call \(the caller differs\)/],
    ['no caller (auth off)', { subject: undefined }, ['caller'], /the caller differs/],
    ['another method', { method: 'prompts/get' }, ['method'], /\(the method differs\)/],
    ['another name', { name: 'destroy' }, ['name'], /\(the name differs\)/],
    ['other arguments', { arguments: { service: 'db' } }, ['arguments'], /\(the arguments differ\)/],
    ['two parts', { subject: 'user-43', arguments: {} }, ['caller', 'arguments'], /\(the caller and the arguments differ\)/],
    ['every part', { subject: 'x', method: 'resources/read', name: 'file:///x', arguments: null }, ['caller', 'method', 'name', 'arguments'], /\(the caller, the method, the name and the arguments differ\)/]
  ]
  for (const [what, change, differs, message] of cases) {
    const error = rejection(t, () => sealer.open(token, { ...binding, ...change }), 'mismatch')
    t.same(error.differs, differs, what)
    t.match(error.message, message, what)
    t.notMatch(error.message, /user-4|deploy|eu-west|accept/, `${what}: nothing from inside the token is echoed`)
  }
  const anonymous = sealer.seal({ ...binding, subject: undefined }, payload)
  t.same(rejection(t, () => sealer.open(anonymous, binding), 'mismatch').differs, ['caller'], 'minted without auth, presented with a subject')
  t.same(Object.isFrozen(rejection(t, () => sealer.open(anonymous, binding), 'mismatch').differs), true, 'differs is frozen')
  t.same(new RequestStateError('tampered', 'x').differs, [], 'differs is empty for other reasons')
})

t.test('expiry, on an injected clock', async (t) => {
  const { sealer, clock } = sealerWith({ keys: [k1], ttl: 60_000 })
  t.equal(sealer.ttl, 60_000)
  const token = sealer.seal(binding, payload)
  clock.now += 59_999
  t.same(sealer.open(token, binding), payload, 'one ms before expiry it opens')
  clock.now += 1
  t.match(rejection(t, () => sealer.open(token, binding), 'expired').message, /requestState expired 0 ms ago \(it is valid for 60 s\)/, 'at expiry it does not')
  clock.now += 250
  t.match(rejection(t, () => sealer.open(token, binding), 'expired').message, /expired 250 ms ago/)
  clock.now += 41_750
  t.match(rejection(t, () => sealer.open(token, binding), 'expired').message, /expired 42 s ago/)
  clock.now += 12 * 60_000
  t.match(rejection(t, () => sealer.open(token, binding), 'expired').message, /expired 13 min ago/)
  clock.now += 3 * 3_600_000
  t.match(rejection(t, () => sealer.open(token, binding), 'expired').message, /expired 3 h ago/)
  t.same(rejection(t, () => sealer.open(token, { ...binding, name: 'other' }), 'mismatch').differs, ['name'], 'an expired token for another call says "another call"')

  const { sealer: byDefault, clock: clock2 } = sealerWith({ keys: [k1] })
  t.equal(byDefault.ttl, 600_000, 'ten minutes by default')
  const late = byDefault.seal(binding, payload)
  clock2.now += 600_000
  t.match(rejection(t, () => byDefault.open(late, binding), 'expired').message, /\(it is valid for 10 min\)/)

  const real = new RequestStateSealer({ keys: [k1] })
  t.same(real.open(real.seal(binding, payload), binding), payload, 'Date.now by default')
})

t.test('rotation: the first key seals, every key opens', async (t) => {
  const old = sealerWith({ keys: [k1] }).sealer
  const rotating = sealerWith({ keys: [k2, k1] }).sealer
  const fromOld = old.seal(binding, payload)
  t.same(rotating.open(fromOld, binding), payload, 'sealed with [k1], opened with [k2, k1]')
  const fromNew = rotating.seal(binding, payload)
  t.same(sealerWith({ keys: [k2] }).sealer.open(fromNew, binding), payload, 'and [k2, k1] seals with k2')
  t.match(rejection(t, () => old.open(fromNew, binding), 'unknown-key').message, /rotated out of the key ring, or issued by another server/, 'sealed with k2, opened by a ring without k2')
  const rotated = sealerWith({ keys: [k2] }).sealer
  rejection(t, () => rotated.open(fromOld, binding), 'unknown-key')
})

t.test('a fleet: another instance with the same keys opens it, one with other keys refuses', async (t) => {
  const a = new RequestStateSealer({ keys: [k1.toString('base64')] })
  const b = new RequestStateSealer({ keys: [k1.toString('base64url')] })
  const c = new RequestStateSealer({ keys: [Uint8Array.from(k1)] })
  const d = new RequestStateSealer({ keys: [k3, k2] })
  const token = a.seal(binding, payload)
  t.same(b.open(token, binding), payload, 'same key as base64url')
  t.same(c.open(token, binding), payload, 'same key as bytes')
  t.same(a.open(c.seal(binding, payload), binding), payload, 'and back')
  rejection(t, () => d.open(token, binding), 'unknown-key')
  t.equal(a.ephemeral, false)
})

t.test('ephemeral: no keys, a random per-process key', async (t) => {
  const a = new RequestStateSealer()
  const b = new RequestStateSealer({})
  t.equal(a.ephemeral, true)
  t.equal(b.ephemeral, true)
  t.same(a.open(a.seal(binding, payload), binding), payload, 'opens its own tokens')
  rejection(t, () => b.open(a.seal(binding, payload), binding), 'unknown-key')
  t.equal(new RequestStateSealer({ keys: [k1] }).ephemeral, false, 'given keys: not ephemeral')
})

t.test('key options: accepted spellings', async (t) => {
  const base64 = k1.toString('base64')
  const spellings = [base64, base64.replace(/=+$/, ''), k1.toString('base64url'), `  ${base64}\n`]
  const token = new RequestStateSealer({ keys: [k1] }).seal(binding, payload)
  for (const spelling of spellings) {
    t.same(new RequestStateSealer({ keys: [spelling] }).open(token, binding), payload, JSON.stringify(spelling.length))
  }
  const bytes = Uint8Array.from(k2)
  const sealer = new RequestStateSealer({ keys: [bytes] })
  const sealed = sealer.seal(binding, payload)
  bytes.fill(0)
  t.same(sealer.open(sealed, binding), payload, 'the ring holds a copy: changing the array later changes nothing')
})

t.test('key options: refused with clear messages', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['empty list', [], /^requestState keys is empty: give at least one 32-byte key \(e\.g\. `openssl rand -base64 32`\), or leave keys out for a random per-process key$/],
    ['not an array', k1.toString('base64'), /^requestState keys must be an array of 32-byte keys \(base64 strings or bytes\), got a string$/],
    ['short string', [randomBytes(16).toString('base64')], /^requestState keys\[0\] decodes to 16 bytes; each key must be exactly 32 random bytes/],
    ['long string', [k1, randomBytes(48).toString('base64url')], /^requestState keys\[1\] decodes to 48 bytes; each key must be exactly 32 random bytes/],
    ['short bytes', [randomBytes(31)], /^requestState keys\[0\] is 31 bytes; each key must be exactly 32 random bytes$/],
    ['long bytes', [new Uint8Array(33)], /^requestState keys\[0\] is 33 bytes/],
    ['not base64', ['this is not base64!'], /^requestState keys\[0\] is not base64 or base64url text; give 32 random bytes encoded as base64/],
    ['mixed alphabets', [k1.toString('base64').slice(0, 41) + '-/'], /keys\[0\] is not base64 or base64url text/],
    ['too much padding', [k1.toString('base64url') + '==='], /keys\[0\] is not base64 or base64url text/],
    ['empty string', [''], /keys\[0\] is not base64 or base64url text/],
    ['blank string', ['   '], /keys\[0\] is not base64 or base64url text/],
    ['hex', [k1.toString('hex')], /^requestState keys\[0\] looks like hex; give the 32 bytes as base64 .* or as bytes \(Buffer\.from\(hex, 'hex'\)\)$/],
    ['a number', [12345], /^requestState keys\[0\] must be a base64 or base64url string or a Uint8Array of 32 bytes, got a number$/],
    ['null', [k1, null], /^requestState keys\[1\] must be .*, got null$/],
    ['an array of numbers', [[...k1]], /keys\[0\] must be .*, got an array$/],
    ['an object', [{ key: 'x' }], /keys\[0\] must be .*, got an object$/],
    ['the same key twice', [k1, k2, k1.toString('base64')], /^requestState keys\[2\] is the same key as keys\[0\]; each key of the ring must be different$/]
  ]
  for (const [what, keys, message] of cases) {
    try {
      // eslint-disable-next-line no-new
      new RequestStateSealer({ keys: keys as Array<string | Uint8Array> })
      t.fail(`${what}: accepted`)
    } catch (err) {
      t.ok(err instanceof SakeOptionError, `${what}: a SakeOptionError`)
      t.equal((err as SakeOptionError).code, 'SAKE_ERR_INVALID_OPTION')
      t.match((err as Error).message, message, what)
      t.notMatch((err as Error).message, new RegExp(k1.toString('hex').slice(0, 16)), `${what}: the key is not echoed`)
    }
  }
})

t.test('ttl and clock options', async (t) => {
  for (const ttl of [0, -1, NaN, Infinity]) {
    t.throws(() => new RequestStateSealer({ ttl }), new SakeOptionError(`requestState ttl must be a positive number of milliseconds, got ${String(ttl)}`))
  }
  t.throws(() => new RequestStateSealer({ ttl: '600000' as unknown as number }), { message: /ttl must be a positive number of milliseconds, got a string$/ })
  t.throws(() => new RequestStateSealer({ now: 5 as unknown as () => number }), new SakeOptionError('requestState now must be a function returning milliseconds, got a number'))
})

t.test('seal refuses a payload JSON cannot carry', async (t) => {
  const { sealer } = sealerWith({ keys: [k1] })
  t.throws(() => sealer.seal(binding, undefined), new TypeError('requestState payload must be a JSON value, got undefined'))
  t.throws(() => sealer.seal(binding, () => 1), { name: 'TypeError', message: /got a function$/ })
  t.throws(() => sealer.seal(binding, Symbol('s')), { name: 'TypeError', message: /got a symbol$/ })
  t.throws(() => sealer.seal(binding, { big: 1n }), TypeError, 'a bigint throws from JSON.stringify')
})
