// allowedHosts / allowedOrigins: what registration accepts and refuses, with the messages, and the
// helpers the checks are built on.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import sake from '../../lib/index.js'
import { resolveOptions } from '../../lib/options.js'
import { isLoopback, splitHost } from '../../lib/http/origin.js'

const base = { name: 'test-server', version: '1.0.0' }

async function refused (t: Test, options: Record<string, unknown>, message: RegExp | string): Promise<void> {
  const app = Fastify({ logger: false })
  await t.rejects(async () => { await app.register(sake, { ...base, ...options } as any) }, { code: 'SAKE_ERR_INVALID_OPTION', name: 'SakeOptionError', message }, String(message))
  await app.close()
}

t.test('defaults: undefined (the loopback default) for both', async (t) => {
  const resolved = resolveOptions(base)
  t.equal(resolved.allowedHosts, undefined)
  t.equal(resolved.allowedOrigins, undefined)
})

t.test('false turns a check off', async (t) => {
  const resolved = resolveOptions({ ...base, allowedHosts: false, allowedOrigins: false })
  t.equal(resolved.allowedHosts, false)
  t.equal(resolved.allowedOrigins, false)
})

t.test('lists are normalised and frozen', async (t) => {
  const resolved = resolveOptions({
    ...base,
    allowedHosts: ['LocalHost', 'mcp.example.com:8443', '[::1]', '[::1]:3000', '10.0.0.1', ' spaced.example '],
    allowedOrigins: ['https://App.Example.com', 'http://localhost:5173', 'http://[::1]:8080']
  })
  t.same(resolved.allowedHosts, ['localhost', 'mcp.example.com:8443', '[::1]', '[::1]:3000', '10.0.0.1', 'spaced.example'])
  t.same(resolved.allowedOrigins, ['https://app.example.com', 'http://localhost:5173', 'http://[::1]:8080'])
  t.ok(Object.isFrozen(resolved.allowedHosts) && Object.isFrozen(resolved.allowedOrigins))
})

t.test('allowedHosts refusals', async (t) => {
  const accepts = "must be a non-empty array of host names \\('localhost', 'mcp.example.com:8443'\\), or false to turn the check off"
  await refused(t, { allowedHosts: [] }, new RegExp(`^fastify-sake: option 'allowedHosts' ${accepts}, got \\[\\] \\(array\\)$`))
  await refused(t, { allowedHosts: true }, new RegExp(`option 'allowedHosts' ${accepts}, got true \\(boolean\\)$`))
  await refused(t, { allowedHosts: 'localhost' }, new RegExp(`option 'allowedHosts' ${accepts}, got "localhost" \\(string\\)$`))
  await refused(t, { allowedHosts: null }, /option 'allowedHosts' must be .* got null \(null\)$/)
  await refused(t, { allowedHosts: ['localhost', 42] }, "fastify-sake: option 'allowedHosts[1]' is not a non-empty string; got 42 (number)")
  await refused(t, { allowedHosts: [''] }, "fastify-sake: option 'allowedHosts[0]' is not a non-empty string; got \"\" (string)")
  await refused(t, { allowedHosts: ['http://localhost:3000'] }, /^fastify-sake: option 'allowedHosts\[0\]' is a URL; give a host name such as localhost or localhost:3000 \(full origins go in allowedOrigins\); got "http:\/\/localhost:3000" \(string\)$/)
  const notHost = /option 'allowedHosts\[0\]' is not a host name with an optional port \(IPv6 addresses in brackets: \[::1\]:3000\)/
  for (const bad of ['local host', 'localhost:', 'localhost:99999', 'localhost:abc', '::1', '[::1', 'a..b', '-a.com', 'a.com/path', 'a.com:80:80']) {
    await refused(t, { allowedHosts: [bad] }, notHost)
  }
})

t.test('allowedOrigins refusals', async (t) => {
  await refused(t, { allowedOrigins: [] }, /^fastify-sake: option 'allowedOrigins' must be a non-empty array of origins \('https:\/\/app\.example\.com'\), or false to turn the check off, got \[\] \(array\)$/)
  await refused(t, { allowedOrigins: [7] }, "fastify-sake: option 'allowedOrigins[0]' is not a non-empty string; got 7 (number)")
  const notOrigin = /^fastify-sake: option 'allowedOrigins\[0\]' is not an origin: give a scheme, a host and an optional port, such as https:\/\/app\.example\.com or http:\/\/localhost:5173, with no path, no trailing slash and no default port; got /
  for (const bad of ['localhost:3000', 'app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'https://app.example.com:443', 'null', 'file:///tmp/x', 'https://user@app.example.com', 'https://app.example.com?x', '*']) {
    await refused(t, { allowedOrigins: [bad] }, notOrigin)
  }
})

t.test('splitHost', async (t) => {
  t.same(splitHost('LOCALHOST:3000'), { name: 'localhost', port: '3000' })
  t.same(splitHost('127.0.0.1'), { name: '127.0.0.1', port: '' })
  t.same(splitHost('[::1]:8080'), { name: '[::1]', port: '8080' })
  t.same(splitHost('[::1]'), { name: '[::1]', port: '' })
  for (const bad of ['', ':80', '[::1]x', 'a b', 'localhost:65536', 'evil.example.com@localhost']) t.equal(splitHost(bad), undefined, JSON.stringify(bad))
})

t.test('isLoopback', async (t) => {
  for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) t.ok(isLoopback(address), address)
  for (const address of [undefined, '10.0.0.1', '::', '::ffff:10.0.0.1', '0.0.0.0', '127.example', 'fe80::1']) t.notOk(isLoopback(address), String(address))
})
