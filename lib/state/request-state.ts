/**
 * Sealed `requestState` for Multi Round-Trip Requests (2026-07-28, `basic/patterns/mrtr.mdx`).
 *
 * The spec makes `requestState` attacker-controlled input: it goes out in an `InputRequiredResult`
 * and comes back, verbatim or not, on the client's retry. We carry the answers of earlier rounds in
 * it (so any instance of a fleet can serve any round, with no shared store), which means it drives
 * business logic and MUST be integrity-protected. We encrypt it too: answers can hold what a user
 * typed into an elicitation form, and the client has no business reading it back.
 *
 * Each token is bound to the call that minted it, as the spec's replay SHOULDs ask: the caller
 * (the authenticated subject), the method, the tool/prompt/resource name, a digest of the
 * arguments, and an expiry. It is not single-use: a server that needs "at most once" must track
 * that itself (the spec's warning says the same).
 *
 * The plugin makes one sealer per server (index.ts) from the `requestState` option, which
 * options.ts checks with `decodeKeys`.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto'
import { RequestStateError, SakeOptionError, type RequestStateBindingPart } from '../errors.js'

/** Token format version, and the prefix every token starts with. */
const VERSION = 'v1'
const PREFIX = `${VERSION}.`
/** Bytes of the key id: enough that two keys of one ring never collide by chance (2^-64). */
const KEY_ID_BYTES = 8
/**
 * GCM's standard nonce size, random per token: NIST's bound for random 96-bit nonces is 2^32
 * messages per key, far more tokens than one key seals between rotations.
 */
const IV_BYTES = 12
const TAG_BYTES = 16
const KEY_BYTES = 32
/** The shortest blob that can be ours: key id, IV, at least one byte of ciphertext, tag. */
const MIN_BLOB_BYTES = KEY_ID_BYTES + IV_BYTES + 1 + TAG_BYTES
/** Ten minutes: long enough for a person to answer an elicitation form, short enough to bound replay. */
const DEFAULT_TTL = 10 * 60 * 1000
/** Domain separation: the same secret used elsewhere (a cookie key, say) yields unrelated bytes here. */
const KEY_ID_LABEL = 'fastify-sake requestState key id\0'
const HKDF_INFO = `fastify-sake requestState ${VERSION} aes-256-gcm`

/** Options of {@link RequestStateSealer}. */
export interface RequestStateSealerOptions {
  /**
   * The key ring: 32-byte secrets, as base64 or base64url text (surrounding whitespace ignored) or
   * as bytes. The first key seals; every key opens, so a fleet rotates by putting the new key
   * first while the old one stays in the ring for one TTL. Leave out for one random key per process,
   * which only works when every round of a call reaches the same process (see `ephemeral`).
   */
  keys?: ReadonlyArray<string | Uint8Array>
  /** How long a token stays valid, in milliseconds. Default 10 minutes. */
  ttl?: number
  /** Clock in milliseconds, for tests. Default `Date.now`. */
  now?: () => number
  /**
   * Called once, at the first token sealed with the process's own random key (no `keys`): the
   * moment a call first asks the client something, when a fleet or a restart would break it.
   */
  onEphemeralSeal?: () => void
}

/**
 * What a token is bound to: the call that minted it. `open` must be given the binding of the
 * call presenting it, and refuses a token minted for a different one.
 */
export interface RequestStateBinding {
  /** The authenticated subject, or `undefined` when the server has no auth. */
  subject: string | undefined
  /** The JSON-RPC method: `tools/call`, `prompts/get` or `resources/read`. */
  method: string
  /** The tool or prompt name, or the resource URI. */
  name: string
  /**
   * The call's arguments as received (a JSON value). Only a SHA-256 digest of their canonical
   * JSON is kept, so object key order does not matter; `undefined` digests like `null`.
   */
  arguments: unknown
}

/** One key of the ring: its public id and the AES key derived from the secret. */
interface RingKey {
  id: Buffer
  key: KeyObject
}

/**
 * The sealed part, once decrypted. Short field names because every byte travels twice per round.
 * The binding is stored here rather than used as GCM's AAD: with AAD, a token presented on another
 * call would fail authentication exactly like a tampered one, and the error could not say which
 * part of the call differs. Inside the ciphertext it is just as authenticated, and compared in
 * the clear after decryption. (The token's header, version and key id, is the AAD instead.)
 */
