import t from 'tap'
import Fastify from 'fastify'
import { resolveOptions, checkCallOptions } from '../../lib/client/read-options.js'

const url = 'http://127.0.0.1:3000/mcp'

t.test('defaults', async (t) => {
  t.match(resolveOptions({ url }), {
    url,
    era: 'auto',
    legacyVersion: '2025-11-25',
    headers: {},
    timeout: 60_000,
    clientInfo: { name: 'fastify-sake-client', version: '0.1.0' },
    unanswered: 'decline',
    maxRounds: 10
  })
  t.ok(Object.isFrozen(resolveOptions({ url: new URL(url) })))
  const answers = { who: { action: 'accept' as const, content: { name: 'Ada' } } }
  t.match(resolveOptions({ url, fetch: globalThis.fetch, token: 't', headers: { 'x-api-key': 'k' }, onInput: answers }), { fetch: globalThis.fetch, token: 't', headers: { 'x-api-key': 'k' }, onInput: answers }, 'given ones are kept')
  const app = Fastify()
  t.equal(resolveOptions({ app, path: '/x/mcp' }).app, app)
  t.equal(resolveOptions({ url }).process, undefined)
  const spawned = resolveOptions({ command: 'node' })
  t.match(spawned, { url: undefined, app: undefined, process: { command: 'node', args: [], env: {}, cwd: undefined, stderr: 'pipe', closeTimeout: 5000 } })
  t.ok(Object.isFrozen(spawned.process) && Object.isFrozen(spawned.process!.args) && Object.isFrozen(spawned.process!.env))
  const env = { TOKEN: 'x', HOME: undefined }
  const cwd = new URL('file:///tmp/')
  t.same(resolveOptions({ command: 'node', args: ['s.js', '--stdio'], env, cwd, stderr: 'inherit', closeTimeout: 100, era: 'legacy' }).process,
    { command: 'node', args: ['s.js', '--stdio'], env, cwd, stderr: 'inherit', closeTimeout: 100 })
})

/** Each bad option and (part of) the message that must say what to change. */
const BAD: Array<[unknown, RegExp]> = [
  [undefined, /option '\(the options\)' must be an object with 'url' \(HTTP\), 'app' .* or 'command'/],
  [{}, /give exactly one of 'url' .*, 'app' .* and 'command' .*, got none$/],
  [{ url, app: Fastify() }, /got 'url' and 'app'$/],
  [{ url, command: 'node' }, /got 'url' and 'command'$/],
  [{ command: '' }, /option 'command' must be a non-empty string: the program to start/],
  [{ command: ['node'] }, /option 'command' must be a non-empty string/],
  [{ command: 'node', args: 'server.js' }, /option 'args' must be an array of strings/],
  [{ command: 'node', args: ['server.js', 1] }, /option 'args' must be an array of strings/],
  [{ command: 'node', env: { PORT: 3000 } }, /option 'env' must be an object of variable names to string values/],
  [{ command: 'node', env: 'PORT=3000' }, /option 'env' must be an object/],
  [{ command: 'node', cwd: 42 }, /option 'cwd' must be a directory, as a path or a file: URL, got 42/],
  [{ command: 'node', cwd: new URL('http://x/') }, /option 'cwd' must be a directory, as a path or a file: URL/],
  [{ command: 'node', stderr: 'file' }, /option 'stderr' must be 'pipe', 'inherit' or 'ignore'/],
  [{ command: 'node', closeTimeout: 0 }, /option 'closeTimeout' must be a positive integer of milliseconds/],
  [{ command: 'node', fetch }, /option 'fetch' must be absent with 'command' \(the client speaks to the process over its stdin and stdout\)/],
  [{ command: 'node', path: '/mcp' }, /option 'path' must be absent with 'command'/],
  [{ command: 'node', headers: { 'x-api-key': 'k' } }, /option 'headers' must be absent with 'command' \(stdio carries no HTTP headers: give the server what it needs in 'env'\)/],
  [{ command: 'node', token: 't' }, /option 'token' must be absent with 'command' \(.*'env'\)/],
  [{ url, args: ['x'] }, /option 'args' must be absent without 'command'/],
  [{ app: Fastify(), closeTimeout: 5 }, /option 'closeTimeout' must be absent without 'command'/],
  [{ url, tiemout: 5 }, /unknown option 'tiemout' \(did you mean 'timeout'\?\)/],
  [{ url, zzzzzz: 1 }, /unknown option 'zzzzzz'; known ones are url, fetch/],
  [{ url: 42 }, /option 'url' must be an absolute http\(s\) URL, as a string or a URL, got 42/],
  [{ url: 'ftp://x/mcp' }, /option 'url' must be an absolute http\(s\) URL/],
  [{ url: '/mcp' }, /option 'url' must be an absolute/],
  [{ url, fetch: 'no' }, /option 'fetch' must be a function/],
  [{ url, path: '/mcp' }, /option 'path' must be absent with 'url'/],
  [{ app: {} }, /option 'app' must be a Fastify instance/],
  [{ app: Fastify(), fetch }, /option 'fetch' must be absent with 'app'/],
  [{ app: Fastify(), path: 'mcp' }, /option 'path' must be a path starting with '\/'/],
  [{ url, era: 'new' }, /option 'era' must be 'modern', 'legacy' or 'auto'/],
  [{ url, legacyVersion: '2024-11-05' }, /option 'legacyVersion' must be '2025-11-25', '2025-06-18', '2025-03-26'/],
  [{ url, headers: { a: 1 } }, /option 'headers' must be an object of header names to string values/],
  [{ url, token: 5 }, /option 'token' must be a string or a function/],
  [{ url, timeout: 0 }, /option 'timeout' must be a positive integer of milliseconds/],
  [{ url, timeout: 2 ** 31 }, /at most 2147483647/],
  [{ url, clientInfo: { name: 'x' } }, /option 'clientInfo' must be \{ name: string, version: string \}/],
  [{ url, capabilities: [] }, /option 'capabilities' must be an object/],
  [{ url, onInput: 'yes' }, /option 'onInput' must be a map from question key to an answer/],
  [{ url, onInput: { who: 'Ada' } }, /option 'onInput.who' must be an answer/],
  [{ url, unanswered: 'ignore' }, /option 'unanswered' must be 'decline', 'cancel' or 'error'/],
  [{ url, maxRounds: 0 }, /option 'maxRounds' must be a positive integer/],
  [{ url, logLevel: 'loud' }, /option 'logLevel' must be one of debug, info/]
]

