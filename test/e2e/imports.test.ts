// What the built package loads (issue 41): a server that serves a 2026-07-28 tools/call over HTTP
// loads neither the client nor stdio, the Redis stores and ioredis, OpenTelemetry's api and our
// metrics, yaml (skills), jose (auth.jwks) nor ajv's other dialects; each loads once its feature is
// used. Each case is a fresh process (test/fixtures/imports.mjs) that lists every module it loaded:
// ES modules through a resolve hook, CommonJS ones from require.cache.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { startRedis } from '../helpers/redis.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

interface Run {
  /** What the case saw: the call's result (or status), spans, ... */
  readonly seen: Record<string, unknown>
  /** Every file loaded, relative to the repository's root. */
  readonly files: ReadonlySet<string>
}

async function run (which: string, ...args: string[]): Promise<Run> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['test/fixtures/imports.mjs', which, ...args], { cwd: root, maxBuffer: 16 * 1024 * 1024 })
  const esm = stderr.split('\n').filter((line) => line.startsWith('resolved file:')).map((line) => fileURLToPath(line.slice('resolved '.length)))
  const { seen, cjs } = JSON.parse(stdout) as { seen: Record<string, unknown>, cjs: string[] }
  return { seen, files: new Set([...esm, ...cjs].map((file) => file.startsWith(root) ? file.slice(root.length) : file)) }
}

/** The files of `run` under `prefix` (a package's folder, a folder of dist/, a file). */
function under (run: Run, prefix: string): string[] {
  return [...run.files].filter((file) => file.startsWith(prefix))
}

/** What a feature loads: the packages and the files of dist/ it alone needs. */
const FEATURES = {
  redis: ['node_modules/ioredis/', 'dist/state/redis/'],
  otel: ['node_modules/@opentelemetry/api/', 'dist/http/metrics.js'],
  skills: ['node_modules/yaml/'],
  jwks: ['node_modules/jose/'],
  stdio: ['dist/stdio/'],
  client: ['dist/client/index.js', 'dist/client/client.js'],
  // ajv's other dialects, with a schema that names one ($schema)
  dialects: ['node_modules/ajv/dist/2019.js']
}

t.test('serving a tools/call over HTTP loads none of the features it does not use', async (t) => {
  const plain = await run('plain')
  t.same(plain.seen.called, { sum: 3 }, 'the call was served')
  // what it does load, seen by both ways of looking: so an empty list below means something
  t.ok(plain.files.has('dist/index.js'), 'the package (an ES module)')
  t.ok(plain.files.has('node_modules/ajv/dist/2020.js'), 'ajv 2020-12, for the tool\'s schema (CommonJS)')
  t.ok(plain.files.has('dist/client/errors.js'), 'the client\'s errors, which the main entry exports')
  for (const [feature, prefixes] of Object.entries(FEATURES)) {
    for (const prefix of prefixes) t.same(under(plain, prefix), [], `${feature}: nothing of ${prefix}`)
  }
  t.same(under(plain, 'dist/client/').filter((file) => !file.endsWith('.map')), ['dist/client/errors.js'], 'of dist/client/, only its errors')
})

t.test('auth with a verify function of its own does not load jose either', async (t) => {
  const verify = await run('auth-verify')
  t.same(verify.seen.called, { sum: 3 })
  t.same(under(verify, 'node_modules/jose/'), [])
})

t.test('each feature loads what it needs once it is used', async (t) => {
  const redis = await startRedis(t)
  const cases: Array<[string, keyof typeof FEATURES, string[], unknown]> = [
    ['redis', 'redis', [redis.url], undefined],
    ['otel', 'otel', [], ['tools/call add']],
    ['skills', 'skills', [], undefined],
    ['auth-jwks', 'jwks', [], undefined],
    ['stdio', 'stdio', [], undefined],
    ['client', 'client', [], undefined],
    ['dialects', 'dialects', [], undefined]
  ]
  for (const [which, feature, args, spans] of cases) {
    const used = await run(which, ...args)
    t.ok(used.seen.called !== undefined, `${which}: served`)
    for (const prefix of FEATURES[feature]) t.not(under(used, prefix).length, 0, `${which}: ${prefix} loaded`)
    if (spans !== undefined) t.same(used.seen.spans, spans, `${which}: the call's span`)
  }
})

t.test('an OpenTelemetry SDK set up after the server started: the api loads then, and later calls are traced', async (t) => {
  const late = await run('otel-late')
  t.same(late.seen.called, { sum: 3 }, 'served before the SDK was there, without the api')
  for (const prefix of FEATURES.otel) t.not(under(late, prefix).length, 0, `${prefix} loaded`)
  t.same(late.seen.spans, ['tools/call add'], 'one traced call: the ones before the api was imported are not')
})