interface Sealed {
  /** Expiry, ms since the epoch. */
  e: number
  /** Subject, or null without auth. */
  s: string | null
  /** Method. */
  m: string
  /** Name. */
  n: string
  /** SHA-256 of the arguments' canonical JSON, base64url. */
  a: string
  /** The payload. */
  p: unknown
}

/**
 * Seals and opens `requestState` tokens with AES-256-GCM under a key ring.
 *
 * Token: `v1.` followed by base64url (no padding) of `keyId(8) ‖ iv(12) ‖ ciphertext ‖ tag(16)`.
 * The key id is the first 8 bytes of SHA-256 over a label and the secret, so `open` picks the key
 * directly; `v1.` and the key id are the AAD, so neither can be swapped without failing the tag.
 * The ciphertext holds the binding, the expiry and the payload as JSON.
 *
 * @example
 * const sealer = new RequestStateSealer({ keys: [process.env.MCP_STATE_KEY!] })
 * const binding = { subject: user?.id, method: call.method, name: 'deploy', arguments: args }
 * const requestState = sealer.seal(binding, { answers })
 * // next round, on any instance holding the key:
 * const { answers } = sealer.open(params.requestState, binding) as { answers: Record<string, unknown> }
 */
export class RequestStateSealer {
  /**
   * True when no keys were given and this process made up its own: tokens then open only in this
   * process and only until it restarts, so a fleet (or a restart between rounds) needs `keys`.
   */
  readonly ephemeral: boolean
  /** Lifetime of a token in milliseconds. */
  readonly ttl: number
  private readonly now: () => number
  /** The sealing key: the first of the ring. */
  private readonly current: RingKey
  /** Every key by its id (hex), for `open`. */
  private readonly ring = new Map<string, RingKey>()
  private onEphemeralSeal: (() => void) | undefined