t.test('a wrong option fails at creation, saying what to change', async (t) => {
  for (const [options, message] of BAD) {
    t.throws(() => resolveOptions(options), { name: 'SakeClientOptionError', code: 'SAKE_ERR_INVALID_CLIENT_OPTION', message }, String(message))
  }
})

const BAD_CALL: Array<[unknown, RegExp]> = [
  ['x', /option '\(call options\)' must be an object/],
  [{ singal: AbortSignal.abort() }, /unknown call option 'singal' \(did you mean 'signal'\?\)/],
  [{ signal: {} }, /option 'signal' must be an AbortSignal/],
  [{ timeout: -1 }, /option 'timeout' must be a positive integer/],
  [{ onInput: [] }, /option 'onInput' must be a map/],
  [{ unanswered: 'no' }, /option 'unanswered' must be/],
  [{ onProgress: 1 }, /option 'onProgress' must be a function/],
  [{ onLog: 'x' }, /option 'onLog' must be a function/],
  [{ logLevel: 'all' }, /option 'logLevel' must be one of/],
  [{ headers: 'x' }, /option 'headers' must be an object/],
  [{ meta: 1 }, /option 'meta' must be an object/],
  [{ task: 'yes' }, /option 'task' must be true, or \{ ttl \}/],
  [{ task: { ttl: 0 } }, /option 'task' must be true, or \{ ttl \}/],
  [{ fresh: 1 }, /option 'fresh' must be a boolean/]
]

t.test("a call's wrong option fails before anything is sent", async (t) => {
  for (const [options, message] of BAD_CALL) t.throws(() => checkCallOptions(options), { name: 'SakeClientOptionError', message }, String(message))
  t.doesNotThrow(() => checkCallOptions(undefined))
  t.doesNotThrow(() => checkCallOptions({ signal: AbortSignal.timeout(10), timeout: 5, onInput: () => undefined, unanswered: 'cancel', onProgress () {}, onLog () {}, logLevel: 'info', headers: { a: 'b' }, meta: {}, task: { ttl: 5 }, fresh: true }))
  t.doesNotThrow(() => checkCallOptions({ task: true }))
})