  constructor (options: RequestStateSealerOptions = {}) {
    const { keys, ttl = DEFAULT_TTL, now = Date.now } = options
    if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl <= 0) {
      throw new SakeOptionError(`requestState ttl must be a positive number of milliseconds, got ${typeof ttl === 'number' ? String(ttl) : describeValue(ttl)}`)
    }
    if (typeof now !== 'function') {
      throw new SakeOptionError(`requestState now must be a function returning milliseconds, got ${describeValue(now)}`)
    }
    this.ttl = ttl
    this.now = now
    this.ephemeral = keys === undefined
    this.onEphemeralSeal = this.ephemeral ? options.onEphemeralSeal : undefined
    const secrets = keys === undefined ? [randomBytes(KEY_BYTES)] : decodeKeys(keys)
    const rings = secrets.map(toRingKey)
    // distinct secrets: their ids differ, short of a 2^-64 accident
    for (const entry of rings) this.ring.set(entry.id.toString('hex'), entry)
    this.current = rings[0] as RingKey
  }

  /**
   * Seals `payload` (any JSON value; it goes through `JSON.stringify`, so a `Date` comes back as a
   * string) for the call described by `binding`, valid for `ttl` from now.
   * @returns the token, to send as `requestState`.
   * @throws TypeError when `payload` is not representable as JSON.
   */
  seal (binding: RequestStateBinding, payload: unknown): string {
    if (payload === undefined || typeof payload === 'function' || typeof payload === 'symbol') {
      // JSON.stringify would drop the field silently and `open` would hand back undefined.
      throw new TypeError(`requestState payload must be a JSON value, got ${describeValue(payload)}`)
    }
    if (this.onEphemeralSeal !== undefined) {
      const once = this.onEphemeralSeal
      this.onEphemeralSeal = undefined
      once()
    }
    const sealed: Sealed = {
      e: this.now() + this.ttl,
      s: binding.subject ?? null,
      m: binding.method,
      n: binding.name,
      a: digestArguments(binding.arguments),
      p: payload
    }
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv, { authTagLength: TAG_BYTES })
    cipher.setAAD(header(this.current.id))
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(sealed), 'utf8'), cipher.final()])
    return PREFIX + Buffer.concat([this.current.id, iv, ciphertext, cipher.getAuthTag()]).toString('base64url')
  }

  /**
   * Opens a token for the call described by `binding`: checks format, key, integrity, binding
   * (every part) and expiry, in that order, and returns the payload.
   * @param token the `requestState` the client sent; `undefined` when it sent none.
   * @throws RequestStateError (-32602) saying which check failed.
   */
  open (token: unknown, binding: RequestStateBinding): unknown {
    if (token === undefined) {
      throw new RequestStateError('missing', 'inputResponses came without the requestState they answer')
    }
    if (typeof token !== 'string') {
      throw malformed(`it must be a string, got ${describeValue(token)}`)
    }
    if (!token.startsWith(PREFIX)) {
      throw malformed(`unknown format: expected a '${PREFIX}' prefix`)
    }
    const text = token.slice(PREFIX.length)
    const blob = Buffer.from(text, 'base64url')
    // Node's decoder skips characters it does not know; re-encoding catches them, and refuses the
    // non-canonical spellings (padding, stray low bits) so one token has exactly one spelling.
    if (blob.toString('base64url') !== text) {
      throw malformed('it is not base64url')
    }
    if (blob.length < MIN_BLOB_BYTES) {
      throw malformed('it is too short')
    }
    const id = blob.subarray(0, KEY_ID_BYTES)
    const entry = this.ring.get(id.toString('hex'))
    if (entry === undefined) {
      throw new RequestStateError('unknown-key', 'requestState was sealed with a key this server does not hold (rotated out of the key ring, or issued by another server)')
    }
    const iv = blob.subarray(KEY_ID_BYTES, KEY_ID_BYTES + IV_BYTES)
    const ciphertext = blob.subarray(KEY_ID_BYTES + IV_BYTES, blob.length - TAG_BYTES)
    const tag = blob.subarray(blob.length - TAG_BYTES)
    let sealed: Sealed
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, iv, { authTagLength: TAG_BYTES })
      decipher.setAAD(header(id))
      decipher.setAuthTag(tag)
      const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()])
      // Authenticated plaintext was written by `seal` of this format version under a key of the
      // ring, so its shape is trusted: no field-by-field checks on our own output.
      sealed = JSON.parse(plaintext.toString('utf8')) as Sealed
    } catch {
      throw new RequestStateError('tampered', 'requestState failed its integrity check (it was altered or corrupted)')
    }
    // Binding before expiry: a token replayed by someone else says so even once it has lapsed.
    const differs: RequestStateBindingPart[] = []
    if (sealed.s !== (binding.subject ?? null)) differs.push('caller')
    if (sealed.m !== binding.method) differs.push('method')
    if (sealed.n !== binding.name) differs.push('name')
    if (sealed.a !== digestArguments(binding.arguments)) differs.push('arguments')
    if (differs.length > 0) {
      const verb = differs.length === 1 && differs[0] !== 'arguments' ? 'differs' : 'differ' // "the arguments" is plural
      throw new RequestStateError('mismatch', `requestState was minted for another call (${joinParts(differs)} ${verb})`, differs)
    }
    // Each instance compares with its own clock: a fleet's skew of seconds is noise against a TTL of minutes.
    const late = this.now() - sealed.e
    if (late >= 0) {
      throw new RequestStateError('expired', `requestState expired ${formatDuration(late)} ago (it is valid for ${formatDuration(this.ttl)})`)
    }
    return sealed.p
  }
}

/**
 * SHA-256 of the canonical JSON of `value` (object keys sorted at every depth, no whitespace),
 * base64url. Key order is not meaning in JSON, and a client re-serialising its arguments for the
 * retry may well reorder them.
 */
export function digestArguments (value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url')
}

/**
 * JSON with object keys sorted, so that equal values give equal text. Follows `JSON.stringify`
 * otherwise: `undefined`, functions and symbols vanish from objects and become `null` elsewhere,
 * non-finite numbers become `null`, a bigint throws.
 */
export function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(',')}]`
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>
    const members: string[] = []
    for (const key of Object.keys(record).sort()) {
      const member = record[key]
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue
      members.push(`${JSON.stringify(key)}:${canonicalJson(member)}`)
    }
    return `{${members.join(',')}}`
  }
  // Scalars: JSON.stringify gives undefined for undefined, functions and symbols.
  return JSON.stringify(value) ?? 'null'
}

/**
 * The `keys` option as the ring's secrets: a non-empty array of distinct 32-byte keys, decoded (and
 * copied, so later changes to the caller's arrays do not reach the ring). Throws a `SakeOptionError`
 * naming the key at fault: options.ts checks the option with it at registration, before the
 * plugin builds the sealer.
 */
export function decodeKeys (keys: unknown): Buffer[] {
  if (!Array.isArray(keys)) {
    throw new SakeOptionError(`requestState keys must be an array of 32-byte keys (base64 strings or bytes), got ${describeValue(keys)}`)
  }
  if (keys.length === 0) {
    throw new SakeOptionError('requestState keys is empty: give at least one 32-byte key (e.g. `openssl rand -base64 32`), or leave keys out for a random per-process key')
  }
  const secrets = keys.map((key, index) => decodeKey(key, index))
  for (const [index, secret] of secrets.entries()) {
    const earlier = secrets.findIndex((other) => other.equals(secret))
    // the same secret listed twice: a copy-paste slip during rotation that would leave the ring
    // one key short of what its owner believes
    if (earlier < index) throw new SakeOptionError(`requestState keys[${index}] is the same key as keys[${earlier}]; each key of the ring must be different`)
  }
  return secrets
}

/** A configured key as its 32 secret bytes, or a `SakeOptionError` naming what is wrong with it. */
function decodeKey (key: unknown, index: number): Buffer {
  const where = `requestState keys[${index}]`
  if (key instanceof Uint8Array) {
    if (key.length !== KEY_BYTES) {
      throw new SakeOptionError(`${where} is ${key.length} bytes; each key must be exactly ${KEY_BYTES} random bytes`)
    }
    return Buffer.from(key) // a copy: later changes to the caller's array do not reach the ring
  }
  if (typeof key !== 'string') {
    throw new SakeOptionError(`${where} must be a base64 or base64url string or a Uint8Array of ${KEY_BYTES} bytes, got ${describeValue(key)}`)
  }
  const text = key.trim()
  if (/^[0-9a-fA-F]{64}$/.test(text)) {
    // 64 hex digits are also valid base64, of 48 bytes: name the likely slip instead.
    throw new SakeOptionError(`${where} looks like hex; give the 32 bytes as base64 (e.g. \`openssl rand -base64 32\`) or as bytes (Buffer.from(hex, 'hex'))`)
  }
  // One alphabet or the other (mixing them is not a spelling anyone produces), padding optional.
  if (text === '' || !/^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/.test(text)) {
    throw new SakeOptionError(`${where} is not base64 or base64url text; give ${KEY_BYTES} random bytes encoded as base64 (e.g. \`openssl rand -base64 32\`)`)
  }
  const bytes = Buffer.from(text.replace(/=+$/, ''), 'base64url')
  if (bytes.length !== KEY_BYTES) {
    throw new SakeOptionError(`${where} decodes to ${bytes.length} bytes; each key must be exactly ${KEY_BYTES} random bytes (e.g. \`openssl rand -base64 32\`)`)
  }
  return bytes
}

/**
 * The id and AES key of one secret. The AES key comes out of HKDF rather than being the secret
 * itself, so a secret shared with another purpose is not used raw for two algorithms.
 */
function toRingKey (secret: Buffer): RingKey {
  const id = createHash('sha256').update(KEY_ID_LABEL).update(secret).digest().subarray(0, KEY_ID_BYTES)
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), HKDF_INFO, KEY_BYTES)))
  return { id, key }
}

/** The AAD: the token's version prefix and key id. */
function header (id: Buffer): Buffer {
  return Buffer.concat([Buffer.from(PREFIX, 'ascii'), id])
}

function malformed (detail: string): RequestStateError {
  return new RequestStateError('malformed', `requestState is not one this server issued (${detail})`)
}

/** `the caller`, `the method and the name`, `the method, the name and the arguments`. */
function joinParts (parts: RequestStateBindingPart[]): string {
  const named = parts.map((part) => `the ${part}`)
  const last = named.pop() as string
  return named.length === 0 ? last : `${named.join(', ')} and ${last}`
}

/** `850 ms`, `42 s`, `12 min`, `3 h`: enough to tell "just missed it" from "left overnight". */
function formatDuration (ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`
  return `${Math.round(ms / 3_600_000)} h`
}

/** A value's kind for an error message, without its content (a key or token must never be echoed). */
function describeValue (value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
